// Issue #28: every two-phase form (corank::device) checks the temporary storage it is given
// against exactly what its size query returned for the same arguments, strategy included
// (CUB's convention), before launching anything: less is cudaErrorInvalidValue and
// nothing is written; exactly the queried bytes run. The forms: merge, merge_by_key, each
// set operation's keys, _by_key and _count forms, set_intersection_by_key_paired, and a
// custom op on the keys runner (examples/distinct_union.hpp, a run-aware op). Sizes: empty
// and small ones (strategy::automatic runs a naive merge but queries partitioned's bytes),
// around the tiles, the issue's 100,000 + 100,000 and one just past the naive threshold.
//
// Storage not aligned to 256 bytes (memory.hpp) is refused the same way.
//
// The refusal comes before any CUDA call, so HostTempStorage runs without a GPU (CI): it
// passes host memory everywhere, and nothing may touch it. find_unsorted's checks live in
// merge_api_test.cu, the one file of corank_gpu_tests that may include check_sorted.cuh.
//
// In corank_gpu_set_tests: the set operations compile their kernels here (int32 keys,
// uint64 values, as in set_ops_typed_test.cu); the merges link the library's.

#include <corank/memory.hpp>
#include <corank/merge.cuh>
#include <corank/operation.cuh>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>
#include <corank/set_operations.cuh>

#include "distinct_union.hpp"

#include "support/example_inputs.hpp"
#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/set_case.hpp"
#include "support/set_inputs.hpp"
#include "support/shared_kernels.hpp"
#include "support/strategies.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::strategy;

using key = std::int32_t;
using value = std::uint64_t;

const std::vector<strategy> all_strategies = every_strategy();

constexpr std::size_t set_tile = corank::set_keys_policy<key>::items_per_tile;
constexpr std::size_t merge_tile = corank::partitioned_merge_keys_policy<key>::items_per_tile;

// Every two-phase form; `op` says which set operation the keys, by_key and count forms run.
enum class form_kind { merge, merge_by_key, keys, by_key, count, paired, custom_keys };

struct two_phase_form {
  form_kind kind;
  set_op op = set_op::set_union;
};

std::string to_string(const two_phase_form& f) {
  switch (f.kind) {
    case form_kind::merge: return "merge";
    case form_kind::merge_by_key: return "merge_by_key";
    case form_kind::keys: return to_string(f.op);
    case form_kind::by_key: return std::string(to_string(f.op)) + "_by_key";
    case form_kind::count: return std::string(to_string(f.op)) + "_count";
    case form_kind::paired: return "set_intersection_by_key_paired";
    case form_kind::custom_keys: return "keys_operation<distinct_union_op>";
  }
  return "?";
}

std::vector<two_phase_form> every_two_phase_form() {
  std::vector<two_phase_form> forms = {{form_kind::merge}, {form_kind::merge_by_key}};
  for (set_op op : all_set_ops) {
    for (form_kind kind : {form_kind::keys, form_kind::by_key, form_kind::count}) forms.push_back({kind, op});
  }
  forms.push_back({form_kind::paired, set_op::set_intersection});
  forms.push_back({form_kind::custom_keys});
  return forms;
}

// (m, n): empty and small, around the set and merge tiles, the issue's case (automatic runs
// a naive merge of keys, a partitioned one of pairs), and just past the naive threshold for
// keys. CORANK_TEST_QUICK keeps those of at most a few tiles (the small ones already run
// naive under automatic).
std::vector<size_pair> temp_storage_sizes(bool quick) {
  std::vector<size_pair> sizes = {{0, 0},
                                  {0, 5},
                                  {5, 3},
                                  {set_tile - 1, set_tile + 1},
                                  {merge_tile, merge_tile + 1}};
  if (!quick) {
    const std::size_t naive_most = std::size_t(corank::automatic_naive_merge_max_keys);
    sizes.push_back({100000, 100000});
    sizes.push_back({naive_most / 2, naive_most / 2 + 1});
  }
  return sizes;
}

std::string describe(const two_phase_form& f, const size_pair& s, strategy kind) {
  return to_string(f) + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " " + corank::to_string(kind);
}

// What a call reads and writes: device memory in the GPU tests, host memory in the host one.
struct form_pointers {
  const key* a;
  index_t m;
  const key* b;
  index_t n;
  const value* va;
  const value* vb;
  key* keys;
  value* values;
  value* b_values;
  index_t* count;
};

// Calls visit with the keys, by_key and count runners of `op`.
template <class Visit>
cudaError_t with_set_operation(set_op op, Visit visit) {
  namespace device = corank::device;
  switch (op) {
    case set_op::set_union: return visit(device::set_union, device::set_union_by_key, device::set_union_count);
    case set_op::set_intersection:
      return visit(device::set_intersection, device::set_intersection_by_key, device::set_intersection_count);
    case set_op::set_difference:
      return visit(device::set_difference, device::set_difference_by_key, device::set_difference_count);
    case set_op::set_symmetric_difference: break;
  }
  return visit(device::set_symmetric_difference, device::set_symmetric_difference_by_key,
               device::set_symmetric_difference_count);
}

// One two-phase call of `f`: a query when temp is null.
cudaError_t call_form(const two_phase_form& f, void* temp, std::size_t& bytes, const form_pointers& p,
                      strategy kind) {
  const corank::less comp{};
  const cudaStream_t stream = nullptr;
  switch (f.kind) {
    case form_kind::merge:
      return corank::device::merge(temp, bytes, p.a, p.m, p.b, p.n, p.keys, comp, stream, kind);
    case form_kind::merge_by_key:
      return corank::device::merge_by_key(temp, bytes, p.a, p.va, p.m, p.b, p.vb, p.n, p.keys, p.values, comp,
                                          stream, kind);
    case form_kind::keys:
      return with_set_operation(f.op, [&](const auto& keys, const auto&, const auto&) {
        return keys(temp, bytes, p.a, p.m, p.b, p.n, p.keys, p.count, comp, stream, kind);
      });
    case form_kind::by_key:
      return with_set_operation(f.op, [&](const auto&, const auto& by_key, const auto&) {
        return by_key(temp, bytes, p.a, p.va, p.m, p.b, p.vb, p.n, p.keys, p.values, p.count, comp, stream, kind);
      });
    case form_kind::count:
      return with_set_operation(f.op, [&](const auto&, const auto&, const auto& count) {
        return count(temp, bytes, p.a, p.m, p.b, p.n, p.count, comp, stream, kind);
      });
    case form_kind::paired:
      return corank::device::set_intersection_by_key_paired(temp, bytes, p.a, p.va, p.m, p.b, p.vb, p.n, p.keys,
                                                            p.values, p.b_values, p.count, comp, stream, kind);
    case form_kind::custom_keys:
      return corank::device::keys_operation<distinct_union_op>{}(temp, bytes, p.a, p.m, p.b, p.n, p.keys, p.count,
                                                                 comp, stream, kind);
  }
  return cudaErrorUnknown;
}

// The sizes given in place of the queried bytes: one short, half, none.
std::vector<std::size_t> too_little(std::size_t queried) { return {queried - 1, queried / 2, 0}; }

// ---------------------------------------------------------------------------------------
// Without a GPU: host memory stands in for device memory. A refused call returns before
// any CUDA call, so it reads and writes none of it.

struct host_case {
  host_case(std::size_t m, std::size_t n)
      : a(m, 1), b(n, 2), va(m, 3), vb(n, 4),
        keys(m + n, poison_value<key>()), values(m + n, poison_value<value>()),
        b_values(m + n, poison_value<value>()), count(1, poison_value<index_t>()) {}

  ::testing::AssertionResult untouched() const {
    if (auto r = all_poison(keys); !r) return r << " (keys)";
    if (auto r = all_poison(values); !r) return r << " (values)";
    if (auto r = all_poison(b_values); !r) return r << " (B values)";
    if (auto r = all_poison(count); !r) return r << " (count)";
    return ::testing::AssertionSuccess();
  }

  std::vector<key> a, b;
  std::vector<value> va, vb;
  std::vector<key> keys;
  std::vector<value> values, b_values;
  std::vector<index_t> count;
};

form_pointers pointers(host_case& c) {
  return {c.a.data(), index_t(c.a.size()), c.b.data(), index_t(c.b.size()), c.va.data(), c.vb.data(),
          c.keys.data(), c.values.data(), c.b_values.data(), c.count.data()};
}

// No require_gpu: this must pass on CI, which has none.
TEST(HostTempStorage, LessThanQueriedIsInvalidValueBeforeAnyCudaCall) {
  for (const size_pair s : temp_storage_sizes(false)) {
    host_case c(s.m, s.n);
    const form_pointers p = pointers(c);
    for (const two_phase_form& f : every_two_phase_form()) {
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(describe(f, s, kind));
        std::size_t queried = 0;
        ASSERT_EQ(cudaSuccess, call_form(f, nullptr, queried, p, kind));
        ASSERT_GT(queried, 0u);
        std::vector<unsigned char> temp(queried, poison_byte);
        for (std::size_t given : too_little(queried)) {
          std::size_t bytes = given;
          EXPECT_EQ(cudaErrorInvalidValue, call_form(f, temp.data(), bytes, p, kind)) << given << " of " << queried;
          EXPECT_EQ(bytes, given) << "a run changed temp_storage_bytes";
        }
        EXPECT_TRUE(c.untouched());
        EXPECT_TRUE(all_poison(temp)) << "the temporary storage was written";
        if (HasFailure()) return;
      }
    }
  }
}

// The temporary storage's one alignment rule (memory.hpp): storage not aligned to
// corank::temporary_storage_alignment is refused like too little, before any CUDA call.
TEST(HostTempStorage, MisalignedIsInvalidValueBeforeAnyCudaCall) {
  constexpr std::size_t alignment = corank::temporary_storage_alignment;
  for (const size_pair s : temp_storage_sizes(false)) {
    host_case c(s.m, s.n);
    const form_pointers p = pointers(c);
    for (const two_phase_form& f : every_two_phase_form()) {
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(describe(f, s, kind));
        std::size_t queried = 0;
        ASSERT_EQ(cudaSuccess, call_form(f, nullptr, queried, p, kind));
        std::vector<unsigned char> temp(queried + 2 * alignment, poison_byte);
        auto* aligned = reinterpret_cast<unsigned char*>(
            (reinterpret_cast<std::uintptr_t>(temp.data()) + alignment - 1) / alignment * alignment);
        for (const std::size_t offset : {std::size_t(8), alignment / 2}) {
          std::size_t bytes = queried + alignment;
          EXPECT_EQ(cudaErrorInvalidValue, call_form(f, aligned + offset, bytes, p, kind)) << "offset " << offset;
          EXPECT_EQ(bytes, queried + alignment) << "a run changed temp_storage_bytes";
        }
        EXPECT_TRUE(c.untouched());
        EXPECT_TRUE(all_poison(temp)) << "the temporary storage was written";
        if (HasFailure()) return;
      }
    }
  }
}

// The default strategy's query covers every strategy (docs/guide/cpp.md), merges included.
TEST(HostTempStorage, AutomaticQueryIsTheMostAnyStrategyNeeds) {
  for (const size_pair s : temp_storage_sizes(false)) {
    host_case c(s.m, s.n);
    const form_pointers p = pointers(c);
    for (const two_phase_form& f : every_two_phase_form()) {
      SCOPED_TRACE(to_string(f) + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n));
      std::size_t automatic = 0;
      ASSERT_EQ(cudaSuccess, call_form(f, nullptr, automatic, p, strategy::automatic));
      for (strategy kind : all_strategies) {
        std::size_t bytes = 0;
        ASSERT_EQ(cudaSuccess, call_form(f, nullptr, bytes, p, kind));
        EXPECT_LE(bytes, automatic) << corank::to_string(kind);
      }
    }
    EXPECT_TRUE(c.untouched());
  }
}

// ---------------------------------------------------------------------------------------
// On the GPU: the same refusals with device memory, then a run with exactly the queried
// bytes against the standard library.

class GpuTempStorage : public gpu_test {};

using device_case = set_operation_case;

form_pointers pointers(const device_case& c) {
  return {c.a.data(), c.m(), c.b.data(), c.n(), c.va.data(), c.vb.data(), c.keys.first(), c.values.first(),
          c.b_values.first(), c.count.data()};
}

// What `f` writes on c's inputs: outputs a form does not have must stay poison.
struct expected_outputs {
  bool writes_keys = true, writes_values = false, writes_b_values = false, writes_count = true;
  std::vector<key> keys;
  std::vector<value> values, b_values;
  index_t count = 0;
};

expected_outputs expected_for(const two_phase_form& f, const device_case& c) {
  const corank::less comp{};
  expected_outputs e;
  switch (f.kind) {
    case form_kind::merge:
      e.keys = reference_merge(c.in.a, c.in.b, comp);
      e.writes_count = false;
      break;
    case form_kind::merge_by_key: {
      auto merged = reference_merge_by_key(c.in.a, c.hva, c.in.b, c.hvb, comp);
      e.keys = std::move(merged.keys);
      e.values = std::move(merged.values);
      e.writes_values = true;
      e.writes_count = false;
      break;
    }
    case form_kind::keys: e.keys = std_set_op(f.op, c.in.a, c.in.b, comp); break;
    case form_kind::by_key: {
      auto result = reference_set_op_by_key(f.op, c.in.a, c.hva, c.in.b, c.hvb, comp);
      e.keys = std::move(result.keys);
      e.values = std::move(result.values);
      e.writes_values = true;
      break;
    }
    case form_kind::count:
      e.count = index_t(std_set_op(f.op, c.in.a, c.in.b, comp).size());
      e.writes_keys = false;
      return e;
    case form_kind::paired: {
      auto result = reference_intersection_paired(c.in.a, c.hva, c.in.b, c.hvb, comp);
      e.keys = std::move(result.keys);
      e.values = std::move(result.values);
      e.b_values = std::move(result.b_values);
      e.writes_values = e.writes_b_values = true;
      break;
    }
    case form_kind::custom_keys: e.keys = reference_distinct_union(c.in.a, c.in.b, comp); break;
  }
  e.count = index_t(e.keys.size());
  return e;
}

void expect_outputs(const device_case& c, const expected_outputs& e) {
  if (e.writes_count) {
    EXPECT_EQ(c.count.to_host()[0], e.count) << "the count in device memory";
  } else {
    EXPECT_TRUE(all_poison(c.count.to_host())) << "the count was written";
  }
  if (e.writes_keys) {
    EXPECT_TRUE(exact_output(e.keys, c.keys.buffer.to_host(), guard_elements)) << "keys";
  } else {
    EXPECT_TRUE(c.keys.untouched()) << "keys";
  }
  if (e.writes_values) {
    EXPECT_TRUE(exact_output(e.values, c.values.buffer.to_host(), guard_elements)) << "values";
  } else {
    EXPECT_TRUE(c.values.untouched()) << "values";
  }
  if (e.writes_b_values) {
    EXPECT_TRUE(exact_output(e.b_values, c.b_values.buffer.to_host(), guard_elements)) << "B values";
  } else {
    EXPECT_TRUE(c.b_values.untouched()) << "B values";
  }
}

TEST_F(GpuTempStorage, LessThanQueriedIsInvalidValueAndWritesNothingExactlyQueriedRuns) {
  std::mt19937_64 rng = make_rng();
  for (const size_pair s : temp_storage_sizes(quick_mode())) {
    device_case c(s.m, s.n, rng);
    const form_pointers p = pointers(c);
    for (const two_phase_form& f : every_two_phase_form()) {
      const expected_outputs expected = expected_for(f, c);
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(describe(f, s, kind));
        std::size_t queried = 0;
        ASSERT_EQ(cudaSuccess, call_form(f, nullptr, queried, p, kind));
        ASSERT_GT(queried, 0u);
        device_buffer<unsigned char> temp(queried);
        temp.fill_poison();
        c.poison();
        for (std::size_t given : too_little(queried)) {
          std::size_t bytes = given;
          EXPECT_EQ(cudaErrorInvalidValue, call_form(f, temp.data(), bytes, p, kind)) << given << " of " << queried;
        }
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_EQ(cudaSuccess, cudaGetLastError());
        EXPECT_TRUE(c.untouched());
        EXPECT_TRUE(all_poison(temp.to_host())) << "the temporary storage was written";

        std::size_t bytes = queried;
        ASSERT_EQ(cudaSuccess, call_form(f, temp.data(), bytes, p, kind));
        CORANK_ASSERT_DEVICE_OK();
        expect_outputs(c, expected);
        if (HasFailure()) return;
      }
    }
  }
}

}  // namespace
