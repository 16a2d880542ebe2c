// corank segmented_set_union on the GPU, for the device key types (nothing of it is
// pre-compiled in the library).

#include "set_gpu_ops.hpp"

#include <corank/segmented.cuh>

namespace corank::cli {

index_t run_gpu_segmented_union(const operation_operands& o, cudaStream_t stream) {
  return run_gpu_segmented(corank::segmented_set_union, corank::segmented_set_union_by_key,
                           corank::segmented_set_union_count, o, stream);
}

}  // namespace corank::cli
