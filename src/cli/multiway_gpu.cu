// The multiway commands on the GPU: upload the columns (gpu_columns.hpp), check each run,
// run the k-way merge or the sort (multiway_gpu_*.cu), download the result. Times each step;
// the operation's time is one run, CUDA's first-launch costs included.

#include "gpu_columns.hpp"
#include "multiway_gpu_ops.hpp"
#include "multiway_job.hpp"

#include <corank/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

namespace corank::cli {
namespace {

std::string run_name(const char* what, std::size_t run) { return fmt::format("copying {} {} to the GPU", what, run); }

}  // namespace

job_outcome run_merge_runs_on_gpu(const merge_runs_job& job) {
  const bool with_values = !job.values.empty();
  const dtype key_type = device_key_type(job.keys.front()->type());
  const std::size_t key_bytes = dtype_size(key_type);
  const std::size_t value_bytes = with_values ? device_value_bytes(dtype_size(job.values.front()->type())) : 0;
  index_t total = 0;
  for (const column* run : job.keys) total += run->size();
  const double bytes = double(total) * double(key_bytes + value_bytes);
  const std::string needs = fmt::format("the inputs ({}) and the output ({})", gib(bytes), gib(bytes));

  job_outcome outcome;
  try {
    const gpu_info gpu = describe_gpu();
    outcome.where = gpu.where;
    // More than 64 runs take passes through a buffer of the output's size (merge_runs.cuh).
    check_gpu_memory(gpu, (job.keys.size() > 64 ? 3 : 2) * bytes, needs);

    auto start = std::chrono::steady_clock::now();
    std::vector<device_buffer> keys, values;
    runs_operands o;
    o.key_type = key_type;
    o.value_bytes = value_bytes;
    for (std::size_t r = 0; r < job.keys.size(); ++r) {
      keys.push_back(upload_keys(*job.keys[r], run_name("input", r + 1).c_str()));
      o.keys.push_back(keys.back().get());
      o.sizes.push_back(job.keys[r]->size());
      if (with_values) {
        values.push_back(upload_values(*job.values[r], run_name("the values of input", r + 1).c_str()));
        o.values.push_back(values.back().get());
      }
    }
    outcome.upload_ms = ms_since(start);

    if (job.check_sorted) {
      start = std::chrono::steady_clock::now();
      for (std::size_t r = 0; r < job.keys.size(); ++r) {
        const index_t at = find_unsorted_on_gpu(o.keys[r], o.sizes[r], job.keys[r]->type());
        if (at < o.sizes[r]) throw unsorted_run(r, at);
      }
      outcome.check_ms = ms_since(start);
    }

    device_buffer keys_out(std::size_t(total) * key_bytes, "allocating the output");
    device_buffer values_out(std::size_t(total) * value_bytes, "allocating the output values");
    o.keys_out = keys_out.get();
    o.values_out = values_out.get();

    CORANK_TRY(cudaDeviceSynchronize(), "before the merge");
    start = std::chrono::steady_clock::now();
    run_gpu_merge_runs(o, nullptr);
    CORANK_TRY(cudaStreamSynchronize(nullptr), "running the merge");  // it returns before it ends
    outcome.compute_ms = ms_since(start);
    outcome.count = total;

    start = std::chrono::steady_clock::now();
    keys.clear();  // the inputs are no longer needed
    values.clear();
    outcome.keys = column(job.keys.front()->type(), total);
    download_keys(std::move(keys_out), outcome.keys, "copying the output to the host");
    if (with_values) {
      outcome.values = column(job.values.front()->type(), total);
      download_values(std::move(values_out), outcome.values, "copying the output values to the host");
    }
    outcome.download_ms = ms_since(start);
  } catch (const corank::out_of_memory& e) {
    throw too_little_gpu_memory(e.what(), needs);
  }
  return outcome;
}

job_outcome run_sort_on_gpu(sort_job job) {
  const index_t n = job.keys.size();
  const std::size_t key_bytes = dtype_size(device_key_type(job.keys.type()));
  const std::size_t value_bytes = job.with_values ? device_value_bytes(dtype_size(job.values.type())) : 0;
  const double bytes = double(n) * double(key_bytes + value_bytes);
  const std::string needs = fmt::format("the input ({}) and a buffer of its size", gib(bytes));

  job_outcome outcome;
  try {
    const gpu_info gpu = describe_gpu();
    outcome.where = gpu.where;
    check_gpu_memory(gpu, 2 * bytes, needs);

    auto start = std::chrono::steady_clock::now();
    device_buffer keys = upload_keys(job.keys, "copying the keys to the GPU");
    device_buffer values;
    if (job.with_values) values = upload_values(job.values, "copying the values to the GPU");
    outcome.upload_ms = ms_since(start);

    CORANK_TRY(cudaDeviceSynchronize(), "before the sort");
    start = std::chrono::steady_clock::now();
    run_gpu_sort(device_key_type(job.keys.type()), value_bytes, keys.get(), values.get(), n, nullptr);
    CORANK_TRY(cudaStreamSynchronize(nullptr), "running the sort");  // it returns before it ends
    outcome.compute_ms = ms_since(start);
    outcome.count = n;

    // Back into the columns they came from: the host holds one copy.
    start = std::chrono::steady_clock::now();
    download_keys(std::move(keys), job.keys, "copying the sorted keys to the host");
    if (job.with_values) download_values(std::move(values), job.values, "copying the sorted values to the host");
    outcome.download_ms = ms_since(start);
  } catch (const corank::out_of_memory& e) {
    throw too_little_gpu_memory(e.what(), needs);
  }
  outcome.keys = std::move(job.keys);
  outcome.values = std::move(job.values);
  return outcome;
}

}  // namespace corank::cli
