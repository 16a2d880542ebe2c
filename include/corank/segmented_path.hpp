#pragma once
// The segmented path: S segment pairs (A's segment s is A[a_offsets[s], a_offsets[s + 1]),
// B's likewise) run as ONE two-input operation on composite keys (segment, key), ordered by
// segment, then by the comparator. Both inputs are sorted in that order (each segment is
// sorted and segments follow each other), and the op's walk of the composite inputs is, segment
// by segment, the walk of each pair: no step relates keys of two segments as equal, so the
// merge and the set operations keep to their segment. One path of m + n steps over all
// segments is then cut into equal pieces, whatever the segments' lengths.
//
// Segment s starts at diagonal a_offsets[s] + b_offsets[s] of that path; a split of diagonal
// p is found by a binary search over the segments' starts, then by the op's rule inside the
// segment (its splits never cross a segment's start: composite keys of two segments differ).
// Plain C++, host and device: the split pass and the CPU backend share it.

#include <corank/balanced_path.hpp>
#include <corank/config.hpp>
#include <corank/op.hpp>

#include <cstdint>

namespace corank {

// A split of the segmented path, and the segment it falls in: the last segment that starts at
// or before its diagonal (S, past the last segment, at the path's end).
template <class Index>
struct segmented_split {
  split<Index> at;
  Index segment;
};

// An input size not known to segment_offsets (the CPU backend checks the offsets on the host
// instead).
inline constexpr index_t unknown_size = index_t(~0ull >> 1);

// The segments' offsets: `a`, `b` are S + 1 nondecreasing offsets into A and B, starting at 0
// and ending at A's and B's sizes (random-access iterators of 32- or 64-bit integers).
// size_a and size_b are those sizes where known (the GPU forms' offsets are read on the
// device, unchecked): segmented_path_split then never reads outside A and B, whatever the
// offsets hold.
template <class OffsetsA, class OffsetsB>
struct segment_offsets {
  OffsetsA a;
  OffsetsB b;
  index_t segments;  // S
  index_t size_a = unknown_size;  // m, where known
  index_t size_b = unknown_size;  // n, where known

  CORANK_EXEC_CHECK_DISABLE
  CORANK_HOST_DEVICE index_t a_start(index_t s) const { return index_t(a[s]); }
  CORANK_EXEC_CHECK_DISABLE
  CORANK_HOST_DEVICE index_t b_start(index_t s) const { return index_t(b[s]); }
  // Where segment s starts on the path (S: the path's end). Wraps, rather than overflows,
  // on offsets that are no offsets.
  CORANK_HOST_DEVICE index_t path_start(index_t s) const {
    return index_t(static_cast<std::uint64_t>(a_start(s)) + static_cast<std::uint64_t>(b_start(s)));
  }

  // The last segment in [low, high] whose start is at or before diagonal p (low's start is).
  CORANK_HOST_DEVICE index_t segment_at(index_t p, index_t low, index_t high) const {
    while (low < high) {
      const index_t mid = low + (high - low + 1) / 2;
      if (path_start(mid) <= p) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }
  CORANK_HOST_DEVICE index_t segment_at(index_t p) const { return segment_at(p, 0, segments); }
};

template <class OffsetsA, class OffsetsB>
CORANK_HOST_DEVICE segment_offsets<OffsetsA, OffsetsB> make_segment_offsets(
    OffsetsA a, OffsetsB b, index_t segments, index_t size_a = unknown_size, index_t size_b = unknown_size) {
  return {a, b, segments, size_a, size_b};
}

// What segmented_path_split answers where the offsets around diagonal p are no offsets of A
// and B (decreasing, negative, past size_a or size_b, not starting at 0 or not ending at the
// sizes): a split before both inputs, which the tiles on both sides of it find out of order
// (tile_agent.cuh: they write nothing and report the inputs unsorted). Sorted inputs with
// offsets as the preconditions say never give it.
inline constexpr index_t no_split = -1;

// The split of diagonal p (0 <= p <= m + n) of the segmented path an op partitions by: the
// segment p falls in, then path_split inside it. O(log S + log(segment length)).
// Whatever the offsets hold, it reads the offsets [0, S] and, where it searches inside a
// segment, only elements of that segment that lie inside A and B (size_a, size_b); offsets
// that would put the split elsewhere give {no_split, no_split} (the segment stays in [0, S]).
CORANK_EXEC_CHECK_DISABLE
template <partitioning Partition, class KeysA, class KeysB, class OffsetsA, class OffsetsB, class Compare>
CORANK_HOST_DEVICE segmented_split<index_t> segmented_path_split(index_t p, KeysA keys_a, KeysB keys_b,
                                                                 const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                                 Compare comp) {
  if (offsets.segments == 0) return {{0, 0}, 0};  // no offsets to read (they may be null)
  const index_t s = offsets.segment_at(p);
  const index_t a0 = offsets.a_start(s), b0 = offsets.b_start(s);
  const segmented_split<index_t> none{{no_split, no_split}, s};
  if (a0 < 0 || a0 > offsets.size_a || b0 < 0 || b0 > offsets.size_b) return none;
  const index_t k = p - a0 - b0;  // p's place in segment s
  // The path's end: offsets that end at the sizes put only diagonal m + n here, at (m, n).
  if (s == offsets.segments) return k == 0 ? segmented_split<index_t>{{a0, b0}, s} : none;
  const index_t a1 = offsets.a_start(s + 1), b1 = offsets.b_start(s + 1);
  if (a1 < a0 || a1 > offsets.size_a || b1 < b0 || b1 > offsets.size_b) return none;
  const index_t m = a1 - a0, n = b1 - b0;
  if (k < 0 || k > m + n) return none;  // segment 0 not starting at 0; offsets out of order
  const split<index_t> in = path_split<Partition>(k, keys_a + a0, m, keys_b + b0, n, comp);
  return {{a0 + in.a, b0 + in.b}, s};
}

}  // namespace corank
