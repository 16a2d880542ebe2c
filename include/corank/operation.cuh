#pragma once
// Running any merge-path op (op.hpp) on the GPU: the set operations are these runners
// applied to the ops in ops/, and a user's own op runs the same way, on the same kernels:
//
//   corank::by_key_operation<sparse_add_op>{}(a, a_end, b, b_end, a_vals, b_vals, out, out_vals);
//
// Each runner is a function object holding the op (so ops may carry state), in two forms:
//   corank::          convenience: iterator ranges, allocates, throws; returns the output
//                     end(s), so it waits for the output size (synchronizes `stream`).
//   corank::device::  two-phase, like CUB: temp_storage == nullptr queries the bytes; the
//                     output size goes to *count_out in device memory; returns cudaError_t;
//                     never allocates, never synchronizes; capturable in a CUDA graph.
// Runners: keys_operation (keys), by_key_operation (keys and values), count_operation
// (the output size only), paired_by_key_operation (values of A and of the matched B).
//
// Every runner, with A of m elements and B of n:
// - Op models op.hpp's concept (a static_assert says what is missing). An op of known size
//   (output_size_is_input_size, as the merge op) has m + n outputs, and reports that count.
// - Result: the walk of A and B on the op's path (op.hpp); at most m + n outputs, since every
//   step consumes an element. Outputs are in path order.
// - Preconditions: A and B sorted by `comp`, a strict weak order (not checked; see
//   check_sorted.cuh). Each output holds the result (m + n elements always do) and overlaps no
//   input and no other output. Iterators, `comp` (and the op) as in merge.cuh: random-access,
//   usable in device code, copied to the kernels. m, n >= 0 and m + n < 2^63; a pointer may be
//   null where its size is 0 (an output where m + n == 0).
// - Complexity: O(m + n) steps of the op, plus per tile boundary a co-rank search,
//   O(log(m + n)) (balanced-path ops: plus O(log r) for a run of r equal keys that it cuts).
//   Each input element is read once into a tile, each output written once; a tile finds its
//   offset by decoupled look-back, count_operation's tiles add their counts atomically.
// - Unsorted inputs (or a comparator that is not a strict weak order) never make a call read
//   outside its inputs, write outside [out, out + the bound) (m + n; the set operations'
//   headers give theirs) or fail to return. Where the kernels find their partition of the
//   inputs inconsistent, which sorted inputs never give, the output size reads "not sorted":
//   the two-phase forms write a negative *count_out (and outputs of unspecified contents
//   within the bound), the convenience forms throw corank::unsorted_input (input() 0,
//   index() -1). Not every unsorted input is found so (only check_sorted finds them all);
//   the others get a result of unspecified contents within the bound. Ops of known size
//   (merges) write m + n outputs of unspecified contents, and report m + n.
// - `kind` picks the kernel (strategy.hpp); every strategy gives the same result.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>
#include <corank/strategy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <tuple>
#include <utility>

namespace corank {
namespace device {

// The two-phase protocol, every runner:
// - temp_storage == nullptr: a query. Writes the bytes a run needs to temp_storage_bytes and
//   launches nothing; pointers are not looked at.
// - Otherwise a run: temp_storage is device memory of temp_storage_bytes bytes, aligned to 256
//   bytes (as cudaMalloc's and the stream-ordered pools' are; memory.hpp), of any contents, in
//   use until the kernels end. count_out points to one index_t of device memory, written by the
//   kernels (0 for empty inputs). The kernels are enqueued on `stream` and the call returns.
// Errors, returned (never thrown): cudaErrorInvalidValue, with nothing launched or written, for
// negative sizes or sizes whose sum (or tile count, as an int) does not fit, in the query as in
// the run; in the run also for temp_storage_bytes below what the query returns for the same
// arguments, temp_storage not aligned to 256 bytes, a null count_out, and a null pointer with a
// nonzero size. Then the CUDA calls' errors: cudaErrorInvalidConfiguration where the kernel does
// not fit the device (its tile's shared memory), and the launches' as cudaPeekAtLastError reports
// them (so also an error that earlier work left unread). Errors of the kernels' execution surface
// later on `stream`.
// Never synchronizes, never allocates; capturable in a CUDA graph, whose replays run on what
// the same buffers then hold.

// Writes the keys the op emits to keys_out[0, count) and count to *count_out.
template <class Op>
struct keys_operation {
  Op op{};
  template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                         KeysB keys_b, index_t size_b, KeysOut keys_out, index_t* count_out,
                         Compare comp = {}, cudaStream_t stream = nullptr,
                         strategy kind = default_strategy) const;
};

// As keys_operation, with values: values_out[i] is the value of the element written to
// keys_out[i] (values_a's or values_b's; for emit::combined, combine_values of op.hpp).
template <class Op>
struct by_key_operation {
  Op op{};
  template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
            class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, ValuesA values_a,
                         index_t size_a, KeysB keys_b, ValuesB values_b, index_t size_b, KeysOut keys_out,
                         ValuesOut values_out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

// Writes only the output size, to *count_out.
template <class Op>
struct count_operation {
  Op op{};
  template <class KeysA, class KeysB, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                         KeysB keys_b, index_t size_b, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

// As by_key_operation, and b_values_out[i] is the value of the B copy that the key written to
// keys_out[i] was matched with. For ops that write only on relation::equal steps (as
// set_intersection does): on other steps the value written is not specified.
template <class Op>
struct paired_by_key_operation {
  Op op{};
  template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
            class BValuesOut, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, ValuesA values_a,
                         index_t size_a, KeysB keys_b, ValuesB values_b, index_t size_b, KeysOut keys_out,
                         ValuesOut values_out, BValuesOut b_values_out, index_t* count_out,
                         Compare comp = {}, cudaStream_t stream = nullptr,
                         strategy kind = default_strategy) const;
};

}  // namespace device

// The convenience runners: A is [a_first, a_last), B is [b_first, b_last). Each checks its
// arguments, takes temporary storage from corank's pool (memory.hpp), runs the two-phase form
// on `stream`, copies the output size into a pinned host word (one per host thread, allocated
// on its first call) and synchronizes `stream`, so it returns once the outputs are written.
// The synchronization rules out stream capture.
// Errors, thrown, `name` saying who failed: corank::cuda_error with code cudaErrorInvalidValue
// and a sentence naming the problem, before anything is allocated or launched, for a negative
// size (last before first), sizes whose sum does not fit, or a null pointer with a nonzero
// size; corank::out_of_memory (a std::bad_alloc) when the temporary storage or the pinned word
// cannot be allocated; corank::cuda_error for any other CUDA error, the kernels' included;
// corank::unsorted_input where the kernels found the inputs unsorted (see above).

// Writes the keys the op emits to out; returns the end of the output.
template <class Op>
struct keys_operation {
  Op op{};
  const char* name = "corank::keys_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
  KeysOut operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
                     Compare comp = {}, cudaStream_t stream = nullptr,
                     strategy kind = default_strategy) const;
};

// As keys_operation, with values (a_values, b_values; see device::by_key_operation); returns the
// ends of the key and value outputs.
template <class Op>
struct by_key_operation {
  Op op{};
  const char* name = "corank::by_key_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
            class Compare = corank::less>
  std::pair<KeysOut, ValuesOut> operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp = {},
                                           cudaStream_t stream = nullptr,
                                           strategy kind = default_strategy) const;
};

// Returns the output size; writes nothing else.
template <class Op>
struct count_operation {
  Op op{};
  const char* name = "corank::count_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class Compare = corank::less>
  index_t operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp = {},
                     cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

// As by_key_operation, with B's values at b_values_out (see device::paired_by_key_operation);
// returns the ends of the three outputs.
template <class Op>
struct paired_by_key_operation {
  Op op{};
  const char* name = "corank::paired_by_key_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
            class BValuesOut, class Compare = corank::less>
  std::tuple<KeysOut, ValuesOut, BValuesOut> operator()(KeysA a_first, KeysA a_last, KeysB b_first,
                                                        KeysB b_last, ValuesA a_values, ValuesB b_values,
                                                        KeysOut keys_out, ValuesOut values_out,
                                                        BValuesOut b_values_out, Compare comp = {},
                                                        cudaStream_t stream = nullptr,
                                                        strategy kind = default_strategy) const;
};

// So that `corank::by_key_operation{my_op{3}}` deduces the op.
template <class Op> keys_operation(Op) -> keys_operation<Op>;
template <class Op> by_key_operation(Op) -> by_key_operation<Op>;
template <class Op> count_operation(Op) -> count_operation<Op>;
template <class Op> paired_by_key_operation(Op) -> paired_by_key_operation<Op>;

}  // namespace corank

#include <corank/detail/forms/operation.inl>
