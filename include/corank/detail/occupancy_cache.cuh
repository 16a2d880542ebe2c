#pragma once
// Per-kernel occupancy, asked of the runtime once per device.

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstddef>

namespace corank::detail {

// How many blocks of one kernel fit on a multiprocessor, found once per device: the
// shared-memory opt-in and the occupancy query cost microseconds, which small operations
// would notice. One cache per kernel instantiation (it is a static of the caller).
class occupancy_cache {
 public:
  template <class Kernel>
  cudaError_t blocks_per_sm(Kernel kernel, int threads, std::size_t shared_bytes, int& blocks) {
    int device = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (device < 0 || device >= max_devices) return cudaErrorInvalidDevice;
    if ((blocks = known_[device].load(std::memory_order_relaxed)) > 0) return cudaSuccess;
    if (shared_bytes > 48 * 1024) {
      const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(shared_bytes));
      if (e != cudaSuccess) return e;
    }
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared_bytes);
    if (e != cudaSuccess) return e;
    if (blocks < 1) return cudaErrorInvalidConfiguration;
    known_[device].store(blocks, std::memory_order_relaxed);
    return cudaSuccess;
  }

 private:
  static constexpr int max_devices = 64;
  std::array<std::atomic<int>, max_devices> known_{};
};

}  // namespace corank::detail
