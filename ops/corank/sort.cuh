#pragma once
// Stable sort on the GPU (the current device), keys only or keys with values, in place or
// into an output range, in two forms like merge.cuh's:
//
//   corank::stable_sort, stable_sort_copy, stable_sort_by_key, stable_sort_by_key_copy
//       convenience: iterator ranges; temporary storage from corank's pool; asynchronous on
//       `stream`; throws.
//   corank::device::(the same names)
//       two-phase, like CUB: call with temp_storage == nullptr to get temp_storage_bytes,
//       then again to run; returns cudaError_t; never allocates, never synchronizes.
//
// All of them, for n elements:
// - Result: the keys in `comp` order, stable: equivalent keys keep their input order; the
//   _by_key forms move each key's value with it. The in-place forms sort [first, first + n)
//   (and the values beside them); the _copy forms leave the input as it is.
// - Preconditions: `comp` is a strict weak order, callable in device code (floats with NaN:
//   corank::nan_last_less). Inputs are random-access iterators usable in device code (raw
//   device pointers, thrust::device_vector iterators, counting and transform iterators).
//   Outputs, and the in-place forms' ranges, are contiguous device memory: raw pointers or
//   thrust::device_ptr / device_vector iterators (they hold intermediate runs). An output
//   overlaps no input, except that stable_sort_copy's output may be its input. 0 <= n < 2^63.
// - A comparator that is not a strict weak order (`<=`, or NaN under `<`): the output's
//   contents are unspecified (not even a permutation of the input: some tiles of the merge
//   passes may leave their part unwritten), but nothing is read outside the input or written
//   outside the n outputs and the temporary storage, and every call returns. The sort
//   does not wait for its kernels, so it cannot say so.
// - Algorithm: blocks sort tiles in shared memory, then k-way merge passes (merge_runs.cuh)
//   merge up to 64 runs at a time: 2^28 int32 keys take the block sort and 3 passes
//   (docs/design.md, "The k-way merge and the sort"). Each stage reads and writes every
//   element once.
//   Temporary storage: a buffer of n keys (and n values), plus the passes' samples and
//   splits, a few percent of that.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace corank {
namespace device {

// The two-phase protocol, every form: temp_storage == nullptr is a query that writes the
// bytes a run needs and looks at nothing else; a run uses temp_storage_bytes of
// temp_storage (device memory aligned to 256 bytes, as cudaMalloc's and the stream-ordered
// pools' are; memory.hpp), enqueues its kernels on `stream` and returns. Errors, returned:
// cudaErrorInvalidValue, nothing launched, for a negative n (query and run), and in the run
// for temp_storage_bytes below the query's, temp_storage not aligned to 256 bytes, or a null
// pointer with n > 0; cudaErrorInvalidConfiguration where a tile does not fit the
// device's shared memory; then the launches' errors. n == 0: nothing launched.

template <class Keys, class Compare = corank::less>
cudaError_t stable_sort(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys, index_t n,
                        Compare comp = {}, cudaStream_t stream = nullptr);

template <class KeysIn, class KeysOut, class Compare = corank::less>
cudaError_t stable_sort_copy(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                             KeysOut keys_out, index_t n, Compare comp = {}, cudaStream_t stream = nullptr);

template <class Keys, class Values, class Compare = corank::less>
cudaError_t stable_sort_by_key(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys, Values values,
                               index_t n, Compare comp = {}, cudaStream_t stream = nullptr);

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare = corank::less>
cudaError_t stable_sort_by_key_copy(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                                    ValuesIn values_in, KeysOut keys_out, ValuesOut values_out, index_t n,
                                    Compare comp = {}, cudaStream_t stream = nullptr);

}  // namespace device

// The convenience forms: check the arguments, take temporary storage from corank's pool,
// enqueue the sort and free the storage, all ordered on `stream`, and return without waiting.
// Errors, thrown: corank::cuda_error (cudaErrorInvalidValue with a sentence) for a negative
// size or a null pointer with a nonzero size, before anything runs; corank::out_of_memory
// when the storage cannot be had; corank::cuda_error for other CUDA errors of the call.

template <class Keys, class Compare = corank::less>
void stable_sort(Keys first, Keys last, Compare comp = {}, cudaStream_t stream = nullptr);

// Returns out + (last - first).
template <class KeysIn, class KeysOut, class Compare = corank::less>
KeysOut stable_sort_copy(KeysIn first, KeysIn last, KeysOut out, Compare comp = {}, cudaStream_t stream = nullptr);

template <class Keys, class Values, class Compare = corank::less>
void stable_sort_by_key(Keys first, Keys last, Values values, Compare comp = {}, cudaStream_t stream = nullptr);

// Returns the ends of the key and value outputs.
template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare = corank::less>
std::pair<KeysOut, ValuesOut> stable_sort_by_key_copy(KeysIn first, KeysIn last, ValuesIn values, KeysOut keys_out,
                                                      ValuesOut values_out, Compare comp = {},
                                                      cudaStream_t stream = nullptr);

}  // namespace corank

#include <corank/detail/sort.inl>
