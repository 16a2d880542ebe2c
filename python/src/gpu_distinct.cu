// corank.union1d on the GPU (and the distinct step of intersect1d, setdiff1d and setxor1d,
// which corank/_numpy_style.py composes on the GPU from it and a multiset operation: the
// balanced-path distinct ops of distinct_ops.hpp run there at 2.5-4.3x the multiset ops'
// instructions, bench/results/h200-ncu-python-distinct.txt). Keys only.

#include "gpu_dispatch.cuh"

namespace corank::python {

index_t run_gpu_distinct(const operands& o, cudaStream_t stream) {
  if (o.op != operation::union_distinct) {
    throw std::invalid_argument("corank: on the GPU intersect1d, setdiff1d and setxor1d are composed in Python");
  }
  return run_gpu_operation<union_distinct_op>("corank.union1d", o, stream);
}

}  // namespace corank::python
