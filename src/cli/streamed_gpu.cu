// The streamed set commands through the GPU: corank::streamed_* (run_gpu_streamed_<op> in
// set_gpu_<op>.cu) with the job's budget, each chunk's output written as it comes back.

#include "streamed_gpu_ops.hpp"

namespace corank::cli {

index_t run_streamed_job_on_gpu(const streamed_job& job) {
  streamed_options options;
  options.gpu_memory = job.memory;
  options.threads = job.threads;
  options.progress = job.progress;
  switch (job.operation) {
    case set_operation::merge: return run_gpu_streamed_merge(job, options);
    case set_operation::set_union: return run_gpu_streamed_union(job, options);
    case set_operation::set_intersection: return run_gpu_streamed_intersection(job, options);
    case set_operation::set_difference: return run_gpu_streamed_difference(job, options);
    case set_operation::set_symmetric_difference: break;
  }
  return run_gpu_streamed_symmetric_difference(job, options);
}

}  // namespace corank::cli
