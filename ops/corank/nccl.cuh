#pragma once
// The merges and the multiset set operations on inputs spread over the GPUs of an NCCL
// communicator (distributed_operation.cuh): each rank holds one partition of A and one of B
// on its GPU, ordered by rank, and gets its share of the output.
//
//   // every rank, in its own process (one per GPU), the current device its communicator's GPU:
//   corank::distributed_plan plan = corank::nccl_merge.plan(a, m, b, n, comm, {}, stream);
//   cudaMalloc(&out, plan.output_bound() * sizeof(long));
//   corank::index_t count = corank::nccl_merge(plan, a, b, out, comm, {}, stream);
//
// Rank r's merge output is elements [r N / P, (r + 1) N / P) of the merge (N: every rank's
// m + n, P ranks); a set operation's is its result on the balanced path's range of the same
// diagonals, of a size that depends on the data (returned). NVLink multicast needs to be off
// on machines where it is not usable (NCCL_NVLS_ENABLE=0, nccl_transport.hpp).
//
// The names, runner objects of distributed_operation.cuh (whose contract they follow); NAME is
// set_union, set_intersection, set_difference or set_symmetric_difference (set_operations.cuh
// gives their rules); comm an ncclComm_t (or any transport); every call collective:
//   distributed_plan nccl_NAME.plan(a, m, b, n, comm, comp = {}, stream = nullptr, options = {})
//     (also nccl_merge.plan, and the _by_key and _count names': the same search)
//   index_t nccl_merge(plan, a, b, out, comm, comp = {}, stream = nullptr, options = {})
//   index_t nccl_merge(a, m, b, n, out, comm, comp = {}, stream = nullptr, options = {})
//   index_t nccl_merge_by_key(plan, a, a_values, b, b_values, keys_out, values_out, comm, ...)
//   index_t nccl_merge_by_key(a, a_values, m, b, b_values, n, keys_out, values_out, comm, ...)
//   nccl_NAME, nccl_NAME_by_key                        as the merges
//   index_t nccl_NAME_count(plan, a, b, comm, ...), nccl_NAME_count(a, m, b, n, comm, ...)
// Each returns this rank's output size.

#include <corank/detail/merge_instantiations.hpp>  // its merges' windows link the library's kernels
#include <corank/distributed_operation.cuh>
#include <corank/nccl_transport.hpp>
#include <corank/ops/merge.hpp>
#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

#define CORANK_NCCL_NAME(runner, op, name) inline constexpr runner<::corank::ops::op> name{{{}, "corank::" #name}};
#define CORANK_NCCL_SET_OPERATION(name)                                         \
  CORANK_NCCL_NAME(distributed_keys_operation, name##_op, nccl_##name)          \
  CORANK_NCCL_NAME(distributed_by_key_operation, name##_op, nccl_##name##_by_key) \
  CORANK_NCCL_NAME(distributed_count_operation, name##_op, nccl_##name##_count)

namespace corank {
CORANK_NCCL_NAME(distributed_keys_operation, merge_op, nccl_merge)
CORANK_NCCL_NAME(distributed_by_key_operation, merge_op, nccl_merge_by_key)
CORANK_NCCL_SET_OPERATION(set_union)
CORANK_NCCL_SET_OPERATION(set_intersection)
CORANK_NCCL_SET_OPERATION(set_difference)
CORANK_NCCL_SET_OPERATION(set_symmetric_difference)
}  // namespace corank

#undef CORANK_NCCL_SET_OPERATION
#undef CORANK_NCCL_NAME
