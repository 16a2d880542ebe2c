// The set commands on the GPU: upload the columns (keys mapped to their device type, narrow
// values widened: gpu_columns.hpp; segment offsets as int64), check them with
// corank::check_sorted (segmented: each segment), run the operation (set_gpu_*.cu, its
// segmented form in set_gpu_segmented_*.cu), download the result (mapped back). Times each
// step; the operation's time is one run, so it includes CUDA's first-launch costs
// (corank_set_ops_bench measures steady-state throughput).

#include "gpu_columns.hpp"
#include "set_gpu_ops.hpp"
#include "set_job.hpp"

#include <corank/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace corank::cli {
namespace {

index_t run_segmented_on_gpu(set_operation op, const operation_operands& o, cudaStream_t stream) {
  switch (op) {
    case set_operation::merge: return run_gpu_segmented_merge(o, stream);
    case set_operation::set_union: return run_gpu_segmented_union(o, stream);
    case set_operation::set_intersection: return run_gpu_segmented_intersection(o, stream);
    case set_operation::set_difference: return run_gpu_segmented_difference(o, stream);
    case set_operation::set_symmetric_difference: break;
  }
  return run_gpu_segmented_symmetric_difference(o, stream);
}

index_t run_on_gpu(set_operation op, const operation_operands& o, cudaStream_t stream) {
  if (o.a_offsets != nullptr) return run_segmented_on_gpu(op, o, stream);  // S + 1 >= 1 offsets: never null
  switch (op) {
    case set_operation::merge: return run_gpu_merge(o, stream);
    case set_operation::set_union: return run_gpu_union(o, stream);
    case set_operation::set_intersection: return run_gpu_intersection(o, stream);
    case set_operation::set_difference: return run_gpu_difference(o, stream);
    case set_operation::set_symmetric_difference: break;
  }
  return run_gpu_symmetric_difference(o, stream);
}

}  // namespace

set_outcome run_set_job_on_gpu(const set_job& job) {
  const column& a = *job.a;
  const column& b = *job.b;
  const bool with_values = job.a_values != nullptr;
  const dtype key_type = device_key_type(a.type());
  const std::size_t key_bytes = dtype_size(key_type);
  const std::size_t value_bytes = with_values ? device_value_bytes(dtype_size(job.a_values->type())) : 0;
  const index_t bound = job.count_only ? 0 : output_bound(job.operation, a.size(), b.size());
  const double input_bytes = double(a.size() + b.size()) * double(key_bytes + value_bytes);
  const double output_bytes = double(bound) * double(key_bytes + value_bytes);
  // Offsets are int64 on the device: A's and B's S + 1, and the output's S + 1 (or S sizes).
  const double offsets_bytes = double(2 * (job.segments() + 1) + job.segments_out_size()) * sizeof(std::int64_t);
  const std::string inputs = job.segmented() ? fmt::format("the inputs ({}), the segment offsets ({})",
                                                           gib(input_bytes), gib(offsets_bytes))
                                             : fmt::format("the inputs ({})", gib(input_bytes));
  const std::string needs = fmt::format("{} and the output ({}, at most)", inputs, gib(output_bytes));

  set_outcome outcome;
  // Every out-of-memory below, the context's creation included, gets the same advice.
  try {
    const gpu_info gpu = describe_gpu();
    outcome.where = gpu.where;
    check_gpu_memory(gpu, input_bytes + output_bytes + (job.segmented() ? offsets_bytes : 0), needs);

    auto start = std::chrono::steady_clock::now();
    const device_buffer d_a = upload_keys(a, "copying A to the GPU");
    const device_buffer d_b = upload_keys(b, "copying B to the GPU");
    device_buffer d_a_values, d_b_values;
    if (with_values) {
      d_a_values = upload_values(*job.a_values, "copying A's values to the GPU");
      d_b_values = upload_values(*job.b_values, "copying B's values to the GPU");
    }
    // int64 offsets upload as int64 keys do: as they are.
    device_buffer d_a_offsets, d_b_offsets;
    if (job.segmented()) {
      d_a_offsets = upload_keys(*job.a_offsets, "copying A's segment offsets to the GPU");
      d_b_offsets = upload_keys(*job.b_offsets, "copying B's segment offsets to the GPU");
    }
    const auto* a_offsets = static_cast<const std::int64_t*>(d_a_offsets.get());
    const auto* b_offsets = static_cast<const std::int64_t*>(d_b_offsets.get());
    outcome.upload_ms = ms_since(start);

    if (job.check_sorted && job.segmented()) {
      start = std::chrono::steady_clock::now();
      check_sorted_in_segments_on_gpu(d_a.get(), a.size(), a_offsets, d_b.get(), b.size(), b_offsets, job.segments(),
                                      a.type());
      outcome.check_ms = ms_since(start);
    } else if (job.check_sorted) {
      start = std::chrono::steady_clock::now();
      check_sorted_on_gpu(d_a.get(), a.size(), d_b.get(), b.size(), a.type());
      outcome.check_ms = ms_since(start);
    }

    // Never null where there are inputs, even for an empty result (corank rejects a null
    // output with a nonzero input size).
    const std::size_t out_elements = job.count_only ? 0 : std::size_t(std::max<index_t>(bound, 1));
    device_buffer d_keys_out(out_elements * key_bytes, "allocating the output");
    device_buffer d_values_out(out_elements * value_bytes, "allocating the output values");
    operation_operands o;
    o.key_type = key_type;
    o.value_bytes = value_bytes;
    o.a = d_a.get();
    o.size_a = a.size();
    o.b = d_b.get();
    o.size_b = b.size();
    o.a_values = d_a_values.get();
    o.b_values = d_b_values.get();
    o.keys_out = d_keys_out.get();
    o.values_out = d_values_out.get();
    o.count_only = job.count_only;
    device_buffer d_segments_out(std::size_t(job.segments_out_size()) * sizeof(std::int64_t),
                                 "allocating the output's segment offsets");
    if (job.segmented()) {
      o.a_offsets = a_offsets;
      o.b_offsets = b_offsets;
      o.segments = job.segments();
      o.segments_out = static_cast<std::int64_t*>(d_segments_out.get());
    }

    CORANK_TRY(cudaDeviceSynchronize(), "before the operation");
    start = std::chrono::steady_clock::now();
    outcome.count = run_on_gpu(job.operation, o, nullptr);
    CORANK_TRY(cudaStreamSynchronize(nullptr), "running the operation");  // merge returns before it ends
    outcome.compute_ms = ms_since(start);
    check_output_size(job, outcome.count);  // before it sizes the download

    if (!job.count_only || job.segmented()) {
      start = std::chrono::steady_clock::now();
      if (!job.count_only) {
        outcome.keys = column(a.type(), outcome.count);
        download_keys(std::move(d_keys_out), outcome.keys, "copying the output to the host");
      }
      if (!job.count_only && with_values) {
        outcome.values = column(job.a_values->type(), outcome.count);
        download_values(std::move(d_values_out), outcome.values, "copying the output values to the host");
      }
      if (job.segmented()) {
        outcome.segments = column(dtype::int64, job.segments_out_size());
        download_keys(std::move(d_segments_out), outcome.segments, "copying the output's segment offsets to the host");
      }
      outcome.download_ms = ms_since(start);
    }
  } catch (const corank::out_of_memory& e) {
    throw too_little_gpu_memory(e.what(), needs);
  }
  return outcome;
}

}  // namespace corank::cli
