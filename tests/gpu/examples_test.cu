// The custom-op examples (examples/) on the GPU, with every strategy: sparse-vector
// addition (by_key_operation<sparse_add_op>) against a std::map sum, the sparse dot
// product (sparse_dot() from the header, and by_key_operation<sparse_dot_op> per strategy)
// against a direct loop, and the distinct union (keys_operation<distinct_union_op>, a
// run-aware op) against std::set_union + std::unique; sizes around the tile and over many
// tiles and blocks.

#include <corank/operation.cuh>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>

#include "distinct_union.hpp"
#include "sparse_add.hpp"
#include "sparse_dot.hpp"

#include "support/example_inputs.hpp"
#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/set_inputs.hpp"
#include "support/strategies.hpp"
#include "support/test_env.hpp"

#include <thrust/device_vector.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::strategy;

// naive, tiled, circular (and partitioned where the library has it): all must agree.
const std::vector<strategy> all_strategies = every_strategy();

struct sparse_case {
  std::size_t m, n;
  std::uint64_t gap_a, gap_b;  // mean index gaps: equal gaps overlap most
};

std::string describe(const sparse_case& c) {
  return "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " gaps " + std::to_string(c.gap_a) + "/" +
         std::to_string(c.gap_b);
}

// Around the tile, and over many tiles and blocks (capped under CORANK_TEST_QUICK).
std::vector<sparse_case> sparse_cases(std::size_t tile) {
  const std::size_t many = quick_or(600, 4) * tile;
  return {{0, 0, 1, 1},
          {1, 0, 1, 1},
          {0, 1, 1, 1},
          {1, 1, 1, 1},
          {tile - 1, tile + 1, 1, 1},
          {tile, tile, 2, 2},
          {tile + 1, tile, 1, 3},
          {10 * tile + 3, 7 * tile, 2, 3},
          {many, many + 5, 2, 2},
          {many, 3, 1, 1},
          {1, many, 1, 1},
          {many, many / 20, 1, 20},
          {many / 2, many, 5, 1}};
}

// ---------------------------------------------------------------------------------------
// Sparse-vector addition

template <class Index, class Value>
void check_sparse_add(const sparse_case& c, std::mt19937_64& rng) {
  const auto a = random_sparse_vector<Index, Value>(c.m, c.gap_a, rng);
  const auto b = random_sparse_vector<Index, Value>(c.n, c.gap_b, rng);
  const auto expected = reference_sparse_add(a, b);
  const device_buffer<Index> ai(a.index), bi(b.index);
  const device_buffer<Value> av(a.value), bv(b.value);
  guarded_output<Index> index(c.m + c.n);
  guarded_output<Value> value(c.m + c.n);
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(describe(c) + " " + corank::to_string(kind));
    index.buffer.fill_poison();
    value.buffer.fill_poison();
    const auto ends = corank::by_key_operation<sparse_add_op>{}(ai.begin(), ai.end(), bi.begin(), bi.end(), av.begin(),
                                                                bv.begin(), index.first(), value.first(),
                                                                corank::less{}, nullptr, kind);
    EXPECT_EQ(ends.first - index.first(), std::ptrdiff_t(expected.index.size()));
    EXPECT_EQ(ends.second - value.first(), std::ptrdiff_t(expected.index.size()));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(exact_output(expected.index, index.buffer.to_host(), guard_elements));
    EXPECT_TRUE(exact_output(expected.value, value.buffer.to_host(), guard_elements));
  }
}

class GpuExamples : public gpu_test {};

TEST_F(GpuExamples, SparseAdd) {
  std::mt19937_64 rng = make_rng();
  for (const sparse_case& c : sparse_cases(corank::merge_pairs_policy<std::int32_t, std::int64_t>::items_per_tile)) {
    check_sparse_add<std::int32_t, std::int64_t>(c, rng);
    if (HasFailure()) return;
  }
  for (const sparse_case& c : sparse_cases(corank::merge_pairs_policy<std::int64_t, double>::items_per_tile)) {
    check_sparse_add<std::int64_t, double>(c, rng);
    if (HasFailure()) return;
  }
}

// ---------------------------------------------------------------------------------------
// Sparse dot product

template <class Index, class Value>
void check_sparse_dot(const sparse_case& c, std::mt19937_64& rng) {
  const auto a = random_sparse_vector<Index, Value>(c.m, c.gap_a, rng);
  const auto b = random_sparse_vector<Index, Value>(c.n, c.gap_b, rng);
  const auto expected = reference_sparse_dot(a, b);
  SCOPED_TRACE(describe(c));

  // The header's sparse_dot(): products with the default strategy, then thrust::reduce.
  const thrust::device_vector<Index> a_index(a.index.begin(), a.index.end()), b_index(b.index.begin(), b.index.end());
  const thrust::device_vector<Value> a_value(a.value.begin(), a.value.end()), b_value(b.value.begin(), b.value.end());
  EXPECT_EQ(sparse_dot(a_index, a_value, b_index, b_value), expected.sum);
  CORANK_ASSERT_DEVICE_OK();

  // The products themselves, with every strategy.
  const device_buffer<Index> ai(a.index), bi(b.index);
  const device_buffer<Value> av(a.value), bv(b.value);
  guarded_output<Index> index(c.m + c.n);
  guarded_output<Value> products(c.m + c.n);
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    index.buffer.fill_poison();
    products.buffer.fill_poison();
    const auto ends = corank::by_key_operation<sparse_dot_op>{}(ai.begin(), ai.end(), bi.begin(), bi.end(), av.begin(),
                                                                bv.begin(), index.first(), products.first(),
                                                                corank::less{}, nullptr, kind);
    EXPECT_EQ(ends.second - products.first(), std::ptrdiff_t(expected.products.size()));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(exact_output(expected.index, index.buffer.to_host(), guard_elements));
    const std::vector<Value> host = products.buffer.to_host();
    EXPECT_TRUE(exact_output(expected.products, host, guard_elements));
    const auto first = host.begin() + guard_elements;
    EXPECT_EQ(std::accumulate(first, first + expected.products.size(), Value(0)), expected.sum);
  }
}

TEST_F(GpuExamples, SparseDot) {
  std::mt19937_64 rng = make_rng();
  for (const sparse_case& c : sparse_cases(corank::merge_pairs_policy<std::int32_t, double>::items_per_tile)) {
    check_sparse_dot<std::int32_t, double>(c, rng);
    if (HasFailure()) return;
  }
  for (const sparse_case& c : sparse_cases(corank::merge_pairs_policy<std::int64_t, std::int64_t>::items_per_tile)) {
    check_sparse_dot<std::int64_t, std::int64_t>(c, rng);
    if (HasFailure()) return;
  }
}

// ---------------------------------------------------------------------------------------
// Distinct union (run-aware: each key once, whichever tile and thread its copies land in)

template <class K>
void check_distinct_union(const sorted_inputs<K>& in) {
  using compare = typename key_traits<K>::compare;
  const std::vector<K> expected = reference_distinct_union(in.a, in.b, compare{});
  const device_buffer<K> a(in.a), b(in.b);
  guarded_output<K> out(in.a.size() + in.b.size());
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    out.buffer.fill_poison();
    K* const end = corank::keys_operation<distinct_union_op>{}(a.begin(), a.end(), b.begin(), b.end(), out.first(),
                                                               compare{}, nullptr, kind);
    EXPECT_EQ(end - out.first(), std::ptrdiff_t(expected.size()));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(exact_output(expected, out.buffer.to_host(), guard_elements));
  }
}

template <class K>
class GpuDistinctUnion : public gpu_test {};
// One-byte keys take the most items per thread; opaque_key has only a comparator.
using distinct_union_key_types = ::testing::Types<std::uint8_t, std::int32_t, opaque_key>;
TYPED_TEST_SUITE(GpuDistinctUnion, distinct_union_key_types);

template <class K>
void distinct_union_over(const std::vector<size_pair>& sizes, std::size_t tile, std::mt19937_64& rng) {
  std::vector<set_distribution> shapes(std::begin(all_set_distributions), std::end(all_set_distributions));
  if (quick_mode()) {
    shapes = {set_distribution::uniform, set_distribution::all_equal, set_distribution::long_runs,
              set_distribution::few_keys, set_distribution::one_key_run};
  }
  for (set_distribution d : shapes) {
    for (const size_pair& s : sizes) {
      if (!applies(d, s.m, s.n)) continue;
      const sorted_inputs<K> in = make_set_inputs<K>(d, s.m, s.n, tile, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()));
      check_distinct_union(in);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TYPED_TEST(GpuDistinctUnion, TileEdgeSizes) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  std::vector<size_pair> sizes = tile_edge_sizes(tile);
  if (quick_mode()) sizes = {{0, 0}, {1, 1}, {tile - 1, tile}, {tile, tile + 1}, {tile + 1, 0}, {tile, tile}};
  distinct_union_over<K>(sizes, tile, rng);
}

TYPED_TEST(GpuDistinctUnion, SeveralTilesAndBlocks) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  std::vector<size_pair> sizes = multi_tile_sizes(tile, rng);
  if (quick_mode()) sizes = {{3 * tile + 1, 2 * tile + 5}, {1, 3 * tile + 1}, {3 * tile + 1, 3 * tile + 1}};
  distinct_union_over<K>(sizes, tile, rng);
}

// A few keys, each repeated over many tiles.
TYPED_TEST(GpuDistinctUnion, FewKeysOverManyTiles) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  sorted_inputs<K> in;
  in.a = sorted_small_range<K>(quick_or(50, 6) * tile, 0, 7, rng);
  in.b = sorted_small_range<K>(quick_or(30, 4) * tile + 5, 3, 9, rng);
  check_distinct_union(in);
}

}  // namespace
