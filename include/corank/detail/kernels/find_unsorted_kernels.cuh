#pragma once
// find_unsorted's kernels (check_sorted.cuh; launched by dispatch/find_unsorted_dispatch.cuh):
// the answer word set to the size, then the least index i with keys[i] before keys[i - 1].

#include <corank/config.hpp>

namespace corank::detail {

// A template, so that several translation units can include this header.
template <class Index>
__global__ void set_index_kernel(Index* target, Index value) {
  *target = value;
}

template <class Keys, class Compare>
__global__ void __launch_bounds__(256)
    find_unsorted_kernel(Keys keys, index_t size, index_t* first_unsorted, Compare comp) {
  // Each thread keeps its own first break; one atomic per thread that found one.
  index_t first = size;
  const index_t stride = index_t(gridDim.x) * blockDim.x;
  for (index_t i = 1 + index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size; i += stride) {
    if (comp(keys[i], keys[i - 1])) {
      first = i;
      break;
    }
  }
  if (first < size) {
    atomicMin(reinterpret_cast<unsigned long long*>(first_unsorted),
              static_cast<unsigned long long>(first));
  }
}

}  // namespace corank::detail
