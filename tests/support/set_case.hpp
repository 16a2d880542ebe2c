#pragma once
// A set operation's case on the device, for the two-phase forms' tests: int32 inputs with
// matches and duplicates (so every set operation writes something), uint64 values, and
// poisoned outputs with room for m + n (keys, values, B's values of the paired form, the
// count).

#include <corank/config.hpp>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/set_inputs.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace corank::test {

struct set_operation_case {
  static constexpr std::size_t tile = corank::set_keys_policy<std::int32_t>::items_per_tile;

  set_operation_case(std::size_t m, std::size_t n, std::mt19937_64& rng)
      : in(make_set_inputs<std::int32_t>(set_distribution::few_keys, m, n, tile, rng)),
        hva(payloads(0, m)),
        hvb(payloads(1, n)),
        a(in.a),
        b(in.b),
        va(hva),
        vb(hvb),
        keys(m + n),
        values(m + n),
        b_values(m + n),
        count(1) {}

  index_t m() const { return index_t(in.a.size()); }
  index_t n() const { return index_t(in.b.size()); }
  void poison() {
    keys.buffer.fill_poison();
    values.buffer.fill_poison();
    b_values.buffer.fill_poison();
    count.fill_poison();
  }
  ::testing::AssertionResult untouched() const {
    if (auto r = keys.untouched(); !r) return r << " (keys)";
    if (auto r = values.untouched(); !r) return r << " (values)";
    if (auto r = b_values.untouched(); !r) return r << " (B values)";
    if (auto r = all_poison(count.to_host()); !r) return r << " (count)";
    return ::testing::AssertionSuccess();
  }

  sorted_inputs<std::int32_t> in;
  std::vector<std::uint64_t> hva, hvb;
  device_buffer<std::int32_t> a, b;
  device_buffer<std::uint64_t> va, vb;
  guarded_output<std::int32_t> keys;
  guarded_output<std::uint64_t> values, b_values;
  device_buffer<index_t> count;
};

}  // namespace corank::test
