#pragma once
// k-way merge on the GPU (the current device): k sorted runs into one sorted sequence, keys
// only or keys with values, the runs given either as one buffer with k + 1 offsets (CSR) or
// as k (pointer, size) pairs. Two forms like merge.cuh's: convenience (corank::) and
// two-phase (corank::device::).
//
//   merge_runs(keys_in, offsets, k, size, keys_out)     run j is keys_in[offsets[j], offsets[j + 1])
//   merge_run_list(run_keys, run_sizes, k, size, keys_out)   run j is run_keys[j][0, run_sizes[j])
//   and the _by_key forms, whose values lie beside the keys in the same layout.
//
// All of them:
// - Result: the `size` elements of all runs in `comp` order in keys_out[0, size), stable:
//   equivalent keys come lower run first, each run in its input order.
// - Preconditions: each run sorted by `comp`, a strict weak order callable in device code.
//   `size` is the elements in all runs (offsets[k] - offsets[0], or the sum of run_sizes),
//   which the host must know because nothing is read back. Offsets (k + 1 of any integer
//   type) are nondecreasing; offsets, run_keys, run_values and run_sizes are device memory
//   (the convenience merge_run_list takes them on the host). Inputs are random-access
//   iterators usable in device code; outputs are contiguous device memory (raw pointers or
//   thrust::device_ptr / device_vector iterators: they hold the passes' intermediate runs)
//   and overlap no input. k >= 0 (runs may be empty), 0 <= size < 2^63.
// - Algorithm: one pass where k <= 64, in which every tile of the output finds its window
//   in every run by a multi-way co-rank and merges them in shared memory; more runs take
//   passes of g-way merges, g = ceil(k^(1/passes)). Temporary storage: the passes' samples
//   (1/32 of the data for 4-byte keys) and, with more than one pass, a buffer of `size`.
// - Unsorted runs, or a comparator that is not a strict weak order: the output's contents
//   are unspecified (some tiles may leave their part of it unwritten), but nothing is read
//   outside the runs or written outside keys_out[0, size) (values_out likewise) and the
//   temporary storage, and every call returns. Offsets (or device run_sizes) that break the
//   preconditions are read as runs all the same: decreasing offsets or negative sizes as
//   empty runs, and runs past `size` elements in all cut at `size` (merge_runs reads only
//   keys_in[offsets[0], offsets[0] + size), merge_run_list only run_keys[j][0, run_sizes[j])).
//   A merge does not wait for its kernels, so it cannot say so; check_sorted can.
// - Two-phase protocol and errors: as sort.cuh's (cudaErrorInvalidValue for a negative size
//   or k, or a null pointer where something is to be read or written).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace corank {
namespace device {

template <class KeysIn, class Offsets, class KeysOut, class Compare = corank::less>
cudaError_t merge_runs(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in, Offsets offsets,
                       index_t runs, index_t size, KeysOut keys_out, Compare comp = {},
                       cudaStream_t stream = nullptr);

template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare = corank::less>
cudaError_t merge_runs_by_key(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                              ValuesIn values_in, Offsets offsets, index_t runs, index_t size, KeysOut keys_out,
                              ValuesOut values_out, Compare comp = {}, cudaStream_t stream = nullptr);

template <class Key, class Sizes, class KeysOut, class Compare = corank::less>
cudaError_t merge_run_list(void* temp_storage, std::size_t& temp_storage_bytes, const Key* const* run_keys,
                           Sizes run_sizes, index_t runs, index_t size, KeysOut keys_out, Compare comp = {},
                           cudaStream_t stream = nullptr);

template <class Key, class Value, class Sizes, class KeysOut, class ValuesOut, class Compare = corank::less>
cudaError_t merge_run_list_by_key(void* temp_storage, std::size_t& temp_storage_bytes, const Key* const* run_keys,
                                  const Value* const* run_values, Sizes run_sizes, index_t runs, index_t size,
                                  KeysOut keys_out, ValuesOut values_out, Compare comp = {},
                                  cudaStream_t stream = nullptr);

}  // namespace device

// Convenience forms: checked, storage from corank's pool, asynchronous on `stream`; errors
// thrown as sort.cuh's. They return the end(s) of the output(s).

template <class KeysIn, class Offsets, class KeysOut, class Compare = corank::less>
KeysOut merge_runs(KeysIn keys_in, Offsets offsets, index_t runs, index_t size, KeysOut keys_out, Compare comp = {},
                   cudaStream_t stream = nullptr);

template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_runs_by_key(KeysIn keys_in, ValuesIn values_in, Offsets offsets, index_t runs,
                                                index_t size, KeysOut keys_out, ValuesOut values_out,
                                                Compare comp = {}, cudaStream_t stream = nullptr);

// run_keys and run_sizes are host arrays of k device pointers and their sizes.
template <class Key, class KeysOut, class Compare = corank::less>
KeysOut merge_run_list(const Key* const* run_keys, const index_t* run_sizes, index_t runs, KeysOut keys_out,
                       Compare comp = {}, cudaStream_t stream = nullptr);

template <class Key, class Value, class KeysOut, class ValuesOut, class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_run_list_by_key(const Key* const* run_keys, const Value* const* run_values,
                                                    const index_t* run_sizes, index_t runs, KeysOut keys_out,
                                                    ValuesOut values_out, Compare comp = {},
                                                    cudaStream_t stream = nullptr);

}  // namespace corank

#include <corank/detail/merge_runs.inl>
