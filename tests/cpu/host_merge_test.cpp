// corank::host::merge and merge_by_key against std::merge, over every key type, size and
// distribution, on one thread and on seven.

#include <corank/host/merge.hpp>

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace corank::test;

// Sizes around 2048 (a power of two, like the GPU tiles), plus a random one.
std::vector<size_pair> host_sizes(std::mt19937_64& rng) {
  const std::size_t edges[] = {0, 1, 2047, 2048, 2049, std::size_t(rng() % 10000)};
  std::vector<size_pair> out;
  for (std::size_t m : edges)
    for (std::size_t n : edges) out.push_back({m, n});
  return out;
}

// Large enough that threads = 7 really starts 7 threads (32768 outputs per thread at least).
std::vector<size_pair> threaded_sizes(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> size(150000, 600000);
  return {{150000, 150001}, {size(rng), size(rng)}, {300000, 1}, {0, 250000}};
}

constexpr std::size_t long_run_tile = 2048;
constexpr unsigned thread_counts[] = {1, 7};

template <class K>
void check_merge(const sorted_inputs<K>& in, unsigned threads) {
  using compare = typename key_traits<K>::compare;
  const std::vector<K> expected = reference_merge(in.a, in.b, compare{});
  std::vector<K> out(expected.size() + 2 * guard_elements, poison_value<K>());
  const auto end = corank::host::merge(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(),
                                       out.begin() + guard_elements, compare{}, threads);
  EXPECT_TRUE(end == out.begin() + guard_elements + expected.size());
  EXPECT_TRUE(guards_intact(out, guard_elements, expected.size()));
  EXPECT_TRUE(equal_bits(expected, out, guard_elements));
}

template <class K>
void check_merge_by_key(const sorted_inputs<K>& in, unsigned threads) {
  using compare = typename key_traits<K>::compare;
  const std::vector<std::uint64_t> va = payloads(0, in.a.size()), vb = payloads(1, in.b.size());
  const auto expected = reference_merge_by_key(in.a, va, in.b, vb, compare{});
  const std::size_t total = expected.keys.size();
  std::vector<K> keys(total + 2 * guard_elements, poison_value<K>());
  std::vector<std::uint64_t> values(total + 2 * guard_elements, poison_value<std::uint64_t>());
  // Raw pointers this time.
  const auto ends = corank::host::merge_by_key(in.a.data(), in.a.data() + in.a.size(), in.b.data(),
                                               in.b.data() + in.b.size(), va.data(), vb.data(),
                                               keys.data() + guard_elements, values.data() + guard_elements,
                                               compare{}, threads);
  EXPECT_EQ(ends.first, keys.data() + guard_elements + total);
  EXPECT_EQ(ends.second, values.data() + guard_elements + total);
  EXPECT_TRUE(guards_intact(keys, guard_elements, total));
  EXPECT_TRUE(guards_intact(values, guard_elements, total));
  EXPECT_TRUE(equal_bits(expected.keys, keys, guard_elements));
  EXPECT_TRUE(equal_bits(expected.values, values, guard_elements)) << "not stable";
}

template <class K>
class HostMerge : public ::testing::Test {};
TYPED_TEST_SUITE(HostMerge, all_key_types);

TYPED_TEST(HostMerge, MatchesStdMerge) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (distribution d : all_distributions) {
    for (const size_pair& s : host_sizes(rng)) {
      const sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      for (unsigned threads : thread_counts) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) +
                     " threads=" + std::to_string(threads));
        check_merge(in, threads);
        if (this->HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(HostMerge, ManyThreadsLargeInputs) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (distribution d : all_distributions) {
    for (const size_pair& s : threaded_sizes(rng)) {
      const sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      for (unsigned threads : {7u, 0u}) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) +
                     " threads=" + std::to_string(threads));
        check_merge(in, threads);
        if (this->HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(HostMerge, ByKeyIsStable) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (distribution d : all_distributions) {
    for (const size_pair& s : host_sizes(rng)) {
      const sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      for (unsigned threads : thread_counts) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) +
                     " threads=" + std::to_string(threads));
        check_merge_by_key(in, threads);
        if (this->HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(HostMerge, ByKeyIsStableOnManyThreads) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (distribution d : all_distributions) {
    for (const size_pair& s : threaded_sizes(rng)) {
      const sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " threads=7");
      check_merge_by_key(in, 7);
      if (this->HasFailure()) return;
    }
  }
}

TEST(HostMergeExtra, DescendingComparator) {
  std::mt19937_64 rng = make_rng();
  for (unsigned threads : {1u, 7u}) {
    std::vector<int> a(200000), b(170000);
    for (int& x : a) x = int(rng() % 5000);
    for (int& x : b) x = int(rng() % 5000);
    std::sort(a.begin(), a.end(), greater_op{});
    std::sort(b.begin(), b.end(), greater_op{});
    const std::vector<int> expected = reference_merge(a, b, greater_op{});
    std::vector<int> out(expected.size(), poison_value<int>());
    corank::host::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), greater_op{}, threads);
    EXPECT_TRUE(equal_bits(expected, out)) << "threads=" << threads;
  }
}

TEST(HostMergeExtra, Int32ValuesWithInt32Keys) {
  std::mt19937_64 rng = make_rng();
  for (distribution d : all_distributions) {
    const sorted_inputs<std::int32_t> in = make_inputs<std::int32_t>(d, 100000, 140000, long_run_tile, rng);
    std::vector<std::int32_t> va(in.a.size()), vb(in.b.size());
    for (std::size_t i = 0; i < va.size(); ++i) va[i] = std::int32_t(i);
    for (std::size_t j = 0; j < vb.size(); ++j) vb[j] = -1 - std::int32_t(j);
    const auto expected = reference_merge_by_key(in.a, va, in.b, vb, corank::less{});
    std::vector<std::int32_t> keys(expected.keys.size(), poison_value<std::int32_t>());
    std::vector<std::int32_t> values(expected.keys.size(), poison_value<std::int32_t>());
    corank::host::merge_by_key(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), va.begin(), vb.begin(),
                               keys.begin(), values.begin(), corank::less{}, 7);
    SCOPED_TRACE(to_string(d));
    EXPECT_TRUE(equal_bits(expected.keys, keys));
    EXPECT_TRUE(equal_bits(expected.values, values));
  }
}

}  // namespace
