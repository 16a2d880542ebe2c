// The multiway commands on the CPU backend: corank::host's k-way merge (merge_run_list) and
// stable sort across threads, timed with std::chrono.

#include "multiway_job.hpp"
#include "set_dispatch.hpp"

#include <corank/host/check_sorted.hpp>
#include <corank/host/merge_runs.hpp>
#include <corank/host/sort.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <type_traits>

namespace corank::cli {

job_outcome run_merge_runs_on_cpu(const merge_runs_job& job) {
  const unsigned threads = cpu_threads(job.threads);
  const bool with_values = !job.values.empty();
  job_outcome outcome;
  outcome.where = cpu_backend_name(threads);

  if (job.check_sorted) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t r = 0; r < job.keys.size(); ++r) {
      const column& run = *job.keys[r];
      visit_dtype(run.type(), [&](auto tag) {
        using Key = typename decltype(tag)::type;
        const index_t at = corank::host::find_unsorted(run.as<Key>(), run.as<Key>() + run.size(), key_order<Key>{});
        if (at < run.size()) throw unsorted_run(r, at);
      });
    }
    outcome.check_ms = ms_since(start);
  }

  std::vector<index_t> sizes;
  index_t total = 0;
  for (const column* run : job.keys) sizes.push_back(run->size()), total += run->size();
  outcome.keys = column(job.keys.front()->type(), total);
  if (with_values) outcome.values = column(job.values.front()->type(), total);

  const auto start = std::chrono::steady_clock::now();
  const std::size_t value_bytes = with_values ? dtype_size(job.values.front()->type()) : 0;
  visit_key_and_payload(all_key_types{}, all_value_payloads{}, outcome.keys.type(), value_bytes,
                        [&](auto key_tag, auto value_tag) {
                          using Key = typename decltype(key_tag)::type;
                          using Value = typename decltype(value_tag)::type;
                          std::vector<const Key*> keys;
                          for (const column* run : job.keys) keys.push_back(run->as<Key>());
                          const index_t runs = index_t(keys.size());
                          if constexpr (std::is_void_v<Value>) {
                            corank::host::merge_run_list(keys.data(), sizes.data(), runs, outcome.keys.as<Key>(),
                                                         key_order<Key>{}, threads);
                          } else {
                            std::vector<const Value*> values;
                            for (const column* run : job.values) values.push_back(run->as<Value>());
                            corank::host::merge_run_list_by_key(keys.data(), values.data(), sizes.data(), runs,
                                                                outcome.keys.as<Key>(), outcome.values.as<Value>(),
                                                                key_order<Key>{}, threads);
                          }
                        });
  outcome.compute_ms = ms_since(start);
  outcome.count = total;
  return outcome;
}

job_outcome run_sort_on_cpu(sort_job job) {
  const unsigned threads = cpu_threads(job.threads);
  job_outcome outcome;
  outcome.where = cpu_backend_name(threads);
  const index_t n = job.keys.size();

  const std::size_t value_bytes = job.with_values ? dtype_size(job.values.type()) : 0;
  const auto start = std::chrono::steady_clock::now();
  visit_key_and_payload(all_key_types{}, all_value_payloads{}, job.keys.type(), value_bytes,
                        [&](auto key_tag, auto value_tag) {
                          using Key = typename decltype(key_tag)::type;
                          using Value = typename decltype(value_tag)::type;
                          Key* first = job.keys.as<Key>();
                          if constexpr (std::is_void_v<Value>) {
                            corank::host::stable_sort(first, first + n, key_order<Key>{}, threads);
                          } else {
                            corank::host::stable_sort_by_key(first, first + n, job.values.as<Value>(),
                                                             key_order<Key>{}, threads);
                          }
                        });
  outcome.compute_ms = ms_since(start);
  outcome.count = n;
  outcome.keys = std::move(job.keys);
  outcome.values = std::move(job.values);
  return outcome;
}

double merge_runs_host_buffer_bytes(bool on_gpu, const std::vector<index_t>& run_sizes, std::size_t element_bytes) {
  const index_t nonempty = index_t(std::count_if(run_sizes.begin(), run_sizes.end(), [](index_t n) { return n > 0; }));
  if (on_gpu || nonempty < 3) return 0;
  index_t total = 0;
  for (const index_t n : run_sizes) total += n;
  return double(total) * double(element_bytes);
}

double sort_host_buffer_bytes(bool on_gpu, index_t size, std::size_t key_bytes, std::size_t value_bytes) {
  if (on_gpu) return 0;
  // A buffer of the data for the merges, and std::stable_sort's half a piece for each
  // piece; with values the pieces are sorted as (key, value) pairs, all at once.
  const double n = double(size);
  if (value_bytes == 0) return 1.5 * n * double(key_bytes);
  const std::size_t align = std::max(key_bytes, value_bytes);
  const std::size_t pair_bytes = (key_bytes + value_bytes + align - 1) / align * align;
  return n * double(key_bytes + value_bytes) + 1.5 * n * double(pair_bytes);
}

}  // namespace corank::cli
