#pragma once
// Which segment each output of a segmented tile belongs to, where the outputs are not the
// path itself (set operations, count-only forms; a merge's offsets are its segments' starts,
// segment_starts.cuh): a tile that spans segments labels each output, at compaction, with the
// number of the start its walk was in when it wrote it (number_segment_starts' numbering: 0
// for the tile's first segment), which the thread knows from where its walk began and the
// steps before which it moved on. Labels of sorted inputs' outputs never decrease, so a
// search of them finds the outputs before any start. No label per input element, and 16 bits
// a label (windows are shorter than 2^16, tile_agent.cuh checks). After the store, the tile
// numbers its segments once more (a pass over their offsets) and writes the output offsets of
// those that start in it, or adds its outputs of each to its count.

#include <corank/config.hpp>
#include <corank/detail/block/segment_starts.cuh>
#include <corank/segmented_path.hpp>

#include <cstdint>

namespace corank::detail {

using output_label = std::uint16_t;

// Outputs in labels[0, count) (sorted) whose label is less than `number`.
__device__ __forceinline__ int outputs_before(const output_label* labels, int count, int number) {
  int low = 0, high = count;
  while (low < high) {
    const int mid = (low + high) / 2;
    if (int(labels[mid]) < number) low = mid + 1; else high = mid;
  }
  return low;
}

// The output offsets of segments (first, last] (tile 0: [0, last]), where `first` and `last`
// are the segments of the tile's boundaries: a segment starting in the tile, or at its end,
// starts where the tile's outputs of earlier starts end. So every segment's offset is written
// once, by the tile its start falls in. Every thread calls it (one_segment is the same in
// every thread).
template <int Threads, class Scan, class OffsetsOut, class OffsetsA, class OffsetsB>
__device__ __forceinline__ void store_segment_offsets(OffsetsOut offsets_out, const output_label* labels,
                                                      bool one_segment, int count, index_t tile_offset,
                                                      typename Scan::TempStorage& scan,
                                                      const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                      split<index_t> begin, int a_size, int b_size, segment_span span,
                                                      bool first_tile) {
  if (first_tile) {  // segments [0, first] start at or before the tile
    for (index_t s = threadIdx.x; s <= span.first; s += Threads) offsets_out[s] = tile_offset;
  }
  if (one_segment) return;
  number_segment_starts<Threads, Scan>(scan, offsets, begin, a_size, b_size, span.first, span.last,
                                       [&](index_t s, bool, int number, int, int) {
                                         offsets_out[s] = tile_offset + outputs_before(labels, count, number);
                                       });
}

// Adds the tile's outputs of each segment to counts[segment]: those of start 0 to segment
// `first`, and each other start's to its segment. Every thread calls it. Every segment added
// to is in [0, S - 1], whatever the offsets hold.
template <int Threads, class Scan, class Count, class OffsetsA, class OffsetsB>
__device__ __forceinline__ void add_segment_counts(Count* counts, const output_label* labels, bool one_segment,
                                                   int count, typename Scan::TempStorage& scan,
                                                   const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                   split<index_t> begin, int a_size, int b_size, segment_span span) {
  static_assert(sizeof(Count) == 4 || sizeof(Count) == 8, "segment counts are 32- or 64-bit integers");
  auto add = [&](index_t s, int n) {
    if (n <= 0 || s >= offsets.segments) return;
    Count* at = counts + s;
    if constexpr (sizeof(Count) == 4) {
      atomicAdd(reinterpret_cast<unsigned*>(at), unsigned(n));
    } else {
      atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(n));
    }
  };
  if (threadIdx.x == 0) add(span.first, one_segment ? count : outputs_before(labels, count, 1));
  if (one_segment) return;
  number_segment_starts<Threads, Scan>(scan, offsets, begin, a_size, b_size, span.first, span.last,
                                       [&](index_t s, bool keep, int number, int, int) {
                                         if (keep) {
                                           add(s, outputs_before(labels, count, number + 1) -
                                                      outputs_before(labels, count, number));
                                         }
                                       });
}

}  // namespace corank::detail
