// corank merge on the GPU. Integer keys (int32, int64 on the device) with corank::less and
// raw pointers link pre-compiled merges: the library's (keys only, uint64 payloads, int32
// keys with int32 payloads) and corank_set_kernels' (int64 keys with int32 payloads,
// set_kernels/set_kernels.hpp); float keys (nan_last_less) compile here.

#include "set_gpu_ops.hpp"
#include "set_kernels/set_kernels.hpp"
#include "streamed_gpu_ops.hpp"

#include <corank/merge.cuh>
#include <corank/streamed.cuh>

namespace corank::cli {

index_t run_gpu_merge(const operation_operands& o, cudaStream_t stream) {
  const auto count = [](auto a, auto a_end, auto b, auto b_end, auto, auto) {
    return index_t((a_end - a) + (b_end - b));
  };
  const operation_runners runners{[](auto... x) { return corank::merge(x...); },
                                  [](auto... x) { return corank::merge_by_key(x...); }, count};
  return run_operation(gpu_key_types{}, gpu_value_payloads{}, runners, o, stream);
}

// The streamed form, here so that it shares the kernels above (the same arguments' types).
index_t run_gpu_streamed_merge(const streamed_job& job, const streamed_options& options) {
  return run_gpu_streamed(corank::streamed_merge, corank::streamed_merge_by_key, streamed_merge_size, job, options);
}

}  // namespace corank::cli
