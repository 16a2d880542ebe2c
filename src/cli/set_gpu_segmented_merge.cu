// corank segmented_merge on the GPU, for the device key types; a merge has no count form
// (segmented_merge_size stands in).

#include "set_gpu_ops.hpp"

#include <corank/segmented.cuh>

namespace corank::cli {

index_t run_gpu_segmented_merge(const operation_operands& o, cudaStream_t stream) {
  return run_gpu_segmented(corank::segmented_merge, corank::segmented_merge_by_key, segmented_merge_size, o, stream);
}

}  // namespace corank::cli
