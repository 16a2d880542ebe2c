#pragma once
// What the dispatch layer needs to know about the current device, read once per device.

#include <cuda_runtime_api.h>

namespace corank::detail {

struct device_limits {
  int multiprocessors = 0;
  int max_shared_bytes_per_block = 0;  // with the opt-in above 48 KiB
  int compute_major = 0;               // 9 and up: dependent launches (dependent_launch.cuh)
};

// Cached per device; no synchronization, safe during stream capture.
cudaError_t current_device_limits(device_limits& limits);

}  // namespace corank::detail
