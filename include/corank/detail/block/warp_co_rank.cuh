#pragma once
// The co-rank search (co_rank.hpp) by a whole warp: each round the 32 lanes test 32 evenly
// spaced candidates at once and keep the gap where the answer lies, a 33-way search. Over
// inputs in global memory a search is a chain of dependent loads, each a full memory
// latency; this one needs log33 of the range of them (5 for 2^25 elements) instead of log2
// (25), for 32 times the loads, which are independent and cheap.

#include <corank/config.hpp>

namespace corank::detail {

// The co-rank of diagonal k (co_rank's result), in every lane. All 32 lanes must call it.
template <class SequenceA, class SequenceB, class Compare>
__device__ index_t warp_co_rank(index_t k, const SequenceA& a, index_t m, const SequenceB& b, index_t n,
                                Compare& comp) {
  const int lane = int(threadIdx.x) & 31;
  index_t low = k > n ? k - n : 0;
  index_t high = k < m ? k : m;
  // The answer is the first p in [low, high) where A[p] comes after B[k - 1 - p] (the
  // predicate is false, then true), or high.
  while (low < high) {
    const index_t range = high - low;
    // Lane l tests candidate low + (l + 1) * range / 33 (or low + l, for a short range).
    const index_t probe = range <= 32 ? low + lane : low + (index_t(lane) + 1) * range / 33;
    const bool after = probe < high && comp(b[k - 1 - probe], a[probe]);
    const unsigned hits = __ballot_sync(0xffffffffu, after);
    if (range <= 32) return hits != 0 ? low + (__ffs(hits) - 1) : high;
    // The first candidate past the answer bounds it from above, the one before from below.
    const int first = hits != 0 ? __ffs(hits) - 1 : 32;
    const index_t next_high = first < 32 ? __shfl_sync(0xffffffffu, probe, first) : high;
    const index_t next_low = first > 0 ? __shfl_sync(0xffffffffu, probe, first - 1) + 1 : low;
    low = next_low;
    high = next_high;
  }
  return low;
}

}  // namespace corank::detail
