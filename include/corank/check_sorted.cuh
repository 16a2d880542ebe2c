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

template <class Keys, class Compare = corank::less>
cudaError_t find_unsorted(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys,
                          index_t size, index_t* first_unsorted, Compare comp = {},
                          cudaStream_t stream = nullptr);

}  // namespace device

template <class Keys, class Compare = corank::less>
index_t find_unsorted(Keys first, Keys last, Compare comp = {}, cudaStream_t stream = nullptr);

template <class KeysA, class KeysB, class Compare = corank::less>
void check_sorted(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp = {},
                  cudaStream_t stream = nullptr);

}  // namespace corank

#include <corank/detail/check_sorted.inl>
