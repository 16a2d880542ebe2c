#pragma once
// The CPU backend of merge and merge_by_key: the same co-rank partitioning, the same op
// and the same serial walk as the GPU, across std::threads, with the same results (the
// runner is host/operation.hpp's, with the merge op). Plain C++, no GPU.
//
// Both, with A = [a_first, a_last) of m elements and B = [b_first, b_last) of n:
// - Result: the m + n elements in `comp` order, stable: among equivalent keys all of A's
//   come first, each side in its input order. Returns the end(s) of the output(s).
// - Preconditions: A and B sorted by `comp`, a strict weak order (not checked; see
//   host/check_sorted.hpp). Iterators random-access, outputs too (indexed and advanced);
//   several threads write the outputs at once, at distinct positions. The outputs hold m + n
//   elements and overlap no input and not each other. m + n < 2^63; a raw pointer may be
//   null where its size is 0 (an output where m + n == 0).
// - Threads: at most `threads` (0: std::thread::hardware_concurrency()) and at most one per
//   2^15 elements of m + n; the calling thread merges the first piece, new std::threads the
//   others, all joined before the call returns.
// - Complexity: O(m + n) work in one pass; the pieces' boundaries are co-rank searches of
//   O(log min(m, n)) each, made on the calling thread.
// - Errors: std::invalid_argument ("<name>: <problem>"), before anything is written, for a
//   negative size (last before first), sizes whose sum does not fit in 64 bits, or a null raw
//   pointer with a nonzero size. Inputs found not sorted by `comp` throw
//   corank::unsorted_input, before anything is written, as host/operation.hpp's runners do;
//   where they are not found so, the m + n outputs hold an unspecified result, and nothing is
//   written outside them. An exception of `comp` or an iterator, on any thread, reaches the
//   caller once every thread has stopped (the outputs partly written).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/host/operation.hpp>
#include <corank/ops/merge.hpp>

#include <utility>

namespace corank::host {

// Merges A and B into out; returns out + m + n.
template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
KeysOut merge(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
              Compare comp = {}, unsigned threads = 0) {
  using corank::detail::unused;
  const auto args = detail::make_args(a_first, a_last, b_first, b_last, unused{}, unused{}, out, unused{});
  return out + detail::run_counted("corank::host::merge", ops::merge_op{}, args, unused{}, comp, threads);
}

// The same with values: a_values and b_values are A's and B's, values_out[i] is the value of
// the key written to keys_out[i]. Returns the ends of the key and value outputs.
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_by_key(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp = {},
                                           unsigned threads = 0) {
  const auto args = detail::make_args(a_first, a_last, b_first, b_last, a_values, b_values, keys_out, values_out);
  const index_t total =
      detail::run_counted("corank::host::merge_by_key", ops::merge_op{}, args, corank::detail::unused{}, comp, threads);
  return {keys_out + total, values_out + total};
}

}  // namespace corank::host
