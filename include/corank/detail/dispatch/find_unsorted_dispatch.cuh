#pragma once
// find_unsorted's launches (check_sorted.cuh): *first_unsorted ends the least index whose key
// is before its predecessor's, or `size`.

#include <corank/config.hpp>
#include <corank/detail/kernels/find_unsorted_kernels.cuh>

#include <cuda_runtime_api.h>

namespace corank::detail {

template <class Keys, class Compare>
cudaError_t launch_find_unsorted(Keys keys, index_t size, index_t* first_unsorted, Compare comp,
                                 cudaStream_t stream) {
  set_index_kernel<<<1, 1, 0, stream>>>(first_unsorted, size);
  if (size > 1) {
    constexpr int threads = 256;
    const index_t wanted = (size + threads - 1) / threads;
    const unsigned blocks = static_cast<unsigned>(wanted < 65536 ? wanted : 65536);
    find_unsorted_kernel<<<blocks, threads, 0, stream>>>(keys, size, first_unsorted, comp);
  }
  return cudaPeekAtLastError();
}

}  // namespace corank::detail
