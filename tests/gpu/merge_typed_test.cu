// corank::merge and merge_by_key on the GPU against std::merge: every key type, every
// strategy, every distribution, sizes around the tile and across tiles and blocks.
//
// Raw pointers and corank::less, so the eight arithmetic types link the library's
// pre-compiled merges (merge_instantiations.hpp), and opaque_key's keys-only merge links the
// tests' shared kernels (shared_kernels.hpp); only its by-key merge compiles here.

#include <corank/merge.cuh>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/shared_kernels.hpp"
#include "support/test_env.hpp"

#include <thrust/device_vector.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::strategy;

constexpr strategy all_strategies[] = {strategy::naive, strategy::tiled, strategy::circular, strategy::partitioned};

// Under CORANK_TEST_QUICK (compute-sanitizer) the distributions that stress different
// paths: random, all ties, ties across tiles, and strict alternation.
std::vector<distribution> gpu_distributions() {
  if (quick_mode()) {
    return {distribution::uniform, distribution::all_equal, distribution::long_runs, distribution::interleaved};
  }
  return {std::begin(all_distributions), std::end(all_distributions)};
}

std::vector<size_pair> edge_sizes(std::size_t tile) {
  if (quick_mode()) {
    return {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {tile - 1, tile}, {tile, tile + 1}, {tile + 1, tile - 1}, {tile, 0},
            {0, tile + 1}};
  }
  return tile_edge_sizes(tile);
}

// Merges `in` with every strategy into a poisoned, guarded output.
template <class K>
void check_merge(const sorted_inputs<K>& in, const std::vector<K>& expected) {
  using compare = typename key_traits<K>::compare;
  const device_buffer<K> a(in.a), b(in.b);
  guarded_output<K> out(expected.size());
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    out.buffer.fill_poison();
    K* const end = corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.first(), compare{}, nullptr, kind);
    EXPECT_EQ(end, out.last());
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(out.check(expected));
  }
}

template <class K, class V>
void check_merge_by_key(const sorted_inputs<K>& in, const std::vector<V>& a_values, const std::vector<V>& b_values) {
  using compare = typename key_traits<K>::compare;
  const keys_and_values<K, V> expected = reference_merge_by_key(in.a, a_values, in.b, b_values, compare{});
  const device_buffer<K> a(in.a), b(in.b);
  const device_buffer<V> va(a_values), vb(b_values);
  guarded_output<K> keys(expected.keys.size());
  guarded_output<V> values(expected.keys.size());
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    keys.buffer.fill_poison();
    values.buffer.fill_poison();
    const auto ends = corank::merge_by_key(a.begin(), a.end(), b.begin(), b.end(), va.begin(), vb.begin(),
                                           keys.first(), values.first(), compare{}, nullptr, kind);
    EXPECT_EQ(ends.first, keys.last());
    EXPECT_EQ(ends.second, values.last());
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(keys.check(expected.keys));
    EXPECT_TRUE(values.check(expected.values)) << "values differ: not stable, or not carried with their keys";
  }
}

template <class K>
void merge_keys_over(const std::vector<size_pair>& sizes, std::size_t tile, std::mt19937_64& rng) {
  for (distribution d : gpu_distributions()) {
    for (const size_pair& s : sizes) {
      const sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, tile, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()));
      check_merge(in, reference_merge(in.a, in.b, typename key_traits<K>::compare{}));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// (key, payload = source << 32 | index): the exact stable order is checked.
template <class K>
void merge_pairs_over(const std::vector<size_pair>& sizes, std::size_t tile, std::mt19937_64& rng) {
  for (distribution d : gpu_distributions()) {
    for (const size_pair& s : sizes) {
      const sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, tile, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " by key");
      check_merge_by_key(in, payloads(0, in.a.size()), payloads(1, in.b.size()));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

template <class K>
class GpuMerge : public gpu_test {};
TYPED_TEST_SUITE(GpuMerge, all_key_types);

TYPED_TEST(GpuMerge, TileEdgeSizes) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  merge_keys_over<K>(edge_sizes(tile), tile, rng);
}

// strategy::partitioned cuts the path into tiles of its own size.
TYPED_TEST(GpuMerge, PartitionedTileEdgeSizes) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::partitioned_merge_keys_policy<K>::items_per_tile;
  static_assert(tile != corank::merge_keys_policy<K>::items_per_tile);
  std::mt19937_64 rng = make_rng();
  merge_keys_over<K>(edge_sizes(tile), tile, rng);
}

TYPED_TEST(GpuMerge, SeveralTilesAndBlocks) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  merge_keys_over<K>(multi_tile_sizes(tile, rng), tile, rng);
}

TYPED_TEST(GpuMerge, ByKeyStableTileEdgeSizes) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::merge_pairs_policy<K, std::uint64_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  merge_pairs_over<K>(edge_sizes(tile), tile, rng);
}

TYPED_TEST(GpuMerge, ByKeyStablePartitionedTileEdgeSizes) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::partitioned_merge_pairs_policy<K, std::uint64_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  merge_pairs_over<K>(edge_sizes(tile), tile, rng);
}

TYPED_TEST(GpuMerge, ByKeyStableSeveralTilesAndBlocks) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::merge_pairs_policy<K, std::uint64_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  merge_pairs_over<K>(multi_tile_sizes(tile, rng), tile, rng);
}

// thrust::device_vector iterators unwrap to the same raw pointers (same kernels); the
// returned end is an iterator of the caller's type.
TYPED_TEST(GpuMerge, DeviceVectorIterators) {
  using K = TypeParam;
  using compare = typename key_traits<K>::compare;
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<K> in = make_inputs<K>(distribution::uniform, 5 * tile + 17, 3 * tile + 2, tile, rng);
  const std::vector<K> expected = reference_merge(in.a, in.b, compare{});
  const thrust::device_vector<K> a(in.a.begin(), in.a.end()), b(in.b.begin(), in.b.end());
  const std::vector<K> poison(expected.size(), poison_value<K>());
  thrust::device_vector<K> out(poison.begin(), poison.end());
  const auto end = corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), compare{});
  EXPECT_TRUE(end == out.end());
  std::vector<K> host(expected.size());
  thrust::copy(out.begin(), out.end(), host.begin());
  EXPECT_TRUE(equal_bits(expected, host));
}

// 2^24 per side: many blocks, each streaming many tiles. A few (type, distribution) pairs.
class GpuMergeLarge : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped() && quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: 2^24 sizes skipped";
  }
};

constexpr std::size_t two_pow_24 = std::size_t(1) << 24;

template <class K>
void merge_large(distribution d, std::mt19937_64& rng) {
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  const sorted_inputs<K> in = make_inputs<K>(d, two_pow_24, two_pow_24, tile, rng);
  SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()));
  check_merge(in, reference_merge(in.a, in.b, typename key_traits<K>::compare{}));
}

TEST_F(GpuMergeLarge, Keys2Pow24) {
  std::mt19937_64 rng = make_rng();
  merge_large<std::int8_t>(distribution::uniform, rng);
  merge_large<std::int32_t>(distribution::long_runs, rng);
  merge_large<std::uint32_t>(distribution::uniform, rng);
  merge_large<double>(distribution::interleaved, rng);
  merge_large<std::uint64_t>(distribution::a_tiny, rng);
  merge_large<std::int16_t>(distribution::b_below_a, rng);
  merge_large<opaque_key>(distribution::uniform, rng);
}

TEST_F(GpuMergeLarge, ByKey2Pow24) {
  std::mt19937_64 rng = make_rng();
  for (distribution d : {distribution::uniform, distribution::all_equal}) {
    constexpr std::size_t tile = corank::merge_pairs_policy<std::int32_t, std::uint64_t>::items_per_tile;
    const sorted_inputs<std::int32_t> in = make_inputs<std::int32_t>(d, two_pow_24, two_pow_24, tile, rng);
    SCOPED_TRACE(describe("int32", d, in.a.size(), in.b.size()) + " by key");
    check_merge_by_key(in, payloads(0, in.a.size()), payloads(1, in.b.size()));
  }
}

// merge_by_key with int32 keys and int32 values (payload: index for A, -1 - index for B).
class GpuMergeByKey : public gpu_test {};

TEST_F(GpuMergeByKey, Int32KeysInt32Values) {
  constexpr std::size_t tile = corank::merge_pairs_policy<std::int32_t, std::int32_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  std::vector<size_pair> sizes = edge_sizes(tile);
  for (const size_pair& s : multi_tile_sizes(tile, rng)) sizes.push_back(s);
  for (distribution d : gpu_distributions()) {
    for (const size_pair& s : sizes) {
      const sorted_inputs<std::int32_t> in = make_inputs<std::int32_t>(d, s.m, s.n, tile, rng);
      SCOPED_TRACE(describe("int32", d, in.a.size(), in.b.size()) + " int32 values");
      check_merge_by_key(in, int32_payloads(0, in.a.size()), int32_payloads(1, in.b.size()));
      if (HasFailure()) return;
    }
  }
}

}  // namespace
