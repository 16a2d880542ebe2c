#pragma once
// Opt-in sortedness checks. Sorted inputs are a precondition of every operation (as in
// the standard library): corank does not pay for checking unless asked to.
//
//   corank::device::find_unsorted   two-phase: writes the first index i with
//                                   comp(x[i], x[i - 1]), or size if sorted, to device memory
//   corank::find_unsorted           the same, returned to the host (synchronizes `stream`)
//   corank::check_sorted            checks A and B; throws corank::unsorted_input naming
//                                   the input and the index (synchronizes `stream`)

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace corank {
namespace device {

// Writes to *first_unsorted (device memory) the first index i in [1, size) with
// comp(keys[i], keys[i - 1]), or `size` if there is none (so also for size 0 and 1).
// Two-phase: temp_storage == nullptr writes temp_storage_bytes (1: no storage is used, but a
// null pointer must mean "query") and launches nothing. A run needs temp_storage non-null
// with temp_storage_bytes >= 1; `keys` random-access and usable in device code (contiguous
// iterators are read as raw pointers), `comp` callable in device code.
// Errors, returned: cudaErrorInvalidValue, nothing launched, for temp_storage_bytes < 1,
// temp_storage not aligned to temporary_storage_alignment (memory.hpp's one rule), size < 0,
// a null first_unsorted, or a null keys pointer with size > 0; else the launches'
// status (cudaPeekAtLastError).
// O(size) work in one pass, each thread stopping at its first break; two kernels on `stream`
// (one for size <= 1). Never synchronizes, never allocates; kernel launches only, so
// capturable in a CUDA graph.
template <class Keys, class Compare = corank::less>
cudaError_t find_unsorted(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys,
                          index_t size, index_t* first_unsorted, Compare comp = {},
                          cudaStream_t stream = nullptr);

}  // namespace device

// The same index for [first, last), returned: takes 1 byte and a result word from corank's
// pool (memory.hpp), runs device::find_unsorted on `stream`, copies the index into a pinned
// host word (one per host thread, allocated on its first call) and synchronizes `stream`.
// Throws corank::cuda_error (cudaErrorInvalidValue for last before first or a null pointer
// with a nonzero size; any other CUDA error, the kernel's included) or corank::out_of_memory.
template <class Keys, class Compare = corank::less>
index_t find_unsorted(Keys first, Keys last, Compare comp = {}, cudaStream_t stream = nullptr);

// Checks A, then (if A is sorted) B, each with find_unsorted, so `stream` is synchronized
// twice. An unsorted input throws corank::unsorted_input (a std::invalid_argument) naming it
// ('A' or 'B') and its first i with comp(x[i], x[i - 1]); otherwise throws what find_unsorted
// throws. Empty inputs are sorted.
template <class KeysA, class KeysB, class Compare = corank::less>
void check_sorted(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp = {},
                  cudaStream_t stream = nullptr);

}  // namespace corank

#include <corank/detail/forms/check_sorted.inl>
