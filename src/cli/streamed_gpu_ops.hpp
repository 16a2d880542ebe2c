#pragma once
// The streamed set commands' GPU runs, one operation per source file: each lives in the
// operation's set_gpu_<op>.cu, whose in-memory form launches the same kernels with the same
// argument types, so that they compile once. Each runs corank::streamed_* through
// run_operation.

#include "set_gpu_ops.hpp"
#include "streamed_job.hpp"

namespace corank::cli {

// The GPU streams the dtypes the in-memory GPU forms compile for, unmapped (streamed keys
// go to the device as they are); others stream on the CPU backend.
inline bool gpu_streams(dtype key_type, std::size_t value_bytes) {
  return compiles_for(gpu_key_types{}, gpu_value_payloads{}, key_type, value_bytes);
}

template <class Keys, class ByKey, class Count>
index_t run_gpu_streamed(Keys keys, ByKey by_key, Count count, const streamed_job& job,
                         const streamed_options& options) {
  return run_operation(gpu_key_types{}, gpu_value_payloads{}, streamed_runners(keys, by_key, count, job),
                       job.operands(), options);
}

index_t run_gpu_streamed_merge(const streamed_job& job, const streamed_options& options);
index_t run_gpu_streamed_union(const streamed_job& job, const streamed_options& options);
index_t run_gpu_streamed_intersection(const streamed_job& job, const streamed_options& options);
index_t run_gpu_streamed_difference(const streamed_job& job, const streamed_options& options);
index_t run_gpu_streamed_symmetric_difference(const streamed_job& job, const streamed_options& options);

}  // namespace corank::cli
