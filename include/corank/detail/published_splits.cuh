#pragma once
// Tile boundaries: where one lies on the path and how it is found (shared by the split pass
// and the tile kernels), and boundaries that say whether they are known yet, for the
// persistent set-operation kernel where it takes about one tile per block: no split pass
// runs (at 2^20 per input it took 7-8 of the set operations' 27-31 us, bench/NOTES.md 30);
// a block finds each boundary of its tile that no other block has published yet with a
// warp's search, and publishes it.

#include <corank/balanced_path.hpp>
#include <corank/detail/grid_co_rank.hpp>
#include <corank/detail/warp_co_rank.cuh>

#include <cuda/atomic>

namespace corank::detail {

// Tile boundary t's diagonal: t tiles into a path of `total` elements, or its end.
__device__ __forceinline__ index_t tile_diagonal(index_t t, index_t items_per_tile, index_t total) {
  return t * items_per_tile < total ? t * items_per_tile : total;
}

// A thread's search narrows its answer on this grid first (grid_co_rank.hpp).
#ifdef CORANK_TUNE_SPLIT_GRID
inline constexpr index_t split_search_grid = CORANK_TUNE_SPLIT_GRID;
#else
inline constexpr index_t split_search_grid = 4096;
#endif

// The split of diagonal k on the op's path, by a thread's binary search or (ByWarp) the
// calling warp's 33-way search, whose every lane calls it: lane 0 gets the split.
template <bool ByWarp, class Op, class IteratorA, class IteratorB, class Compare>
__device__ __forceinline__ split<index_t> find_split(index_t k, IteratorA a, index_t m, IteratorB b, index_t n,
                                                     Compare& comp) {
  const index_t i = ByWarp ? warp_co_rank(k, a, m, b, n, comp) : grid_co_rank<split_search_grid>(k, a, m, b, n, comp);
  if (ByWarp && threadIdx.x % 32 != 0) return {};
  return path_split_from<Op::partition>(i, k, a, m, b, n, comp);
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

// Boundary t's split on the op's path, not published yet: searched by the calling warp (a
// 33-way search: 5 or 6 latencies, where a thread's takes 25), and published. Every lane
// calls it; lane 0 gets the split. Not inlined: kernels call it seldom, and keep it out of
// their round loops. Its arguments come by value: taken by reference, the caller's went to
// memory, and the caller's global stores became generic ones (bench/NOTES.md 32).
template <class Op, class IteratorA, class IteratorB, class Compare>
__device__ __noinline__ split<index_t> warp_find_boundary(published_splits splits, index_t t, IteratorA a, index_t m,
                                                          IteratorB b, index_t n, Compare comp) {
  const split<index_t> s = find_split<true, Op>(splits.diagonal(t), a, m, b, n, comp);
  if ((threadIdx.x & 31) == 0) splits.publish(t, s);
  return s;
}

}  // namespace corank::detail
