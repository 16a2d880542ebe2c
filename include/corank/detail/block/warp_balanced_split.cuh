#pragma once
// The balanced-path split (balanced_split_from) of each lane's diagonal, searched by the
// warp together. Over inputs in global memory, long runs of equal keys make the split's three
// run searches the cost: a thread gallops one dependent load after another, about
// 2 log2(r) latencies a search for a run of r copies (36 for r = 2^18, three times over). Here
// the lanes whose next key is the same (in long runs, every lane of a warp) search that key's
// runs together: g lanes probe g powers of two a round, then split the bracket (g + 1) ways,
// so a whole warp waits out about 1 + log33(r) latencies a search. A lane whose key no other
// lane shares gallops alone, as a thread does.

#include <corank/balanced_path.hpp>
#include <corank/config.hpp>

#include <cub/util_ptx.cuh>

#include <type_traits>

namespace corank::detail {

inline constexpr unsigned full_warp = 0xffffffffu;

// The lanes [first, last] of a warp that search together, and this lane's place among them.
struct lane_group {
  int first;
  int last;
  int rank;  // this lane's lane - first

  __device__ int size() const { return last - first + 1; }
  __device__ unsigned mask() const { return (full_warp >> (31 - last)) & (full_warp << first); }
};

// The groups that start where `head` is true (lane 0 always starts one).
__device__ inline lane_group lane_groups(bool head) {
  const int lane = int(threadIdx.x) & 31;
  const unsigned heads = __ballot_sync(full_warp, head) | 1u;
  const unsigned up_to_lane = full_warp >> (31 - lane);
  const int first = 31 - __clz(heads & up_to_lane);
  const unsigned later = heads & ~up_to_lane;
  const int last = later != 0 ? __ffs(later) - 2 : 31;
  return {first, last, lane - first};
}

// Searches run two at a time (A's and B's runs), each round issuing both searches' loads
// before either is compared: the two chains of latencies overlap. Search s looks for the
// first p in [low[s], high[s]) where pred(s, p) holds (it is false, then true), or high[s].
// Every lane of the warp calls them; a group's lanes pass the same bounds and equivalent
// preds.
inline constexpr int paired = 2;
using search_bounds = index_t[paired];

// Each round the group's g lanes test g evenly spaced candidates: a (g + 1)-way search.
template <class Pred>
__device__ void group_partition_points(const lane_group& group, search_bounds& low, search_bounds& high, Pred pred) {
  const index_t lanes = group.size();
  while (__any_sync(full_warp, low[0] < high[0] || low[1] < high[1])) {
    index_t probe[paired];
    bool hit[paired];
#pragma unroll
    for (int s = 0; s < paired; ++s) {
      const index_t range = high[s] - low[s];
      probe[s] = range <= lanes ? low[s] + group.rank : low[s] + (group.rank + 1) * range / (lanes + 1);
      hit[s] = probe[s] < high[s] && pred(s, probe[s]);
    }
#pragma unroll
    for (int s = 0; s < paired; ++s) {
      const index_t range = high[s] - low[s];
      const unsigned hits = __ballot_sync(full_warp, hit[s]) & group.mask();
      // The group's first candidate past the answer bounds it from above, the one before it
      // from below.
      const int first_hit = hits != 0 ? __ffs(hits) - 1 : group.last + 1;
      const index_t at_hit = __shfl_sync(full_warp, probe[s], first_hit & 31);
      const index_t before_hit =
          __shfl_sync(full_warp, probe[s], first_hit > group.first ? first_hit - 1 : group.first);
      if (range <= lanes) {
        low[s] = high[s] = hits != 0 ? at_hit : high[s];  // every candidate was tested
      } else {
        if (hits != 0) high[s] = at_hit;
        if (first_hit > group.first) low[s] = before_hit + 1;
      }
    }
  }
}

// The distance of a gallop's probe: span << rank, or the whole reach where that is further.
__device__ inline index_t gallop_distance(index_t span, int rank, index_t reach) {
  return span <= (reach >> rank) ? span << rank : reach;
}

// group_partition_points' answers where they are likely near high (Back, the starts of runs
// that end at high) or near low (the ends of runs that start at low): the group gallops from
// that end, lane rank r probing span * 2^r away (span growing 2^g-fold a round), until a
// probe crosses the answer, then searches the bracket. The first round also probes the far
// end, as run_start and run_end do: a run that fills the range is found in one round.
template <bool Back, class Pred>
__device__ void group_gallops(const lane_group& group, search_bounds& low, search_bounds& high, Pred pred) {
  bool bracketed[paired];
  index_t span[paired];
#pragma unroll
  for (int s = 0; s < paired; ++s) {
    bracketed[s] = low[s] >= high[s];
    span[s] = 1;
  }
  // pred(s, p) for a search that gallops back is true at the copies near high; a crossing is
  // a probe where it is false. For one that gallops forward, a crossing is where it is true.
  for (bool first_round = true; __any_sync(full_warp, !bracketed[0] || !bracketed[1]); first_round = false) {
    index_t probe[paired];
    bool crossed[paired], far_holds[paired];
#pragma unroll
    for (int s = 0; s < paired; ++s) {
      const index_t distance = gallop_distance(span[s], group.rank, high[s] - low[s]);
      probe[s] = Back ? high[s] - distance : low[s] + distance - 1;
      const index_t far = Back ? low[s] : high[s] - 1;
      crossed[s] = !bracketed[s] && pred(s, probe[s]) != Back;
      far_holds[s] = first_round && !bracketed[s] && pred(s, far) == Back;  // the same in the group
    }
#pragma unroll
    for (int s = 0; s < paired; ++s) {
      const unsigned crossings = __ballot_sync(full_warp, crossed[s]) & group.mask();
      const int first = crossings != 0 ? __ffs(crossings) - 1 : group.last;
      const index_t at = __shfl_sync(full_warp, probe[s], first);
      const index_t before = __shfl_sync(full_warp, probe[s], first > group.first ? first - 1 : group.first);
      if (bracketed[s]) continue;
      bracketed[s] = true;
      if (crossings != 0) {  // the answer is between the crossing and the probe before it
        if (Back) {
          if (first > group.first) high[s] = before;
          low[s] = at + 1;
        } else {
          if (first > group.first) low[s] = before + 1;
          high[s] = at;
        }
      } else if (at == (Back ? low[s] : high[s] - 1) || far_holds[s]) {  // no crossing, to the far end
        if (Back) high[s] = low[s]; else low[s] = high[s];
      } else {  // on from the furthest probe (span << g stays below twice the range)
        if (Back) high[s] = at; else low[s] = at + 1;
        span[s] <<= group.size();
        bracketed[s] = false;
      }
    }
  }
  group_partition_points(group, low, high, pred);
}

// The balanced-path split of each lane's diagonal k from the merge path's co-rank i there,
// as balanced_split_from returns it. Every lane of the warp calls it, with diagonals that
// do not decrease from lane to lane (the groups take their bounds from their first and
// last lanes).
CORANK_EXEC_CHECK_DISABLE
template <class SequenceA, class SequenceB, class Compare>
__device__ split<index_t> warp_balanced_split_from(index_t i, index_t k, const SequenceA& a, index_t m,
                                                   const SequenceB& b, index_t n, Compare& comp) {
  const index_t j = k - i;
  const bool at_end = i == m && j == n;
  if (__all_sync(full_warp, at_end)) return {i, j};
  // The merge path's next element: if the split cuts a run of equal keys, this is its key.
  // At the end there is none, and any element stands in (some lane is not at the end, so
  // m + n > 0).
  const bool next_from_a = i < m && (j >= n || !comp(b[j], a[i]));
  const auto key = next_from_a ? a[i] : j < n ? b[j] : m > 0 ? a[m - 1] : b[n - 1];
  using key_type = std::decay_t<decltype(key)>;
  // Lanes with the same key search together; a lane at the end searches nothing, alone.
  const key_type previous = cub::ShuffleUp<32>(key, 1, 0, full_warp);
  const bool previous_at_end = __shfl_up_sync(full_warp, at_end, 1);
  const lane_group group = lane_groups((threadIdx.x & 31) == 0 || at_end || previous_at_end || comp(previous, key));
  const auto from_first = [&](index_t x) { return __shfl_sync(full_warp, x, group.first); };
  const auto from_last = [&](index_t x) { return __shfl_sync(full_warp, x, group.last); };

  // Where the key's runs start: at or before the group's first split.
  const index_t first_i = from_first(i), first_j = from_first(j);  // (every lane shuffles)
  const auto copy = [&](int s, index_t p) { return !comp(s == 0 ? a[p] : b[p], key); };
  search_bounds low = {0, 0}, high = {at_end ? 0 : first_i, at_end ? 0 : first_j};
  group_gallops<true>(group, low, high, copy);
  const index_t a_run = low[0], b_run = low[1];
  const index_t before = at_end ? 0 : (i - a_run) + (j - b_run);  // copies of key before the split

  // Where B's ends, counted up to `before` copies (more never change a split): at or after
  // the group's last split, and before the last lane's bound, which is the group's largest.
  // A's is not searched: as in balanced_split_from, A's copies all precede a split whose next
  // element is B's, and at least `before` of them precede one whose next element is A's.
  const index_t b_bound = n - b_run < before ? n : b_run + before;
  const auto past = [&](int s, index_t p) { return comp(key, s == 0 ? a[p] : b[p]); };
  low[0] = high[0] = 0;  // nothing to search in A
  low[1] = from_last(j);
  high[1] = from_last(at_end ? j : b_bound);
  group_gallops<false>(group, low, high, past);
  const index_t b_end = low[1];
  if (before == 0) return {i, j};
  return split_in_run(a_run, b_run, before, next_from_a ? before : i - a_run,
                      (b_end < b_bound ? b_end : b_bound) - b_run);
}

}  // namespace corank::detail
