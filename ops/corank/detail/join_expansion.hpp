#pragma once
// The sort-merge join's last step on the CPU (host/join.hpp; the GPU's is
// detail/kernels/join_expand_kernels.cuh, on the same rule): from each left
// element's matches in the right column (lower[i], its lower bound there, and offsets[i], the
// exclusive prefix sum of the match counts), output position p finds its left element i as the
// last with offsets[i] <= p — the upper bound of p in offsets, minus one — and its right
// element as lower[i] + (p - offsets[i]). The positions p = 0, 1, ... are sorted queries, so
// one sorted search (search.cuh) over them and the offsets finds every i in O(pairs + m),
// in tiles of equal length however the pairs fall on the keys: a key with 10^4 copies on each
// side is 10^8 outputs spread over all the tiles, not one thread's loop. The search writes
// its answers through join_expansion, which turns each into the pair. Plain C++.

#include <corank/config.hpp>

#include <iterator>

namespace corank::detail {

// The output of the expansion's search: position k, assigned the upper bound u of its
// position p in the offsets, writes the pair (u - 1, lower[u - 1] + p - offsets[u - 1]).
template <class LeftOut, class RightOut>
struct join_expansion {
  LeftOut left;
  RightOut right;
  const index_t* lower;
  const index_t* offsets;
  index_t first = 0;  // the position of element 0

  struct element {
    LeftOut left;
    RightOut right;
    const index_t* lower;
    const index_t* offsets;
    index_t p;
    CORANK_EXEC_CHECK_DISABLE
    template <class T>
    CORANK_HOST_DEVICE const element& operator=(const T& upper) const {
      const index_t i = index_t(upper) - 1;
      if (i < 0) return *this;  // only for more positions than pairs (offsets[0] is 0)
      left[p] = i;
      right[p] = lower[i] + (p - offsets[i]);
      return *this;
    }
  };

  CORANK_HOST_DEVICE element operator[](index_t k) const { return {left, right, lower, offsets, first + k}; }
  CORANK_HOST_DEVICE join_expansion operator+(index_t k) const {
    return {left, right, lower, offsets, first + k};
  }
};

// 0, 1, 2, ...: the expansion's queries on the CPU (the GPU's are thrust::counting_iterator).
struct counting_index {
  using difference_type = index_t;
  using value_type = index_t;
  using pointer = const index_t*;
  using reference = index_t;
  using iterator_category = std::random_access_iterator_tag;

  index_t at = 0;
  index_t operator*() const { return at; }
  index_t operator[](index_t k) const { return at + k; }
  counting_index operator+(index_t k) const { return {at + k}; }
  index_t operator-(const counting_index& o) const { return at - o.at; }
};

}  // namespace corank::detail
