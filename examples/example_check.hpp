#pragma once
// What the example programs share: whether the GPU half can run, and how its results are
// checked and reported. Not an op: not installed with them.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <exception>

// Why the GPU half cannot run, or nullptr when it can.
inline const char* no_gpu_reason() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess) return cudaGetErrorString(status);
  return devices == 0 ? "no device" : nullptr;
}

// Prints "<where>: as the reference" or "<where>: MISMATCH"; returns same.
inline bool report(const char* where, bool same) {
  std::printf("%s: %s\n", where, same ? "as the reference" : "MISMATCH");
  return same;
}

// Runs `on_gpu` (where a GPU is there) and `on_cpu`, each true when its result is the
// reference's; prints a line for each, then "OK". Returns the program's exit status: 1 on a
// mismatch or an exception (corank::cuda_error, std::invalid_argument, ...).
template <class OnGpu, class OnCpu>
int check_gpu_and_cpu(OnGpu on_gpu, OnCpu on_cpu) {
  try {
    bool ok = true;
    if (const char* reason = no_gpu_reason()) {
      std::printf("gpu: skipped, no CUDA GPU (cudaGetDeviceCount: %s)\n", reason);
    } else {
      ok = report("gpu", on_gpu()) && ok;
    }
    ok = report("cpu", on_cpu()) && ok;
    if (!ok) return 1;
    std::printf("OK\n");
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
