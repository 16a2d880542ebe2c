#pragma once
// The set commands' GPU kernels, one operation per source file (set_gpu_merge.cu,
// set_gpu_union.cu, ...), and one per segmented operation (set_gpu_segmented_merge.cu, ...),
// so that their many instantiations (4 key types x keys, two value payloads and count)
// compile in parallel. Each runs the corank:: convenience form on device pointers and
// returns the output size.

#include "set_dispatch.hpp"

#include <cuda_runtime_api.h>

#include <type_traits>

namespace corank::cli {

// Keys travel on the device as one of four types (gpu_columns.cu maps them there and back),
// so the kernels compile for 4 key types instead of 10:
//   int8, int16, uint8, uint16   as int32, sign- or zero-extended
//   uint32, uint64               as int32, int64 with the top bit flipped (0 -> the minimum)
//   int32, int64, float, double  as they are
// Both maps keep the keys' order and which keys are equal, so every result is the same.
// Float keys keep their type: their order (NaNs last, -0.0 equal to 0.0) is no integer's.
using gpu_key_types = key_types<std::int32_t, std::int64_t, float, double>;
template <class Key>
using device_key_t = std::conditional_t<std::is_floating_point_v<Key>, Key,
                                        std::conditional_t<sizeof(Key) <= 4, std::int32_t, std::int64_t>>;

// Values of 1 and 2 bytes are widened to 4 on the device (gpu_columns.cu): the kernels compile
// for two payloads per key type instead of four. Values are moved, never compared, so the
// payloads' types are free: int32 and uint64, the tests' value types, so that the set
// operations of int32 and int64 keys are the kernels the tests run too, compiled once in
// corank_set_kernels (src/set_kernels/set_kernels.hpp), and the merges of int32 keys with
// 4-byte values are libcorank.a's.
using gpu_value_payloads = value_payloads<std::int32_t, std::uint64_t>;

index_t run_gpu_merge(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_union(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_intersection(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_difference(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_symmetric_difference(const operation_operands& o, cudaStream_t stream);

// The segmented forms (corank::segmented_merge, ...), with o's offsets (segmented_runners).
// Each file's body: run_gpu_segmented with the operation's three segmented runners.
template <class Keys, class ByKey, class Count>
index_t run_gpu_segmented(Keys keys, ByKey by_key, Count count, const operation_operands& o, cudaStream_t stream) {
  return run_operation(gpu_key_types{}, gpu_value_payloads{}, segmented_runners(keys, by_key, count, o), o, stream);
}
index_t run_gpu_segmented_merge(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_segmented_union(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_segmented_intersection(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_segmented_difference(const operation_operands& o, cudaStream_t stream);
index_t run_gpu_segmented_symmetric_difference(const operation_operands& o, cudaStream_t stream);

}  // namespace corank::cli
