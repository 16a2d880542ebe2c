// corank.union1d, intersect1d, setdiff1d and setxor1d on the GPU: the distinct ops of
// distinct_ops.hpp, keys only.

#include "gpu_dispatch.cuh"

namespace corank::python {

index_t run_gpu_distinct(const operands& o, cudaStream_t stream) {
  switch (o.op) {
    case operation::union_distinct: return run_gpu_operation<union_distinct_op>("corank.union1d", o, stream);
    case operation::intersection_distinct:
      return run_gpu_operation<intersection_distinct_op>("corank.intersect1d", o, stream);
    case operation::difference_distinct:
      return run_gpu_operation<difference_distinct_op>("corank.setdiff1d", o, stream);
    case operation::symmetric_difference_distinct:
      return run_gpu_operation<symmetric_difference_distinct_op>("corank.setxor1d", o, stream);
    default: throw std::invalid_argument("corank: not a distinct operation");
  }
}

}  // namespace corank::python
