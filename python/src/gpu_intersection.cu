// corank.set_intersection on the GPU: keys, by key, count, paired.

#include "gpu_dispatch.cuh"

#include <corank/set_operations.cuh>

namespace corank::python {

index_t run_gpu_intersection(const operands& o, cudaStream_t stream) {
  return run_gpu_operation<ops::set_intersection_op>("corank.set_intersection", o, stream);
}

}  // namespace corank::python
