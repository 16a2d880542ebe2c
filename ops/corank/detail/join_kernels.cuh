#pragma once
// The GPU join's own pieces (join.inl runs them):
// - The offsets from the one search pass's runs (b_step_values.hpp's b_runs: each left key's
//   run of matches in the right column, 16 bits, and each tile's first key and sum of runs):
//   an exclusive scan of the tiles' sums (cub::DeviceScan, a few hundred thousand), then
//   join_offsets_kernel, a warp per tile of the pass, which scans its runs and adds the
//   tile's prefix: it reads 2 bytes a key and writes 8, coalesced. A run too long for
//   16 bits is counted again from the bound (join_run_count), by a galloping search for its
//   end in the right column; a bound outside the column counts -1, and so does a tile that
//   found the inputs out of order, which the scans' operator (sticky_sum) carries to every
//   later prefix sum: the number of pairs comes out negative. (The pass checked the order:
//   each left key against the one before it, and against the right keys around its bound.)
// - The expansion: output position p's left element is the last i with offsets[i] <= p. The
//   merge path of the offsets and the positions 0, 1, ..., pairs - 1 cut into tiles of
//   join_expand_tile steps (join_partition_kernel: one co-rank search per tile boundary) gives
//   each block at most that many positions and left elements however the pairs fall on the
//   keys (a key with 10^4 copies a side is 10^8 positions over all the tiles); the block
//   stages its offsets and lower bounds in shared memory, and its threads take the positions
//   in strides of the block, so that each store of the two output columns is coalesced
//   (join_expand_kernel). A tile whose boundaries or staged offsets go backwards (unsorted
//   inputs, or offsets not from sorted_join_offsets) poisons a word and stores only inside its
//   positions, which lie in [0, pairs).

#include <corank/config.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/detail/thread/gallop.hpp>


#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>

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
  // where the runs are aligned); keys outside [first, last) count 0 and are not stored.
  const index_t from = vector ? first / items * items : first;
  auto load = [&](index_t at, run_length (&r)[items]) {
    const index_t k0 = at + lane * items;
    if (vector && k0 + items <= m) {
      const uint4 v = *reinterpret_cast<const uint4*>(runs + k0);
      const unsigned words[4] = {v.x, v.y, v.z, v.w};
      CORANK_PRAGMA_UNROLL
      for (int k = 0; k < items; ++k) r[k] = run_length(words[k / 2] >> (k % 2 * 16));
    } else {
      CORANK_PRAGMA_UNROLL
      for (int k = 0; k < items; ++k) r[k] = k0 + k < last ? runs[k0 + k] : run_length(0);
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

constexpr int join_expand_threads = 256;
constexpr int join_expand_tile = join_expand_threads * 8;  // merge-path steps: positions plus left elements

inline index_t join_expand_tiles(index_t m, index_t pairs) {
  return (m + pairs + join_expand_tile - 1) / join_expand_tile;
}

// bounds[t] (t = 0..tiles): how many left elements come before merge-path step t * tile
// (clamped to m + pairs), where left element i comes before position p iff offsets[i] <= p.
// Thread 0 also clears the expansion's word.
template <int = 0>
__global__ void join_partition_kernel(const index_t* offsets, index_t m, index_t pairs, index_t tiles,
                                      index_t* bounds, index_t* word) {
  const index_t t = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (t == 0) *word = 0;
  if (t > tiles) return;
  const index_t d = t * join_expand_tile < m + pairs ? t * join_expand_tile : m + pairs;
  index_t lo = d > pairs ? d - pairs : 0, hi = d < m ? d : m;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo + 1) / 2;
    if (offsets[mid - 1] <= d - mid) lo = mid; else hi = mid - 1;
  }
  bounds[t] = lo;
}

// Tile `blockIdx.x`: positions [p0, p1) with left elements among [i0 - 1, i1).
template <class LeftOut, class RightOut>
__global__ void __launch_bounds__(join_expand_threads)
    join_expand_kernel(const index_t* lower, const index_t* offsets, index_t m, index_t pairs, const index_t* bounds,
                       LeftOut left_out, RightOut right_out, index_t* word) {
  __shared__ index_t staged_offsets[join_expand_tile + 1];
  __shared__ index_t staged_lower[join_expand_tile + 1];
  const index_t tile = blockIdx.x;
  const index_t d0 = tile * join_expand_tile;
  const index_t d1 = d0 + join_expand_tile < m + pairs ? d0 + join_expand_tile : m + pairs;
  const index_t i0 = bounds[tile], i1 = bounds[tile + 1];
  const index_t p0 = d0 - i0, p1 = d1 - i1;
  if (!(0 <= i0 && i0 <= i1 && i1 <= m && 0 <= p0 && p0 <= p1 && p1 <= pairs)) {
    if (threadIdx.x == 0) *word = -1;
    return;
  }
  // Staged element s is left element i0 - 1 + s (s = 0 with i0 == 0: before every position).
  const int staged = int(i1 - i0) + 1;
  bool backwards = false;
  for (int s = threadIdx.x; s < staged; s += join_expand_threads) {
    const index_t i = i0 - 1 + s;
    staged_offsets[s] = i < 0 ? index_t(INT64_MIN) : offsets[i];
    staged_lower[s] = i < 0 ? 0 : lower[i];
  }
  __syncthreads();
  for (int s = threadIdx.x; s + 1 < staged; s += join_expand_threads) {
    backwards = backwards || staged_offsets[s] > staged_offsets[s + 1];
  }
  if (backwards) *word = -1;
  // Each thread's positions rise, so each search starts where the last one ended.
  int found = 0;
  for (index_t p = p0 + threadIdx.x; p < p1; p += join_expand_threads) {
    int hi = staged - 1;
    while (found < hi) {
      const int mid = found + (hi - found + 1) / 2;
      if (staged_offsets[mid] <= p) found = mid; else hi = mid - 1;
    }
    const index_t i = i0 - 1 + found;
    if (i < 0) continue;  // only for offsets[0] > 0: no left element
    left_out[p] = i;
    right_out[p] = staged_lower[found] + (p - staged_offsets[found]);
  }
}

// The expansion's launches: `bounds` holds join_expand_tiles(m, pairs) + 1 index_t; *word
// ends 0, or -1 where a tile found the offsets out of order.
template <class LeftOut, class RightOut>
cudaError_t launch_join_expansion(const index_t* lower, const index_t* offsets, index_t m, index_t pairs,
                                  LeftOut left_out, RightOut right_out, index_t* bounds, index_t* word,
                                  cudaStream_t stream) {
  const index_t tiles = join_expand_tiles(m, pairs);
  if (tiles > index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
  const unsigned partition_blocks = unsigned((tiles + 1 + 255) / 256);
  join_partition_kernel<<<partition_blocks, 256, 0, stream>>>(offsets, m, pairs, tiles, bounds, word);
  if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
  if (tiles == 0) return cudaSuccess;
  join_expand_kernel<<<unsigned(tiles), join_expand_threads, 0, stream>>>(lower, offsets, m, pairs, bounds, left_out,
                                                                          right_out, word);
  return cudaPeekAtLastError();
}

}  // namespace corank::detail
