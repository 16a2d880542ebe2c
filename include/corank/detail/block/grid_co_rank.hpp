#pragma once
// The co-rank (co_rank.hpp) of one diagonal among many searched at once over inputs in
// global memory, as the tile-split pass does. A plain binary search probes A and B at
// positions that depend on its own diagonal, so every probe of every search reads its own
// sector from DRAM (about 2.9 KB a boundary). This one first narrows the
// answer to 2 * Grid - 1 candidates probing only positions that are multiples of Grid in
// both inputs: one small set of sectors for all searches, which stays in L2. Only the
// last log2(2 * Grid) probes read sectors of their own.
//
// The narrowing: for p = g * Grid and y the largest multiple of Grid with p + y <= k - 1,
//   A[p] does not come after B[y]  =>  A[p] is among the first k outputs   =>  i > p;
//   otherwise                     =>  A[p] is not among the first k - Grid + 1 outputs
//                                    =>  i <= p + Grid - 1
// (B[y, n) do not come before A[p], so at most y of B's elements precede it; or B[0, y]
// all do). A bisection over g keeps a g that gave the first and a g + 1 that gave the second.

#include <corank/co_rank.hpp>
#include <corank/config.hpp>

namespace corank::detail {

CORANK_EXEC_CHECK_DISABLE
template <index_t Grid, class SequenceA, class SequenceB, class Compare>
CORANK_HOST_DEVICE index_t grid_co_rank(index_t k, const SequenceA& a, index_t m, const SequenceB& b, index_t n,
                                        Compare& comp) {
  static_assert(Grid > 0 && (Grid & (Grid - 1)) == 0, "the grid is a power of two");
  index_t low = k > n ? k - n : 0;
  index_t high = k < m ? k : m;
  // Known: i > g_low * Grid and i <= g_high * Grid + Grid - 1.
  index_t g_low = low > 0 ? (low - 1) / Grid : -1;
  index_t g_high = high / Grid;
  while (g_high - g_low > 1) {
    const index_t g = g_low + (g_high - g_low) / 2;
    const index_t p = g * Grid;
    bool among_first_k = false;
    if (p < high) {  // else p >= m or p >= k: i <= p
      const index_t y = (k - 1 - p) / Grid * Grid;
      among_first_k = y >= n || !comp(b[y], a[p]);
    }
    if (among_first_k) g_low = g; else g_high = g;
  }
  if (g_low >= 0 && g_low * Grid + 1 > low) low = g_low * Grid + 1;
  if (g_high * Grid + Grid - 1 < high) high = g_high * Grid + Grid - 1;
  return co_rank_between(low, high, k, a, b, comp);  // the plain search over what is left
}

}  // namespace corank::detail
