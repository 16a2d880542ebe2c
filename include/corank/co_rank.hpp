#pragma once
// The co-rank search (called "merge path" by CUB and moderngpu): for output position k
// of the stable merge of sorted A (m elements) and B (n elements), the number i of A's
// elements among the first k outputs. The first k outputs are then exactly the merge
// of A[0, i) and B[0, k - i). Ties go to A, so the merge is stable.

#include <corank/config.hpp>

namespace corank {

// The co-rank of diagonal k, known to lie in [low, high] (co_rank's bounds, or narrower;
// low <= high). co_rank's preconditions; O(log(high - low)) comparisons; `comp` by reference.
CORANK_EXEC_CHECK_DISABLE
template <class SequenceA, class SequenceB, class Index, class Compare>
CORANK_HOST_DEVICE Index co_rank_between(Index low, Index high, Index k, const SequenceA& a, const SequenceB& b,
                                         Compare& comp) {
  while (low < high) {
    const Index mid = low + ((high - low) >> 1);  // high > low: a shift, not a signed division
    // A[mid] is among the first k outputs iff it does not come after B[k - 1 - mid];
    // "does not come after" (not strictly less) is what sends ties to A.
    if (comp(b[k - 1 - mid], a[mid])) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

// The co-rank of diagonal k: the i in [max(0, k - n), min(k, m)] such that the first k
// outputs of the stable merge are A[0, i) and B[0, k - i). Preconditions (not checked): A and
// B sorted by `comp`, a strict weak order; 0 <= k <= m + n. `a` and `b` need only
// `operator[]`: raw pointers, random-access iterators and the ring-buffer views of the tiled
// kernels all work. O(log min(k, m, n)) comparisons; host and device; no errors of its own.
CORANK_EXEC_CHECK_DISABLE
template <class SequenceA, class SequenceB, class Index, class Compare>
CORANK_HOST_DEVICE Index co_rank(Index k, const SequenceA& a, Index m, const SequenceB& b, Index n,
                                 Compare comp) {
  return co_rank_between(k > n ? k - n : Index(0), k < m ? k : m, k, a, b, comp);
}

}  // namespace corank
