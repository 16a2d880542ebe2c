#pragma once
// The sort-merge join's expansion from offsets (join.cuh's sorted_join_expand; launched by
// dispatch/join_dispatch.cuh; here rather than in ops/ for the reason join_offsets_kernel.cuh
// gives). Output position p's left element is the last i with offsets[i] <= p. The
// merge path of the offsets and the positions 0, 1, ..., pairs - 1 cut into tiles of
// join_expand_tile steps (join_partition_kernel: one co-rank search per tile boundary) gives
// each block at most that many positions and left elements however the pairs fall on the
// keys (a key with 10^4 copies a side is 10^8 positions over all the tiles); the block
// stages its offsets and lower bounds in shared memory, and its threads take the positions
// in strides of the block, so that each store of the two output columns is coalesced. Each
// position's left element is found by a binary search of the staged offsets
// (join_expand_kernel), or, where there are 1.5 pairs or more a left element, picked by a
// walk of the tile's merge path, one search per thread and O(1) a step
// (join_walk_expand_kernel: at 2^28 int32 with 2 pairs a key on an H200 4.06-4.09 ms against
// the searches' 4.27; with a pair for 4 keys a walk took 1.74 ms against 1.57, its staging
// costing more than the searches it saves where a tile holds few positions). A tile
// whose boundaries or staged offsets go backwards (unsorted inputs, or offsets not from
// sorted_join_offsets) poisons a word and stores only inside its positions, which lie in
// [0, pairs).

#include <corank/config.hpp>
#include <corank/detail/thread/last_not_after.hpp>

#include <cstdint>

namespace corank::detail {

constexpr int join_expand_threads = 256;
constexpr int join_expand_tile = join_expand_threads * 8;  // merge-path steps: positions plus left elements

// The expansion's tiles of m + pairs merge-path steps, with no overflow for any nonnegative m
// and pairs.
inline index_t join_expand_tiles(index_t m, index_t pairs) {
  const index_t rest = m % join_expand_tile + pairs % join_expand_tile;
  return m / join_expand_tile + pairs / join_expand_tile + (rest + join_expand_tile - 1) / join_expand_tile;
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

// Tile `tile`'s positions [p0, p1) and left elements among [i0 - 1, i1); not `valid` where
// the partition's bounds contradict each other (unsorted inputs, or offsets not from
// sorted_join_offsets).
struct join_expand_range {
  index_t i0, i1, p0, p1;
  bool valid;
};

__device__ __forceinline__ join_expand_range join_expand_range_of(index_t tile, const index_t* bounds, index_t m,
                                                                  index_t pairs) {
  const index_t d0 = tile * join_expand_tile;
  const index_t d1 = d0 + join_expand_tile < m + pairs ? d0 + join_expand_tile : m + pairs;
  const index_t i0 = bounds[tile], i1 = bounds[tile + 1];
  const index_t p0 = d0 - i0, p1 = d1 - i1;
  return {i0, i1, p0, p1, 0 <= i0 && i0 <= i1 && i1 <= m && 0 <= p0 && p0 <= p1 && p1 <= pairs};
}

// Tile `blockIdx.x` (join_expand_range_of).
template <class LeftOut, class RightOut>
__global__ void __launch_bounds__(join_expand_threads)
    join_expand_kernel(const index_t* lower, const index_t* offsets, index_t m, index_t pairs, const index_t* bounds,
                       LeftOut left_out, RightOut right_out, index_t* word) {
  __shared__ index_t staged_offsets[join_expand_tile + 1];
  __shared__ index_t staged_lower[join_expand_tile + 1];
  const join_expand_range r = join_expand_range_of(blockIdx.x, bounds, m, pairs);
  if (!r.valid) {
    if (threadIdx.x == 0) *word = -1;
    return;
  }
  const index_t i0 = r.i0, p0 = r.p0, p1 = r.p1;
  // Staged element s is left element i0 - 1 + s (s = 0 with i0 == 0: before every position).
  const int staged = int(r.i1 - i0) + 1;
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
    found = last_not_after(staged_offsets, found, staged - 1, p);
    const index_t i = i0 - 1 + found;
    if (i < 0) continue;  // only for offsets[0] > 0: no left element
    left_out[p] = i;
    right_out[p] = staged_lower[found] + (p - staged_offsets[found]);
  }
}

// The walk: for each position q of the tile that this thread's steps of the tile's merge path
// reach (staged_offsets[1..elements], left elements i0, i0 + 1, ..., against positions p0,
// p0 + 1, ...), picks[join_pick_slot(q)] = the staged element it belongs to (the last with
// offset <= p0 + q). One search for the thread's diagonal, then O(1) a step.
__device__ __forceinline__ int join_pick_slot(int q) { return q + q / 32; }

__device__ __forceinline__ void join_walk_steps(const index_t* staged_offsets, int elements, index_t p0,
                                                int positions, int* picks) {
  constexpr int items = join_expand_tile / join_expand_threads;
  const int steps = elements + positions;
  const int k = min(int(threadIdx.x) * items, steps);
  int lo = max(0, k - positions), hi = min(k, elements);
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (staged_offsets[mid] <= p0 + (k - mid)) lo = mid; else hi = mid - 1;
  }
  int j = lo, q = k - lo;
  index_t next = j < elements ? staged_offsets[j + 1] : index_t(INT64_MAX);
  CORANK_PRAGMA_UNROLL
  for (int step = 0; step < items; ++step) {
    if (k + step >= steps) break;
    if (q == positions || next <= p0 + q) {  // left element j + 1 comes first
      ++j;
      next = j < elements ? staged_offsets[j + 1] : index_t(INT64_MAX);
    } else {
      picks[join_pick_slot(q++)] = j;
    }
  }
}

// The expansion for many pairs a left element: the tile as join_expand_kernel's, each
// position's left element picked by the walk above instead of a search of its own.
template <class LeftOut, class RightOut>
__global__ void __launch_bounds__(join_expand_threads)
    join_walk_expand_kernel(const index_t* lower, const index_t* offsets, index_t m, index_t pairs,
                            const index_t* bounds, LeftOut left_out, RightOut right_out, index_t* word) {
  __shared__ index_t staged_offsets[join_expand_tile + 1];
  __shared__ index_t staged_shift[join_expand_tile + 1];  // lower bound minus offset
  __shared__ int picks[join_expand_tile + join_expand_tile / 32];
  const join_expand_range r = join_expand_range_of(blockIdx.x, bounds, m, pairs);
  if (!r.valid) {
    if (threadIdx.x == 0) *word = -1;
    return;
  }
  const index_t i0 = r.i0, p0 = r.p0;
  const int elements = int(r.i1 - i0), positions = int(r.p1 - p0);
  for (int s = threadIdx.x; s <= elements; s += join_expand_threads) {
    const index_t i = i0 - 1 + s;
    const index_t offset = i < 0 ? index_t(INT64_MIN) : offsets[i];
    staged_offsets[s] = offset;
    staged_shift[s] = i < 0 ? 0 : lower[i] - offset;
  }
  __syncthreads();
  bool backwards = false;
  for (int s = threadIdx.x; s < elements; s += join_expand_threads) {
    backwards = backwards || staged_offsets[s] > staged_offsets[s + 1];
  }
  // Offsets going backwards would cross the threads' walks: such a tile writes no pairs.
  if (__syncthreads_or(backwards)) {
    if (threadIdx.x == 0) *word = -1;
    return;
  }
  join_walk_steps(staged_offsets, elements, p0, positions, picks);
  __syncthreads();
  for (int q = threadIdx.x; q < positions; q += join_expand_threads) {
    const int s = picks[join_pick_slot(q)];
    const index_t i = i0 - 1 + s;
    if (i < 0) continue;  // only for offsets[0] > 0: no left element
    const index_t p = p0 + q;
    left_out[p] = i;
    right_out[p] = staged_shift[s] + p;
  }
}

}  // namespace corank::detail
