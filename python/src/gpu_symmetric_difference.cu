// corank.set_symmetric_difference on the GPU: keys, by key, count.

#include "gpu_dispatch.cuh"

#include <corank/set_operations.cuh>

namespace corank::python {

index_t run_gpu_symmetric_difference(const operands& o, cudaStream_t stream) {
  return run_gpu_operation<ops::set_symmetric_difference_op>("corank.set_symmetric_difference", o, stream);
}

}  // namespace corank::python
