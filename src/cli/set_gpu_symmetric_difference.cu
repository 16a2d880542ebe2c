// corank set_symmetric_difference on the GPU, for the device key types. Integer keys (int32, int64 on the
// device) with corank::less link corank_set_kernels' kernels, which the tests share
// (set_kernels/set_kernels.hpp); float keys (nan_last_less) compile here.

#include "set_gpu_ops.hpp"
#include "set_kernels/set_kernels.hpp"
#include "streamed_gpu_ops.hpp"

#include <corank/set_operations.cuh>
#include <corank/streamed.cuh>

namespace corank::cli {

index_t run_gpu_symmetric_difference(const operation_operands& o, cudaStream_t stream) {
  const operation_runners runners{corank::set_symmetric_difference, corank::set_symmetric_difference_by_key,
                                  corank::set_symmetric_difference_count};
  return run_operation(gpu_key_types{}, gpu_value_payloads{}, runners, o, stream);
}

// The streamed form, here so that it shares the kernels above (the same arguments' types).
index_t run_gpu_streamed_symmetric_difference(const streamed_job& job, const streamed_options& options) {
  return run_gpu_streamed(corank::streamed_set_symmetric_difference, corank::streamed_set_symmetric_difference_by_key, corank::streamed_set_symmetric_difference_count, job, options);
}

}  // namespace corank::cli
