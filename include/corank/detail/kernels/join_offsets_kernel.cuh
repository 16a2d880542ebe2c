#pragma once
// The sort-merge join's offsets (join.cuh; launched by dispatch/join_dispatch.cuh). Op-specific,
// but here rather than in ops/: the dispatch layer launches every kernel, and the framework
// does not include ops/ (it depends only on b_step_values.hpp's runs).
// From the one search pass's runs (b_step_values.hpp's b_runs: each left key's
// run of matches in the right column, 16 bits, and each tile's first key and sum of runs):
// an exclusive scan of the tiles' sums (cub::DeviceScan, a few hundred thousand), then
// join_offsets_kernel, a warp per tile of the pass, which scans its runs and adds the
// tile's prefix: it reads 2 bytes a key and writes 8, coalesced. A run too long for
// 16 bits is counted again from the bound (join_run_count), by a galloping search for its
// end in the right column; a bound outside the column counts -1, and so does a tile that
// found the inputs out of order, which the scans' operator (sticky_sum) carries to every
// later prefix sum: the number of pairs comes out negative. (The pass checked the order:
// each left key against the one before it, and against the right keys around its bound.)

#include <corank/config.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/detail/thread/gallop.hpp>

#include <cstdint>

namespace corank::detail {

template <class Left, class Right, class Compare>
struct join_run_count {
  Left left;
  Right right;
  const index_t* lower;
  const run_length* runs;
  index_t m, n;
  Compare comp;

  __device__ index_t operator()(index_t i) const {
    if (i >= m) return 0;
    const run_length run = runs[i];
    if (run != saturated_run) return run;
    const index_t first = lower[i];
    if (first < 0 || first > n) return -1;
    const auto key = left[i];
    return gallop_past(right, first, n, key, comp) - first;
  }
};

// The scan's operator: a sum in which -1 (inputs out of order) is sticky. Associative, with 0
// its identity on the counts.
struct sticky_sum {
  __host__ __device__ index_t operator()(index_t a, index_t b) const { return a < 0 || b < 0 ? -1 : a + b; }
};

// Tile t's sum of runs (0 past the last tile, so that an exclusive scan of tiles + 1 ends
// with the number of pairs).
struct tile_sum_of {
  const index_t* sums;
  index_t tiles;
  __host__ __device__ index_t operator()(index_t t) const { return t < tiles ? sums[t] : 0; }
};

constexpr int join_offsets_threads = 256;
constexpr int join_offsets_warps = join_offsets_threads / 32;  // a tile each
constexpr int join_offsets_items = 8;                          // runs a lane takes a round: one 16-byte load
constexpr int join_offsets_round = 32 * join_offsets_items;

inline index_t join_offsets_blocks(index_t tiles) { return (tiles + join_offsets_warps - 1) / join_offsets_warps; }

// Tile t of the bound pass: its left keys [tile_first[t], tile_first[t + 1]) (m after the
// last), at most Tile of them; their offsets are tile_prefix[t] plus the exclusive sums of
// their runs. The last tile also writes offsets[m], the number of pairs. A tile whose range is
// not one (the pass found the inputs out of order: its first key is -1) writes nothing.
// A warp per tile, no block barrier: the tile's keys in rounds of 256 from a 16-byte boundary
// of the runs (each lane's 8 runs in one load, the next round's in flight while this one is
// scanned), each lane's sum then the warp's scan of the sums, and the offsets stored through
// the warp's piece of shared memory, coalesced. (A block per tile, with CUB's transposes and
// a block scan over the pass's whole tile of which the keys fill about half: latency-bound at
// 46% of DRAM throughput, H200 2^28 int32 dup2.)
template <int Tile, class Count>
__global__ void __launch_bounds__(join_offsets_threads)
    join_offsets_kernel(const run_length* runs, const index_t* tile_first, const index_t* tile_prefix, index_t tiles,
                        index_t m, Count recount, index_t* offsets) {
  constexpr int items = join_offsets_items, round = join_offsets_round;
  // A lane's 8 offsets at lane * 9 (conflict-free for the blocked writes and the striped reads).
  __shared__ index_t transposed[join_offsets_warps][32 * (items + 1)];
  const int lane = threadIdx.x % 32;
  index_t* mine = transposed[threadIdx.x / 32];
  const index_t t = index_t(blockIdx.x) * join_offsets_warps + threadIdx.x / 32;
  if (t >= tiles) return;
  if (t == tiles - 1 && lane == 0) offsets[m] = tile_prefix[tiles];
  const index_t first = tile_first[t], last = t + 1 < tiles ? tile_first[t + 1] : m;
  if (!(0 <= first && first <= last && last <= m && last - first <= Tile)) return;
  if (first == last) return;
  index_t carry = tile_prefix[t];
  const sticky_sum op{};
  const bool vector = reinterpret_cast<std::uintptr_t>(runs) % 16 == 0;
  // The rounds start at a multiple of 8 keys (so that a lane's 8 runs are one aligned load,
  // where the runs are aligned); keys outside [first, last) count 0 and are not stored. The
  // tile's first and last 8 are loaded one by one, inside the tile only: a neighbouring tile
  // that found the inputs out of order wrote no runs.
  const index_t from = vector ? first / items * items : first;
  auto load = [&](index_t at, run_length (&r)[items]) {
    const index_t k0 = at + lane * items;
    if (vector && first <= k0 && k0 + items <= last) {
      const uint4 v = *reinterpret_cast<const uint4*>(runs + k0);
      const unsigned words[4] = {v.x, v.y, v.z, v.w};
      CORANK_PRAGMA_UNROLL
      for (int k = 0; k < items; ++k) r[k] = run_length(words[k / 2] >> (k % 2 * 16));
    } else {
      CORANK_PRAGMA_UNROLL
      for (int k = 0; k < items; ++k) r[k] = first <= k0 + k && k0 + k < last ? runs[k0 + k] : run_length(0);
    }
  };
  run_length next[items];
  load(from, next);
  for (index_t at = from; at < last; at += round) {
    run_length loaded[items];
    CORANK_PRAGMA_UNROLL
    for (int k = 0; k < items; ++k) loaded[k] = next[k];
    if (at + round < last) load(at + round, next);
    const index_t k0 = at + lane * items;
    index_t counts[items];
    index_t sum = 0;
    CORANK_PRAGMA_UNROLL
    for (int k = 0; k < items; ++k) {
      const index_t key = k0 + k;
      const bool inside = first <= key && key < last;
      counts[k] = !inside ? 0 : loaded[k] != saturated_run ? index_t(loaded[k]) : recount(key);
      sum = op(sum, counts[k]);
    }
    // The lanes' inclusive sums, then this lane's exclusive prefix.
    index_t inclusive = sum;
    CORANK_PRAGMA_UNROLL
    for (int d = 1; d < 32; d *= 2) {
      const index_t up = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive = op(up, inclusive);
    }
    const index_t before = __shfl_up_sync(0xffffffffu, inclusive, 1);
    index_t running = op(carry, lane == 0 ? index_t(0) : before);
    carry = op(carry, __shfl_sync(0xffffffffu, inclusive, 31));
    CORANK_PRAGMA_UNROLL
    for (int k = 0; k < items; ++k) {
      mine[lane * (items + 1) + k] = running;
      running = op(running, counts[k]);
    }
    __syncwarp();
    CORANK_PRAGMA_UNROLL
    for (int k = 0; k < items; ++k) {
      const int s = k * 32 + lane;
      const index_t key = at + s;
      if (first <= key && key < last) offsets[key] = mine[s / items * (items + 1) + s % items];
    }
    __syncwarp();  // the striped reads before the next round's writes
  }
}

}  // namespace corank::detail
