#include <corank/detail/dispatch/device_limits.hpp>

#include "per_device.hpp"

namespace corank::detail {

cudaError_t current_device_limits(device_limits& limits) {
  static per_device<device_limits> cache;
  return cache.get(limits, [](int device, device_limits& l) {
    cudaError_t status = cudaDeviceGetAttribute(&l.multiprocessors, cudaDevAttrMultiProcessorCount, device);
    if (status == cudaSuccess) {
      status = cudaDeviceGetAttribute(&l.max_shared_bytes_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    }
    if (status == cudaSuccess) {
      status = cudaDeviceGetAttribute(&l.compute_major, cudaDevAttrComputeCapabilityMajor, device);
    }
    return status;
  });
}

}  // namespace corank::detail
