#pragma once
// The CPU backend of merge and merge_by_key: the same co-rank partitioning, the same op
// and the same serial walk as the GPU, across std::threads, with the same results. Plain
// C++: no CUDA, no GPU.
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
// - Complexity: O(m + n) work in one pass; each piece's two ends are co-rank searches of
//   O(log min(m, n)).
// - Errors: std::invalid_argument ("<name>: <problem>"), before anything is written, for a
//   negative size (last before first), sizes whose sum does not fit in 64 bits, or a null raw
//   pointer with a nonzero size. An exception of `comp` or an iterator, on any thread,
//   reaches the caller once every thread has stopped (the outputs partly written).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/detail/host_partitions.hpp>
#include <corank/detail/merge_args.hpp>
#include <corank/detail/serial_walk.hpp>
#include <corank/ops/merge.hpp>

#include <stdexcept>
#include <string>
#include <utility>

namespace corank::host {

namespace detail {

// Runs an op whose output size is m + n over every output piece.
template <class Op, class Args, class Compare>
void run_merge_like(const char* context, const Op& op, const Args& args, Compare comp, unsigned threads) {
  if (const char* problem = corank::detail::merge_argument_error(args)) {
    throw std::invalid_argument(std::string(context) + ": " + problem);
  }
  const index_t total = args.size_a + args.size_b;
  corank::detail::for_each_output_piece(
      total, corank::detail::host_thread_count(total, threads),
      [&](unsigned, index_t begin, index_t end) { corank::detail::walk_output_range(op, args, comp, begin, end); });
}

}  // namespace detail

// Merges A and B into out; returns out + m + n.
template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
KeysOut merge(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
              Compare comp = {}, unsigned threads = 0) {
  using corank::detail::unused;
  const index_t size_a = a_last - a_first;
  const index_t size_b = b_last - b_first;
  const corank::detail::merge_args<KeysA, KeysB, unused, unused, KeysOut, unused> args{
      a_first, size_a, b_first, size_b, {}, {}, out, {}};
  detail::run_merge_like("corank::host::merge", ops::merge_op{}, args, comp, threads);
  return out + (size_a + size_b);
}

// The same with values: a_values and b_values are A's and B's, values_out[i] is the value of
// the key written to keys_out[i]. Returns the ends of the key and value outputs.
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_by_key(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp = {},
                                           unsigned threads = 0) {
  const index_t size_a = a_last - a_first;
  const index_t size_b = b_last - b_first;
  const corank::detail::merge_args<KeysA, KeysB, ValuesA, ValuesB, KeysOut, ValuesOut> args{
      a_first, size_a, b_first, size_b, a_values, b_values, keys_out, values_out};
  detail::run_merge_like("corank::host::merge_by_key", ops::merge_op{}, args, comp, threads);
  return {keys_out + (size_a + size_b), values_out + (size_a + size_b)};
}

}  // namespace corank::host
