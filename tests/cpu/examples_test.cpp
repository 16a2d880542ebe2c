// The custom-op examples (examples/) on the CPU backend: sparse-vector addition
// (by_key_operation<sparse_add_op>) against a std::map sum, the sparse dot product
// (by_key_operation<sparse_dot_op> + std::accumulate) against a direct loop, and the
// distinct union (keys_operation<distinct_union_op>, a run-aware op) against
// std::set_union + std::unique; on one thread and on seven.

#include <corank/host/operation.hpp>

#include "distinct_union.hpp"
#include "sparse_add.hpp"
#include "sparse_dot.hpp"

#include "support/example_inputs.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/set_inputs.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace corank::test;

struct sparse_case {
  std::size_t m, n;
  std::uint64_t gap_a, gap_b;  // mean index gaps: equal gaps overlap most
};

// Small ones around 2048, and ones where seven threads run (>= 229376 entries in all).
std::vector<sparse_case> sparse_cases() {
  return {{0, 0, 1, 1},           {0, 5, 1, 1},          {5, 0, 1, 1},         {1, 1, 1, 1},
          {2047, 2049, 2, 2},     {2048, 2048, 1, 1},    {3000, 10, 1, 300},   {10, 3000, 300, 1},
          {300000, 250000, 2, 2}, {400000, 1, 1, 1},     {1, 400000, 3, 1},    {260000, 260000, 1, 1},
          {230000, 20000, 1, 11}, {150000, 150000, 3, 5}};
}

template <class Index, class Value>
void check_sparse_add(const sparse_case& c, std::mt19937_64& rng) {
  const auto a = random_sparse_vector<Index, Value>(c.m, c.gap_a, rng);
  const auto b = random_sparse_vector<Index, Value>(c.n, c.gap_b, rng);
  const auto expected = reference_sparse_add(a, b);
  for (unsigned threads : {1u, 7u}) {
    SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " threads=" + std::to_string(threads));
    std::vector<Index> index(c.m + c.n + 2 * guard_elements, poison_value<Index>());
    std::vector<Value> value(c.m + c.n + 2 * guard_elements, poison_value<Value>());
    const auto ends = corank::host::by_key_operation<sparse_add_op>{}(
        a.index.begin(), a.index.end(), b.index.begin(), b.index.end(), a.value.begin(), b.value.begin(),
        index.begin() + guard_elements, value.begin() + guard_elements, corank::less{}, threads);
    EXPECT_EQ(ends.first - (index.begin() + guard_elements), std::ptrdiff_t(expected.index.size()));
    EXPECT_EQ(ends.second - (value.begin() + guard_elements), std::ptrdiff_t(expected.index.size()));
    EXPECT_TRUE(exact_output(expected.index, index, guard_elements));
    EXPECT_TRUE(exact_output(expected.value, value, guard_elements));
  }
}

TEST(HostExamples, SparseAdd) {
  std::mt19937_64 rng = make_rng();
  for (const sparse_case& c : sparse_cases()) {
    check_sparse_add<std::int32_t, std::int64_t>(c, rng);
    check_sparse_add<std::int64_t, double>(c, rng);
    if (HasFailure()) return;
  }
}

// The deduction guide: a runner built from an op object.
TEST(HostExamples, SparseAddRunnerFromAnOpObject) {
  const std::vector<int> ai{1, 4, 6}, bi{0, 4, 7};
  const std::vector<long long> av{10, 20, 30}, bv{1, 2, 3};
  std::vector<int> index(6, -1);
  std::vector<long long> value(6, -1);
  const corank::host::by_key_operation add{sparse_add_op{}};
  const auto ends = add(ai.begin(), ai.end(), bi.begin(), bi.end(), av.begin(), bv.begin(), index.begin(),
                        value.begin());
  EXPECT_EQ(ends.first - index.begin(), 5);
  EXPECT_EQ(index, (std::vector<int>{0, 1, 4, 6, 7, -1}));
  EXPECT_EQ(value, (std::vector<long long>{1, 10, 22, 30, 3, -1}));
}

template <class Index, class Value>
void check_sparse_dot(const sparse_case& c, std::mt19937_64& rng) {
  const auto a = random_sparse_vector<Index, Value>(c.m, c.gap_a, rng);
  const auto b = random_sparse_vector<Index, Value>(c.n, c.gap_b, rng);
  const auto expected = reference_sparse_dot(a, b);
  for (unsigned threads : {1u, 7u}) {
    SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " threads=" + std::to_string(threads));
    std::vector<Index> index(c.m + c.n + 2 * guard_elements, poison_value<Index>());
    std::vector<Value> products(c.m + c.n + 2 * guard_elements, poison_value<Value>());
    const auto ends = corank::host::by_key_operation<sparse_dot_op>{}(
        a.index.data(), a.index.data() + c.m, b.index.data(), b.index.data() + c.n, a.value.data(),
        b.value.data(), index.data() + guard_elements, products.data() + guard_elements, corank::less{}, threads);
    EXPECT_EQ(ends.second - (products.data() + guard_elements), std::ptrdiff_t(expected.products.size()));
    EXPECT_TRUE(exact_output(expected.index, index, guard_elements));
    EXPECT_TRUE(exact_output(expected.products, products, guard_elements));
    const Value dot = std::accumulate(products.data() + guard_elements, ends.second, Value(0));
    EXPECT_EQ(dot, expected.sum);
  }
}

TEST(HostExamples, SparseDot) {
  std::mt19937_64 rng = make_rng();
  for (const sparse_case& c : sparse_cases()) {
    check_sparse_dot<std::int32_t, double>(c, rng);
    check_sparse_dot<std::int64_t, std::int64_t>(c, rng);
    if (HasFailure()) return;
  }
}

template <class K>
void check_distinct_union(const sorted_inputs<K>& in, unsigned threads) {
  using compare = typename key_traits<K>::compare;
  const std::vector<K> expected = reference_distinct_union(in.a, in.b, compare{});
  std::vector<K> out(in.a.size() + in.b.size() + 2 * guard_elements, poison_value<K>());
  const auto first = out.begin() + guard_elements;
  const auto end = corank::host::keys_operation<distinct_union_op>{}(in.a.begin(), in.a.end(), in.b.begin(),
                                                                     in.b.end(), first, compare{}, threads);
  EXPECT_EQ(end - first, std::ptrdiff_t(expected.size()));
  EXPECT_TRUE(exact_output(expected, out, guard_elements));
}

template <class K>
class HostDistinctUnion : public ::testing::Test {};
using distinct_union_key_types = ::testing::Types<std::uint8_t, std::int32_t, double, opaque_key>;
TYPED_TEST_SUITE(HostDistinctUnion, distinct_union_key_types);

// Many duplicates on both sides, runs that cross thread boundaries, and the shapes without.
TYPED_TEST(HostDistinctUnion, MatchesSetUnionThenUnique) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  const size_pair sizes[] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2047, 2049}, {2048, 5}, {5, 2048},
                             {150000, 150000}, {300000, 1}, {1, 300000}, {260000, 90000}};
  for (set_distribution d : all_set_distributions) {
    for (const size_pair& s : sizes) {
      if (!applies(d, s.m, s.n)) continue;
      const sorted_inputs<K> in = make_set_inputs<K>(d, s.m, s.n, 2048, rng);
      for (unsigned threads : {1u, 7u}) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) +
                     " threads=" + std::to_string(threads));
        check_distinct_union(in, threads);
        if (this->HasFailure()) return;
      }
    }
  }
}

// A handful of keys each repeated tens of thousands of times.
TYPED_TEST(HostDistinctUnion, LongRunsOfFewKeys) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  sorted_inputs<K> in;
  in.a = sorted_small_range<K>(300000, 0, 7, rng);
  in.b = sorted_small_range<K>(200000, 3, 9, rng);
  for (unsigned threads : {1u, 7u}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    check_distinct_union(in, threads);
  }
}

}  // namespace
