// corank search on the GPU: upload both columns (keys mapped to their device type, which
// keeps their order: gpu_columns.hpp), check them, run corank::device's sorted search, and
// download the positions or flags. Times each step; the search's time is one run, CUDA's
// first-launch costs included (corank_search_bench measures steady-state throughput).

#include "gpu_columns.hpp"
#include "search_job.hpp"
#include "set_gpu_ops.hpp"

#include <corank/error.hpp>
#include <corank/search.cuh>

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace corank::cli {
namespace {

// The two-phase search of `kind`: m answers into out, and the count word (negative: the
// kernels found the inputs unsorted).
template <class Key>
cudaError_t search(search_kind kind, void* temp, std::size_t& bytes, const Key* haystack, index_t n,
                   const Key* queries, index_t m, void* out, index_t* count) {
  const key_order<Key> comp{};
  switch (kind) {
    case search_kind::left:
      return device::sorted_lower_bound(temp, bytes, haystack, n, queries, m, static_cast<std::int64_t*>(out), count,
                                        comp);
    case search_kind::right:
      return device::sorted_upper_bound(temp, bytes, haystack, n, queries, m, static_cast<std::int64_t*>(out), count,
                                        comp);
    case search_kind::contains:
      return device::sorted_contains(temp, bytes, haystack, n, queries, m, static_cast<bool*>(out), count, comp);
    case search_kind::not_contains: break;
  }
  return device::sorted_not_contains(temp, bytes, haystack, n, queries, m, static_cast<bool*>(out), count, comp);
}

}  // namespace

job_outcome run_search_on_gpu(const search_job& job) {
  const column& h = *job.haystack;
  const column& q = *job.queries;
  const dtype key_type = device_key_type(h.type());
  const bool flags = job.kind == search_kind::contains || job.kind == search_kind::not_contains;
  const double input_bytes = double(h.size() + q.size()) * double(dtype_size(key_type));
  const double output_bytes = double(q.size()) * (flags ? 1.0 : 8.0);
  const std::string needs = fmt::format("the inputs ({}) and the output ({})", gib(input_bytes), gib(output_bytes));

  job_outcome outcome;
  try {
    const gpu_info gpu = describe_gpu();
    outcome.where = gpu.where;
    check_gpu_memory(gpu, input_bytes + output_bytes, needs);

    auto start = std::chrono::steady_clock::now();
    const device_buffer d_h = upload_keys(h, "copying A to the GPU");
    const device_buffer d_q = upload_keys(q, "copying V to the GPU");
    outcome.upload_ms = ms_since(start);
    if (job.check_sorted) {
      start = std::chrono::steady_clock::now();
      check_sorted_on_gpu(d_h.get(), h.size(), d_q.get(), q.size(), h.type());
      outcome.check_ms = ms_since(start);
    }
    device_buffer out(std::size_t(output_bytes), "allocating the output");

    CORANK_TRY(cudaDeviceSynchronize(), "before the search");
    start = std::chrono::steady_clock::now();
    index_t count = 0;
    visit_key_and_payload(gpu_key_types{}, gpu_value_payloads{}, key_type, 0, [&](auto key_tag, auto) {
      using Key = typename decltype(key_tag)::type;
      const auto* hay = static_cast<const Key*>(d_h.get());
      const auto* queries = static_cast<const Key*>(d_q.get());
      std::size_t bytes = 0;
      CORANK_TRY(search<Key>(job.kind, nullptr, bytes, hay, h.size(), queries, q.size(), out.get(), nullptr),
                 "sizing the search's temporary storage");
      // The count word first, then the search's storage.
      const device_buffer temp(bytes + 256, "allocating the search's temporary storage");
      auto* word = static_cast<index_t*>(temp.get());
      CORANK_TRY(search<Key>(job.kind, static_cast<char*>(temp.get()) + 256, bytes, hay, h.size(), queries, q.size(),
                             out.get(), word),
                 "running the search");
      CORANK_TRY(cudaMemcpy(&count, word, sizeof count, cudaMemcpyDeviceToHost), "running the search");
    });
    outcome.compute_ms = ms_since(start);
    if (count < 0) throw corank::unsorted_input("corank search");

    start = std::chrono::steady_clock::now();
    outcome.keys = column(flags ? dtype::bool_ : dtype::int64, q.size());
    download_bytes(out, outcome.keys, "copying the output to the host");
    outcome.download_ms = ms_since(start);
  } catch (const corank::out_of_memory& e) {
    throw too_little_gpu_memory(e.what(), needs);
  }
  outcome.count = q.size();
  return outcome;
}

}  // namespace corank::cli
