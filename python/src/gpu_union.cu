// corank.set_union on the GPU: keys, by key, count.

#include "gpu_dispatch.cuh"

#include <corank/set_operations.cuh>

namespace corank::python {

index_t run_gpu_union(const operands& o, cudaStream_t stream) {
  return run_gpu_operation<ops::set_union_op>("corank.set_union", o, stream);
}

}  // namespace corank::python
