#include "cuda_devices.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace corank::cli {

int cuda_device_count(std::string& reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    reason = fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
    cudaGetLastError();
    return 0;
  }
  if (count == 0) reason = "no device";
  return count;
}

}  // namespace corank::cli
