#pragma once
// A segmented tile's segments (segmented_path.hpp), found once per tile by one block-wide
// pass: where each segment that holds elements of the tile starts in its windows.
// The segments a tile covers are a contiguous range [first, last] of the offsets (the
// segments of its boundaries); the pass keeps those that start inside the tile and are not
// empty (an empty segment starts where the next one does), so the starts it keeps strictly
// increase along the path and are fewer than the tile's window. A thread then finds its
// segment by a search of these starts in shared memory, and walks its piece with the plain
// two-input walk, bounded by its segment's ends, moving on to the next start where both sides
// of its segment are used up (segment_ends, for block_walk.cuh). Keys stay plain keys: no
// label per element. A merge's output offsets are the segments' starts on the path; the other
// forms label their outputs with the start their walk was in (segment_outputs.cuh).
// The starts are staged a round at a time, in an array a fraction of the window long (the
// tile agent's choice): a round holds the starts its threads begin in and the few each walks
// past. Tiles of segments shorter than that fraction take more rounds (each a pass over the
// offsets); the others, one.

#include <corank/config.hpp>
#include <corank/segmented_path.hpp>

#include <cstdint>

namespace corank::detail {

// A tile's segments: those of its two boundaries (segmented_path_split's).
struct segment_span {
  index_t first, last;
};

// A start in the tile's windows: A's index in the high 16 bits, B's in the low (windows are
// shorter than 2^16, tile_agent.cuh checks).
using segment_start = std::uint32_t;
__device__ __forceinline__ segment_start pack_start(int a, int b) { return (unsigned(a) << 16) | unsigned(b); }
__device__ __forceinline__ int start_a(segment_start s) { return int(s >> 16); }
__device__ __forceinline__ int start_b(segment_start s) { return int(s & 0xFFFFu); }
__device__ __forceinline__ int start_diagonal(segment_start s) { return start_a(s) + start_b(s); }

// The tile's starts, numbered along the path: start 0 is (0, 0), for segment `first`, which
// starts at or before the tile; starts 1 to count those of the segments (first, last] that
// begin inside the tile (the windows A[begin.a, + a_size) and B[begin.b, + b_size)) and hold
// elements; start count + 1 is (a_size, b_size), the windows' ends.
// This numbers them, a block round at a time: visit(s, keep, number, a, b) in the thread that
// reads segment s of (first, last], where keep says whether s has a start, (a, b) is where it
// starts in the windows, and number is its start's number, or for a segment that has none the
// next start's (1 + the starts before it). Returns count, the same in every thread (every
// thread calls it). Whatever the offsets hold, it reads offsets [first, last] only (last <= S),
// count is less than the window, and where keep is set, (a, b) lies inside the windows.
template <int Threads, class Scan, class OffsetsA, class OffsetsB, class Visit>
__device__ __forceinline__ int number_segment_starts(typename Scan::TempStorage& scan,
                                                     const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                     split<index_t> begin, int a_size, int b_size, index_t first,
                                                     index_t last, Visit&& visit) {
  const int window = a_size + b_size;
  int count = 0;
  for (index_t base = first + 1; base <= last; base += Threads) {  // the same rounds in every thread
    const index_t s = base + threadIdx.x;
    int keep = 0;
    index_t a = 0, b = 0;
    if (s <= last) {
      a = offsets.a_start(s) - begin.a;
      b = offsets.b_start(s) - begin.b;
      // Inside the tile, and not empty: the next segment starts further on (the last one
      // in the range ends past the tile, or at its end).
      keep = 0 <= a && a <= a_size && 0 <= b && b <= b_size && 0 < a + b && a + b < window &&
             (s == last || offsets.path_start(s + 1) > offsets.path_start(s));
    }
    int rank = 0, kept = 0;
    Scan(scan).ExclusiveSum(keep, rank, kept);
    if (s <= last) visit(s, keep != 0, 1 + count + rank, int(a), int(b));
    count = count + kept < window ? count + kept : window;  // no overflow, whatever the offsets
    __syncthreads();  // the scan's storage is reused
  }
  return count > window - 1 ? (window > 0 ? window - 1 : 0) : count;
}

// Stages starts [from, from + slots) of the tile's starts (number_segment_starts) at
// starts[0, slots), and returns count. Writes starts[0, slots) only, and every start lies
// inside the windows: offsets that are no offsets give starts in unspecified order, which the
// walks read within their windows all the same. The caller's barrier orders the writes
// before the searches.
template <int Threads, class Scan, class OffsetsA, class OffsetsB>
__device__ __forceinline__ int stage_segment_starts(segment_start* starts, int from, int slots,
                                                    typename Scan::TempStorage& scan,
                                                    const segment_offsets<OffsetsA, OffsetsB>& offsets,
                                                    split<index_t> begin, int a_size, int b_size, index_t first,
                                                    index_t last) {
  const int window = a_size + b_size;
  const int count = number_segment_starts<Threads, Scan>(
      scan, offsets, begin, a_size, b_size, first, last, [&](index_t, bool keep, int number, int a, int b) {
        if (keep && number < window && from <= number && number < from + slots) starts[number - from] = pack_start(a, b);
      });
  if (threadIdx.x == 0) {
    if (from == 0) starts[0] = pack_start(0, 0);
    if (from <= count + 1 && count + 1 < from + slots) starts[count + 1 - from] = pack_start(a_size, b_size);
  }
  return count;
}

// The last of starts[0, count] at or before diagonal d of the tile (starts[0] is at 0).
__device__ __forceinline__ int segment_start_at(const segment_start* starts, int count, int d) {
  int low = 0, high = count;
  while (low < high) {
    const int mid = (low + high + 1) / 2;
    if (start_diagonal(starts[mid]) <= d) low = mid; else high = mid - 1;
  }
  return low;
}

// For walk_tile: where both sides of the walk's segment are used up, the next segment starts
// there, and the walk goes on to its ends, or to its piece's end, `piece_end`, where that
// comes first (a merge's piece ends at the windows' ends, a set operation's where the next
// thread's begins). `next` is the start that ends the walk's segment, `last` the last one
// staged, past which it does not go. Starts out of order (offsets that are no offsets) could
// leave both sides used up with elements left in the piece: the walk then goes on to the
// piece's end, so that every step inside it takes one of its elements. Where `entered` is
// given, it gets a bit for each step before which the walk moved on to a start (the steps are
// counted here, a call per step; steps past the piece's end may get one too: they write
// nothing, and compact clamps the labels). PieceEndsInside false: the piece ends at the
// windows' ends (a merge's), where every staged start lies already, so a segment's end needs
// no clamp to it (two instructions a step, the walk being unrolled).
template <class Mask = unsigned, bool PieceEndsInside = true>
struct segment_ends {
  const segment_start* starts;
  int next, last;
  segment_start piece_end;
  Mask* entered = nullptr;
  int step = 0;

  template <class CursorA, class CursorB, class WindowA, class WindowB>
  __device__ __forceinline__ void operator()(CursorA& a_at, CursorB& b_at, const WindowA& a, const WindowB& b) {
    if (!a_at.left() && !b_at.left()) {
      next = next < last ? next + 1 : last;
      const segment_start end = starts[next];
      if constexpr (PieceEndsInside) {
        a_at.set_end(a, min(start_a(end), start_a(piece_end)));
        b_at.set_end(b, min(start_b(end), start_b(piece_end)));
      } else {
        a_at.set_end(a, start_a(end));
        b_at.set_end(b, start_b(end));
      }
      if (!a_at.left() && !b_at.left()) {
        a_at.set_end(a, start_a(piece_end));
        b_at.set_end(b, start_b(piece_end));
      }
      if (entered) *entered |= Mask(1) << step;
    }
    ++step;
  }
};

// A merge's output offsets: segment s's output starts where s starts on the path. Those of
// segments (first, last] (tile 0: [0, last]) are written by the tile, so that each is
// written once, by the tile its start falls in.
template <int Threads, class OffsetsOut, class OffsetsA, class OffsetsB>
__device__ __forceinline__ void store_path_offsets(OffsetsOut offsets_out,
                                                   const segment_offsets<OffsetsA, OffsetsB>& offsets, index_t first,
                                                   index_t last, bool first_tile) {
  for (index_t s = (first_tile ? 0 : first + 1) + threadIdx.x; s <= last; s += Threads) {
    offsets_out[s] = s == 0 ? index_t(0) : offsets.path_start(s);
  }
}

}  // namespace corank::detail
