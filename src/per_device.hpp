#pragma once
// A value per device, made once, on first use, by whichever thread gets there first: the
// caches of the compiled parts (device_limits.cpp, temporary_pool.cpp).

#include <cuda_runtime_api.h>

#include <array>
#include <mutex>

namespace corank::detail {

template <class T>
class per_device {
 public:
  // The current device's value; `make(device, value)` returns a cudaError_t, kept with it.
  template <class Make>
  cudaError_t get(T& value, Make make) {
    int device = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (device < 0 || device >= max_devices) return cudaErrorInvalidDevice;
    std::call_once(once_[device], [&] { status_[device] = make(device, values_[device]); });
    value = values_[device];
    return status_[device];
  }

 private:
  static constexpr int max_devices = 64;
  std::array<T, max_devices> values_{};
  std::array<std::once_flag, max_devices> once_;
  std::array<cudaError_t, max_devices> status_{};
};

}  // namespace corank::detail
