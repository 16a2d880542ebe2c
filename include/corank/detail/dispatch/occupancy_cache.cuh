#pragma once
// Per-kernel occupancy, asked of the runtime once per device.

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstddef>

namespace corank::detail {

// How many blocks of one kernel fit on a multiprocessor, found once per device: the
// shared-memory opt-in and the occupancy query cost microseconds, which small operations
// would notice. One cache per kernel instantiation (see cached_blocks_per_sm).
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

// How many blocks of `Kernel` (`Threads` threads, `SharedBytes` of dynamic shared memory)
// fit on a multiprocessor of the current device, the opt-in to that much shared memory
// done: asked once per kernel and device.
template <auto Kernel, int Threads, std::size_t SharedBytes>
cudaError_t cached_blocks_per_sm(int& blocks) {
  static occupancy_cache cache;
  return cache.blocks_per_sm(Kernel, Threads, SharedBytes, blocks);
}

}  // namespace corank::detail
