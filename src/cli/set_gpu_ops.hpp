#pragma once
// The set commands' GPU kernels, one operation per source file (set_gpu_merge.cu,
// set_gpu_union.cu, ...), so that their many instantiations (10 key types x keys, two
// value payloads and count) compile in parallel. Each runs the corank:: convenience form
// on device pointers and returns the output size.

#include "set_dispatch.hpp"

#include <cuda_runtime_api.h>

namespace corank::cli {

index_t run_gpu_merge(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_union(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_intersection(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_difference(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_symmetric_difference(const operation_operands& o, cudaStream_t stream);

}  // namespace corank::cli
