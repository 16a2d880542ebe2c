#pragma once
// Running any merge-path op on CPU threads: the CPU backend of operation.cuh, with the
// same runners, ops and results. Each thread takes an equal piece of the op's path, found
// by the same split search as the GPU, each split searched once; for ops of data-dependent
// size a first pass counts each piece's outputs, a second writes them at their offsets.
//
// Every runner, with A = [a_first, a_last) of m elements and B = [b_first, b_last) of n:
// - Result: as operation.cuh's runners (any op, merge-like ones too); returns the output
//   end(s), count_operation the output size. Plain C++ (the exception types of error.hpp
//   come from libcorank), no GPU.
// - Preconditions: A and B sorted by `comp`, a strict weak order (not checked; see
//   host/check_sorted.hpp). Iterators random-access, outputs too (indexed and advanced);
//   several threads read and write them at once, at distinct positions. Each output holds
//   the result (m + n elements always do) and overlaps no input and no other output.
//   m + n < 2^63; a raw pointer may be null where its size is 0.
// - Threads: at most `threads` (0: std::thread::hardware_concurrency()) and at most one per
//   2^15 elements of m + n; the calling thread walks the first piece, new std::threads the
//   others, all joined before the call returns.
// - Complexity: O(m + n) steps of the op; the pieces' boundaries are path splits, co-rank
//   searches of O(log(m + n)) each (balanced-path ops: plus O(log r) for a run of r equal
//   keys that it cuts), made on the calling thread. Ops of data-dependent size walk the
//   inputs twice, counting then writing (count_operation once); ops that write at every step
//   (output_size_is_input_size) once (count_operation not at all).
// - Errors: std::invalid_argument ("<name>: <problem>"), before anything is written, for a
//   negative size (last before first), sizes whose sum does not fit in 64 bits, or a null raw
//   pointer with a nonzero size. Inputs found not sorted by `comp` (the pieces' splits go
//   back in A or in B, which only unsorted inputs or a comparator that is not a strict weak
//   order give) throw corank::unsorted_input (a std::invalid_argument; input() 0, index() -1),
//   before anything is written. Unsorted inputs that are not found so give an unspecified
//   result within the output's bound (m + n; set_intersection min(m, n), set_difference m),
//   and so does a comparator that answers differently for the same keys: nothing is ever
//   written outside the outputs or read outside the inputs. An exception of `comp`, the op
//   or an iterator, on any thread, reaches the caller once every thread has stopped (the
//   outputs partly written).

#include <corank/balanced_path.hpp>
#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/host/host_partitions.hpp>
#include <corank/detail/host/host_splits.hpp>
#include <corank/detail/thread/serial_walk.hpp>

#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace corank::host {

namespace detail {

using corank::detail::unused;

template <class Op, class Args, class PartnerOut, class Compare>
index_t run_counted(const char* context, const Op& op, const Args& args, PartnerOut partner_out, Compare comp,
                    unsigned threads) {
  if (const char* problem = corank::detail::merge_argument_error(args)) {
    throw std::invalid_argument(std::string(context) + ": " + problem);
  }
  const index_t total = args.size_a + args.size_b;
  const unsigned pieces = corank::detail::host_thread_count(total, threads);
  const auto splits = corank::detail::forward_splits(context, total, pieces, [&](index_t k) {
    return path_split<Op::partition>(k, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
  });
  // Piece p walks from splits[p] to splits[p + 1].
  auto walk_piece = [&](unsigned p, auto keys_out, auto values_out, auto partners, auto limit) {
    const auto from = splits[p], to = splits[p + 1];
    return corank::detail::walk_partition(op, comp, args.keys_a, from.a, to.a, args.keys_b, from.b, to.b,
                                          args.values_a, args.values_b, keys_out, values_out, partners, limit);
  };
  // Where each piece's outputs start: ops that write at every step write as many as their
  // piece has steps (no walk can write more); the others count first, and each writing walk
  // is capped at its count.
  constexpr bool known_size = Op::output_size_is_input_size;
  std::vector<index_t> offsets(pieces + 1, 0);
  if constexpr (known_size) {
    for (unsigned p = 0; p <= pieces; ++p) offsets[p] = splits[p].a + splits[p].b;
  } else {
    corank::detail::for_each_output_piece(total, pieces, [&](unsigned p, index_t, index_t) {
      offsets[p + 1] = walk_piece(p, unused{}, unused{}, unused{}, corank::detail::no_limit{});
    });
    for (unsigned p = 0; p < pieces; ++p) offsets[p + 1] += offsets[p];
  }
  if constexpr (corank::detail::is_used_v<decltype(args.keys_out)>) {
    corank::detail::for_each_output_piece(total, pieces, [&](unsigned p, index_t, index_t) {
      const index_t at = offsets[p];
      auto values_out = [&] {
        if constexpr (Args::with_values) return args.values_out + at; else return unused{};
      }();
      auto partners = [&] {
        if constexpr (corank::detail::is_used_v<PartnerOut>) return partner_out + at; else return unused{};
      }();
      auto limit = [&] {
        if constexpr (known_size) return corank::detail::no_limit{}; else return offsets[p + 1] - at;
      }();
      walk_piece(p, args.keys_out + at, values_out, partners, limit);
    });
  }
  return offsets[pieces];
}

template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut>
auto make_args(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, ValuesA values_a, ValuesB values_b,
               KeysOut keys_out, ValuesOut values_out) {
  return corank::detail::merge_args<KeysA, KeysB, ValuesA, ValuesB, KeysOut, ValuesOut>{
      a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first), values_a, values_b, keys_out,
      values_out};
}

}  // namespace detail

// Writes the keys the op emits to out; returns the end of the output.
template <class Op>
struct keys_operation {
  Op op{};
  const char* name = "corank::host::keys_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
  KeysOut operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out, Compare comp = {},
                     unsigned threads = 0) const {
    using detail::unused;
    const auto args = detail::make_args(a_first, a_last, b_first, b_last, unused{}, unused{}, out, unused{});
    return out + detail::run_counted(name, op, args, unused{}, comp, threads);
  }
};

// As keys_operation, with values: values_out[i] is the value of the element written to
// keys_out[i] (a_values' or b_values'; for emit::combined, combine_values of op.hpp). Returns
// the ends of the key and value outputs.
template <class Op>
struct by_key_operation {
  Op op{};
  const char* name = "corank::host::by_key_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
            class Compare = corank::less>
  std::pair<KeysOut, ValuesOut> operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp = {}, unsigned threads = 0) const {
    const auto args = detail::make_args(a_first, a_last, b_first, b_last, a_values, b_values, keys_out, values_out);
    const index_t count =
        detail::run_counted(name, op, args, detail::unused{}, comp, threads);
    return {keys_out + count, values_out + count};
  }
};

// Returns the output size; writes nothing.
template <class Op>
struct count_operation {
  Op op{};
  const char* name = "corank::host::count_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class Compare = corank::less>
  index_t operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp = {},
                     unsigned threads = 0) const {
    using detail::unused;
    const auto args = detail::make_args(a_first, a_last, b_first, b_last, unused{}, unused{}, unused{}, unused{});
    return detail::run_counted(name, op, args, unused{}, comp, threads);
  }
};

// As by_key_operation, and b_values_out[i] is the value of the B copy that the key written to
// keys_out[i] was matched with. For ops that write only on relation::equal steps (as
// set_intersection does): on other steps the walk reads b_values at B's front, which may be
// past B's end. Returns the ends of the three outputs.
template <class Op>
struct paired_by_key_operation {
  Op op{};
  const char* name = "corank::host::paired_by_key_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
            class BValuesOut, class Compare = corank::less>
  std::tuple<KeysOut, ValuesOut, BValuesOut> operator()(KeysA a_first, KeysA a_last, KeysB b_first,
                                                        KeysB b_last, ValuesA a_values, ValuesB b_values,
                                                        KeysOut keys_out, ValuesOut values_out,
                                                        BValuesOut b_values_out, Compare comp = {},
                                                        unsigned threads = 0) const {
    const auto args = detail::make_args(a_first, a_last, b_first, b_last, a_values, b_values, keys_out, values_out);
    if (args.size_a + args.size_b > 0 && corank::detail::is_null(b_values_out)) {
      throw std::invalid_argument(
          std::string(name) + ": the B value output is a null pointer with a nonzero size");
    }
    const index_t count =
        detail::run_counted(name, op, args, b_values_out, comp, threads);
    return {keys_out + count, values_out + count, b_values_out + count};
  }
};

template <class Op> keys_operation(Op) -> keys_operation<Op>;
template <class Op> by_key_operation(Op) -> by_key_operation<Op>;
template <class Op> count_operation(Op) -> count_operation<Op>;
template <class Op> paired_by_key_operation(Op) -> paired_by_key_operation<Op>;

}  // namespace corank::host
