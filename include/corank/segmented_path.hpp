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

// The segments' offsets: `a`, `b` are S + 1 nondecreasing offsets into A and B, starting at 0
// and ending at A's and B's sizes (random-access iterators of 32- or 64-bit integers).
template <class OffsetsA, class OffsetsB>
struct segment_offsets {
  OffsetsA a;
  OffsetsB b;
  index_t segments;  // S

  CORANK_EXEC_CHECK_DISABLE
  CORANK_HOST_DEVICE index_t a_start(index_t s) const { return index_t(a[s]); }
  CORANK_EXEC_CHECK_DISABLE
  CORANK_HOST_DEVICE index_t b_start(index_t s) const { return index_t(b[s]); }
  // Where segment s starts on the path (S: the path's end).
  CORANK_HOST_DEVICE index_t path_start(index_t s) const { return a_start(s) + b_start(s); }

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
CORANK_HOST_DEVICE segment_offsets<OffsetsA, OffsetsB> make_segment_offsets(OffsetsA a, OffsetsB b,
                                                                            index_t segments) {
  return {a, b, segments};
}

// The split of diagonal p (0 <= p <= m + n) of the segmented path an op partitions by: the
// segment p falls in, then path_split inside it. O(log S + log(segment length)).
CORANK_EXEC_CHECK_DISABLE
template <partitioning Partition, class KeysA, class KeysB, class OffsetsA, class OffsetsB, class Compare>
CORANK_HOST_DEVICE segmented_split<index_t> segmented_path_split(index_t p, KeysA keys_a, KeysB keys_b,
                                                                 const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                                 Compare comp) {
  if (offsets.segments == 0) return {{0, 0}, 0};  // no offsets to read (they may be null)
  const index_t s = offsets.segment_at(p);
  const index_t a0 = offsets.a_start(s), b0 = offsets.b_start(s);
  if (s == offsets.segments) return {{a0, b0}, s};
  const index_t m = offsets.a_start(s + 1) - a0, n = offsets.b_start(s + 1) - b0;
  const split<index_t> in = path_split<Partition>(p - a0 - b0, keys_a + a0, m, keys_b + b0, n, comp);
  return {{a0 + in.a, b0 + in.b}, s};
}

// Composite keys, as the tiles' walks see them: a segment (relative to the tile's first, so
// 32 bits suffice) and the key.
template <class Key>
struct segmented_key {
  Key key;
  std::uint32_t segment;
};

// The composite order: by segment, then by `comp`.
template <class Compare>
struct segmented_less {
  Compare comp;
  template <class Key>
  CORANK_HOST_DEVICE bool operator()(const segmented_key<Key>& x, const segmented_key<Key>& y) {
    return x.segment < y.segment || (x.segment == y.segment && comp(x.key, y.key));
  }
};

}  // namespace corank
