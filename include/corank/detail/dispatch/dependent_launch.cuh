#pragma once
// Programmatic dependent launch (sm_90): the tile kernel that follows the split pass (or the
// kernel that zeroes its state) in the stream is launched while that one still runs, and its
// blocks wait on the device, before their first read of its results, for it to finish and
// its writes to be visible. The tile kernel's launch and the start of its blocks then
// overlap the earlier kernel instead of following it.

#include <corank/config.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace corank::detail {

// Called by every block of the earlier kernel once it has started: the next kernel may be
// launched (it still waits, in wait_for_earlier_kernel, for this one's end).
__device__ __forceinline__ void allow_next_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Called by the later kernel before it reads what the earlier kernel wrote: returns once
// that kernel has ended and its writes are visible. Returns at once where the kernel was
// launched the ordinary way.
__device__ __forceinline__ void wait_for_earlier_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Whether the kernels of this translation unit wait in wait_for_earlier_kernel: all of its
// code is for sm_90 or newer (nvcc lists the architectures in __CUDA_ARCH_LIST__, ascending).
// Code for sm_80 compiles the wait to nothing, yet runs on an sm_90 GPU too (the driver
// compiles its PTX there): launched as a dependent, it would read the earlier kernel's
// results before they are written, so such builds launch the ordinary way. (constexpr at
// namespace scope: internal linkage, one value per translation unit.)
#if defined(__CUDA_ARCH_LIST__)
constexpr int compiled_architectures[] = {__CUDA_ARCH_LIST__};
constexpr bool kernels_wait_for_earlier = compiled_architectures[0] >= 900;
#else
constexpr bool kernels_wait_for_earlier = true;
#endif

// Launches `kernel` on `stream`, where `overlap` (the device supports it) and the kernel
// waits (kernels_wait_for_earlier), as a dependent launch: the kernel must call
// wait_for_earlier_kernel before it reads what the stream's previous kernel wrote.
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), unsigned blocks, unsigned threads, std::size_t shared_bytes,
                             cudaStream_t stream, bool overlap, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = overlap && kernels_wait_for_earlier ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Args&&>(args)...);
}

}  // namespace corank::detail
