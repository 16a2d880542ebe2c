// corank join on the GPU: upload both columns (keys mapped to their device type, which keeps
// which keys are equal: gpu_columns.hpp), check them, then corank::device's join in its two
// halves: sorted_join_count_and_keep (the number of pairs, with the bound pass's results kept
// in storage of ours), and, with the outputs sized by that and the columns freed,
// sorted_join_from_kept; --count: sorted_join_count, which keeps nothing. Times each step;
// the join's time is one run, CUDA's first-launch costs included (corank_search_bench
// measures steady-state throughput).

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

// The bytes the count keeps for the pairs.
template <class Key>
std::size_t join_kept_bytes(index_t m, index_t n) {
  std::size_t bytes = 0, kept_bytes = 0;
  const Key* none = nullptr;
  CORANK_TRY(device::sorted_join_count_and_keep(nullptr, bytes, nullptr, kept_bytes, none, m, none, n, nullptr,
                                                key_order<Key>{}),
             "sizing the join's kept counts");
  return kept_bytes;
}

// The number of pairs, with what the pairs come from left at `kept` (kept_bytes), where it
// is not null.
template <class Key>
index_t join_count(const Key* left, index_t m, const Key* right, index_t n, void* kept, std::size_t kept_bytes) {
  const key_order<Key> comp{};
  const auto count = [&](void* temp, std::size_t& bytes, index_t* word) {
    if (kept == nullptr) return device::sorted_join_count(temp, bytes, left, m, right, n, word, comp);
    std::size_t given = kept_bytes;
    return device::sorted_join_count_and_keep(temp, bytes, kept, given, left, m, right, n, word, comp);
  };
  std::size_t bytes = 0;
  CORANK_TRY(count(nullptr, bytes, nullptr), "sizing the join's temporary storage");
  const device_buffer temp(bytes + word_bytes, "allocating the join's temporary storage");
  auto* word = static_cast<index_t*>(temp.get());
  CORANK_TRY(count(static_cast<char*>(temp.get()) + word_bytes, bytes, word), "counting the join's pairs");
  index_t pairs = 0;
  CORANK_TRY(cudaMemcpy(&pairs, word, sizeof pairs, cudaMemcpyDeviceToHost), "counting the join's pairs");
  return pairs;
}

// The pairs from what join_count kept for columns of m and n Keys (not read: freed by then).
template <class Key>
void join_pairs(const void* kept, std::size_t kept_bytes, index_t m, index_t n, index_t pairs, std::int64_t* left_out,
                std::int64_t* right_out) {
  const Key* none = nullptr;
  std::size_t bytes = 0;
  CORANK_TRY(device::sorted_join_from_kept(nullptr, bytes, kept, kept_bytes, none, m, none, n, pairs, left_out,
                                           right_out, nullptr),
             "sizing the join's temporary storage");
  const device_buffer temp(bytes, "allocating the join's temporary storage");
  CORANK_TRY(device::sorted_join_from_kept(temp.get(), bytes, kept, kept_bytes, none, m, none, n, pairs, left_out,
                                           right_out, nullptr),
             "writing the join's pairs");
  CORANK_TRY(cudaDeviceSynchronize(), "writing the join's pairs");
}

}  // namespace

job_outcome run_join_on_gpu(const join_job& job) {
  const column& l = *job.left;
  const column& r = *job.right;
  const index_t m = l.size(), n = r.size();
  const dtype key_type = device_key_type(l.type());
  const double input_bytes = double(m + n) * double(dtype_size(key_type));
  std::string needs;

  job_outcome outcome;
  try {
    visit_key_and_payload(gpu_key_types{}, gpu_value_payloads{}, key_type, 0, [&](auto key_tag, auto) {
      using Key = typename decltype(key_tag)::type;
      const std::size_t kept_bytes = job.count_only ? 0 : join_kept_bytes<Key>(m, n);
      needs = job.count_only ? fmt::format("the inputs ({})", gib(input_bytes))
                             : fmt::format("the inputs ({}) and the kept counts ({})", gib(input_bytes),
                                           gib(double(kept_bytes)));
      const gpu_info gpu = describe_gpu();
      outcome.where = gpu.where;
      check_gpu_memory(gpu, input_bytes + double(kept_bytes), needs);

      auto start = std::chrono::steady_clock::now();
      device_buffer d_l = upload_keys(l, "copying LEFT to the GPU");
      device_buffer d_r = upload_keys(r, "copying RIGHT to the GPU");
      outcome.upload_ms = ms_since(start);
      if (job.check_sorted) {
        start = std::chrono::steady_clock::now();
        check_sorted_on_gpu(d_l.get(), m, d_r.get(), n, l.type());
        outcome.check_ms = ms_since(start);
      }
      const device_buffer kept(kept_bytes, "allocating the join's kept counts");

      CORANK_TRY(cudaDeviceSynchronize(), "before the join");
      start = std::chrono::steady_clock::now();
      outcome.count = join_count(static_cast<const Key*>(d_l.get()), m, static_cast<const Key*>(d_r.get()), n,
                                 kept.get(), kept_bytes);
      outcome.compute_ms = ms_since(start);
      if (outcome.count < 0) throw corank::unsorted_input("corank join");
      if (job.count_only) return;
      if (job.before_output) job.before_output(outcome.count);

      // The keys are no longer needed: their memory goes to the pairs.
      d_l = device_buffer();
      d_r = device_buffer();
      const double output_bytes = double(outcome.count) * 16.0;
      needs = fmt::format("the kept counts ({}) and the pairs ({})", gib(double(kept_bytes)), gib(output_bytes));
      check_gpu_memory(describe_gpu(), double(kept_bytes) + output_bytes, needs);
      const device_buffer left_out(std::size_t(outcome.count) * 8, "allocating the left positions");
      const device_buffer right_out(std::size_t(outcome.count) * 8, "allocating the right positions");
      start = std::chrono::steady_clock::now();
      join_pairs<Key>(kept.get(), kept_bytes, m, n, outcome.count, static_cast<std::int64_t*>(left_out.get()),
                      static_cast<std::int64_t*>(right_out.get()));
      outcome.compute_ms += ms_since(start);

      start = std::chrono::steady_clock::now();
      outcome.keys = column(dtype::int64, outcome.count);
      outcome.values = column(dtype::int64, outcome.count);
      download_bytes(left_out, outcome.keys, "copying the left positions to the host");
      download_bytes(right_out, outcome.values, "copying the right positions to the host");
      outcome.download_ms = ms_since(start);
    });
  } catch (const corank::out_of_memory& e) {
    throw too_little_gpu_memory(e.what(), needs);
  }
  return outcome;
}

}  // namespace corank::cli
