// corank join on the GPU: upload both columns (keys mapped to their device type, which keeps
// which keys are equal: gpu_columns.hpp), check them, then corank::device's join in its two
// halves: sorted_join_offsets (each left key's lower bound and the prefix sums of the match
// counts, whose last is the number of pairs), and, with the outputs sized by that,
// sorted_join_expand. Times each step; the join's time is one run, CUDA's first-launch costs
// included (corank_search_bench measures steady-state throughput).

#include "gpu_columns.hpp"
#include "search_job.hpp"
#include "set_gpu_ops.hpp"

#include <corank/error.hpp>
#include <corank/join.cuh>

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace corank::cli {
namespace {

constexpr std::size_t word_bytes = 256;  // the count word, ahead of each call's storage

// The number of pairs, with `lower` and `offsets` (m and m + 1 int64) filled.
template <class Key>
index_t join_offsets(const Key* left, index_t m, const Key* right, index_t n, std::int64_t* lower,
                     std::int64_t* offsets) {
  const key_order<Key> comp{};
  std::size_t bytes = 0;
  CORANK_TRY(device::sorted_join_offsets(nullptr, bytes, left, m, right, n, lower, offsets, nullptr, comp),
             "sizing the join's temporary storage");
  const device_buffer temp(bytes + word_bytes, "allocating the join's temporary storage");
  auto* word = static_cast<index_t*>(temp.get());
  CORANK_TRY(device::sorted_join_offsets(static_cast<char*>(temp.get()) + word_bytes, bytes, left, m, right, n, lower,
                                         offsets, word, comp),
             "counting the join's pairs");
  index_t pairs = 0;
  CORANK_TRY(cudaMemcpy(&pairs, word, sizeof pairs, cudaMemcpyDeviceToHost), "counting the join's pairs");
  return pairs;
}

void join_expand(const std::int64_t* lower, const std::int64_t* offsets, index_t m, index_t pairs,
                 std::int64_t* left_out, std::int64_t* right_out) {
  std::size_t bytes = 0;
  CORANK_TRY(device::sorted_join_expand(nullptr, bytes, lower, offsets, m, pairs, left_out, right_out, nullptr),
             "sizing the join's temporary storage");
  const device_buffer temp(bytes, "allocating the join's temporary storage");
  CORANK_TRY(device::sorted_join_expand(temp.get(), bytes, lower, offsets, m, pairs, left_out, right_out, nullptr),
             "writing the join's pairs");
  CORANK_TRY(cudaDeviceSynchronize(), "writing the join's pairs");
}

}  // namespace

job_outcome run_join_on_gpu(const join_job& job) {
  const column& l = *job.left;
  const column& r = *job.right;
  const index_t m = l.size();
  const dtype key_type = device_key_type(l.type());
  const double input_bytes = double(m + r.size()) * double(dtype_size(key_type));
  const double counts_bytes = double(2 * m + 1) * 8.0;
  std::string needs = fmt::format("the inputs ({}) and the counts ({})", gib(input_bytes), gib(counts_bytes));

  job_outcome outcome;
  try {
    const gpu_info gpu = describe_gpu();
    outcome.where = gpu.where;
    check_gpu_memory(gpu, input_bytes + counts_bytes, needs);

    auto start = std::chrono::steady_clock::now();
    device_buffer d_l = upload_keys(l, "copying LEFT to the GPU");
    device_buffer d_r = upload_keys(r, "copying RIGHT to the GPU");
    outcome.upload_ms = ms_since(start);
    if (job.check_sorted) {
      start = std::chrono::steady_clock::now();
      check_sorted_on_gpu(d_l.get(), m, d_r.get(), r.size(), l.type());
      outcome.check_ms = ms_since(start);
    }
    const device_buffer kept(std::size_t(counts_bytes), "allocating the join's counts");
    auto* lower = static_cast<std::int64_t*>(kept.get());
    std::int64_t* offsets = lower + m;

    CORANK_TRY(cudaDeviceSynchronize(), "before the join");
    start = std::chrono::steady_clock::now();
    visit_key_and_payload(gpu_key_types{}, gpu_value_payloads{}, key_type, 0, [&](auto key_tag, auto) {
      using Key = typename decltype(key_tag)::type;
      outcome.count = join_offsets(static_cast<const Key*>(d_l.get()), m, static_cast<const Key*>(d_r.get()),
                                   r.size(), lower, offsets);
    });
    outcome.compute_ms = ms_since(start);
    if (outcome.count < 0) throw corank::unsorted_input("corank join");
    if (job.count_only) return outcome;
    if (job.before_output) job.before_output(outcome.count);

    // The keys are no longer needed: their memory goes to the pairs.
    d_l = device_buffer();
    d_r = device_buffer();
    const double output_bytes = double(outcome.count) * 16.0;
    needs = fmt::format("the counts ({}) and the pairs ({})", gib(counts_bytes), gib(output_bytes));
    check_gpu_memory(describe_gpu(), counts_bytes + output_bytes, needs);
    const device_buffer left_out(std::size_t(outcome.count) * 8, "allocating the left positions");
    const device_buffer right_out(std::size_t(outcome.count) * 8, "allocating the right positions");
    start = std::chrono::steady_clock::now();
    join_expand(lower, offsets, m, outcome.count, static_cast<std::int64_t*>(left_out.get()),
                static_cast<std::int64_t*>(right_out.get()));
    outcome.compute_ms += ms_since(start);

    start = std::chrono::steady_clock::now();
    outcome.keys = column(dtype::int64, outcome.count);
    outcome.values = column(dtype::int64, outcome.count);
    download_bytes(left_out, outcome.keys, "copying the left positions to the host");
    download_bytes(right_out, outcome.values, "copying the right positions to the host");
    outcome.download_ms = ms_since(start);
  } catch (const corank::out_of_memory& e) {
    throw too_little_gpu_memory(e.what(), needs);
  }
  return outcome;
}

}  // namespace corank::cli
