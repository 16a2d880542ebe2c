#pragma once
// The balanced-path split: the co-rank for operations that match equal keys across A and
// B (the multiset set operations). With a key x present a times in A and b times in B,
// the balanced path orders x's copies as pairs A0 B0 A1 B1 ... (the r-th copy in A meets
// the r-th in B) followed by the unmatched extras, where the merge path would order them
// A0 .. A(a-1) B0 .. B(b-1). A split on the balanced path never separates a pair: where
// diagonal k would cut A_r from B_r, the split moves back one step, so A_r goes with its
// partner into the next partition (partitions are then k-1 .. k+1 long).

#include <corank/co_rank.hpp>
#include <corank/config.hpp>
#include <corank/op.hpp>

namespace corank {

// Where a split cuts the two inputs.
template <class Index>
struct split {
  Index a;  // elements of A before the split
  Index b;  // elements of B before the split
};

namespace detail {

// First position p in [low, high) with !comp(x[p], key) (std::lower_bound).
CORANK_EXEC_CHECK_DISABLE
template <class Sequence, class Key, class Index, class Compare>
CORANK_HOST_DEVICE Index lower_bound_in(const Sequence& x, Index low, Index high, const Key& key, Compare& comp) {
  while (low < high) {
    const Index mid = low + ((high - low) >> 1);  // high > low: a shift, not a signed division
    if (comp(x[mid], key)) low = mid + 1; else high = mid;
  }
  return low;
}

// First position p in [low, high) with comp(key, x[p]) (std::upper_bound).
CORANK_EXEC_CHECK_DISABLE
template <class Sequence, class Key, class Index, class Compare>
CORANK_HOST_DEVICE Index upper_bound_in(const Sequence& x, Index low, Index high, const Key& key, Compare& comp) {
  while (low < high) {
    const Index mid = low + ((high - low) >> 1);  // high > low: a shift, not a signed division
    if (comp(key, x[mid])) high = mid; else low = mid + 1;
  }
  return low;
}

// Where the run of copies of `key` that ends at `high` starts, given that no element of
// x[low, high) comes after key. Gallops back from `high`, so it costs O(log(run length)),
// not O(log(high - low)): runs are short in most data, and each probe is a dependent
// (often global-memory) load. The far end is probed with the near one, at no added
// latency: a run that fills x[low, high) (a tile's window, in long runs) costs one probe.
CORANK_EXEC_CHECK_DISABLE
template <class Sequence, class Key, class Index, class Compare>
CORANK_HOST_DEVICE Index run_start(const Sequence& x, Index low, Index high, const Key& key, Compare& comp) {
  if (high == low) return low;
  const bool near_copy = !comp(x[high - 1], key), far_copy = !comp(x[low], key);
  if (!near_copy) return high;
  if (far_copy) return low;
  --high;  // x[high - 1] is a copy, x[low] is not
  for (Index step = 2; high > low; step *= 2) {
    const Index probe = high - low > step ? high - step : low;
    if (comp(x[probe], key)) return lower_bound_in(x, probe + 1, high, key, comp);
    high = probe;  // x[probe, old high) are all copies of key
  }
  return low;
}

// Where the run of copies of `key` that starts at or before `low` ends, searching no
// further than `high`, given that no element of x[low, high) comes before key. Gallops
// forward from `low`, after probing both ends as run_start does.
CORANK_EXEC_CHECK_DISABLE
template <class Sequence, class Key, class Index, class Compare>
CORANK_HOST_DEVICE Index run_end(const Sequence& x, Index low, Index high, const Key& key, Compare& comp) {
  if (low == high) return high;
  const bool near_past = comp(key, x[low]), far_past = comp(key, x[high - 1]);
  if (near_past) return low;
  if (!far_past) return high;
  ++low;  // x[low - 1] is a copy, x[high - 1] is not
  for (Index step = 2; low < high; step *= 2) {
    const Index probe = high - low > step ? low + step - 1 : high - 1;
    if (comp(key, x[probe])) return upper_bound_in(x, low, probe, key, comp);
    low = probe + 1;  // x[old low, probe] are all copies of key
  }
  return high;
}

// The balanced-path split where `before` copies of a key precede diagonal k's merge-path
// split, the run of copies starting at a_run in A and b_run in B, with a_copies and
// b_copies copies there (counted up to `before`): pairs alternate A, B, and once one side
// runs out, the rest are the other side's extras.
template <class Index>
CORANK_HOST_DEVICE split<Index> split_in_run(Index a_run, Index b_run, Index before, Index a_copies,
                                             Index b_copies) {
  const Index half = (before + 1) / 2;
  const Index a_wanted = half > before - b_copies ? half : before - b_copies;
  Index a_take = a_copies < a_wanted ? a_copies : a_wanted;
  const Index b_take = before - a_take;
  if (a_take == b_take + 1 && b_take < b_copies) --a_take;  // keep A_r with its partner B_r
  return {a_run + a_take, b_run + b_take};
}

}  // namespace detail

// The balanced-path split of diagonal k, from the merge path's split there (i of A's
// elements, k - i of B's): i must be co_rank(k, a, m, b, n, comp). a + b is k or k - 1.
// Preconditions as co_rank's. O(log r) comparisons for a run of r equal keys that the split
// cuts; host and device; no errors of its own.
CORANK_EXEC_CHECK_DISABLE
template <class SequenceA, class SequenceB, class Index, class Compare>
CORANK_HOST_DEVICE split<Index> balanced_split_from(Index i, Index k, const SequenceA& a, Index m, const SequenceB& b,
                                                    Index n, Compare comp) {
  const Index j = k - i;
  if (i == m && j == n) return {i, j};
  // The merge path's next element. If the split cuts a run of equal keys, this is its key.
  // The merge path puts A's copies of a key before B's, so when the next element is A's, no
  // copy in B precedes the split (B[j - 1] comes before A[i]), and when it is B's, none in A
  // follows it (A[i] comes after B[j]): one run search in A and at most two in B.
  const bool next_from_a = i < m && (j >= n || !comp(b[j], a[i]));
  const auto key = next_from_a ? a[i] : b[j];
  const Index a_run = detail::run_start(a, Index(0), i, key, comp);
  const Index b_run = next_from_a ? j : detail::run_start(b, Index(0), j, key, comp);
  const Index before = (i - a_run) + (j - b_run);  // copies of key before the split
  if (before == 0) return {i, j};
  // Copies of key in A and in B, counted only up to `before`: more never change the split.
  // A's are all before the split, or (next from A) at least `before` of them are; B's are
  // searched on from j.
  const Index a_copies = next_from_a ? before : i - a_run;
  const Index b_copies = detail::run_end(b, j, n - b_run < before ? n : b_run + before, key, comp) - b_run;
  return detail::split_in_run(a_run, b_run, before, a_copies, b_copies);
}

// The balanced-path split of diagonal k (a + b is k or k - 1). Preconditions as co_rank's.
// O(log min(m, n)) comparisons for the co-rank, plus O(log r) for a run of r equal keys that
// the split cuts.
CORANK_EXEC_CHECK_DISABLE
template <class SequenceA, class SequenceB, class Index, class Compare>
CORANK_HOST_DEVICE split<Index> balanced_co_rank(Index k, const SequenceA& a, Index m, const SequenceB& b,
                                                 Index n, Compare comp) {
  return balanced_split_from(co_rank(k, a, m, b, n, comp), k, a, m, b, n, comp);
}

// The split of diagonal k on the path an op partitions by, from the merge path's co-rank i
// (i == co_rank(k, ...)): {i, k - i} on the merge path, balanced_split_from's on the balanced
// path.
CORANK_EXEC_CHECK_DISABLE
template <partitioning Partition, class SequenceA, class SequenceB, class Index, class Compare>
CORANK_HOST_DEVICE split<Index> path_split_from(Index i, Index k, const SequenceA& a, Index m, const SequenceB& b,
                                                Index n, Compare comp) {
  if constexpr (Partition == partitioning::balanced_path) {
    return balanced_split_from(i, k, a, m, b, n, comp);
  } else {
    return {i, k - i};
  }
}

// The split of diagonal k on the path an op partitions by: co_rank's split on the merge path,
// balanced_co_rank's on the balanced path. Preconditions as co_rank's.
CORANK_EXEC_CHECK_DISABLE
template <partitioning Partition, class SequenceA, class SequenceB, class Index, class Compare>
CORANK_HOST_DEVICE split<Index> path_split(Index k, const SequenceA& a, Index m, const SequenceB& b, Index n,
                                           Compare comp) {
  if constexpr (Partition == partitioning::balanced_path) {
    return balanced_co_rank(k, a, m, b, n, comp);
  } else {
    const Index i = co_rank(k, a, m, b, n, comp);
    return {i, k - i};
  }
}

}  // namespace corank
