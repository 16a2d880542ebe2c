#pragma once
// The multiway commands' GPU kernels, one operation per source file (multiway_gpu_merge.cu,
// multiway_gpu_sort.cu), so that their instantiations (the device key types of
// set_gpu_ops.hpp x keys only and two value payloads) compile in parallel. Each runs the
// corank:: convenience form on device pointers, asynchronously on `stream`.

#include "set_gpu_ops.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace corank::cli {

// Raw device pointers of a k-way merge, keys of a device key type (gpu_key_types), values
// as gpu_value_payloads.
struct runs_operands {
  dtype key_type = dtype::int32;
  std::size_t value_bytes = 0;        // 0: keys only
  std::vector<const void*> keys;      // one per run
  std::vector<const void*> values;    // one per run, with values
  std::vector<index_t> sizes;         // one per run
  void* keys_out = nullptr;
  void* values_out = nullptr;
};

// corank::merge_run_list (_by_key with values).
void run_gpu_merge_runs(const runs_operands& o, cudaStream_t stream);

// corank::stable_sort (stable_sort_by_key with values) of n keys in place.
void run_gpu_sort(dtype key_type, std::size_t value_bytes, void* keys, void* values, index_t n, cudaStream_t stream);

}  // namespace corank::cli
