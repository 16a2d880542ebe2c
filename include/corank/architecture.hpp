#pragma once
// The GPU architectures corank's kernels compile for: sm_80 (A100) and newer. They stage
// tiles with sm_80's per-element asynchronous copies (cp.async); where the code is compiled
// for sm_90 or newer they use its bulk copies and dependent launches as well
// (detail/block/stage_window.cuh, detail/dispatch/dependent_launch.cuh). Included by
// config.hpp, so that this is the first error a build for an older architecture meets, before
// ptxas's.

// __CUDA_ARCH__ of the oldest architecture the kernels compile for.
#define CORANK_MIN_CUDA_ARCH 800

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < CORANK_MIN_CUDA_ARCH
#error "corank needs GPU architecture sm_80 or newer: set CMAKE_CUDA_ARCHITECTURES to 80 or newer \
(e.g. -DCMAKE_CUDA_ARCHITECTURES=90), or pass nvcc -arch=sm_90."
#endif
