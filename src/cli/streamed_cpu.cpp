// The streamed set commands on the CPU backend: corank::host::streamed_* chunk by chunk, so
// that mapped inputs larger than memory stream to the output files in one chunk's memory.

#include "streamed_job.hpp"

#include <corank/host/streamed.hpp>

#include <algorithm>

namespace corank::cli {

index_t run_streamed_job_on_cpu(const streamed_job& job) {
  using namespace corank::host;
  streamed_options options;
  options.threads = job.threads;
  options.progress = job.progress;
  if (job.memory != 0) {
    // A chunk's output buffers (keys and values, one chunk each) in the budget.
    const std::size_t element = dtype_size(job.a->type()) + (job.a_values ? dtype_size(job.a_values->type()) : 0);
    options.chunk = std::max<index_t>(1, index_t(job.memory / element) - 1);
  }
  const operation_operands o = job.operands();
  const auto run = [&](auto keys, auto by_key, auto count) {
    return run_operation(all_key_types{}, all_value_payloads{}, streamed_runners(keys, by_key, count, job), o, options);
  };
  switch (job.operation) {
    case set_operation::merge: return run(streamed_merge, streamed_merge_by_key, streamed_merge_size);
    case set_operation::set_union: return run(streamed_set_union, streamed_set_union_by_key, streamed_set_union_count);
    case set_operation::set_intersection:
      return run(streamed_set_intersection, streamed_set_intersection_by_key, streamed_set_intersection_count);
    case set_operation::set_difference:
      return run(streamed_set_difference, streamed_set_difference_by_key, streamed_set_difference_count);
    case set_operation::set_symmetric_difference: break;
  }
  return run(streamed_set_symmetric_difference, streamed_set_symmetric_difference_by_key,
             streamed_set_symmetric_difference_count);
}

}  // namespace corank::cli
