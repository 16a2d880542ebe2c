#pragma once
// Tile boundaries: where boundary t lies on the path, how it is found, and the two ways the
// tile kernels get them: the split pass, which finds every boundary before the tiles run, and
// published_splits, boundaries that say whether they are known yet, for the persistent kernel
// where it takes about one tile per block: there no split pass runs (at 2^20 per input it
// took 7-8 of the set operations' 27-31 us); a block finds each boundary of its tile that no
// other block has published yet with a warp's search, and publishes it.

#include <corank/detail/block/grid_co_rank.hpp>
#include <corank/detail/block/warp_balanced_split.cuh>
#include <corank/detail/block/warp_co_rank.cuh>
#include <corank/detail/dispatch/dependent_launch.cuh>
#include <corank/detail/rules/partition_rule.hpp>
#include <corank/segmented_path.hpp>
#include <corank/tuning.hpp>

#include <cuda/atomic>

namespace corank::detail {

// Tile boundary t's diagonal: t tiles into a path of `total` elements, or its end.
__device__ __forceinline__ index_t tile_diagonal(index_t t, index_t items_per_tile, index_t total) {
  return t * items_per_tile < total ? t * items_per_tile : total;
}

// The split of diagonal k on the rule's path, every lane of the warp calling it. ByWarp: the
// warp's 33-way co-rank search for the one diagonal all lanes pass, then lane 0's balanced
// split (lane 0 gets the split; most runs are short, and the group search's far probes would
// wait on DRAM where lane 0's near ones hit the sectors the co-rank search just read). Else
// each lane's own diagonal (not decreasing from lane to lane): its co-rank by a binary
// search (narrowed first on a grid of positions that every search shares, whose sectors stay
// in L2), then on the balanced path the lanes that meet one run of equal keys search it
// together (warp_balanced_split.cuh).
template <bool ByWarp, class Rule, class IteratorA, class IteratorB, class Compare>
__device__ __forceinline__ split<index_t> find_split(index_t k, IteratorA a, index_t m, IteratorB b, index_t n,
                                                     Compare& comp) {
  if constexpr (ByWarp) {
    const index_t i = warp_co_rank(k, a, m, b, n, comp);
    if (threadIdx.x % 32 != 0) return {};
    return path_split_from<Rule::path>(i, k, a, m, b, n, comp);
  } else {
    const index_t i = grid_co_rank<split_search_grid>(k, a, m, b, n, comp);
    if constexpr (Rule::path == partitioning::balanced_path) {
      return warp_balanced_split_from(i, k, a, m, b, n, comp);
    } else {
      return {i, k - i};
    }
  }
}

inline constexpr int tile_splits_threads = 256;

// The split pass: the split of every tile boundary (tiles + 1 of them), a thread or (with
// ByWarp) a warp each. The searches run over the whole inputs in global memory, a chain of
// about 25 dependent loads for a thread. A warp's 33-way search waits out 5 or 6 instead,
// for 32 times the loads: faster where there are few tiles (the kernel is one long chain
// of latencies), slower where there are many (the loads then cost bandwidth).
// `zeroed`, unless null, is the tile kernel's state (tiles + 1 words: the look-back words
// and the tile counter), zeroed here rather than by a memset of its own between the two
// kernels. The tile kernel is launched as the pass starts (dependent_launch.cuh).
template <bool ByWarp, class Rule, class Args, class Compare>
__global__ void __launch_bounds__(tile_splits_threads)
    tile_splits_kernel(Args args, Compare comp, split<index_t>* splits, index_t tiles, int items_per_tile,
                       unsigned long long* zeroed) {
  allow_next_kernel();
  const index_t thread = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t t = thread / (ByWarp ? 32 : 1);
  // Whole warps search (find_split): a warp past the last boundary leaves, and the lanes of
  // the last warp past it search the last boundary again and write nothing.
  if ((thread - threadIdx.x % 32) / (ByWarp ? 32 : 1) > tiles) return;
  const bool writes = t <= tiles && (!ByWarp || threadIdx.x % 32 == 0);  // a warp's answer is its lane 0's
  if (zeroed != nullptr && writes) zeroed[t] = 0;
  const index_t diagonal = tile_diagonal(t < tiles ? t : tiles, items_per_tile, args.size_a + args.size_b);
  if constexpr (Args::segmented) {
    // The segmented path (launched a thread each): the boundary's segment, for the tiles,
    // then its split.
    const segmented_split<index_t> s =
        segmented_path_split<Rule::path>(diagonal, args.keys_a, args.keys_b, args.offsets, comp);
    if (writes) {
      splits[t] = s.at;
      args.boundary_segments[t] = s.segment;
    }
  } else {
    const split<index_t> s =
        find_split<ByWarp, Rule>(diagonal, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
    if (writes) splits[t] = s;
  }
}

// Boundary t's split in one 64-bit word, (a + 1) << 1 | (k - a - b), where k is the
// boundary's diagonal: a split on the merge path has a + b = k, one on the balanced path k
// or k - 1. Zero means "not found yet", so zeroing initializes the words. One
// word each, so relaxed atomics suffice: a reader uses nothing but the word it read.
class published_splits {
 public:
  published_splits(unsigned long long* words, index_t total, index_t items_per_tile)
      : words_(words), total_(total), items_per_tile_(items_per_tile) {}

  // Boundary t's diagonal: t tiles into the path, or its end.
  __device__ index_t diagonal(index_t t) const { return tile_diagonal(t, items_per_tile_, total_); }

  __device__ void publish(index_t t, split<index_t> s) const {
    const auto back = static_cast<unsigned long long>(diagonal(t) - s.a - s.b);  // 0 or 1
    const auto word = static_cast<unsigned long long>(s.a + 1) << 1 | back;
    word_at(t).store(word, cuda::memory_order_relaxed);
  }

  // Boundary t's word, 0 while it is not published.
  __device__ unsigned long long word(index_t t) const { return word_at(t).load(cuda::memory_order_relaxed); }

  // Boundary t's split, from its published word.
  __device__ split<index_t> decode(index_t t, unsigned long long word) const {
    const index_t a = index_t(word >> 1) - 1;
    return {a, diagonal(t) - index_t(word & 1) - a};
  }

 private:
  __device__ cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word_at(index_t t) const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words_[t]);
  }

  unsigned long long* words_;
  index_t total_;
  index_t items_per_tile_;
};

// Boundary t's split on the rule's path, not published yet: searched by the calling warp (a
// 33-way search: 5 or 6 latencies, where a thread's takes 25), and published. Every lane
// calls it; lane 0 gets the split. Not inlined: kernels call it seldom, and keep it out of
// their round loops. Its arguments come by value: taken by reference, the caller's went to
// memory, and the caller's global stores became generic ones.
template <class Rule, class IteratorA, class IteratorB, class Compare>
__device__ __noinline__ split<index_t> warp_find_boundary(published_splits splits, index_t t, IteratorA a, index_t m,
                                                          IteratorB b, index_t n, Compare comp) {
  const split<index_t> s = find_split<true, Rule>(splits.diagonal(t), a, m, b, n, comp);
  if ((threadIdx.x & 31) == 0) splits.publish(t, s);
  return s;
}

}  // namespace corank::detail
