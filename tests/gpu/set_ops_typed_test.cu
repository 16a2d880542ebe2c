// The set operations on the GPU against std::set_*: corank::set_union, set_intersection,
// set_difference, set_symmetric_difference, their _by_key and _count forms and
// set_intersection_by_key_paired, with every strategy (naive, tiled, circular, and
// partitioned where the library has it: for set operations all but naive run the same
// staged kernel, and all must give the same result), every key type, sizes around the
// tile and across tiles and blocks, a key repeated over many tiles, 2^22 and 2^24
// elements, and counting-iterator inputs of more than 2^31 elements. Then the two-phase
// corank::device forms (temporary storage, the count in device memory, argument errors, a
// user stream, graph capture) and check_sorted on set-operation inputs.
//
// Set operations are not pre-compiled in the library: the typed matrix's kernels (raw
// pointers, one comparator per key type, so one instantiation each) are compiled apart, one
// source per key type (support/shared_kernels.hpp), and linked; the two-phase tests reuse the
// int32 ones. The iterator and counting-iterator tests' kernels compile here.

#include <corank/check_sorted.cuh>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>
#include <corank/set_operations.cuh>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/set_case.hpp"
#include "support/set_inputs.hpp"
#include "support/shared_kernels.hpp"
#include "support/strategies.hpp"
#include "support/test_env.hpp"

#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::strategy;

// naive, tiled, circular (and partitioned where the library has it): all must agree.
const std::vector<strategy> all_strategies = every_strategy();

// ---------------------------------------------------------------------------------------
// The named runner objects, chosen by `op` (arguments forwarded: the two-phase forms take
// temp_storage_bytes by reference).

template <class... Args>
auto gpu_keys(set_op op, Args&&... args) {
  switch (op) {
    case set_op::set_union: return corank::set_union(std::forward<Args>(args)...);
    case set_op::set_intersection: return corank::set_intersection(std::forward<Args>(args)...);
    case set_op::set_difference: return corank::set_difference(std::forward<Args>(args)...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::set_symmetric_difference(std::forward<Args>(args)...);
}

template <class... Args>
auto gpu_by_key(set_op op, Args&&... args) {
  switch (op) {
    case set_op::set_union: return corank::set_union_by_key(std::forward<Args>(args)...);
    case set_op::set_intersection: return corank::set_intersection_by_key(std::forward<Args>(args)...);
    case set_op::set_difference: return corank::set_difference_by_key(std::forward<Args>(args)...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::set_symmetric_difference_by_key(std::forward<Args>(args)...);
}

template <class... Args>
index_t gpu_count(set_op op, Args&&... args) {
  switch (op) {
    case set_op::set_union: return corank::set_union_count(std::forward<Args>(args)...);
    case set_op::set_intersection: return corank::set_intersection_count(std::forward<Args>(args)...);
    case set_op::set_difference: return corank::set_difference_count(std::forward<Args>(args)...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::set_symmetric_difference_count(std::forward<Args>(args)...);
}

template <class... Args>
cudaError_t device_keys(set_op op, Args&&... args) {
  switch (op) {
    case set_op::set_union: return corank::device::set_union(std::forward<Args>(args)...);
    case set_op::set_intersection: return corank::device::set_intersection(std::forward<Args>(args)...);
    case set_op::set_difference: return corank::device::set_difference(std::forward<Args>(args)...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::device::set_symmetric_difference(std::forward<Args>(args)...);
}

template <class... Args>
cudaError_t device_by_key(set_op op, Args&&... args) {
  switch (op) {
    case set_op::set_union: return corank::device::set_union_by_key(std::forward<Args>(args)...);
    case set_op::set_intersection: return corank::device::set_intersection_by_key(std::forward<Args>(args)...);
    case set_op::set_difference: return corank::device::set_difference_by_key(std::forward<Args>(args)...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::device::set_symmetric_difference_by_key(std::forward<Args>(args)...);
}

template <class... Args>
cudaError_t device_count(set_op op, Args&&... args) {
  switch (op) {
    case set_op::set_union: return corank::device::set_union_count(std::forward<Args>(args)...);
    case set_op::set_intersection: return corank::device::set_intersection_count(std::forward<Args>(args)...);
    case set_op::set_difference: return corank::device::set_difference_count(std::forward<Args>(args)...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::device::set_symmetric_difference_count(std::forward<Args>(args)...);
}

// ---------------------------------------------------------------------------------------
// Checks. Outputs have room for m + n elements between poisoned guards; everything past
// the expected outputs must still be poison.

// Under CORANK_TEST_QUICK (compute-sanitizer): random, all ties, ties across tiles, many
// matches.
std::vector<set_distribution> gpu_set_distributions() {
  if (quick_mode()) {
    return {set_distribution::uniform, set_distribution::all_equal, set_distribution::long_runs,
            set_distribution::few_keys};
  }
  return {std::begin(all_set_distributions), std::end(all_set_distributions)};
}

std::vector<size_pair> edge_sizes(std::size_t tile) {
  if (quick_mode()) return {{0, 0}, {1, 1}, {tile - 1, tile + 1}, {tile, tile}, {tile + 1, 0}, {1, tile}};
  return tile_edge_sizes(tile);
}

// Over several tiles and blocks (inputs.hpp); under CORANK_TEST_QUICK three of a few tiles.
std::vector<size_pair> several_tile_sizes(std::size_t tile, std::mt19937_64& rng) {
  if (quick_mode()) return {{3 * tile + 1, 2 * tile + 5}, {1, 3 * tile + 1}, {3 * tile + 1, 3 * tile + 1}};
  return multi_tile_sizes(tile, rng);
}

// All four ops for every input; under CORANK_TEST_QUICK one op per input, in turn, so that
// the sanitizer runs see every op without four times the launches.
std::vector<set_op> ops_to_run() {
  if (!quick_mode()) return {std::begin(all_set_ops), std::end(all_set_ops)};
  static unsigned next = 0;
  return {all_set_ops[next++ % 4]};
}

// Keys and counts of every op with every strategy.
template <class K>
void check_keys_forms(const sorted_inputs<K>& in) {
  using compare = typename key_traits<K>::compare;
  const device_buffer<K> a(in.a), b(in.b);
  guarded_output<K> out(in.a.size() + in.b.size());
  for (set_op op : ops_to_run()) {
    const std::vector<K> expected = std_set_op(op, in.a, in.b, compare{});
    for (strategy kind : all_strategies) {
      SCOPED_TRACE(std::string(to_string(op)) + " " + corank::to_string(kind));
      out.buffer.fill_poison();
      K* const end = gpu_keys(op, a.begin(), a.end(), b.begin(), b.end(), out.first(), compare{}, nullptr, kind);
      EXPECT_EQ(end - out.first(), std::ptrdiff_t(expected.size()));
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(exact_output(expected, out.buffer.to_host(), guard_elements));
      EXPECT_EQ(gpu_count(op, a.begin(), a.end(), b.begin(), b.end(), compare{}, nullptr, kind),
                index_t(expected.size()))
          << "_count";
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// By key with payloads that name each element's source and index (inputs.hpp), so which
// copies are written is checked exactly; and the paired intersection, whose B values must be
// the matched copies'.
template <class K, class V = std::uint64_t>
void check_by_key_forms(const sorted_inputs<K>& in) {
  using compare = typename key_traits<K>::compare;
  static_assert(std::is_same_v<V, std::uint64_t> || std::is_same_v<V, std::int32_t>);
  const std::size_t capacity = in.a.size() + in.b.size();
  const auto payloads_of = [](unsigned source, std::size_t n) {
    if constexpr (std::is_same_v<V, std::int32_t>) return int32_payloads(source, n); else return payloads(source, n);
  };
  const std::vector<V> hva = payloads_of(0, in.a.size()), hvb = payloads_of(1, in.b.size());
  const device_buffer<K> a(in.a), b(in.b);
  const device_buffer<V> va(hva), vb(hvb);
  guarded_output<K> keys(capacity);
  guarded_output<V> values(capacity), b_values(capacity);
  const std::vector<set_op> ops = ops_to_run();
  for (set_op op : ops) {
    const auto expected = reference_set_op_by_key(op, in.a, hva, in.b, hvb, compare{});
    for (strategy kind : all_strategies) {
      SCOPED_TRACE(std::string(to_string(op)) + "_by_key " + corank::to_string(kind));
      keys.buffer.fill_poison();
      values.buffer.fill_poison();
      const auto ends = gpu_by_key(op, a.begin(), a.end(), b.begin(), b.end(), va.begin(), vb.begin(), keys.first(),
                                   values.first(), compare{}, nullptr, kind);
      EXPECT_EQ(ends.first - keys.first(), std::ptrdiff_t(expected.keys.size()));
      EXPECT_EQ(ends.second - values.first(), std::ptrdiff_t(expected.keys.size()));
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(exact_output(expected.keys, keys.buffer.to_host(), guard_elements));
      EXPECT_TRUE(exact_output(expected.values, values.buffer.to_host(), guard_elements))
          << "the wrong copies were written";
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Paired with every input, or under CORANK_TEST_QUICK when intersection's turn comes.
  if (std::find(ops.begin(), ops.end(), set_op::set_intersection) == ops.end()) return;
  const auto expected = reference_intersection_paired(in.a, hva, in.b, hvb, compare{});
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(std::string("set_intersection_by_key_paired ") + corank::to_string(kind));
    keys.buffer.fill_poison();
    values.buffer.fill_poison();
    b_values.buffer.fill_poison();
    const auto ends = corank::set_intersection_by_key_paired(a.begin(), a.end(), b.begin(), b.end(), va.begin(),
                                                             vb.begin(), keys.first(), values.first(),
                                                             b_values.first(), compare{}, nullptr, kind);
    const std::ptrdiff_t count = std::ptrdiff_t(expected.keys.size());
    EXPECT_EQ(std::get<0>(ends) - keys.first(), count);
    EXPECT_EQ(std::get<1>(ends) - values.first(), count);
    EXPECT_EQ(std::get<2>(ends) - b_values.first(), count);
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(exact_output(expected.keys, keys.buffer.to_host(), guard_elements));
    EXPECT_TRUE(exact_output(expected.values, values.buffer.to_host(), guard_elements));
    EXPECT_TRUE(exact_output(expected.b_values, b_values.buffer.to_host(), guard_elements))
        << "not the matched copy of B";
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <class K, class Check>
void over_matrix(const std::vector<size_pair>& sizes, std::size_t tile, std::mt19937_64& rng, Check check) {
  for (set_distribution d : gpu_set_distributions()) {
    for (const size_pair& s : sizes) {
      if (!applies(d, s.m, s.n)) continue;
      const sorted_inputs<K> in = make_set_inputs<K>(d, s.m, s.n, tile, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()));
      check(in);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// ---------------------------------------------------------------------------------------
// The typed matrix

template <class K>
class GpuSetOps : public gpu_test {};
TYPED_TEST_SUITE(GpuSetOps, all_key_types);

TYPED_TEST(GpuSetOps, KeysTileEdgeSizes) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::set_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  over_matrix<K>(edge_sizes(tile), tile, rng, [](const sorted_inputs<K>& in) { check_keys_forms(in); });
}

TYPED_TEST(GpuSetOps, KeysSeveralTilesAndBlocks) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::set_keys_policy<K>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  over_matrix<K>(several_tile_sizes(tile, rng), tile, rng, [](const sorted_inputs<K>& in) { check_keys_forms(in); });
}

TYPED_TEST(GpuSetOps, ByKeyAndPairedTileEdgeSizes) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::set_pairs_policy<K, std::uint64_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  over_matrix<K>(edge_sizes(tile), tile, rng, [](const sorted_inputs<K>& in) { check_by_key_forms(in); });
}

TYPED_TEST(GpuSetOps, ByKeyAndPairedSeveralTilesAndBlocks) {
  using K = TypeParam;
  constexpr std::size_t tile = corank::set_pairs_policy<K, std::uint64_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  over_matrix<K>(several_tile_sizes(tile, rng), tile, rng,
                 [](const sorted_inputs<K>& in) { check_by_key_forms(in); });
}

// One key 50 tiles long in A and 30 in B (amid other keys, then alone, then the sides
// swapped): its pairs cross every tile and thread boundary.
template <class K, class Check>
void key_repeated_over_many_tiles(std::size_t tile, std::mt19937_64& rng, Check check) {
  const std::size_t many = quick_or(50, 6) * tile, fewer = quick_or(30, 4) * tile;
  sorted_inputs<K> in;
  in.a = with_one_key_run<K>(tile / 2 + 3, many, 2 * tile + 1, rng);
  in.b = with_one_key_run<K>(tile + 7, fewer, tile / 3, rng);
  {
    SCOPED_TRACE(key_name<K>() + " one key " + std::to_string(many) + " and " + std::to_string(fewer) +
                 " times amid others");
    check(in);
  }
  in.a.assign(many, key_traits<K>::from_index(5));
  in.b.assign(fewer, key_traits<K>::from_index(5));
  {
    SCOPED_TRACE(key_name<K>() + " all equal " + std::to_string(many) + " : " + std::to_string(fewer));
    check(in);
  }
  std::swap(in.a, in.b);
  {
    SCOPED_TRACE(key_name<K>() + " all equal " + std::to_string(fewer) + " : " + std::to_string(many));
    check(in);
  }
}

TYPED_TEST(GpuSetOps, KeyRepeatedOverManyTiles) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  key_repeated_over_many_tiles<K>(corank::set_keys_policy<K>::items_per_tile, rng,
                                  [](const sorted_inputs<K>& in) { check_keys_forms(in); });
  key_repeated_over_many_tiles<K>(corank::set_pairs_policy<K, std::uint64_t>::items_per_tile, rng,
                                  [](const sorted_inputs<K>& in) { check_by_key_forms(in); });
}

// Stretches of keys that only A has, that only B has, of one key in both (up to 3 tiles of
// copies on each side), and of keys of both, in random order: tiles of one input, of one key
// and of both beside one another, and look-backs over tiles that write nothing. Keys increase
// from stretch to stretch (saturating for int8).
template <class K>
sorted_inputs<K> stretches_of_one_input_and_one_key(std::size_t tile, std::mt19937_64& rng, int stretches) {
  sorted_inputs<K> in;
  std::uint64_t next = 0;  // the next stretch's first key, as an index
  for (int s = 0; s < stretches; ++s) {
    const std::size_t length = 1 + rng() % (3 * tile);
    switch (rng() % 4) {
      case 0:  // A alone, each key twice
        for (std::size_t i = 0; i < length; ++i) in.a.push_back(key_traits<K>::from_index(next + i / 2));
        next += length;
        break;
      case 1:  // B alone
        for (std::size_t j = 0; j < length; ++j) in.b.push_back(key_traits<K>::from_index(next + j / 2));
        next += length;
        break;
      case 2:  // one key in both
        in.a.insert(in.a.end(), 1 + rng() % (3 * tile), key_traits<K>::from_index(next));
        in.b.insert(in.b.end(), 1 + rng() % (3 * tile), key_traits<K>::from_index(next));
        next += 1;
        break;
      default: {  // keys of both, interleaved at random
        for (auto* side : {&in.a, &in.b}) {
          std::vector<K> keys(1 + rng() % length);
          for (K& k : keys) k = key_traits<K>::from_index(next + rng() % length);
          std::sort(keys.begin(), keys.end(), typename key_traits<K>::compare{});
          side->insert(side->end(), keys.begin(), keys.end());
        }
        next += length;
      }
    }
  }
  return in;
}

TYPED_TEST(GpuSetOps, StretchesOfOneInputAndOfOneKey) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (int trial = 0; trial < int(quick_or(4, 2)); ++trial) {
    for (bool by_key : {false, true}) {
      const std::size_t tile = by_key ? corank::set_pairs_policy<K, std::uint64_t>::items_per_tile
                                      : corank::set_keys_policy<K>::items_per_tile;
      const sorted_inputs<K> in = stretches_of_one_input_and_one_key<K>(tile, rng, int(quick_or(16, 6)));
      SCOPED_TRACE(key_name<K>() + " stretches, trial " + std::to_string(trial) + ", " +
                   std::to_string(in.a.size()) + " and " + std::to_string(in.b.size()) + (by_key ? " by key" : ""));
      if (by_key) check_by_key_forms(in); else check_keys_forms(in);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// int32 keys with int32 values: 8-byte elements, whose tiles differ from the typed matrix's.
class GpuSetOpsInt32Values : public gpu_test {};

TEST_F(GpuSetOpsInt32Values, TileEdgeAndSeveralTileSizes) {
  using K = std::int32_t;
  constexpr std::size_t tile = corank::set_pairs_policy<K, std::int32_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  const auto check = [](const sorted_inputs<K>& in) { check_by_key_forms<K, std::int32_t>(in); };
  over_matrix<K>(edge_sizes(tile), tile, rng, check);
  over_matrix<K>(several_tile_sizes(tile, rng), tile, rng, check);
  key_repeated_over_many_tiles<K>(tile, rng, check);
}

// ---------------------------------------------------------------------------------------
// Large: 2^22 for a few (type, shape) pairs, 2^24 int32 uniform for every op.

class GpuSetOpsLarge : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped() && quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: 2^22 and 2^24 sizes skipped";
  }
};

constexpr std::size_t two_pow_22 = std::size_t(1) << 22;
constexpr std::size_t two_pow_24 = std::size_t(1) << 24;

template <class K>
void keys_large(set_distribution d, std::size_t m, std::size_t n, std::mt19937_64& rng) {
  constexpr std::size_t tile = corank::set_keys_policy<K>::items_per_tile;
  const sorted_inputs<K> in = make_set_inputs<K>(d, m, n, tile, rng);
  SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()));
  check_keys_forms(in);
}

template <class K>
void by_key_large(set_distribution d, std::size_t m, std::size_t n, std::mt19937_64& rng) {
  constexpr std::size_t tile = corank::set_pairs_policy<K, std::uint64_t>::items_per_tile;
  const sorted_inputs<K> in = make_set_inputs<K>(d, m, n, tile, rng);
  SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " by key");
  check_by_key_forms(in);
}

TEST_F(GpuSetOpsLarge, Int32Uniform2Pow24) {
  std::mt19937_64 rng = make_rng();
  keys_large<std::int32_t>(set_distribution::uniform, two_pow_24, two_pow_24, rng);
}

TEST_F(GpuSetOpsLarge, Keys2Pow22) {
  std::mt19937_64 rng = make_rng();
  keys_large<std::uint64_t>(set_distribution::few_keys, two_pow_22, two_pow_22 + 3, rng);
  keys_large<std::int8_t>(set_distribution::uniform, two_pow_22, two_pow_22 / 3, rng);
  keys_large<opaque_key>(set_distribution::long_runs, two_pow_22 + 1, two_pow_22, rng);
  keys_large<double>(set_distribution::one_key_run, two_pow_22, two_pow_22 / 2, rng);
}

TEST_F(GpuSetOpsLarge, ByKey2Pow22) {
  std::mt19937_64 rng = make_rng();
  by_key_large<std::int32_t>(set_distribution::few_keys, two_pow_22, two_pow_22 - 5, rng);
  by_key_large<std::uint64_t>(set_distribution::long_runs, two_pow_22, two_pow_22, rng);
}

// ---------------------------------------------------------------------------------------
// Persistent blocks that take several tiles each after the split pass, at every test size:
// the sanitizer runs (CORANK_TEST_QUICK) reach that path only here. uint64 keys with
// uint64 values make tiles of 1408 elements, of which an H100 or H200 holds 528 at once (4
// blocks on each of 132 SMs); 2^19 per input makes 745 tiles. Under CORANK_TEST_QUICK each
// input runs one op (ops_to_run): four inputs run every op. The disjoint inputs make tiles of
// one input, of which intersection's (and difference's of B) write nothing and are skipped.

class GpuSetOpsPersistent : public gpu_test {};

TEST_F(GpuSetOpsPersistent, ByKeyMoreTilesThanResidentBlocks) {
  using K = std::uint64_t;
  constexpr std::size_t tile = corank::set_pairs_policy<K, std::uint64_t>::items_per_tile;
  constexpr std::size_t half = std::size_t(1) << 19;
  static_assert(2 * half / tile > 4 * 132, "more tiles than the resident blocks (above)");
  std::mt19937_64 rng = make_rng();
  for (set_distribution d : {set_distribution::uniform, set_distribution::long_runs, set_distribution::few_keys,
                             set_distribution::one_key_run, set_distribution::a_below_b, set_distribution::b_below_a}) {
    const sorted_inputs<K> in = make_set_inputs<K>(d, half + 3, half - 5, tile, rng);
    SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " by key");
    check_by_key_forms(in);
    if (HasFatalFailure()) return;
  }
  // Stretches of one input and of one key as above, about a tile and a half each: blocks skip
  // runs of tiles that write nothing between tiles they walk.
  const sorted_inputs<K> in = stretches_of_one_input_and_one_key<K>(tile, rng, 600);
  SCOPED_TRACE("stretches of one input and one key, " + std::to_string(in.a.size()) + " and " +
               std::to_string(in.b.size()) + " by key");
  ASSERT_GT((in.a.size() + in.b.size()) / tile, std::size_t(4 * 132));
  check_by_key_forms(in);
}

// ---------------------------------------------------------------------------------------
// Iterators: device_vector iterators give the same kernels and return the caller's type.

class GpuSetOpsIterators : public gpu_test {};

TEST_F(GpuSetOpsIterators, DeviceVectorIterators) {
  constexpr std::size_t tile = corank::set_keys_policy<std::int32_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<std::int32_t> in =
      make_set_inputs<std::int32_t>(set_distribution::few_keys, 5 * tile + 17, 3 * tile + 2, tile, rng);
  const thrust::device_vector<std::int32_t> a(in.a.begin(), in.a.end()), b(in.b.begin(), in.b.end());
  for (set_op op : all_set_ops) {
    SCOPED_TRACE(to_string(op));
    const std::vector<std::int32_t> expected = std_set_op(op, in.a, in.b, corank::less{});
    const std::vector<std::int32_t> poison(in.a.size() + in.b.size(), poison_value<std::int32_t>());
    thrust::device_vector<std::int32_t> out(poison.begin(), poison.end());
    const auto end = gpu_keys(op, a.cbegin(), a.cend(), b.cbegin(), b.cend(), out.begin());
    EXPECT_TRUE(end == out.begin() + std::ptrdiff_t(expected.size()));
    std::vector<std::int32_t> host(out.size());
    thrust::copy(out.begin(), out.end(), host.begin());
    EXPECT_TRUE(exact_output(expected, host, 0));
    EXPECT_EQ(gpu_count(op, a.begin(), a.end(), b.begin(), b.end()), index_t(expected.size()));
  }
}

// The alignment tests' inputs: a few tiles of int32 keys, each key several times on both
// sides, with 8-byte payloads.
struct alignment_inputs {
  sorted_inputs<std::int32_t> in;
  std::vector<std::uint64_t> va, vb;
};

alignment_inputs make_alignment_inputs() {
  constexpr std::size_t tile = corank::set_keys_policy<std::int32_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  alignment_inputs inputs{make_set_inputs<std::int32_t>(set_distribution::few_keys, quick_or(5, 2) * tile + 13,
                                                        quick_or(3, 2) * tile + 6, tile, rng),
                          {}, {}};
  inputs.va = payloads(0, inputs.in.a.size());
  inputs.vb = payloads(1, inputs.in.b.size());
  return inputs;
}

// Inputs that start 0-3 elements past a 16-byte boundary: aligned arrays are staged by bulk
// copies of whole lines (with partial lines at both ends), others element by element. Each
// array ends at its allocation's end, so a copy of the last line past it would be caught by
// compute-sanitizer.
TEST_F(GpuSetOpsIterators, InputsAtEveryAlignment) {
  using V = std::uint64_t;
  const alignment_inputs inputs = make_alignment_inputs();
  const sorted_inputs<std::int32_t>& in = inputs.in;
  const std::vector<V>& hva = inputs.va;
  const std::vector<V>& hvb = inputs.vb;
  for (std::size_t a_offset : {0, 1, 2, 3}) {
    for (std::size_t b_offset : {0, 3}) {
      std::vector<std::int32_t> padded_a(a_offset, 0), padded_b(b_offset, 0);
      padded_a.insert(padded_a.end(), in.a.begin(), in.a.end());
      padded_b.insert(padded_b.end(), in.b.begin(), in.b.end());
      std::vector<V> padded_va(a_offset, 0), padded_vb(b_offset, 0);
      padded_va.insert(padded_va.end(), hva.begin(), hva.end());
      padded_vb.insert(padded_vb.end(), hvb.begin(), hvb.end());
      const device_buffer<std::int32_t> a(padded_a), b(padded_b);
      const device_buffer<V> va(padded_va), vb(padded_vb);
      const std::int32_t *a_first = a.begin() + a_offset, *a_last = a.end();
      const std::int32_t *b_first = b.begin() + b_offset, *b_last = b.end();
      guarded_output<std::int32_t> keys(in.a.size() + in.b.size());
      guarded_output<V> values(in.a.size() + in.b.size());
      for (set_op op : all_set_ops) {
        SCOPED_TRACE(std::string(to_string(op)) + ", A at +" + std::to_string(a_offset) + ", B at +" +
                     std::to_string(b_offset));
        const std::vector<std::int32_t> expected = std_set_op(op, in.a, in.b, corank::less{});
        keys.buffer.fill_poison();
        std::int32_t* end = gpu_keys(op, a_first, a_last, b_first, b_last, keys.first());
        EXPECT_EQ(end - keys.first(), std::ptrdiff_t(expected.size()));
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(exact_output(expected, keys.buffer.to_host(), guard_elements));

        const auto expected_by_key = reference_set_op_by_key(op, in.a, hva, in.b, hvb, corank::less{});
        keys.buffer.fill_poison();
        values.buffer.fill_poison();
        gpu_by_key(op, a_first, a_last, b_first, b_last, va.begin() + a_offset, vb.begin() + b_offset,
                   keys.first(), values.first());
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(exact_output(expected_by_key.keys, keys.buffer.to_host(), guard_elements));
        EXPECT_TRUE(exact_output(expected_by_key.values, values.buffer.to_host(), guard_elements));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Outputs that start 0-3 elements past a 16-byte boundary (8-byte values 0 or 1), with every
// strategy: a tile whose place in the output is 16-byte aligned is stored 16 bytes at a time,
// others element by element, and each tile's place depends on the counts before it. A tile
// stored at the wrong place, or a store past either end of the output (into the guards),
// fails here; the paired intersection's B values too.
TEST_F(GpuSetOpsIterators, OutputsAtEveryAlignment) {
  using V = std::uint64_t;
  const alignment_inputs inputs = make_alignment_inputs();
  const sorted_inputs<std::int32_t>& in = inputs.in;
  const std::vector<V>& hva = inputs.va;
  const std::vector<V>& hvb = inputs.vb;
  const device_buffer<std::int32_t> a(in.a), b(in.b);
  const device_buffer<V> va(hva), vb(hvb);
  constexpr std::size_t most_shift = 3;
  guarded_output<std::int32_t> keys(in.a.size() + in.b.size() + most_shift);
  guarded_output<V> values(in.a.size() + in.b.size() + most_shift), b_values(in.b.size() + most_shift);
  for (std::size_t shift = 0; shift <= most_shift; ++shift) {
    const std::size_t value_shift = shift % 2;  // 8-byte values: 0 or 8 bytes past the boundary
    for (set_op op : all_set_ops) {
      SCOPED_TRACE(std::string(to_string(op)) + ", outputs at +" + std::to_string(shift) + " keys, +" +
                   std::to_string(value_shift) + " values");
      const auto expected = reference_set_op_by_key(op, in.a, hva, in.b, hvb, corank::less{});
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(corank::to_string(kind));
        keys.buffer.fill_poison();
        std::int32_t* end = gpu_keys(op, a.begin(), a.end(), b.begin(), b.end(), keys.first() + shift,
                                     corank::less{}, nullptr, kind);
        EXPECT_EQ(end - keys.first(), std::ptrdiff_t(shift + expected.keys.size()));
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(exact_output(shifted(expected.keys, shift), keys.buffer.to_host(), guard_elements));
      }

      keys.buffer.fill_poison();
      values.buffer.fill_poison();
      gpu_by_key(op, a.begin(), a.end(), b.begin(), b.end(), va.begin(), vb.begin(), keys.first() + shift,
                 values.first() + value_shift);
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(exact_output(shifted(expected.keys, shift), keys.buffer.to_host(), guard_elements));
      EXPECT_TRUE(exact_output(shifted(expected.values, value_shift), values.buffer.to_host(), guard_elements));
      if (::testing::Test::HasFatalFailure()) return;
    }
    SCOPED_TRACE("set_intersection_by_key_paired, outputs at +" + std::to_string(shift));
    const auto expected = reference_intersection_paired(in.a, hva, in.b, hvb, corank::less{});
    keys.buffer.fill_poison();
    values.buffer.fill_poison();
    b_values.buffer.fill_poison();
    corank::set_intersection_by_key_paired(a.begin(), a.end(), b.begin(), b.end(), va.begin(), vb.begin(),
                                           keys.first() + shift, values.first() + value_shift,
                                           b_values.first() + value_shift);
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(exact_output(shifted(expected.keys, shift), keys.buffer.to_host(), guard_elements));
    EXPECT_TRUE(exact_output(shifted(expected.values, value_shift), values.buffer.to_host(), guard_elements));
    EXPECT_TRUE(exact_output(shifted(expected.b_values, value_shift), b_values.buffer.to_host(), guard_elements));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// A = 0, 1, 2, ... (2^31 + 5 elements), B = 0, 2, 4, ... (2^31 + 3): formulas, so nothing
// but the output needs memory. Intersection: the evens below 2^31 + 5.
class GpuSetOpsHuge : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped() && quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: > 2^31 elements skipped";
  }
};

struct times_two {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return 2 * i; }
};
struct low_byte {
  __host__ __device__ std::uint8_t operator()(std::int64_t k) const { return std::uint8_t(k & 0xFF); }
};

constexpr index_t huge_m = (index_t(1) << 31) + 5;
constexpr index_t huge_n = (index_t(1) << 31) + 3;
constexpr index_t huge_intersection = (huge_m + 1) / 2;  // 0, 2, ..., 2^31 + 4: all in B

// The union: all of A, then B's evens above A's last element (2^31 + 6, 2^31 + 8, ...).
struct union_byte_is_wrong {
  const std::uint8_t* out;
  __device__ bool operator()(std::int64_t k) const {
    const std::int64_t value = k < huge_m ? k : huge_m + 1 + 2 * (k - huge_m);
    return out[k] != std::uint8_t(value & 0xFF);
  }
};

TEST_F(GpuSetOpsHuge, CountsOfCountingIteratorsAbove2Pow31) {
  const thrust::counting_iterator<std::int64_t> a(0);
  const auto b = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), times_two{});
  const index_t expected[] = {huge_m + huge_n - huge_intersection, huge_intersection, huge_m - huge_intersection,
                              huge_m + huge_n - 2 * huge_intersection};
  for (strategy kind : all_strategies) {
    for (set_op op : all_set_ops) {
      SCOPED_TRACE(std::string(to_string(op)) + "_count " + corank::to_string(kind));
      EXPECT_EQ(gpu_count(op, a, a + huge_m, b, b + huge_n, corank::less{}, nullptr, kind),
                expected[int(op)]);
      CORANK_ASSERT_DEVICE_OK();
    }
  }
}

TEST_F(GpuSetOpsHuge, UnionOfCountingIteratorsAbove2Pow31IntoBytes) {
  const index_t total = huge_m + huge_n - huge_intersection;  // 3 * 2^30 + 5
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaSuccess, cudaMemGetInfo(&free_bytes, &total_bytes));
  // The output, plus the temporary storage (~24 bytes per 1024-element tile) and slack.
  if (free_bytes < std::size_t(total) + (std::size_t(1) << 30)) {
    GTEST_SKIP() << "needs " << (total >> 20) << " MiB of free device memory plus 1 GiB, has " << (free_bytes >> 20);
  }
  device_buffer<std::uint8_t> bytes(static_cast<std::size_t>(total));
  const thrust::counting_iterator<std::int64_t> a(0);
  const auto b = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), times_two{});
  const auto out = thrust::make_transform_output_iterator(bytes.data(), low_byte{});
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    bytes.fill_poison();
    const auto end = corank::set_union(a, a + huge_m, b, b + huge_n, out, corank::less{}, nullptr, kind);
    EXPECT_TRUE(end == out + total);
    CORANK_ASSERT_DEVICE_OK();
    const index_t wrong = thrust::count_if(thrust::device, thrust::counting_iterator<std::int64_t>(0),
                                           thrust::counting_iterator<std::int64_t>(total),
                                           union_byte_is_wrong{bytes.data()});
    EXPECT_EQ(wrong, 0);
    // A few positions read back on the host as well.
    for (index_t k : {index_t(0), (index_t(1) << 31) - 1, huge_m - 1, huge_m, (index_t(1) << 32) - 1, total - 1}) {
      if (k >= total) continue;  // the union is shorter than 2^32 here
      std::uint8_t value = 0;
      ASSERT_EQ(cudaSuccess, cudaMemcpy(&value, bytes.data() + k, 1, cudaMemcpyDeviceToHost));
      const index_t expected = k < huge_m ? k : huge_m + 1 + 2 * (k - huge_m);
      EXPECT_EQ(value, std::uint8_t(expected & 0xFF)) << "k = " << k;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Two-phase forms (corank::device), on int32 keys and uint64 values: the same kernels as
// the typed matrix.

class GpuSetOpsTwoPhase : public gpu_stream_test {};

constexpr std::size_t int_tile = corank::set_keys_policy<std::int32_t>::items_per_tile;

using two_phase_case = set_operation_case;

// Every form of `op` (and paired with set_intersection) through a two-phase call.
enum class form { keys, by_key, count, paired };
constexpr form all_forms[] = {form::keys, form::by_key, form::count, form::paired};

const char* to_string(form f) {
  switch (f) {
    case form::keys: return "keys";
    case form::by_key: return "by_key";
    case form::count: return "count";
    case form::paired: return "paired";
  }
  return "?";
}

// Runs `f` of `op` (paired: set_intersection) with the given temporary storage.
cudaError_t run_two_phase(form f, set_op op, void* temp, std::size_t& bytes, two_phase_case& c, index_t* count_out,
                          cudaStream_t stream, strategy kind) {
  switch (f) {
    case form::keys:
      return device_keys(op, temp, bytes, c.a.data(), c.m(), c.b.data(), c.n(), c.keys.first(), count_out,
                         corank::less{}, stream, kind);
    case form::by_key:
      return device_by_key(op, temp, bytes, c.a.data(), c.va.data(), c.m(), c.b.data(), c.vb.data(), c.n(),
                           c.keys.first(), c.values.first(), count_out, corank::less{}, stream, kind);
    case form::count:
      return device_count(op, temp, bytes, c.a.data(), c.m(), c.b.data(), c.n(), count_out, corank::less{}, stream,
                          kind);
    case form::paired:
      return corank::device::set_intersection_by_key_paired(temp, bytes, c.a.data(), c.va.data(), c.m(), c.b.data(),
                                                            c.vb.data(), c.n(), c.keys.first(), c.values.first(),
                                                            c.b_values.first(), count_out, corank::less{}, stream,
                                                            kind);
  }
  return cudaErrorUnknown;
}

// Checks what `f` of `op` wrote against the references.
void expect_two_phase_results(form f, set_op op, const two_phase_case& c) {
  const set_op actual_op = f == form::paired ? set_op::set_intersection : op;
  const auto expected = reference_set_op_by_key(actual_op, c.in.a, c.hva, c.in.b, c.hvb, corank::less{});
  EXPECT_EQ(c.count.to_host()[0], index_t(expected.keys.size())) << "the count in device memory";
  if (f == form::count) {
    EXPECT_TRUE(c.keys.untouched());
  } else {
    EXPECT_TRUE(exact_output(expected.keys, c.keys.buffer.to_host(), guard_elements));
  }
  if (f == form::by_key || f == form::paired) {
    EXPECT_TRUE(exact_output(expected.values, c.values.buffer.to_host(), guard_elements));
  } else {
    EXPECT_TRUE(c.values.untouched());
  }
  if (f == form::paired) {
    const auto paired = reference_intersection_paired(c.in.a, c.hva, c.in.b, c.hvb, corank::less{});
    EXPECT_TRUE(exact_output(paired.b_values, c.b_values.buffer.to_host(), guard_elements));
  } else {
    EXPECT_TRUE(c.b_values.untouched());
  }
}

std::vector<set_op> ops_of(form f) {
  if (f == form::paired) return {set_op::set_intersection};
  return {std::begin(all_set_ops), std::end(all_set_ops)};
}

TEST_F(GpuSetOpsTwoPhase, QueryReturnsBytesAndLaunchesNothing) {
  std::mt19937_64 rng = make_rng();
  two_phase_case c(10 * int_tile + 3, 4 * int_tile + 1, rng);
  c.poison();
  for (form f : all_forms) {
    for (set_op op : ops_of(f)) {
      SCOPED_TRACE(std::string(to_string(op)) + " " + to_string(f));
      std::size_t bytes = 0;
      EXPECT_EQ(cudaSuccess, run_two_phase(f, op, nullptr, bytes, c, c.count.data(), nullptr, strategy::circular));
      EXPECT_GT(bytes, 0u);
      // The query does not look at count_out.
      std::size_t bytes_again = 0;
      EXPECT_EQ(cudaSuccess, run_two_phase(f, op, nullptr, bytes_again, c, nullptr, nullptr, strategy::naive));
      EXPECT_GT(bytes_again, 0u);
    }
  }
  // Empty inputs need temporary storage too (the count is still written).
  two_phase_case empty(0, 0, rng);
  std::size_t bytes = 0;
  EXPECT_EQ(cudaSuccess, run_two_phase(form::keys, set_op::set_union, nullptr, bytes, empty, empty.count.data(),
                                       nullptr, strategy::circular));
  EXPECT_GT(bytes, 0u);
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(c.untouched());
}

// On a user stream: the count lands in device memory and is right once the stream has
// run (nothing but cudaStreamSynchronize waits for it).
TEST_F(GpuSetOpsTwoPhase, RunsOnAStreamWithTheCountInDeviceMemory) {
  std::mt19937_64 rng = make_rng();
  for (const size_pair s : {size_pair{10 * int_tile + 3, 4 * int_tile + 1}, size_pair{0, 0}, size_pair{1, 0},
                            size_pair{int_tile, int_tile}, size_pair{3 * int_tile + 1, quick_or(300, 3) * int_tile}}) {
    two_phase_case c(s.m, s.n, rng);
    for (form f : all_forms) {
      for (set_op op : ops_of(f)) {
        std::size_t bytes = 0;
        ASSERT_EQ(cudaSuccess, run_two_phase(f, op, nullptr, bytes, c, c.count.data(), stream, strategy::circular));
        const device_buffer<unsigned char> temp(bytes);
        for (strategy kind : all_strategies) {
          SCOPED_TRACE(std::string(to_string(op)) + " " + to_string(f) + " " + corank::to_string(kind) +
                       " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n));
          c.poison();
          ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());  // the poison is on the legacy stream
          std::size_t run_bytes = bytes;
          ASSERT_EQ(cudaSuccess, run_two_phase(f, op, temp.data(), run_bytes, c, c.count.data(), stream, kind));
          ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
          expect_two_phase_results(f, op, c);
          if (HasFailure()) return;
        }
      }
    }
  }
}

TEST_F(GpuSetOpsTwoPhase, TempTooSmallIsInvalidValueAndWritesNothing) {
  std::mt19937_64 rng = make_rng();
  two_phase_case c(5 * int_tile + 1, 3 * int_tile, rng);
  c.poison();
  for (form f : all_forms) {
    for (set_op op : ops_of(f)) {
      std::size_t bytes = 0;
      ASSERT_EQ(cudaSuccess, run_two_phase(f, op, nullptr, bytes, c, c.count.data(), nullptr, strategy::circular));
      const device_buffer<unsigned char> temp(bytes);
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(std::string(to_string(op)) + " " + to_string(f) + " " + corank::to_string(kind));
        std::size_t short_bytes = bytes - 1;
        EXPECT_EQ(cudaErrorInvalidValue, run_two_phase(f, op, temp.data(), short_bytes, c, c.count.data(), nullptr, kind));
        std::size_t zero = 0;
        EXPECT_EQ(cudaErrorInvalidValue, run_two_phase(f, op, temp.data(), zero, c, c.count.data(), nullptr, kind));
      }
    }
  }
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_TRUE(c.untouched());
}

TEST_F(GpuSetOpsTwoPhase, NullCountOutIsInvalidValueAndWritesNothing) {
  std::mt19937_64 rng = make_rng();
  two_phase_case c(3 * int_tile + 1, 2 * int_tile, rng);
  c.poison();
  for (form f : all_forms) {
    for (set_op op : ops_of(f)) {
      std::size_t bytes = 0;
      ASSERT_EQ(cudaSuccess, run_two_phase(f, op, nullptr, bytes, c, c.count.data(), nullptr, strategy::circular));
      const device_buffer<unsigned char> temp(bytes);
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(std::string(to_string(op)) + " " + to_string(f) + " " + corank::to_string(kind));
        EXPECT_EQ(cudaErrorInvalidValue, run_two_phase(f, op, temp.data(), bytes, c, nullptr, nullptr, kind));
      }
    }
  }
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_TRUE(c.untouched());
}

TEST_F(GpuSetOpsTwoPhase, NullPointerWithNonzeroSizeIsInvalidValueAndWritesNothing) {
  std::mt19937_64 rng = make_rng();
  two_phase_case c(3 * int_tile + 1, 2 * int_tile, rng);
  c.poison();
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, run_two_phase(form::paired, set_op::set_intersection, nullptr, bytes, c, c.count.data(),
                                       nullptr, strategy::circular));
  std::size_t keys_bytes = 0;
  ASSERT_EQ(cudaSuccess, run_two_phase(form::keys, set_op::set_union, nullptr, keys_bytes, c, c.count.data(), nullptr,
                                       strategy::circular));
  bytes = std::max(bytes, keys_bytes);
  const device_buffer<unsigned char> temp(bytes);
  const std::int32_t* null_keys = nullptr;
  const std::uint64_t* null_values = nullptr;
  std::int32_t* null_keys_out = nullptr;
  std::uint64_t* null_values_out = nullptr;
  index_t* count = c.count.data();
  const index_t m = c.m(), n = c.n();
  for (strategy kind : all_strategies) {
    for (set_op op : all_set_ops) {
      SCOPED_TRACE(std::string(to_string(op)) + " " + corank::to_string(kind));
      auto keys = [&](const std::int32_t* a, const std::int32_t* b, std::int32_t* out, index_t size_a) {
        std::size_t run_bytes = bytes;
        return device_keys(op, temp.data(), run_bytes, a, size_a, b, n, out, count, corank::less{}, nullptr, kind);
      };
      EXPECT_EQ(cudaErrorInvalidValue, keys(null_keys, c.b.data(), c.keys.first(), m)) << "null A";
      EXPECT_EQ(cudaErrorInvalidValue, keys(c.a.data(), null_keys, c.keys.first(), m)) << "null B";
      EXPECT_EQ(cudaErrorInvalidValue, keys(c.a.data(), c.b.data(), null_keys_out, m)) << "null output";
      EXPECT_EQ(cudaErrorInvalidValue, keys(c.a.data(), c.b.data(), c.keys.first(), -1)) << "negative size";
      std::size_t run_bytes = bytes;
      EXPECT_EQ(cudaErrorInvalidValue, device_count(op, temp.data(), run_bytes, null_keys, m, c.b.data(), n, count,
                                                    corank::less{}, nullptr, kind))
          << "count, null A";
      auto by_key = [&](const std::uint64_t* va, const std::uint64_t* vb, std::uint64_t* values_out) {
        std::size_t run_bytes = bytes;
        return device_by_key(op, temp.data(), run_bytes, c.a.data(), va, m, c.b.data(), vb, n, c.keys.first(),
                             values_out, count, corank::less{}, nullptr, kind);
      };
      EXPECT_EQ(cudaErrorInvalidValue, by_key(null_values, c.vb.data(), c.values.first())) << "null A values";
      EXPECT_EQ(cudaErrorInvalidValue, by_key(c.va.data(), null_values, c.values.first())) << "null B values";
      EXPECT_EQ(cudaErrorInvalidValue, by_key(c.va.data(), c.vb.data(), null_values_out)) << "null value output";
    }
    SCOPED_TRACE(std::string("set_intersection_by_key_paired ") + corank::to_string(kind));
    std::size_t run_bytes = bytes;
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::set_intersection_by_key_paired(temp.data(), run_bytes, c.a.data(), c.va.data(), m,
                                                             c.b.data(), c.vb.data(), n, c.keys.first(),
                                                             c.values.first(), null_values_out, count, corank::less{},
                                                             nullptr, kind))
        << "null B value output";
  }
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_TRUE(c.untouched());
}

TEST_F(GpuSetOpsTwoPhase, EmptyInputsWithNullPointersWriteACountOfZero) {
  std::mt19937_64 rng = make_rng();
  two_phase_case c(0, 0, rng);
  for (form f : all_forms) {
    for (set_op op : ops_of(f)) {
      std::size_t bytes = 0;
      ASSERT_EQ(cudaSuccess, run_two_phase(f, op, nullptr, bytes, c, c.count.data(), nullptr, strategy::circular));
      const device_buffer<unsigned char> temp(bytes);
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(std::string(to_string(op)) + " " + to_string(f) + " " + corank::to_string(kind));
        c.count.fill_poison();
        std::size_t run_bytes = bytes;
        // c's inputs are empty: their pointers are null (the outputs are guard buffers).
        EXPECT_EQ(cudaSuccess, run_two_phase(f, op, temp.data(), run_bytes, c, c.count.data(), nullptr, kind));
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_EQ(c.count.to_host()[0], 0);
      }
    }
  }
}

// Captured into a graph in global mode (a synchronizing or allocating call inside
// corank::device would invalidate the capture), then launched twice with new data.
TEST_F(GpuSetOpsTwoPhase, GraphCapture) {
  std::mt19937_64 rng = make_rng();
  two_phase_case c(10 * int_tile + 3, 6 * int_tile + 1, rng);
  for (form f : {form::keys, form::by_key, form::paired}) {
    const set_op op = f == form::keys ? set_op::set_union : set_op::set_intersection;
    SCOPED_TRACE(std::string(to_string(op)) + " " + to_string(f));
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, run_two_phase(f, op, nullptr, bytes, c, c.count.data(), stream, strategy::circular));
    const device_buffer<unsigned char> temp(bytes);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const cudaError_t status = run_two_phase(f, op, temp.data(), bytes, c, c.count.data(), stream, strategy::circular);
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    ASSERT_EQ(cudaSuccess, status) << cudaGetErrorString(status);
    ASSERT_EQ(cudaSuccess, ended) << cudaGetErrorString(ended);
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
      SCOPED_TRACE("launch " + std::to_string(launch));
      c.in = make_set_inputs<std::int32_t>(launch == 0 ? set_distribution::few_keys : set_distribution::long_runs,
                                           c.in.a.size(), c.in.b.size(), int_tile, rng);
      c.a.upload(c.in.a);
      c.b.upload(c.in.b);
      c.poison();
      ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
      ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
      expect_two_phase_results(f, op, c);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
}

// ---------------------------------------------------------------------------------------
// Convenience forms: argument errors throw corank::cuda_error before anything is written.

class GpuSetOpsConvenience : public gpu_test {};

TEST_F(GpuSetOpsConvenience, NullPointerThrowsCudaErrorAndWritesNothing) {
  std::mt19937_64 rng = make_rng();
  two_phase_case c(3 * int_tile + 1, 2 * int_tile, rng);
  c.poison();
  const std::int32_t* null = nullptr;
  const std::uint64_t* null_values = nullptr;
  auto expect_invalid = [&](auto call, const std::string& which) {
    SCOPED_TRACE(which);
    try {
      call();
      ADD_FAILURE() << "expected corank::cuda_error";
    } catch (const corank::cuda_error& e) {
      EXPECT_EQ(e.code(), cudaErrorInvalidValue);
      EXPECT_NE(std::string(e.what()).find("null pointer"), std::string::npos) << e.what();
    }
  };
  for (set_op op : all_set_ops) {
    const std::string name = to_string(op);
    expect_invalid([&] { gpu_keys(op, null, null + 5, c.b.begin(), c.b.end(), c.keys.first()); }, name + " null A");
    expect_invalid([&] { gpu_keys(op, c.a.begin(), c.a.end(), c.b.begin(), c.b.end(), static_cast<std::int32_t*>(nullptr)); },
                   name + " null output");
    expect_invalid([&] { gpu_count(op, c.a.begin(), c.a.end(), null, null + 3); }, name + "_count null B");
    expect_invalid(
        [&] {
          gpu_by_key(op, c.a.begin(), c.a.end(), c.b.begin(), c.b.end(), null_values, c.vb.begin(), c.keys.first(),
                     c.values.first());
        },
        name + "_by_key null A values");
  }
  expect_invalid(
      [&] {
        corank::set_intersection_by_key_paired(c.a.begin(), c.a.end(), c.b.begin(), c.b.end(), c.va.begin(),
                                               c.vb.begin(), c.keys.first(), c.values.first(),
                                               static_cast<std::uint64_t*>(nullptr));
      },
      "paired null B value output");
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(c.untouched());
}

// ---------------------------------------------------------------------------------------
// check_sorted covers the set operations' inputs (duplicates are sorted; a descent is not).

class GpuSetOpsCheckSorted : public gpu_test {};

void expect_unsorted(const std::vector<std::int32_t>& ha, const std::vector<std::int32_t>& hb, char input,
                     index_t index) {
  const device_buffer<std::int32_t> a(ha), b(hb);
  try {
    corank::check_sorted(a.begin(), a.end(), b.begin(), b.end());
    ADD_FAILURE() << "expected corank::unsorted_input";
  } catch (const corank::unsorted_input& e) {
    EXPECT_EQ(e.input(), input);
    EXPECT_EQ(e.index(), index);
    EXPECT_NE(std::string(e.what()).find(std::to_string(index)), std::string::npos) << e.what();
  }
}

TEST_F(GpuSetOpsCheckSorted, NamesTheUnsortedInputAndIndex) {
  std::mt19937_64 rng = make_rng();
  const std::size_t size = quick_or(std::size_t(1) << 20, 5 * int_tile);
  // Keys with duplicates, well away from INT_MIN (a descent is made by subtracting 1).
  auto sorted_with_duplicates = [&](std::size_t n) {
    std::vector<std::int32_t> v(n);
    for (std::int32_t& x : v) x = 1000 + std::int32_t(rng() % (n / 4 + 1));
    std::sort(v.begin(), v.end());
    return v;
  };
  sorted_inputs<std::int32_t> in;
  in.a = sorted_with_duplicates(size);
  in.b = sorted_with_duplicates(size / 2 + 3);
  {
    const device_buffer<std::int32_t> a(in.a), b(in.b);
    EXPECT_NO_THROW(corank::check_sorted(a.begin(), a.end(), b.begin(), b.end()));
    const device_buffer<std::int32_t> equal(std::vector<std::int32_t>(size, 7));
    EXPECT_NO_THROW(corank::check_sorted(equal.begin(), equal.end(), a.begin(), a.end()));
  }
  for (std::size_t at : {std::size_t(1), int_tile, size / 3, size / 2, 1 + std::size_t(rng() % (size / 2))}) {
    SCOPED_TRACE("descent at " + std::to_string(at));
    std::vector<std::int32_t> broken_a = in.a, broken_b = in.b;
    broken_a[at] = broken_a[at - 1] - 1;
    broken_b[at] = broken_b[at - 1] - 1;
    expect_unsorted(broken_a, in.b, 'A', index_t(at));
    expect_unsorted(in.a, broken_b, 'B', index_t(at));
    expect_unsorted(broken_a, broken_b, 'A', index_t(at));
  }
}

}  // namespace
