#pragma once
// Portability macros shared by every header, so the co-rank search, the ops and the
// CPU backend compile with a plain C++ compiler as well as with nvcc.

#include <corank/architecture.hpp>

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define CORANK_HOST_DEVICE __host__ __device__
#else
#define CORANK_HOST_DEVICE
#endif

// Host-device templates are instantiated with host-only iterators by the CPU backend;
// this tells nvcc that such instantiations are never called from device code.
#if defined(__CUDACC__)
#define CORANK_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define CORANK_EXEC_CHECK_DISABLE
#endif

#if defined(__CUDA_ARCH__)
#define CORANK_PRAGMA_UNROLL _Pragma("unroll")
#else
#define CORANK_PRAGMA_UNROLL
#endif

namespace corank {

// Every global size and offset is 64-bit: inputs beyond 2^31 elements are supported.
using index_t = std::int64_t;

}  // namespace corank
