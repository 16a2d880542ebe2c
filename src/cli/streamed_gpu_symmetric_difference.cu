// corank::streamed_set_symmetric_difference for the streamed commands, for the device key types.

#include "streamed_gpu_ops.hpp"

#include <corank/streamed.cuh>

namespace corank::cli {

index_t run_gpu_streamed_symmetric_difference(const streamed_job& job, const streamed_options& options) {
  return run_gpu_streamed(corank::streamed_set_symmetric_difference, corank::streamed_set_symmetric_difference_by_key, corank::streamed_set_symmetric_difference_count, job, options);
}

}  // namespace corank::cli
