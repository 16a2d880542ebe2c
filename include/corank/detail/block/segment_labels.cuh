#pragma once
// The block-wide steps of a segmented tile that walks composite keys (segmented_path.hpp; the
// set operations and the count-only forms, where the tile spans segments; merges stage their
// segments' starts instead, segment_starts.cuh): labelling the staged elements with their
// segments, and, after the walk, writing the output offsets of the segments that start in the
// tile, or adding the tile's per-segment counts. Labels are relative to the
// tile's first segment (the last one that starts at or before the tile's start), so 32 bits
// hold them.

#include <corank/config.hpp>
#include <corank/segmented_path.hpp>

#include <cstdint>

namespace corank::detail {

using segment_label = std::uint32_t;

// A tile's segments: those of its two boundaries (segmented_path_split's).
struct segment_span {
  index_t first, last;
};

// Labels `count` elements of one input from global index `first` on: the last segment in
// [low, high] that starts at or before each (low's does), minus low. A thread's elements are
// consecutive: one binary search, then a step per segment start passed. Offsets that
// decrease give labels of unspecified order, but every label is in [0, high - low], every
// read of `starts` in [low, high], and the steps end (s never passes high).
template <class Offsets>
__device__ __forceinline__ void label_run(segment_label* labels, const Offsets& starts, index_t first, int count,
                                          index_t low, index_t high) {
  if (count <= 0) return;
  index_t s = low, top = high;
  while (s < top) {
    const index_t mid = s + (top - s + 1) / 2;
    if (index_t(starts[mid]) <= first) s = mid; else top = mid - 1;
  }
  index_t next = s < high ? index_t(starts[s + 1]) : first + count;
  for (int e = 0; e < count; ++e) {
    while (next <= first + e) {  // several at once where segments are empty
      ++s;
      next = s < high ? index_t(starts[s + 1]) : first + count;
    }
    labels[e] = segment_label(s - low);
  }
}

// Labels both windows, A's then B's, in `labels` (A's at [0, a_size), B's after them); the
// tile's segments are [low, high] (low < high <= S). Each thread takes an equal stretch of
// the two. Whatever the offsets hold, it writes labels[0, a_size + b_size) only, reads
// offsets [low, high] only, and every label is at most min(high, S - 1) - low: no element
// lies past the last segment's end (a_offsets[S] == m) where the offsets are offsets, and
// where they are not, the label still names a segment that has a count (add_segment_counts
// writes counts[first + label], of S).
template <int Threads, class OffsetsA, class OffsetsB>
__device__ __forceinline__ void label_segments(segment_label* labels, const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                               split<index_t> begin, int a_size, int b_size, index_t low,
                                               index_t high) {
  if (high >= offsets.segments) high = offsets.segments - 1;
  const int window = a_size + b_size;
  const int per_thread = (window + Threads - 1) / Threads;
  const int from = int(threadIdx.x) * per_thread;
  const int to = from + per_thread < window ? from + per_thread : window;
  if (from < a_size) {
    label_run(labels + from, offsets.a, begin.a + from, (to < a_size ? to : a_size) - from, low, high);
  }
  const int b_from = from > a_size ? from : a_size;
  label_run(labels + b_from, offsets.b, begin.b + (b_from - a_size), to - b_from, low, high);
}

// Outputs in labels[0, count) (sorted) of segments before `label`.
__device__ __forceinline__ int outputs_before(const segment_label* labels, int count, index_t label) {
  if (label <= 0) return 0;
  int low = 0, high = count;
  while (low < high) {
    const int mid = (low + high) / 2;
    if (index_t(labels[mid]) < label) low = mid + 1; else high = mid;
  }
  return low;
}

// The output offsets of segments (first, last] (tile 0: [0, last]), where `first` and `last`
// are the segments of the tile's boundaries: a segment starting in the tile, or at its end,
// starts where the tile's outputs of earlier segments end. So every segment's offset is
// written once, by the tile its start falls in.
template <int Threads, class OffsetsOut>
__device__ __forceinline__ void store_segment_offsets(OffsetsOut offsets_out, const segment_label* labels, int count,
                                                      index_t tile_offset, index_t first, index_t last,
                                                      bool first_tile) {
  for (index_t s = (first_tile ? 0 : first + 1) + threadIdx.x; s <= last; s += Threads) {
    offsets_out[s] = tile_offset + outputs_before(labels, count, s - first);
  }
}

// Adds the tile's outputs of each segment to counts[segment]: a thread per run of equal
// labels in labels[0, count), at its first output.
template <int Threads, class Count>
__device__ __forceinline__ void add_segment_counts(Count* counts, const segment_label* labels, int count,
                                                   index_t first) {
  static_assert(sizeof(Count) == 4 || sizeof(Count) == 8, "segment counts are 32- or 64-bit integers");
  for (int r = threadIdx.x; r < count; r += Threads) {
    if (r > 0 && labels[r] == labels[r - 1]) continue;
    const int end = outputs_before(labels, count, index_t(labels[r]) + 1);
    Count* at = counts + (first + labels[r]);
    if constexpr (sizeof(Count) == 4) {
      atomicAdd(reinterpret_cast<unsigned*>(at), unsigned(end - r));
    } else {
      atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(end - r));
    }
  }
}

}  // namespace corank::detail
