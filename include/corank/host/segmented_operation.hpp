#pragma once
// Running any op (op.hpp) over S segment pairs on CPU threads: the CPU backend of
// segmented_operation.cuh, with the same runners, ops and results. The segments make one
// path of m + n steps (segmented_path.hpp), cut into equal pieces, one per thread, whatever
// the segments' lengths: a thread's piece starts at the segmented split of its first diagonal,
// ends at that of its last, and walks the segments between segment by segment with the serial
// walk of host/operation.hpp, so one huge segment is shared by every thread and a million
// small ones are spread over them. Ops of data-dependent size walk twice: counting each
// piece's outputs, then writing them at the piece's prefix offset.
//
//   corank::host::segmented_keys_operation<corank::ops::set_union_op>{}(
//       a, a_end, a_offsets, b, b_end, b_offsets, segments, out, out_offsets);
//
// ops/corank/host/segmented.hpp names the merges and set operations as these runners
// (segmented_merge, segmented_set_union_by_key, ...):
//   segmented_keys_operation           keys; writes S + 1 output offsets
//   segmented_by_key_operation         keys and values; S + 1 output offsets
//   segmented_count_operation          the S per-segment output sizes; returns the total
//   segmented_paired_by_key_operation  values of A and of the matched B; S + 1 output offsets
//
// Every runner, with S segments, A = [a_first, a_last) of m elements and B = [b_first, b_last)
// of n:
// - Result: as segmented_operation.cuh's: segment s of the output, out[offsets_out[s],
//   offsets_out[s + 1]), is the op's result on A[a_offsets[s], a_offsets[s + 1]) and
//   B[b_offsets[s], b_offsets[s + 1]), as host/operation.hpp's runners write it;
//   offsets_out[0] == 0 and offsets_out[S] is the total. Returns the output end(s);
//   segmented_count_operation writes counts_out[s], segment s's output size (0 for an empty
//   one), and returns the total. Plain C++, no GPU.
// - Preconditions: a_offsets and b_offsets are S + 1 integers (random-access iterators),
//   checked (below). Each segment sorted by `comp`, a strict weak order (not checked; see
//   host/check_sorted.hpp). offsets_out (any random-access iterator of integers) holds S + 1
//   integers, counts_out S; other iterators and outputs as host/operation.hpp's. With S == 0
//   the input offsets are not read (they may be null) and A and B must be empty.
// - Threads: as host/operation.hpp's: at most `threads` (0: std::thread::hardware_concurrency())
//   and at most one per 2^15 elements of m + n, whatever S.
// - Complexity: O(m + n) steps of the op and O(S) offsets read and written; the pieces'
//   boundaries are each a search of O(log S) over the segments' starts and a co-rank search
//   inside one segment, made on the calling thread. Two walks (counting, then writing) for
//   ops of data-dependent size, one for the merges and the count form. The offsets are checked
//   first, in one O(S) pass on the calling thread.
// - Errors: std::invalid_argument ("<name>: <problem>"), before anything is written, for the
//   two-input runners' problems (a negative size, sizes whose sum does not fit in 64 bits, a
//   null raw pointer with a nonzero size), a negative S, null input offsets with S > 0, null
//   output offsets (counts: with S > 0), input offsets that do not start at 0, decrease, or do
//   not end at A's or B's size, and nonempty inputs with S == 0. Segments found not sorted by
//   `comp` throw corank::unsorted_input, before anything is written, as host/operation.hpp's
//   runners do; where they are not found so, the result is unspecified within the outputs'
//   bounds (each segment's output within its op's bound on that segment), and nothing is
//   written outside the outputs. An exception of `comp`, the op or an iterator, on any thread,
//   reaches the caller once every thread has stopped (the outputs partly written).
// - Ops that see where runs of equal keys start (op.hpp) are not taken yet (a static_assert
//   says so).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/forms/segmented_args.hpp>
#include <corank/detail/host/host_partitions.hpp>
#include <corank/detail/host/host_splits.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/op.hpp>
#include <corank/segmented_path.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace corank::host {

namespace detail {

using corank::detail::unused;

// `out` advanced by k, or `unused` as it is.
template <class Out>
auto advanced(Out out, index_t k) {
  if constexpr (corank::detail::is_used_v<Out>) {
    return out + k;
  } else {
    return out;
  }
}

// The two-input arguments of a segmented operation (B's value output for the paired forms).
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut, class BValuesOut>
auto make_segmented_base(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, ValuesA values_a,
                         ValuesB values_b, KeysOut keys_out, ValuesOut values_out, BValuesOut b_values_out) {
  return corank::detail::merge_args<KeysA, KeysB, ValuesA, ValuesB, KeysOut, ValuesOut, BValuesOut>{
      a_first,  index_t(a_last - a_first), b_first,   index_t(b_last - b_first), values_a,
      values_b, keys_out,                  values_out, b_values_out};
}

// One side's S + 1 offsets (S > 0): they start at 0, never decrease, end at the side's size.
template <class Offsets>
std::string side_offsets_error(Offsets offsets, index_t segments, index_t size, char side) {
  const std::string which = std::string("the offsets of ") + side;
  index_t previous = index_t(offsets[0]);
  if (previous != 0) return which + " do not start at 0 (they start at " + std::to_string(previous) + ")";
  for (index_t s = 0; s < segments; ++s) {
    const index_t next = index_t(offsets[s + 1]);
    if (next < previous) {
      return which + " decrease: segment " + std::to_string(s) + " starts at " + std::to_string(previous) +
             " and ends at " + std::to_string(next);
    }
    previous = next;
  }
  if (previous != size) {
    return which + " end at " + std::to_string(previous) + ", not at " + side + "'s size " + std::to_string(size);
  }
  return {};
}

// What is wrong with the offsets themselves, or an empty string: cheap to check on the host,
// after the checks the GPU shares (segmented_args.hpp).
template <class OffsetsA, class OffsetsB>
std::string offsets_error(const segment_offsets<OffsetsA, OffsetsB>& offsets, index_t size_a, index_t size_b) {
  const index_t segments = offsets.segments;
  if (segments == 0) {
    return size_a == 0 && size_b == 0 ? std::string() : "there are no segments but A or B is not empty";
  }
  std::string problem = side_offsets_error(offsets.a, segments, size_a, 'A');
  return problem.empty() ? side_offsets_error(offsets.b, segments, size_b, 'B') : problem;
}

// What is left of a walk's cap once `written` outputs are out (no cap stays none).
inline corank::detail::no_limit left_of(corank::detail::no_limit, index_t) { return {}; }
inline index_t left_of(index_t limit, index_t written) { return limit - written; }

// The pieces of the segmented path: where a diagonal splits, which segments' starts a piece
// holds, and the walk of a piece segment by segment.
template <class Op, class Args, class Offsets, class Compare>
struct segmented_walker {
  const Op& op;
  const Args& args;
  const Offsets& offsets;
  Compare comp;

  segmented_split<index_t> split_at(index_t p) const {
    return segmented_path_split<Op::partition>(p, args.keys_a, args.keys_b, offsets, comp);
  }

  // The first segment whose path start is at or after diagonal p (S + 1: none).
  index_t first_starting_at(index_t p) const { return p == 0 ? 0 : offsets.segment_at(p - 1) + 1; }

  // Walks the path from split `from` to split `to` (not behind it), segment by segment,
  // writing at keys_out, values_out and partners (each may be `unused`), at most `limit`
  // outputs in all (walk_partition's cap). Calls at_start(s, written) for each segment s in
  // [owned_begin, owned_end) when the walk reaches s's start (written: the outputs so far),
  // and walked(t, count) for each segment t < S it passes through, with the outputs it wrote
  // in t. Returns the outputs written.
  template <class KeysOut, class ValuesOut, class PartnerOut, class Limit, class AtStart, class Walked>
  index_t walk(segmented_split<index_t> from, segmented_split<index_t> to, index_t owned_begin, index_t owned_end,
               KeysOut keys_out, ValuesOut values_out, PartnerOut partners, Limit limit, AtStart at_start,
               Walked walked) const {
    index_t written = 0;
    index_t next_owned = owned_begin;
    const index_t last = std::min(to.segment, offsets.segments - 1);
    index_t a0 = offsets.a_start(from.segment), b0 = offsets.b_start(from.segment);
    for (index_t t = from.segment; t <= last; ++t) {
      for (; next_owned < owned_end && next_owned <= t; ++next_owned) at_start(next_owned, written);
      const index_t a1 = offsets.a_start(t + 1), b1 = offsets.b_start(t + 1);
      const index_t i = t == from.segment ? from.at.a : a0, j = t == from.segment ? from.at.b : b0;
      const index_t i_end = t == to.segment ? to.at.a : a1, j_end = t == to.segment ? to.at.b : b1;
      index_t count = 0;
      if (i < i_end || j < j_end) {
        // The segment's own inputs, so that the walk sees nothing of its neighbours.
        count = corank::detail::walk_partition(op, comp, args.keys_a + a0, i - a0, i_end - a0, args.keys_b + b0,
                                               j - b0, j_end - b0, advanced(args.values_a, a0),
                                               advanced(args.values_b, b0), advanced(keys_out, written),
                                               advanced(values_out, written), advanced(partners, written),
                                               left_of(limit, written));
      }
      walked(t, count);
      written += count;
      a0 = a1;
      b0 = b1;
    }
    for (; next_owned < owned_end; ++next_owned) at_start(next_owned, written);
    return written;
  }
};

// Runs `op` over the segments and returns the output size. segments_out is the S + 1 output
// offsets for forms that write keys, the S counts for the count form. Piece p (the path's
// diagonals [P0, P1)) owns the segments that start in [P0, P1) (the last piece: [P0, m + n],
// segment S included): it writes their output offsets (its prefix offset plus what it wrote
// before reaching them), and the counts of those that end inside it; a segment that crosses
// into later pieces has its count summed from their walks after every thread has joined.
template <class Op, class Args, class OffsetsA, class OffsetsB, class SegmentsOut, class Compare>
index_t run_segmented(const char* context, const Op& op, const Args& args,
                      const segment_offsets<OffsetsA, OffsetsB>& offsets, SegmentsOut segments_out, Compare comp,
                      unsigned threads) {
  static_assert(is_op_v<Op>, "Op does not model the corank op concept (see op.hpp)");
  static_assert(!sees_run_starts_v<Op>,
                "the segmented forms do not take ops that see where runs of equal keys start (op.hpp) yet");
  constexpr bool writes = Args::writes_keys;
  // The two-input arguments' and the segments' checks, as the GPU forms make them.
  const auto checked = corank::detail::make_segmented_args(args, offsets.a, offsets.b, offsets.segments, segments_out);
  if (const char* problem = corank::detail::merge_argument_error(checked)) {
    throw std::invalid_argument(std::string(context) + ": " + problem);
  }
  if (const std::string problem = offsets_error(offsets, args.size_a, args.size_b); !problem.empty()) {
    throw std::invalid_argument(std::string(context) + ": " + problem);
  }
  const index_t segments = offsets.segments;
  if (segments == 0) {
    if constexpr (writes) segments_out[0] = 0;
    return 0;
  }
  const index_t total = args.size_a + args.size_b;
  const unsigned pieces = corank::detail::host_thread_count(total, threads);
  const segmented_walker<Op, Args, segment_offsets<OffsetsA, OffsetsB>, Compare> walker{op, args, offsets, comp};
  // Piece p walks from splits[p] to splits[p + 1]; they go forward in A and B, or nothing is
  // written.
  const auto splits = corank::detail::forward_splits(
      context, total, pieces, [&](index_t k) { return walker.split_at(k); },
      [](const segmented_split<index_t>& split) { return split.at; });
  const corank::detail::no_limit uncapped;
  auto owned_end = [&](unsigned p, index_t end) { return p + 1 == pieces ? segments + 1 : walker.first_starting_at(end); };
  auto ignore = [](index_t, index_t) {};

  if constexpr (!writes) {
    // A segment's count, where a piece holds only part of it: from its first walked segment if
    // that started in an earlier piece (head), and from its last if that goes on (tail).
    struct partial {
      index_t segment = -1;
      index_t count = 0;
    };
    std::vector<partial> heads(pieces), tails(pieces);
    std::vector<index_t> counts(pieces, 0);
    corank::detail::for_each_output_piece(total, pieces, [&](unsigned p, index_t begin, index_t end) {
      const segmented_split<index_t> from = splits[p], to = splits[p + 1];
      const index_t owned_begin = walker.first_starting_at(begin), owned_stop = owned_end(p, end);
      counts[p] = walker.walk(
          from, to, owned_begin, owned_stop, unused{}, unused{}, unused{}, uncapped,
          [&](index_t s, index_t) {
            if (s < from.segment) segments_out[s] = 0;  // empty, starting where the piece does
          },
          [&](index_t t, index_t count) {
            const bool owned = t >= owned_begin && t < owned_stop;
            if (owned && t != to.segment) {
              segments_out[t] = count;  // starts and ends in this piece
            } else if (owned) {
              tails[p] = {t, count};
            } else if (t < owned_begin) {
              heads[p] = {t, count};
            }  // else: t starts at the piece's end, in the next piece, and nothing of it was walked
          });
    });
    partial open;
    auto flush = [&] {
      if (open.segment >= 0) segments_out[open.segment] = open.count;
    };
    for (unsigned p = 0; p < pieces; ++p) {
      for (const partial& part : {heads[p], tails[p]}) {
        if (part.segment < 0) continue;
        if (part.segment == open.segment) {
          open.count += part.count;
        } else {
          flush();
          open = part;
        }
      }
    }
    flush();
    index_t sum = 0;
    for (index_t c : counts) sum += c;
    return sum;
  } else {
    // Where each piece's outputs start: its split's position for ops that write every step
    // (no walk writes more than its steps), else the prefix of a counting walk, and then each
    // writing walk is capped at its count.
    constexpr bool known_size = Op::output_size_is_input_size;
    std::vector<index_t> offsets_of(pieces + 1, 0);
    if constexpr (!known_size) {
      corank::detail::for_each_output_piece(total, pieces, [&](unsigned p, index_t, index_t) {
        offsets_of[p + 1] =
            walker.walk(splits[p], splits[p + 1], 0, 0, unused{}, unused{}, unused{}, uncapped, ignore, ignore);
      });
      for (unsigned p = 0; p < pieces; ++p) offsets_of[p + 1] += offsets_of[p];
    }
    corank::detail::for_each_output_piece(total, pieces, [&](unsigned p, index_t begin, index_t end) {
      const segmented_split<index_t> from = splits[p], to = splits[p + 1];
      const index_t at = known_size ? from.at.a + from.at.b : offsets_of[p];
      auto values_out = [&] {
        if constexpr (Args::with_values) return args.values_out + at; else return unused{};
      }();
      auto limit = [&] {
        if constexpr (known_size) return uncapped; else return offsets_of[p + 1] - at;
      }();
      walker.walk(from, to, walker.first_starting_at(begin), owned_end(p, end), args.keys_out + at, values_out,
                  advanced(args.b_values_out, at), limit,
                  [&](index_t s, index_t written) { segments_out[s] = at + written; }, ignore);
    });
    return known_size ? total : offsets_of[pieces];
  }
}

}  // namespace detail

// Writes the keys the op emits on each segment pair to keys_out and the S + 1 output offsets
// to offsets_out; returns the end of the output.
template <class Op>
struct segmented_keys_operation {
  Op op{};
  const char* name = "corank::host::segmented_keys_operation";  // says who failed, in errors
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class KeysOut, class OffsetsOut,
            class Compare = corank::less>
  KeysOut operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first, KeysB b_last,
                     OffsetsB b_offsets, index_t segments, KeysOut keys_out, OffsetsOut offsets_out,
                     Compare comp = {}, unsigned threads = 0) const {
    using detail::unused;
    const auto args =
        detail::make_segmented_base(a_first, a_last, b_first, b_last, unused{}, unused{}, keys_out, unused{}, unused{});
    return keys_out + detail::run_segmented(name, op, args, make_segment_offsets(a_offsets, b_offsets, segments),
                                            offsets_out, comp, threads);
  }
};

// As segmented_keys_operation, with values: values_out[i] is the value of the element written
// to keys_out[i] (a_values' or b_values'; for emit::combined, combine_values of op.hpp).
// Returns the ends of the key and value outputs.
template <class Op>
struct segmented_by_key_operation {
  Op op{};
  const char* name = "corank::host::segmented_by_key_operation";  // says who failed, in errors
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class ValuesA, class ValuesB, class KeysOut,
            class ValuesOut, class OffsetsOut, class Compare = corank::less>
  std::pair<KeysOut, ValuesOut> operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first,
                                           KeysB b_last, OffsetsB b_offsets, index_t segments, ValuesA a_values,
                                           ValuesB b_values, KeysOut keys_out, ValuesOut values_out,
                                           OffsetsOut offsets_out, Compare comp = {}, unsigned threads = 0) const {
    const auto args = detail::make_segmented_base(a_first, a_last, b_first, b_last, a_values, b_values, keys_out,
                                                  values_out, detail::unused{});
    const index_t count = detail::run_segmented(name, op, args, make_segment_offsets(a_offsets, b_offsets, segments),
                                                offsets_out, comp, threads);
    return {keys_out + count, values_out + count};
  }
};

// Writes counts_out[s], the output size of segment s (any random-access iterator of integers);
// returns the total. Walks once.
template <class Op>
struct segmented_count_operation {
  Op op{};
  const char* name = "corank::host::segmented_count_operation";  // says who failed, in errors
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class CountsOut, class Compare = corank::less>
  index_t operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first, KeysB b_last,
                     OffsetsB b_offsets, index_t segments, CountsOut counts_out, Compare comp = {},
                     unsigned threads = 0) const {
    using detail::unused;
    const auto args =
        detail::make_segmented_base(a_first, a_last, b_first, b_last, unused{}, unused{}, unused{}, unused{}, unused{});
    return detail::run_segmented(name, op, args, make_segment_offsets(a_offsets, b_offsets, segments), counts_out,
                                 comp, threads);
  }
};

// As segmented_by_key_operation, and b_values_out[i] is the value of the B copy that the key
// written to keys_out[i] was matched with (for ops that write only on relation::equal steps,
// as host/operation.hpp's paired_by_key_operation). Returns the ends of the three outputs.
template <class Op>
struct segmented_paired_by_key_operation {
  Op op{};
  const char* name = "corank::host::segmented_paired_by_key_operation";  // says who failed, in errors
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class ValuesA, class ValuesB, class KeysOut,
            class ValuesOut, class BValuesOut, class OffsetsOut, class Compare = corank::less>
  std::tuple<KeysOut, ValuesOut, BValuesOut> operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets,
                                                        KeysB b_first, KeysB b_last, OffsetsB b_offsets,
                                                        index_t segments, ValuesA a_values, ValuesB b_values,
                                                        KeysOut keys_out, ValuesOut values_out,
                                                        BValuesOut b_values_out, OffsetsOut offsets_out,
                                                        Compare comp = {}, unsigned threads = 0) const {
    const auto args = detail::make_segmented_base(a_first, a_last, b_first, b_last, a_values, b_values, keys_out,
                                                  values_out, b_values_out);
    const index_t count = detail::run_segmented(name, op, args, make_segment_offsets(a_offsets, b_offsets, segments),
                                                offsets_out, comp, threads);
    return {keys_out + count, values_out + count, b_values_out + count};
  }
};

template <class Op> segmented_keys_operation(Op) -> segmented_keys_operation<Op>;
template <class Op> segmented_by_key_operation(Op) -> segmented_by_key_operation<Op>;
template <class Op> segmented_count_operation(Op) -> segmented_count_operation<Op>;
template <class Op> segmented_paired_by_key_operation(Op) -> segmented_paired_by_key_operation<Op>;

}  // namespace corank::host
