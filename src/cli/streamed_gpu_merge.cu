// corank::streamed_merge for the streamed commands, for the device key types.

#include "streamed_gpu_ops.hpp"

#include <corank/streamed.cuh>

namespace corank::cli {

index_t run_gpu_streamed_merge(const streamed_job& job, const streamed_options& options) {
  return run_gpu_streamed(corank::streamed_merge, corank::streamed_merge_by_key, streamed_merge_size, job, options);
}

}  // namespace corank::cli
