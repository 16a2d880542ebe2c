#pragma once
// Which segment each output of a segmented tile belongs to, where the outputs are not the
// path itself (set operations, count-only forms; a merge's offsets are its segments' starts,
// segment_starts.cuh): a tile that spans segments labels each output, as the walk writes it,
// with where its segment starts in the tile (the diagonal of the walk's start then, 0 for the
// tile's first segment). Labels of sorted inputs' outputs never decrease, so after the
// compaction a search of them finds the outputs before any segment, and runs of equal labels
// are the tile's outputs of one segment. No label per input element, and 16 bits a label
// (windows are shorter than 2^16, tile_agent.cuh checks). After the store, a tile writes the
// output offsets of the segments that start in it, or adds its per-segment counts.

#include <corank/config.hpp>
#include <corank/detail/block/segment_starts.cuh>
#include <corank/segmented_path.hpp>

#include <cstdint>

namespace corank::detail {

using output_label = std::uint16_t;

// After a thread's walk: the label of its i-th output at labels[i] (the thread's own Steps
// slots). The walk began in start k of `starts`, and moved on to the next start (at most
// `last`) before each step of `entered`.
template <int Steps, class Mask>
__device__ __forceinline__ void label_piece_outputs(output_label* labels, const segment_start* starts, int k,
                                                    int last, Mask entered, Mask written) {
  int at = 0;
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    if (entered >> v & 1) k = k < last ? k + 1 : last;
    if (written >> v & 1) labels[at++] = output_label(start_diagonal(starts[k]));
  }
}

// Outputs in labels[0, count) (sorted) of segments that start before diagonal d.
__device__ __forceinline__ int outputs_before(const output_label* labels, int count, int d) {
  int low = 0, high = count;
  while (low < high) {
    const int mid = (low + high) / 2;
    if (int(labels[mid]) < d) low = mid + 1; else high = mid;
  }
  return low;
}

// Where segment s starts in a tile that begins at path diagonal `begin` and is `window` long:
// clamped to the tile (segments that start before it, at 0), whatever the offsets hold.
template <class OffsetsA, class OffsetsB>
__device__ __forceinline__ int start_in_tile(const segment_offsets<OffsetsA, OffsetsB>& offsets, index_t s,
                                             index_t begin, int window) {
  const index_t d = offsets.path_start(s) - begin;
  return d < 0 ? 0 : d > window ? window : int(d);
}

// The output offsets of segments (first, last] (tile 0: [0, last]), where `first` and `last`
// are the segments of the tile's boundaries: a segment starting in the tile, or at its end,
// starts where the tile's outputs of earlier segments end. So every segment's offset is
// written once, by the tile its start falls in. One segment: no labels (its outputs are all
// the segment's, and the segments written start at or before the tile).
template <int Threads, class OffsetsOut, class OffsetsA, class OffsetsB>
__device__ __forceinline__ void store_segment_offsets(OffsetsOut offsets_out, const output_label* labels,
                                                      bool one_segment, int count, index_t tile_offset,
                                                      const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                      index_t begin, int window, segment_span span,
                                                      bool first_tile) {
  for (index_t s = (first_tile ? 0 : span.first + 1) + threadIdx.x; s <= span.last; s += Threads) {
    const int d = start_in_tile(offsets, s, begin, window);
    offsets_out[s] = tile_offset + (d == 0 ? 0 : one_segment ? count : outputs_before(labels, count, d));
  }
}

// Adds the tile's outputs of each segment to counts[segment]: a thread per run of equal
// labels in labels[0, count), at its first output, finding the run's segment by a search of
// the offsets (the last of [first, last] that starts at or before the label's diagonal: the
// empty ones that start there come before it). One segment: its count, by thread 0. Every
// segment added to is in [first, S - 1], whatever the offsets hold.
template <int Threads, class Count, class OffsetsA, class OffsetsB>
__device__ __forceinline__ void add_segment_counts(Count* counts, const output_label* labels, bool one_segment,
                                                   int count, const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                   index_t begin, segment_span span) {
  static_assert(sizeof(Count) == 4 || sizeof(Count) == 8, "segment counts are 32- or 64-bit integers");
  const index_t last = span.last < offsets.segments ? span.last : offsets.segments - 1;
  auto add = [&](index_t s, int n) {
    Count* at = counts + s;
    if constexpr (sizeof(Count) == 4) {
      atomicAdd(reinterpret_cast<unsigned*>(at), unsigned(n));
    } else {
      atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(n));
    }
  };
  if (one_segment) {
    if (threadIdx.x == 0 && count > 0) add(span.first < last ? span.first : last, count);
    return;
  }
  for (int r = threadIdx.x; r < count; r += Threads) {
    if (r > 0 && labels[r] == labels[r - 1]) continue;
    const int end = outputs_before(labels, count, int(labels[r]) + 1);
    add(offsets.segment_at(begin + labels[r], span.first, last), end - r);
  }
}

}  // namespace corank::detail
