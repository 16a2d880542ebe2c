// corank merge on the GPU. Integer keys (int32, int64 on the device) with corank::less and
// raw pointers link the library's pre-compiled merges, keys only and with uint64 payloads;
// float keys (nan_last_less) and uint32 payloads compile here.

#include "set_gpu_ops.hpp"

#include <corank/merge.cuh>

namespace corank::cli {

index_t run_gpu_merge(const operation_operands& o, cudaStream_t stream) {
  const auto count = [](auto a, auto a_end, auto b, auto b_end, auto, auto) {
    return index_t((a_end - a) + (b_end - b));
  };
  const operation_runners runners{[](auto... x) { return corank::merge(x...); },
                                  [](auto... x) { return corank::merge_by_key(x...); }, count};
  return run_operation(gpu_key_types{}, gpu_value_payloads{}, runners, o, stream);
}

}  // namespace corank::cli
