#pragma once
// Stable merge of two sorted sequences, keys only or keys with values, on the GPU (the
// current device), in two forms:
//
//   corank::merge / corank::merge_by_key                convenience: iterator ranges like
//       std:: and Thrust; allocates its temporary storage; asynchronous on `stream`; throws.
//   corank::device::merge / corank::device::merge_by_key   two-phase, like CUB: call with
//       temp_storage == nullptr to get temp_storage_bytes, then again to run; returns
//       cudaError_t; never allocates, never synchronizes; capturable in a CUDA graph.
//
// All four, with A of m elements and B of n:
// - Result: the m + n elements in `comp` order, stable: among equivalent keys all of A's
//   come first, each side in its input order. merge_by_key writes each key's value beside it.
// - Preconditions: A and B sorted by `comp`, a strict weak order (not checked; see
//   check_sorted.cuh). The key output, and the value output, hold m + n elements and overlap
//   no input and not each other. Iterators are random-access and usable in device code (raw
//   device pointers, thrust::device_vector iterators, counting and transform iterators);
//   contiguous ones (thrust::device_ptr, device_vector's) are read as raw pointers. `comp` is
//   callable in device code and copied to the kernels. m, n >= 0 and m + n < 2^63; a pointer
//   may be null where its size is 0 (an output where m + n == 0).
// - Unsorted inputs (or a comparator that is not a strict weak order): the outputs' contents
//   are unspecified, but nothing is read outside the inputs or written outside the m + n
//   outputs, and every call returns. A merge does not wait for its kernels, so it cannot say
//   so: check_sorted (check_sorted.cuh) can.
// - Complexity: O(m + n) work, plus a co-rank search of O(log(m + n)) per tile boundary
//   (strategy::naive: per thread). strategy::partitioned, automatic's choice above 2^18
//   elements in all (2^17 with values), runs a split pass and a tile kernel that reads each
//   input element once and writes each output once; naive is one kernel; tiled loads up to
//   twice what it writes.
// - `kind` picks the kernel (strategy.hpp); every strategy gives the same result.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>
#include <corank/strategy.hpp>
#include <corank/ops/merge.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace corank {
namespace device {

// The two-phase protocol, both forms:
// - temp_storage == nullptr: a query. Writes the bytes a run needs to temp_storage_bytes and
//   launches nothing; pointers are not looked at. The bytes depend on the sizes, the types and
//   `kind`; strategy::automatic's (the default's) are the most any strategy needs.
// - Otherwise a run: temp_storage is device memory of temp_storage_bytes bytes, aligned to 256
//   bytes (as cudaMalloc's and the stream-ordered pools' are; memory.hpp), of any contents, in
//   use until the kernels end. The kernels are enqueued on `stream` and the call returns.
// Errors, returned (never thrown): cudaErrorInvalidValue, with nothing launched or written, for
// negative sizes or sizes whose sum (or tile count, as an int) does not fit, in the query as in
// the run; in the run also for temp_storage_bytes below what the query returns for the same sizes
// and `kind`, for temp_storage not aligned to 256 bytes, and for a null pointer with a nonzero
// size. m + n == 0: cudaSuccess, nothing launched. Then the CUDA calls' errors:
// cudaErrorInvalidConfiguration where the kernel does not fit the device (its tile's shared
// memory), and the launches' as cudaPeekAtLastError reports them (so also an error that earlier
// work left unread). Errors of the kernels' execution surface later on `stream`.
// Never synchronizes, never allocates; capturable in a CUDA graph, whose replays merge what
// the same buffers then hold.

// Merges keys_a[0, size_a) and keys_b[0, size_b) into keys_out[0, size_a + size_b).
template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
cudaError_t merge(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                  KeysB keys_b, index_t size_b, KeysOut keys_out, Compare comp = {},
                  cudaStream_t stream = nullptr, strategy kind = default_strategy);

// The same with values: values_out[i] is the value (values_a's or values_b's) of the key
// written to keys_out[i].
template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
          class Compare = corank::less>
cudaError_t merge_by_key(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                         ValuesA values_a, index_t size_a, KeysB keys_b, ValuesB values_b,
                         index_t size_b, KeysOut keys_out, ValuesOut values_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy);

}  // namespace device

// The convenience forms: A is [a_first, a_last), B is [b_first, b_last). Each checks its
// arguments, takes its temporary storage from corank's pool (memory.hpp), enqueues the merge
// and frees the storage, all ordered on `stream`, and returns without waiting: the output is
// ready once `stream` gets there, and the inputs and outputs must live until then.
// Errors, thrown: corank::cuda_error with code cudaErrorInvalidValue and a sentence naming the
// problem, before anything is allocated or launched, for a negative size (last before first),
// sizes whose sum does not fit, or a null pointer with a nonzero size; corank::out_of_memory
// (a std::bad_alloc) when the temporary storage cannot be allocated; corank::cuda_error for any
// other CUDA error of the call. Errors of the kernels' execution surface later on `stream`.

// Merges [a_first, a_last) and [b_first, b_last) into out; returns the end of the output,
// out + (a_last - a_first) + (b_last - b_first).
template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
KeysOut merge(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
              Compare comp = {}, cudaStream_t stream = nullptr, strategy kind = default_strategy);

// The same with values: a_values and b_values are A's and B's, values_out[i] is the value of
// the key written to keys_out[i]. Returns the ends of the key and value outputs.
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_by_key(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp = {},
                                           cudaStream_t stream = nullptr,
                                           strategy kind = default_strategy);

}  // namespace corank

#include <corank/detail/merge.inl>
