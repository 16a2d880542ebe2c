#include <corank/detail/device_limits.hpp>

#include <array>
#include <mutex>

namespace corank::detail {

cudaError_t current_device_limits(device_limits& limits) {
  constexpr int max_devices = 64;
  static std::array<device_limits, max_devices> cache{};
  static std::array<std::once_flag, max_devices> once;
  static std::array<cudaError_t, max_devices> status{};

  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (device < 0 || device >= max_devices) return cudaErrorInvalidDevice;
  std::call_once(once[device], [device] {
    device_limits& l = cache[device];
    status[device] = cudaDeviceGetAttribute(&l.multiprocessors, cudaDevAttrMultiProcessorCount, device);
    if (status[device] == cudaSuccess) {
      status[device] = cudaDeviceGetAttribute(&l.max_shared_bytes_per_block,
                                              cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    }
    if (status[device] == cudaSuccess) {
      status[device] = cudaDeviceGetAttribute(&l.compute_major, cudaDevAttrComputeCapabilityMajor, device);
    }
  });
  limits = cache[device];
  return status[device];
}

}  // namespace corank::detail
