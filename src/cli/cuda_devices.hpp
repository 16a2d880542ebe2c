#pragma once
// Whether there is a GPU to run on, for --device auto|gpu.

#include <string>

namespace corank::cli {

// The number of CUDA devices, or 0 with the runtime's reason ("no device" when the driver
// works but finds none).
int cuda_device_count(std::string& reason);

}  // namespace corank::cli
