#pragma once
// The sort-merge join's offsets for sorted_join_offsets (join.cuh; launched by
// dispatch/join_dispatch.cuh; the bound pass wrote the lower bounds). Op-specific, but here
// rather than in ops/: the dispatch layer launches every kernel, and the framework does not
// include ops/ (it depends only on b_step_values.hpp's runs).
// From the one search pass's runs (b_step_values.hpp's bounds_and_runs: each left key's run
// of matches in the right column, 16 bits, and each tile's first key and sum of runs) and the
// exclusive scan of the tiles' sums (join_tile_sums.cuh), join_offsets_kernel, a warp per
// tile of the pass, scans its runs and adds the tile's prefix: it reads 2 bytes a key and
// writes 8, coalesced. A saturated run's length is read from long_runs. A tile whose
// boundaries the pass found inconsistent writes nothing, and the prefix sums from it on are
// -1, and so is offsets[m]; a left key out of order inside a consistent tile sets only the
// pass's count word to -1. (The pass checked the order: each left key and each right key
// against the one before it.) The pass writes saturated runs' lengths into `offsets` itself
// (sorted_join_offsets' storage, join_dispatch.cuh): a round reads its keys' long runs before
// its scan and stores their offsets after it.

#include <corank/config.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/detail/kernels/join_tile_sums.cuh>

#include <cstdint>

namespace corank::detail {

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
template <int Tile>
__global__ void __launch_bounds__(join_offsets_threads)
    join_offsets_kernel(bounds_and_runs pass, const join_tile_prefix* tile_prefix, index_t tiles, index_t m,
                        index_t* offsets) {
  constexpr int items = join_offsets_items, round = join_offsets_round;
  // A lane's 8 offsets at lane * 9 (conflict-free for the blocked writes and the striped reads).
  __shared__ index_t transposed[join_offsets_warps][32 * (items + 1)];
  const int lane = threadIdx.x % 32;
  index_t* mine = transposed[threadIdx.x / 32];
  const index_t t = index_t(blockIdx.x) * join_offsets_warps + threadIdx.x / 32;
  if (t >= tiles) return;
  if (t == tiles - 1 && lane == 0) offsets[m] = tile_prefix[tiles].pairs;
  const run_length* runs = pass.runs;
  const index_t first = pass.tile_first[t], last = t + 1 < tiles ? pass.tile_first[t + 1] : m;
  if (!(0 <= first && first <= last && last <= m && last - first <= Tile)) return;
  if (first == last) return;
  index_t carry = tile_prefix[t].pairs;
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
      counts[k] = !inside ? 0 : loaded[k] != saturated_run ? index_t(loaded[k]) : pass.long_runs[key];
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
