// The sort-merge join on the GPU (join.cuh: sorted_join_count, sorted_join) against each left
// key's std::equal_range (support/join_cases.hpp): distributions and sizes around the tile and
// over several tiles, two strategies, runs whose pairs cross the expansion's tiles, pieces
// stored by each of their ways (and fewer or more pairs than the count), empty sides, one key with
// 10^4 copies on each side (10^8 pairs of one key), 2^32 pairs of one key
// from constant iterators (positions beyond 2^31), the two-phase forms (the count and the
// pairs; the count that keeps the pass's results and the pairs from them; the offsets and the
// expansion), unsorted inputs (a left or a right column going down
// is always found; offsets going backwards in the expansion) and argument errors.
//
// Kernels compile for int32 columns with index_t outputs, and for the constant iterators with
// outputs that check each pair where it is written: a bound pass (bounds, runs and tile sums),
// the tile sums' scan, the pairs from the runs in pieces (sorted_join), the offsets' kernel and
// the expansion from them (sorted_join_offsets, sorted_join_expand).

#include <corank/comparators.hpp>
#include <corank/detail/dispatch/join_dispatch.cuh>
#include <corank/detail/kernels/join_expand_kernels.cuh>
#include <corank/detail/kernels/join_runs_expand_kernel.cuh>
#include <corank/error.hpp>
#include <corank/join.cuh>
#include <corank/memory.hpp>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/join_cases.hpp"
#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::strategy;

constexpr std::size_t tile = corank::join_bounds_policy<std::int32_t>::items_per_tile;

void check_join(const std::vector<std::int32_t>& left, const std::vector<std::int32_t>& right, strategy kind) {
  const join_pairs expected = reference_join(left, right, corank::less{});
  const index_t pairs = index_t(expected.left.size());
  const device_buffer<std::int32_t> l(left), r(right);
  ASSERT_EQ(corank::sorted_join_count(l.begin(), l.end(), r.begin(), r.end(), corank::less{}, nullptr, kind), pairs);
  guarded_output<index_t> lo(expected.left.size()), ro(expected.right.size());
  const auto ends = corank::sorted_join(l.begin(), l.end(), r.begin(), r.end(), lo.first(), ro.first(), corank::less{},
                                        nullptr, kind);
  EXPECT_EQ(ends.first, lo.last());
  EXPECT_EQ(ends.second, ro.last());
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(lo.check(expected.left)) << "left positions";
  EXPECT_TRUE(ro.check(expected.right)) << "right positions";
}

class GpuJoin : public gpu_test {};

TEST_F(GpuJoin, DistributionsAndSizes) {
  std::mt19937_64 rng = make_rng();
  std::vector<size_pair> sizes = tile_edge_sizes(tile);
  for (const size_pair& s : multi_tile_sizes(tile, rng)) sizes.push_back(s);
  for (distribution d : all_distributions) {
    for (const size_pair& s : sizes) {
      // all_equal at these sizes would be billions of pairs: the tests below take one key.
      const sorted_inputs<std::int32_t> in =
          d == distribution::all_equal ? make_inputs<std::int32_t>(distribution::long_runs, s.m, s.n, 8, rng)
                                       : make_inputs<std::int32_t>(d, s.m, s.n, 8, rng);
      for (strategy kind : {strategy::automatic, strategy::naive}) {
        SCOPED_TRACE(describe("int32", d, in.a.size(), in.b.size()) + " " + corank::to_string(kind));
        check_join(in.a, in.b, kind);
        if (HasFailure()) return;
      }
    }
  }
}

// One key amid others, 3000 times on the left and 2000 on the right.
TEST_F(GpuJoin, OneKeyAmidOthers) {
  std::mt19937_64 rng = make_rng();
  auto column = [&](std::size_t lead, std::size_t run, std::size_t trail) {
    std::vector<std::int32_t> out;
    for (std::size_t k = 0; k < lead; ++k) out.push_back(std::int32_t(rng() % 1000));
    out.insert(out.end(), run, 5000);
    for (std::size_t k = 0; k < trail; ++k) out.push_back(6000 + std::int32_t(rng() % 1000));
    std::sort(out.begin(), out.end());
    return out;
  };
  check_join(column(40000, quick_or(3000, 300), 30000), column(20000, quick_or(2000, 200), 50000), strategy::automatic);
}

// Runs of 1 to 80 equal keys on each side, so that the pairs of one key cross the pieces
// (join_runs_expand_kernel.cuh: 4096 positions) and the expansion's tiles
// (join_expand_kernels.cuh: 2048 positions and left elements), at sizes that put m + pairs on
// either side of a tile's edge, and with one side empty.
TEST_F(GpuJoin, RunsCrossingExpansionTiles) {
  std::mt19937_64 rng = make_rng();
  constexpr std::size_t expand_tile = corank::detail::join_expand_tile;
  auto runs = [&](std::size_t size, std::uint64_t longest) {
    std::vector<std::int32_t> out;
    std::int32_t key = 0;
    while (out.size() < size) {
      key += std::int32_t(1 + rng() % 3);
      out.insert(out.end(), std::min<std::size_t>(1 + rng() % longest, size - out.size()), key);
    }
    return out;
  };
  for (std::size_t size : {std::size_t(1), expand_tile / 8 - 1, expand_tile / 8, 3 * expand_tile + 1,
                           std::size_t(quick_or(40 * expand_tile, 6 * expand_tile))}) {
    for (std::uint64_t longest : {2, 17, 80}) {
      const std::vector<std::int32_t> left = runs(size, longest), right = runs(size + 7, longest);
      SCOPED_TRACE("size " + std::to_string(size) + ", runs up to " + std::to_string(longest));
      check_join(left, right, strategy::automatic);
      check_join(left, {}, strategy::automatic);
      check_join({}, right, strategy::automatic);
      if (HasFailure()) return;
    }
  }
}

// The pairs from the runs (join_runs_expand_kernel.cuh) come in pieces of
// join_piece_positions of a bound-pass tile, stored by a search a position where a piece has
// fewer positions than its tile has keys, else a warp at a time, 32 keys a batch. Left keys of
// which every `gap`-th has `copies` matches and the others none (up to gap - 1 keys without
// pairs start where each key's pairs start: batches after the first), once or twice on the
// left, for gaps and copies on either side of those switches; and device::sorted_join given
// fewer pairs than the count, which writes the first of them.
TEST_F(GpuJoin, PiecesStoredBySearchesAndByWarps) {
  const std::size_t most_pairs = quick_or(20000000, 2000000);
  for (std::size_t left_copies : {1, 2}) {
    for (std::size_t gap : {1, 2, 33, 70}) {
      for (std::size_t copies : {1, 3, 40, 5000}) {
        const std::size_t keys = std::min<std::size_t>(quick_or(100000, 20000), most_pairs * gap / copies / left_copies);
        std::vector<std::int32_t> left, right;
        for (std::size_t k = 0; k < keys; ++k) {
          left.insert(left.end(), left_copies, std::int32_t(k));
          if (k % gap == 0) right.insert(right.end(), copies, std::int32_t(k));
        }
        SCOPED_TRACE("left copies " + std::to_string(left_copies) + ", gap " + std::to_string(gap) + ", copies " +
                     std::to_string(copies) + ", keys " + std::to_string(keys));
        check_join(left, right, strategy::automatic);
        if (HasFailure()) return;
      }
    }
  }
  // Fewer pairs than the count: the first ones, nothing past them.
  std::vector<std::int32_t> left, right;
  for (std::int32_t k = 0; k < 30000; ++k) {
    left.push_back(k);
    right.insert(right.end(), std::size_t(1 + k % 5), k);
  }
  const join_pairs expected = reference_join(left, right, corank::less{});
  const index_t some = index_t(expected.left.size()) / 3;
  const device_buffer<std::int32_t> l(left), r(right);
  guarded_output<index_t> lo{std::size_t(some)}, ro{std::size_t(some)};
  device_buffer<index_t> count(1);
  std::size_t bytes = 0;
  const index_t m = index_t(left.size()), n = index_t(right.size());
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(nullptr, bytes, l.data(), m, r.data(), n, some, lo.first(),
                                                     ro.first(), count.data()));
  device_buffer<unsigned char> temp(bytes);
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(temp.data(), bytes, l.data(), m, r.data(), n, some, lo.first(),
                                                     ro.first(), count.data()));
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(count.to_host()[0], index_t(expected.left.size()));
  EXPECT_TRUE(lo.check(std::vector<index_t>(expected.left.begin(), expected.left.begin() + some))) << "left positions";
  EXPECT_TRUE(ro.check(std::vector<index_t>(expected.right.begin(), expected.right.begin() + some)))
      << "right positions";
  // More pairs than the count: every pair, nothing past the count (the guards after the
  // outputs lie inside the `pairs` given).
  const index_t all = index_t(expected.left.size()), more = all + index_t(guard_elements);
  guarded_output<index_t> lo_all{std::size_t(all)}, ro_all{std::size_t(all)};
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(nullptr, bytes, l.data(), m, r.data(), n, more, lo_all.first(),
                                                     ro_all.first(), count.data()));
  device_buffer<unsigned char> temp_all(bytes);
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(temp_all.data(), bytes, l.data(), m, r.data(), n, more,
                                                     lo_all.first(), ro_all.first(), count.data()));
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(count.to_host()[0], all);
  EXPECT_TRUE(lo_all.check(expected.left)) << "left positions, more pairs than the count";
  EXPECT_TRUE(ro_all.check(expected.right)) << "right positions, more pairs than the count";
}

// Right runs on either side of what a bound pass's tile stages past its window
// (b_step_values.hpp: run_lookahead) and of the 16 bits a run is written in (saturated_run:
// their lengths are written whole beside), each key once to 3 times on the left, so that runs start and
// end at every place around the tiles' edges; and with the long keys many times on the left.
TEST_F(GpuJoin, RunsAroundTheLookaheadAndThe16Bits) {
  std::mt19937_64 rng = make_rng();
  constexpr std::size_t ahead = corank::detail::run_lookahead;
  const std::size_t saturated = corank::detail::saturated_run;
  std::vector<std::size_t> lengths = {1, 2, ahead - 1, ahead, ahead + 1, 2 * ahead + 3, tile - 1, tile + 1};
  for (std::size_t k = 0; k < 20; ++k) lengths.push_back(1 + rng() % (3 * ahead));
  std::vector<std::int32_t> left, right;
  std::int32_t key = 0;
  for (std::size_t length : lengths) {
    key += 2;
    right.insert(right.end(), length, key);
    left.insert(left.end(), 1 + rng() % 3, key);
    left.push_back(key + 1);  // no match
  }
  check_join(left, right, strategy::automatic);
  // Runs of 2^16 - 2 to 2^16 + 1 and beyond: 16 bits and their saturation.
  for (std::size_t length : {saturated - 1, saturated, saturated + 1, saturated + 2, std::size_t(70001)}) {
    key += 2;
    right.insert(right.end(), length, key);
    left.insert(left.end(), 1 + rng() % 2, key);
  }
  check_join(left, right, strategy::automatic);
  // The long keys many times on the left too: bounds whose runs are counted past the tile by
  // every thread, in tiles that hold left keys only.
  std::vector<std::int32_t> many;
  for (std::int32_t k = 2; k <= key; k += 2) many.insert(many.end(), k % 10 == 0 ? 50 : 1, k);
  std::sort(many.begin(), many.end());
  const std::vector<std::int32_t> long_runs(right.begin(), right.begin() + std::ptrdiff_t(3 * tile));
  check_join(many, long_runs, strategy::automatic);
}

// Makes `column` go down once, from `at` - 1 to `at` (the keys k / 3), and checks that both
// counts and the pairs find the columns unsorted before writing any pair.
void expect_descent_found(std::vector<std::int32_t>& left, std::vector<std::int32_t>& right,
                          std::vector<std::int32_t>& column, std::size_t at, const std::string& what) {
  std::swap(column[at - 1], column[at]);
  if (column[at - 1] == column[at]) column[at - 1] = column[at] + 1;
  SCOPED_TRACE(what + ", size " + std::to_string(column.size()) + ", descent at " + std::to_string(at));
  const device_buffer<std::int32_t> l(left), r(right);
  EXPECT_THROW(corank::sorted_join_count(l.begin(), l.end(), r.begin(), r.end()), corank::unsorted_input);
  guarded_output<index_t> lo(left.size()), ro(left.size());
  EXPECT_THROW(corank::sorted_join(l.begin(), l.end(), r.begin(), r.end(), lo.first(), ro.first()),
               corank::unsorted_input);
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(lo.untouched());
  EXPECT_TRUE(ro.untouched());
}

// Either column going down anywhere is found (the left one not empty), before any pair is
// written: the bound pass compares each left key, and each right key it stages, with the one
// before it. The right column also where no left key falls (the left column holding only its
// first key).
TEST_F(GpuJoin, UnsortedColumnsAreAlwaysFound) {
  std::mt19937_64 rng = make_rng();
  for (std::size_t size : {std::size_t(2), std::size_t(5000), std::size_t(quick_or(300000, 30000))}) {
    for (const char* which : {"left", "right", "right, one left key"}) {
      std::vector<std::int32_t> left(size), right(size);
      for (std::size_t k = 0; k < size; ++k) left[k] = right[k] = std::int32_t(k / 3);
      const std::string what = which;
      if (what == "right, one left key") std::fill(left.begin(), left.end(), left[0]);
      expect_descent_found(left, right, what == "left" ? left : right, 1 + rng() % (size - 1), what);
      if (HasFailure()) return;
    }
  }
}

// The right column going down where the bound pass's tiles meet (and a step either side) and
// at its end, the left column one key (its first): the merge path takes every left key first,
// so the boundary k * tile falls at right position k * tile - m.
TEST_F(GpuJoin, RightColumnDescentsAtTheBoundPassTilesAreFound) {
  const std::size_t m = 1000, n = 5 * tile;
  std::vector<std::size_t> places = {n - 1};
  for (std::size_t k = 1; k < 5; ++k) {
    for (const std::size_t at : {k * tile - m - 1, k * tile - m, k * tile - m + 1}) places.push_back(at);
  }
  for (const std::size_t at : places) {
    std::vector<std::int32_t> left(m, 0), right(n);
    for (std::size_t k = 0; k < n; ++k) right[k] = std::int32_t(k / 3);
    expect_descent_found(left, right, right, at, "right at a tile boundary");
    if (HasFailure()) return;
  }
}

// ---------------------------------------------------------------------------------------
// One key, `copies` times on each side: pair p is (p / copies, p % copies). Outputs that check
// each pair where it is written record 1 for a right one and 2 for a wrong one.

struct verdict_output {
  std::uint8_t* verdicts;
  index_t copies;
  bool left;
  index_t offset = 0;

  struct element {
    std::uint8_t* verdict;
    index_t copies;
    bool left;
    index_t p;
    template <class T>
    __device__ void operator=(const T& position) const {
      const index_t expected = left ? p / copies : p % copies;
      *verdict = index_t(position) == expected ? 1 : 2;
    }
  };
  __host__ __device__ element operator[](index_t k) const { return {verdicts + offset + k, copies, left, offset + k}; }
  __host__ __device__ verdict_output operator+(index_t k) const { return {verdicts, copies, left, offset + k}; }
};

struct is_not_one {
  __host__ __device__ bool operator()(std::uint8_t v) const { return v != 1; }
};

void check_one_key(index_t copies) {
  const index_t pairs = copies * copies;
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaSuccess, cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < 2 * std::size_t(pairs) + (std::size_t(1) << 30)) {
    GTEST_SKIP() << "needs " << (2 * pairs >> 20) << " MiB of free device memory plus 1 GiB, has " << (free_bytes >> 20);
  }
  const thrust::constant_iterator<std::int64_t> key(42);
  EXPECT_EQ(corank::sorted_join_count(key, key + copies, key, key + copies), pairs);
  device_buffer<std::uint8_t> left(static_cast<std::size_t>(pairs)), right(static_cast<std::size_t>(pairs));
  left.fill_poison();
  right.fill_poison();
  const verdict_output lo{left.data(), copies, true}, ro{right.data(), copies, false};
  corank::sorted_join(key, key + copies, key, key + copies, lo, ro);
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(thrust::count_if(thrust::device, left.begin(), left.end(), is_not_one{}), 0) << "left positions";
  EXPECT_EQ(thrust::count_if(thrust::device, right.begin(), right.end(), is_not_one{}), 0) << "right positions";
}

TEST_F(GpuJoin, OneKeyWith10Pow4CopiesASide) { check_one_key(quick_or(10000, 300)); }

TEST_F(GpuJoin, PairsBeyond2Pow31) {
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: > 2^31 elements skipped";
  check_one_key(index_t(1) << 16);  // 2^32 pairs
}

// ---------------------------------------------------------------------------------------

class GpuJoinTwoPhase : public gpu_stream_test {};

TEST_F(GpuJoinTwoPhase, CountThenPairsOnAStream) {
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<std::int32_t> in = make_inputs<std::int32_t>(distribution::long_runs, 30011, 20021, 4, rng);
  const join_pairs expected = reference_join(in.a, in.b, corank::less{});
  const index_t m = index_t(in.a.size()), n = index_t(in.b.size()), pairs = index_t(expected.left.size());
  const device_buffer<std::int32_t> l(in.a), r(in.b);
  device_buffer<index_t> count(1);
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_count(nullptr, bytes, l.data(), m, r.data(), n, count.data(),
                                                           corank::less{}, stream));
  {
    device_buffer<unsigned char> temp(bytes);
    std::size_t fewer = bytes - 1;
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::sorted_join_count(temp.data(), fewer, l.data(), m, r.data(), n,
                                                                       count.data(), corank::less{}, stream));
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::sorted_join_count(temp.data(), bytes, l.data(), m, r.data(), n,
                                                                       nullptr, corank::less{}, stream));
    count.fill_poison();
    ASSERT_EQ(cudaSuccess, corank::device::sorted_join_count(temp.data(), bytes, l.data(), m, r.data(), n,
                                                             count.data(), corank::less{}, stream));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    ASSERT_EQ(count.to_host()[0], pairs);
  }
  guarded_output<index_t> lo(expected.left.size()), ro(expected.right.size());
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(nullptr, bytes, l.data(), m, r.data(), n, pairs, lo.first(),
                                                     ro.first(), count.data(), corank::less{}, stream));
  device_buffer<unsigned char> temp(bytes);
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::sorted_join(temp.data(), bytes, l.data(), m, r.data(), n, pairs,
                                                               static_cast<index_t*>(nullptr), ro.first(),
                                                               count.data(), corank::less{}, stream));
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::sorted_join(nullptr, bytes, l.data(), m, r.data(), n, -1,
                                                               lo.first(), ro.first(), count.data(), corank::less{},
                                                               stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_TRUE(lo.untouched()) << "a refused call wrote";
  count.fill_poison();
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(temp.data(), bytes, l.data(), m, r.data(), n, pairs, lo.first(),
                                                     ro.first(), count.data(), corank::less{}, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(count.to_host()[0], pairs);
  EXPECT_TRUE(lo.check(expected.left));
  EXPECT_TRUE(ro.check(expected.right));
}

// A position plus a base, by a functor with a constructor: thrust::transform_output_iterator
// over it is not default-constructible, so a form must hand its outputs on as it got them.
struct offset_position {
  explicit offset_position(index_t base) : base(base) {}
  __host__ __device__ index_t operator()(index_t position) const { return position + base; }
  index_t base;
};

TEST_F(GpuJoinTwoPhase, PairsThroughIteratorsThatAreNotDefaultConstructible) {
  const std::vector<std::int32_t> left = {1, 2, 2, 3, 5}, right = {2, 2, 3, 3, 4};
  const join_pairs expected = reference_join(left, right, corank::less{});
  const index_t m = index_t(left.size()), n = index_t(right.size()), pairs = index_t(expected.left.size());
  const device_buffer<std::int32_t> l(left), r(right);
  guarded_output<index_t> lo(expected.left.size()), ro(expected.right.size());
  const auto left_out = thrust::make_transform_output_iterator(lo.first(), offset_position(1000));
  const auto right_out = thrust::make_transform_output_iterator(ro.first(), offset_position(2000));
  device_buffer<index_t> count(1);
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(nullptr, bytes, l.data(), m, r.data(), n, pairs, left_out,
                                                     right_out, count.data(), corank::less{}, stream));
  device_buffer<unsigned char> temp(bytes);
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(temp.data(), bytes, l.data(), m, r.data(), n, pairs, left_out,
                                                     right_out, count.data(), corank::less{}, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(count.to_host()[0], pairs);
  std::vector<index_t> want_left = expected.left, want_right = expected.right;
  for (index_t& x : want_left) x += 1000;
  for (index_t& x : want_right) x += 2000;
  EXPECT_TRUE(lo.check(want_left));
  EXPECT_TRUE(ro.check(want_right));
}

// What sorted_join_offsets leaves: each left key's lower bound in the right column, and the
// prefix sums of the match counts (std::equal_range's).
struct offsets_reference {
  std::vector<index_t> lower, offsets;
};

offsets_reference reference_offsets(const std::vector<std::int32_t>& left, const std::vector<std::int32_t>& right) {
  offsets_reference r{std::vector<index_t>(left.size()), std::vector<index_t>(left.size() + 1, 0)};
  for (std::size_t i = 0; i < left.size(); ++i) {
    const auto range = std::equal_range(right.begin(), right.end(), left[i]);
    r.lower[i] = index_t(range.first - right.begin());
    r.offsets[i + 1] = r.offsets[i] + index_t(range.second - range.first);
  }
  return r;
}

// sorted_join_offsets on `stream` (into poisoned offsets) against reference_offsets, and its count.
void expect_offsets_as_referenced(const std::vector<std::int32_t>& left, const std::vector<std::int32_t>& right,
                                  cudaStream_t stream) {
  const offsets_reference expected = reference_offsets(left, right);
  const index_t m = index_t(left.size()), n = index_t(right.size());
  const device_buffer<std::int32_t> l(left), r(right);
  device_buffer<index_t> lower(left.size()), offsets(left.size() + 1), count(1);
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_offsets(nullptr, bytes, l.data(), m, r.data(), n, lower.data(),
                                                             offsets.data(), count.data(), corank::less{}, stream));
  device_buffer<unsigned char> temp(bytes);
  offsets.fill_poison();
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_offsets(temp.data(), bytes, l.data(), m, r.data(), n,
                                                             lower.data(), offsets.data(), count.data(),
                                                             corank::less{}, stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(count.to_host()[0], expected.offsets.back());
  EXPECT_EQ(lower.to_host(), expected.lower);
  EXPECT_EQ(offsets.to_host(), expected.offsets);
}

TEST_F(GpuJoinTwoPhase, OffsetsThenExpandComputeTheBoundsOnce) {
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<std::int32_t> in = make_inputs<std::int32_t>(distribution::long_runs, 30011, 20021, 4, rng);
  const join_pairs expected = reference_join(in.a, in.b, corank::less{});
  const index_t m = index_t(in.a.size()), n = index_t(in.b.size()), pairs = index_t(expected.left.size());
  const offsets_reference first_half = reference_offsets(in.a, in.b);
  const device_buffer<std::int32_t> l(in.a), r(in.b);
  device_buffer<index_t> lower(in.a.size()), offsets(in.a.size() + 1), count(1);
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_offsets(nullptr, bytes, l.data(), m, r.data(), n, lower.data(),
                                                             offsets.data(), count.data(), corank::less{}, stream));
  {
    device_buffer<unsigned char> temp(bytes);
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::sorted_join_offsets(temp.data(), bytes, l.data(), m, r.data(), n, lower.data(),
                                                  static_cast<index_t*>(nullptr), count.data(), corank::less{}, stream));
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::sorted_join_offsets(temp.data(), bytes, l.data(), m, r.data(), n, lower.data(),
                                                  offsets.data(), static_cast<index_t*>(nullptr), corank::less{},
                                                  stream));
    count.fill_poison();
    ASSERT_EQ(cudaSuccess, corank::device::sorted_join_offsets(temp.data(), bytes, l.data(), m, r.data(), n,
                                                               lower.data(), offsets.data(), count.data(),
                                                               corank::less{}, stream));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  }
  ASSERT_EQ(count.to_host()[0], pairs);
  EXPECT_EQ(lower.to_host(), first_half.lower);
  EXPECT_EQ(offsets.to_host(), first_half.offsets);

  guarded_output<index_t> lo(expected.left.size()), ro(expected.right.size());
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_expand(nullptr, bytes, lower.data(), offsets.data(), m, pairs,
                                                            lo.first(), ro.first(), count.data(), stream));
  device_buffer<unsigned char> temp(bytes);
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::sorted_join_expand(temp.data(), bytes, lower.data(), offsets.data(), m, pairs,
                                               static_cast<index_t*>(nullptr), ro.first(), count.data(), stream));
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::sorted_join_expand(temp.data(), bytes, lower.data(), static_cast<const index_t*>(nullptr),
                                               m, pairs, lo.first(), ro.first(), count.data(), stream));
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::sorted_join_expand(nullptr, bytes, lower.data(), offsets.data(), m,
                                                                      -1, lo.first(), ro.first(), count.data(), stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_TRUE(lo.untouched()) << "a refused call wrote";
  count.fill_poison();
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_expand(temp.data(), bytes, lower.data(), offsets.data(), m, pairs,
                                                            lo.first(), ro.first(), count.data(), stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(count.to_host()[0], pairs);
  EXPECT_TRUE(lo.check(expected.left));
  EXPECT_TRUE(ro.check(expected.right));
  // count_out may be null.
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_expand(temp.data(), bytes, lower.data(), offsets.data(), m, pairs,
                                                            lo.first(), ro.first(), static_cast<index_t*>(nullptr),
                                                            stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_TRUE(lo.check(expected.left));
}

// The two halves that keep the bound pass's results between them (the Python package's and
// the command's join): the count keeps them at the caller's storage, the pairs come from it
// with the columns freed (not read), all of them or the first few, and a `kept` that holds
// no such results (poison) gives a negative count and no store.
TEST_F(GpuJoinTwoPhase, CountAndKeepThenPairsFromKept) {
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<std::int32_t> in = make_inputs<std::int32_t>(distribution::long_runs, 30011, 20021, 4, rng);
  const join_pairs expected = reference_join(in.a, in.b, corank::less{});
  const index_t m = index_t(in.a.size()), n = index_t(in.b.size()), pairs = index_t(expected.left.size());
  auto l = std::make_unique<device_buffer<std::int32_t>>(in.a);
  auto r = std::make_unique<device_buffer<std::int32_t>>(in.b);
  device_buffer<index_t> count(1);
  std::size_t bytes = 0, kept_bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_count_and_keep(nullptr, bytes, nullptr, kept_bytes, l->data(), m,
                                                                    r->data(), n, count.data(), corank::less{},
                                                                    stream));
  EXPECT_GE(kept_bytes, std::size_t(12 * m));
  EXPECT_LT(kept_bytes, std::size_t(13 * m));
  constexpr std::size_t alignment = corank::temporary_storage_alignment;
  device_buffer<unsigned char> kept(kept_bytes + alignment);
  {
    device_buffer<unsigned char> temp(bytes);
    const auto count_and_keep = [&](void* at, std::size_t given, index_t* c) {
      return corank::device::sorted_join_count_and_keep(temp.data(), bytes, at, given, l->data(), m, r->data(), n, c,
                                                        corank::less{}, stream);
    };
    kept.fill_poison();
    EXPECT_EQ(cudaErrorInvalidValue, count_and_keep(nullptr, kept_bytes, count.data()));
    EXPECT_EQ(cudaErrorInvalidValue, count_and_keep(kept.data(), kept_bytes - 1, count.data()));
    EXPECT_EQ(cudaErrorInvalidValue, count_and_keep(kept.data() + alignment / 2, kept_bytes, count.data()));
    EXPECT_EQ(cudaErrorInvalidValue, count_and_keep(kept.data(), kept_bytes, nullptr));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    EXPECT_TRUE(all_poison(kept.to_host())) << "a refused call wrote";
    count.fill_poison();
    ASSERT_EQ(cudaSuccess, count_and_keep(kept.data(), kept_bytes, count.data()));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    ASSERT_EQ(count.to_host()[0], pairs);
  }
  l.reset();
  r.reset();
  const auto* no_column = static_cast<const std::int32_t*>(nullptr);
  const auto from_kept = [&](void* temp, std::size_t& b, const void* at, std::size_t given, index_t p, index_t* lo,
                             index_t* ro, index_t* c) {
    return corank::device::sorted_join_from_kept(temp, b, at, given, no_column, m, no_column, n, p, lo, ro, c, stream);
  };
  guarded_output<index_t> lo(expected.left.size()), ro(expected.right.size());
  ASSERT_EQ(cudaSuccess, from_kept(nullptr, bytes, nullptr, 0, pairs, lo.first(), ro.first(), count.data()));
  device_buffer<unsigned char> temp(bytes);
  count.fill_poison();
  EXPECT_EQ(cudaErrorInvalidValue, from_kept(temp.data(), bytes, kept.data(), kept_bytes - 1, pairs, lo.first(),
                                             ro.first(), count.data()));
  EXPECT_EQ(cudaErrorInvalidValue, from_kept(temp.data(), bytes, nullptr, kept_bytes, pairs, lo.first(), ro.first(),
                                             count.data()));
  EXPECT_EQ(cudaErrorInvalidValue,
            from_kept(temp.data(), bytes, kept.data(), kept_bytes, pairs, nullptr, ro.first(), count.data()));
  EXPECT_EQ(cudaErrorInvalidValue,
            from_kept(nullptr, bytes, kept.data(), kept_bytes, -1, lo.first(), ro.first(), count.data()));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_TRUE(lo.untouched()) << "a refused call wrote";
  EXPECT_TRUE(ro.untouched()) << "a refused call wrote";
  EXPECT_TRUE(all_poison(count.to_host())) << "a refused call wrote";
  ASSERT_EQ(cudaSuccess,
            from_kept(temp.data(), bytes, kept.data(), kept_bytes, pairs, lo.first(), ro.first(), count.data()));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_EQ(count.to_host()[0], pairs);
  EXPECT_TRUE(lo.check(expected.left));
  EXPECT_TRUE(ro.check(expected.right));

  // The first few pairs, from the same kept results; count_out may be null.
  const index_t few = pairs / 3;
  guarded_output<index_t> lo_few{std::size_t(few)}, ro_few{std::size_t(few)};
  std::size_t few_bytes = 0;
  ASSERT_EQ(cudaSuccess, from_kept(nullptr, few_bytes, nullptr, 0, few, lo_few.first(), ro_few.first(), nullptr));
  device_buffer<unsigned char> few_temp(few_bytes);
  ASSERT_EQ(cudaSuccess, from_kept(few_temp.data(), few_bytes, kept.data(), kept_bytes, few, lo_few.first(),
                                   ro_few.first(), nullptr));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_TRUE(lo_few.check(std::vector<index_t>(expected.left.begin(), expected.left.begin() + few)));
  EXPECT_TRUE(ro_few.check(std::vector<index_t>(expected.right.begin(), expected.right.begin() + few)));

  // One tile's prefix (its pairs and pieces before it; tile tiles / 2, where the partition's
  // search of its block's prefixes looks first) made numbers that are no scan's, below zero
  // (found: a negative count), then past every piece (which its neighbours' pieces need
  // not find), the rest as the count left it: every store stays inside the outputs, and every
  // read inside `kept` (compute-sanitizer's memcheck runs this test).
  const std::vector<unsigned char> counted = kept.to_host();
  const index_t tiles = (m + n + index_t(tile) - 1) / index_t(tile);
  ASSERT_LE(tiles, corank::detail::join_piece_threads) << "one block of the partition";
  corank::detail::temporary_arena arena{reinterpret_cast<char*>(kept.data())};
  const corank::detail::join_kept layout = corank::detail::lay_out_join_kept(arena, m, tiles);
  for (const int byte : {int(poison_byte), 0x3f}) {
    SCOPED_TRACE("one tile's prefix of bytes " + std::to_string(byte));
    ASSERT_EQ(cudaSuccess, cudaMemset(layout.prefix + tiles / 2, byte, sizeof(corank::detail::join_tile_prefix)));
    guarded_output<index_t> lo_odd(expected.left.size()), ro_odd(expected.right.size());
    ASSERT_EQ(cudaSuccess, from_kept(temp.data(), bytes, kept.data(), kept_bytes, pairs, lo_odd.first(),
                                     ro_odd.first(), count.data()));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    if (byte == int(poison_byte)) EXPECT_LT(count.to_host()[0], 0);
    EXPECT_TRUE(guards_intact(lo_odd.buffer.to_host(), guard_elements, lo_odd.count));
    EXPECT_TRUE(guards_intact(ro_odd.buffer.to_host(), guard_elements, ro_odd.count));
    kept.upload(counted);
  }

  // Poison where the results should be: numbers that contradict each other.
  kept.fill_poison();
  guarded_output<index_t> lo_bad(expected.left.size()), ro_bad(expected.right.size());
  ASSERT_EQ(cudaSuccess, from_kept(temp.data(), bytes, kept.data(), kept_bytes, pairs, lo_bad.first(), ro_bad.first(),
                                   count.data()));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_LT(count.to_host()[0], 0);
  EXPECT_TRUE(lo_bad.untouched());
  EXPECT_TRUE(ro_bad.untouched());
}

// Runs of 0xffff and more (saturated_run) in sorted_join_offsets, whose pass writes their
// lengths into the caller's offsets until join_offsets_kernel overwrites them; and the
// temporary storage of the forms that need less than the pairs' 12 bytes a left key.
TEST_F(GpuJoinTwoPhase, OffsetsOfLongRunsAndTheFormsStorage) {
  std::vector<std::int32_t> left, right;
  for (std::int32_t k = 0; k < 40; ++k) {
    left.insert(left.end(), std::size_t(1 + k % 3), k);
    const std::size_t copies = k % 4 == 0 ? 65535 + std::size_t(k) : k % 4 == 1 ? 65534 : std::size_t(k % 5);
    right.insert(right.end(), copies, k);
  }
  expect_offsets_as_referenced(left, right, stream);

  // Storage for a million keys a side: the offsets' form 2 bytes a left key and the count's
  // a few a tile, besides what the pass and the scan take whatever the form (the splits).
  // Queries: the pointers are not read.
  const device_buffer<std::int32_t> l(left), r(right);
  device_buffer<index_t> lower(1), offsets(1), count(1);
  const index_t big = 1 << 20;
  std::size_t pairs_bytes = 0, offsets_bytes = 0, count_bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join(nullptr, pairs_bytes, l.data(), big, r.data(), big, big,
                                                     lower.data(), lower.data(), count.data(), corank::less{}, stream));
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_offsets(nullptr, offsets_bytes, l.data(), big, r.data(), big,
                                                             lower.data(), offsets.data(), count.data(),
                                                             corank::less{}, stream));
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_count(nullptr, count_bytes, l.data(), big, r.data(), big,
                                                           count.data(), corank::less{}, stream));
  EXPECT_GE(pairs_bytes, std::size_t(12 * big));
  EXPECT_LT(offsets_bytes, std::size_t(3 * big));
  EXPECT_LT(count_bytes, std::size_t(big));
}

// One key with 600 copies on the left, each of whose runs is 70000 long (saturated: each
// written whole into the caller's offsets, which one round of join_offsets_kernel reads before
// storing, over several rounds of the tile's keys), after a key with short runs and before one
// whose runs are 65535 (saturated too), through sorted_join_offsets and the counts.
TEST_F(GpuJoinTwoPhase, OffsetsOfOneKeyWithManyCopiesAndLongRuns) {
  std::vector<std::int32_t> left(5, 0), right(10, 0);
  left.insert(left.end(), 600, 1);
  left.insert(left.end(), 3, 2);
  right.insert(right.end(), 70000, 1);
  right.insert(right.end(), 65535, 2);
  expect_offsets_as_referenced(left, right, stream);
  const device_buffer<std::int32_t> l(left), r(right);
  EXPECT_EQ(corank::sorted_join_count(l.begin(), l.end(), r.begin(), r.end(), corank::less{}, stream),
            reference_offsets(left, right).offsets.back());
}

// Offsets that go backwards (not sorted_join_offsets's): a negative count, and stores only
// inside the `pairs` outputs.
TEST_F(GpuJoinTwoPhase, ExpandFindsOffsetsGoingBackwards) {
  const index_t m = 5000, pairs = 20000;
  std::vector<index_t> lower(m, 0), offsets(m + 1);
  for (index_t i = 0; i <= m; ++i) offsets[i] = 4 * i;
  offsets[m / 2] = 3 * pairs;  // one count far too large, the next below zero
  const device_buffer<index_t> l(lower), o(offsets);
  device_buffer<index_t> count(1);
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_expand(nullptr, bytes, l.data(), o.data(), m, pairs,
                                                            static_cast<index_t*>(nullptr),
                                                            static_cast<index_t*>(nullptr), count.data(), stream));
  device_buffer<unsigned char> temp(bytes);
  guarded_output<index_t> lo(static_cast<std::size_t>(pairs)), ro(static_cast<std::size_t>(pairs));
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_expand(temp.data(), bytes, l.data(), o.data(), m, pairs,
                                                            lo.first(), ro.first(), count.data(), stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  EXPECT_LT(count.to_host()[0], 0);
  EXPECT_TRUE(guards_intact(lo.buffer.to_host(), guard_elements, lo.count));
  EXPECT_TRUE(guards_intact(ro.buffer.to_host(), guard_elements, ro.count));
}

// Every two-phase form refuses too little temporary storage and storage not aligned to
// corank::temporary_storage_alignment (memory.hpp's one rule) with nothing launched.
TEST_F(GpuJoinTwoPhase, TooLittleOrMisalignedStorageIsRefusedAndNothingIsWritten) {
  const std::vector<std::int32_t> left = {1, 2, 2, 3}, right = {2, 2, 3, 4};
  const device_buffer<std::int32_t> l(left), r(right);
  const index_t m = 4, n = 4, pairs = 5;
  device_buffer<index_t> count(1), lower(m), offsets(m + 1), lo(pairs), ro(pairs);
  for (auto* b : {&count, &lower, &offsets, &lo, &ro}) b->fill_poison();
  const corank::less comp{};
  std::size_t kept_bytes = 0, ignored = 0;
  ASSERT_EQ(cudaSuccess, corank::device::sorted_join_count_and_keep(nullptr, ignored, nullptr, kept_bytes, l.data(), m,
                                                                    r.data(), n, count.data(), comp, stream));
  device_buffer<unsigned char> kept(kept_bytes);
  kept.fill_poison();
  using form = std::function<cudaError_t(void*, std::size_t&)>;
  const std::vector<std::pair<std::string, form>> forms = {
      {"sorted_join_count",
       [&](void* t, std::size_t& b) {
         return corank::device::sorted_join_count(t, b, l.data(), m, r.data(), n, count.data(), comp, stream);
       }},
      {"sorted_join",
       [&](void* t, std::size_t& b) {
         return corank::device::sorted_join(t, b, l.data(), m, r.data(), n, pairs, lo.data(), ro.data(), count.data(),
                                            comp, stream);
       }},
      {"sorted_join_offsets",
       [&](void* t, std::size_t& b) {
         return corank::device::sorted_join_offsets(t, b, l.data(), m, r.data(), n, lower.data(), offsets.data(),
                                                    count.data(), comp, stream);
       }},
      {"sorted_join_expand",
       [&](void* t, std::size_t& b) {
         return corank::device::sorted_join_expand(t, b, lower.data(), offsets.data(), m, pairs, lo.data(), ro.data(),
                                                   count.data(), stream);
       }},
      {"sorted_join_count_and_keep",
       [&](void* t, std::size_t& b) {
         std::size_t given = kept_bytes;
         return corank::device::sorted_join_count_and_keep(t, b, kept.data(), given, l.data(), m, r.data(), n,
                                                           count.data(), comp, stream);
       }},
      {"sorted_join_from_kept", [&](void* t, std::size_t& b) {
         return corank::device::sorted_join_from_kept(t, b, kept.data(), kept_bytes, l.data(), m, r.data(), n, pairs,
                                                      lo.data(), ro.data(), count.data(), stream);
       }}};
  constexpr std::size_t alignment = corank::temporary_storage_alignment;
  for (const auto& [name, call] : forms) {
    SCOPED_TRACE(name);
    std::size_t queried = 0;
    ASSERT_EQ(cudaSuccess, call(nullptr, queried));
    ASSERT_GT(queried, 0u);
    device_buffer<unsigned char> temp(queried + alignment);
    temp.fill_poison();
    std::size_t bytes = queried - 1;
    EXPECT_EQ(cudaErrorInvalidValue, call(temp.data(), bytes));
    for (const std::size_t offset : {std::size_t(8), alignment / 2}) {
      bytes = queried;
      EXPECT_EQ(cudaErrorInvalidValue, call(temp.data() + offset, bytes)) << "offset " << offset;
    }
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    EXPECT_TRUE(all_poison(temp.to_host())) << "the temporary storage was written";
  }
  for (const auto* b : {&count, &lower, &offsets, &lo, &ro}) EXPECT_TRUE(all_poison(b->to_host()));
  EXPECT_TRUE(all_poison(kept.to_host()));
}

// The expansion's query is arithmetic, so its refusals come before any CUDA call: host memory
// stands in for device memory and no GPU is needed (CI). (The other forms' queries ask CUB's
// scan, which needs a device: the test above.)
TEST(HostJoinTempStorage, ExpandRefusesTooLittleOrMisalignedStorageBeforeAnyCudaCall) {
  constexpr std::size_t alignment = corank::temporary_storage_alignment;
  for (const index_t m : {index_t(0), index_t(1), index_t(5000)}) {
    SCOPED_TRACE("m=" + std::to_string(m));
    const index_t pairs = 4 * m;
    std::vector<index_t> lower(std::size_t(m), 0), offsets(std::size_t(m) + 1);
    for (index_t i = 0; i <= m; ++i) offsets[std::size_t(i)] = 4 * i;
    std::vector<index_t> lo(std::size_t(pairs), poison_value<index_t>()), ro = lo;
    std::vector<index_t> count(1, poison_value<index_t>());
    const auto expand = [&](void* t, std::size_t& b) {
      return corank::device::sorted_join_expand(t, b, lower.data(), offsets.data(), m, pairs, lo.data(), ro.data(),
                                                count.data());
    };
    std::size_t queried = 0;
    ASSERT_EQ(cudaSuccess, expand(nullptr, queried));
    ASSERT_GT(queried, 0u);
    std::vector<unsigned char> temp(queried + 2 * alignment, poison_byte);
    auto* aligned = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(temp.data()) + alignment - 1) / alignment * alignment);
    for (const std::size_t given : {queried - 1, queried / 2, std::size_t(0)}) {
      std::size_t bytes = given;
      EXPECT_EQ(cudaErrorInvalidValue, expand(aligned, bytes)) << given << " of " << queried;
      EXPECT_EQ(bytes, given) << "a run changed temp_storage_bytes";
    }
    for (const std::size_t offset : {std::size_t(8), alignment / 2}) {
      std::size_t bytes = queried + alignment;
      EXPECT_EQ(cudaErrorInvalidValue, expand(aligned + offset, bytes)) << "offset " << offset;
    }
    EXPECT_TRUE(all_poison(temp)) << "the temporary storage was written";
    EXPECT_TRUE(all_poison(lo));
    EXPECT_TRUE(all_poison(ro));
    EXPECT_TRUE(all_poison(count));
  }
}

// Pairs beyond what one grid of the expansions covers (2^31 blocks: 2^43 pairs from the runs,
// 2^42 merge-path steps from the offsets) are refused by the query, with no overflow on the
// way, before any CUDA call; the block counts themselves never overflow.
TEST(HostJoinTempStorage, PairsBeyondOneGridAreRefusedBeforeAnyCudaCall) {
  constexpr index_t most = std::numeric_limits<index_t>::max();
  constexpr index_t piece = corank::detail::join_piece_positions, step = corank::detail::join_expand_tile;
  EXPECT_EQ(corank::detail::join_piece_blocks(3, most), 3 + most / piece + 1);
  EXPECT_EQ(corank::detail::join_piece_blocks(3, 2 * piece), 5);
  EXPECT_EQ(corank::detail::join_expand_tiles(most, most), most / step * 2 + 2);  // 2^53
  EXPECT_EQ(corank::detail::join_expand_tiles(step - 1, 1), 1);
  const index_t* none = nullptr;
  index_t* out = nullptr;
  const std::int32_t* column = nullptr;
  for (const index_t pairs : {most, piece * (index_t(1) << 31)}) {
    SCOPED_TRACE("pairs=" + std::to_string(pairs));
    std::size_t bytes = 0;
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::sorted_join_expand(nullptr, bytes, none, none, 10, pairs, out, out, out));
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::sorted_join_from_kept(nullptr, bytes, nullptr, 0, column, 10,
                                                                           column, 10, pairs, out, out, out));
  }
  std::size_t bytes = 0;
  EXPECT_EQ(cudaSuccess, corank::device::sorted_join_from_kept(nullptr, bytes, nullptr, 0, column, 10, column, 10,
                                                               piece * 1000, out, out, out));
  EXPECT_GE(bytes, std::size_t(1000) * sizeof(index_t));  // an entry for each of the 1000 pieces
}

TEST(GpuJoinErrors, UnsortedInputsAndBadArguments) {
  CORANK_REQUIRE_GPU();
  std::mt19937_64 rng = make_rng();
  int thrown = 0;
  for (int trial = 0; trial < int(quick_or(20, 4)); ++trial) {
    // Small: pairs from unsorted inputs that are not found so are up to m * n.
    std::vector<std::int32_t> left(8000), right(8000);
    for (auto& x : left) x = std::int32_t(rng() % 100);
    for (auto& x : right) x = std::int32_t(rng() % 100);
    std::sort(trial % 2 == 0 ? left.begin() : right.begin(), trial % 2 == 0 ? left.end() : right.end());
    const device_buffer<std::int32_t> l(left), r(right);
    try {
      const index_t pairs = corank::sorted_join_count(l.begin(), l.end(), r.begin(), r.end());
      guarded_output<index_t> lo{static_cast<std::size_t>(pairs)}, ro{static_cast<std::size_t>(pairs)};
      corank::sorted_join(l.begin(), l.end(), r.begin(), r.end(), lo.first(), ro.first());
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(guards_intact(lo.buffer.to_host(), guard_elements, lo.count));
      EXPECT_TRUE(guards_intact(ro.buffer.to_host(), guard_elements, ro.count));
    } catch (const corank::unsorted_input&) {
      ++thrown;
    }
  }
  EXPECT_GT(thrown, 0) << "no unsorted input was found so";
  const std::vector<std::int32_t> a = {1, 2}, b = {2, 3};
  const device_buffer<std::int32_t> l(a), r(b);
  try {
    corank::sorted_join(l.begin(), l.end(), r.begin(), r.end(), static_cast<index_t*>(nullptr),
                        static_cast<index_t*>(nullptr));
    ADD_FAILURE() << "null outputs were taken";
  } catch (const corank::cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("corank::sorted_join: an output is a null pointer with a nonzero size"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(corank::sorted_join_count(l.end(), l.begin(), r.begin(), r.end()), corank::cuda_error);
}

}  // namespace
