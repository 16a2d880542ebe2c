#pragma once
// The set commands' GPU kernels, one operation per source file (set_gpu_merge.cu,
// set_gpu_union.cu, ...), so that their many instantiations (10 key types x keys, two
// value payloads and count) compile in parallel. Each runs the corank:: convenience form
// on device pointers and returns the output size.

#include "set_dispatch.hpp"

#include <cuda_runtime_api.h>

namespace corank::cli {

// Values of 1 and 2 bytes are widened to 4 on the device (set_gpu.cu): the kernels compile
// for two payloads per key type instead of four.
using gpu_value_payloads = value_payloads<std::uint32_t, std::uint64_t>;

index_t run_gpu_merge(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_union(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_intersection(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_difference(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_symmetric_difference(const operation_operands& o, cudaStream_t stream);

}  // namespace corank::cli
