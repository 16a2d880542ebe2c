// corank::streamed_set_union for the streamed commands, for the device key types.

#include "streamed_gpu_ops.hpp"

#include <corank/streamed.cuh>

namespace corank::cli {

index_t run_gpu_streamed_union(const streamed_job& job, const streamed_options& options) {
  return run_gpu_streamed(corank::streamed_set_union, corank::streamed_set_union_by_key, corank::streamed_set_union_count, job, options);
}

}  // namespace corank::cli
