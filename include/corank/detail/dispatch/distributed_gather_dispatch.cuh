#pragma once
// The launch of the distributed forms' gather (kernels/distributed_gather_kernel.cuh): a
// thread per item of the command (`items`: its words, positions and keys).

#include <corank/config.hpp>
#include <corank/detail/kernels/distributed_gather_kernel.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace corank::detail {

template <class Key, class Compare>
cudaError_t launch_distributed_gather(const Key* a, index_t m, const Key* b, index_t n, const char* command,
                                      const command_layout& cl, char* block, const block_layout& bl, Compare comp,
                                      std::size_t items, cudaStream_t stream) {
  distributed_gather_kernel<<<unsigned((items + 255) / 256), 256, 0, stream>>>(a, m, b, n, command, cl, block, bl,
                                                                             comp);
  return cudaGetLastError();
}

}  // namespace corank::detail
