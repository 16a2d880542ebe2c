// corank search and corank join on the CPU backend: corank::host's sorted searches and
// sort-merge join across threads, every dtype, timed with std::chrono.

#include "search_job.hpp"
#include "set_dispatch.hpp"

#include <corank/error.hpp>
#include <corank/host/check_sorted.hpp>
#include <corank/host/join.hpp>
#include <corank/host/search.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

namespace corank::cli {
namespace {

// Throws corank::unsorted_input naming A (or B) and the first index out of order.
template <class Key>
void check_sorted_columns(const column& a, const column& b) {
  const Key* keys[] = {a.as<Key>(), b.as<Key>()};
  const index_t sizes[] = {a.size(), b.size()};
  for (int i = 0; i < 2; ++i) {
    const index_t at = corank::host::find_unsorted(keys[i], keys[i] + sizes[i], key_order<Key>{});
    if (at < sizes[i]) throw corank::unsorted_input("the check", i == 0 ? 'A' : 'B', at);
  }
}

}  // namespace

job_outcome run_search_on_cpu(const search_job& job) {
  const unsigned threads = cpu_threads(job.threads);
  job_outcome outcome;
  outcome.where = cpu_backend_name(threads);
  const column& h = *job.haystack;
  const column& q = *job.queries;
  const bool flags = job.kind == search_kind::contains || job.kind == search_kind::not_contains;
  outcome.keys = column(flags ? dtype::bool_ : dtype::int64, q.size());
  visit_dtype(h.type(), [&](auto tag) {
    using Key = typename decltype(tag)::type;
    if (job.check_sorted) {
      const auto start = std::chrono::steady_clock::now();
      check_sorted_columns<Key>(h, q);
      outcome.check_ms = ms_since(start);
    }
    const Key* hay = h.as<Key>();
    const Key* queries = q.as<Key>();
    const key_order<Key> comp{};
    const auto start = std::chrono::steady_clock::now();
    using namespace corank::host;
    auto* positions = outcome.keys.as<std::int64_t>();
    auto* found = outcome.keys.as<bool>();
    switch (job.kind) {
      case search_kind::left:
        sorted_lower_bound(hay, hay + h.size(), queries, queries + q.size(), positions, comp, threads);
        break;
      case search_kind::right:
        sorted_upper_bound(hay, hay + h.size(), queries, queries + q.size(), positions, comp, threads);
        break;
      case search_kind::contains:
        sorted_contains(hay, hay + h.size(), queries, queries + q.size(), found, comp, threads);
        break;
      case search_kind::not_contains:
        sorted_not_contains(hay, hay + h.size(), queries, queries + q.size(), found, comp, threads);
        break;
    }
    outcome.compute_ms = ms_since(start);
  });
  outcome.count = q.size();
  return outcome;
}

job_outcome run_join_on_cpu(const join_job& job) {
  const unsigned threads = cpu_threads(job.threads);
  job_outcome outcome;
  outcome.where = cpu_backend_name(threads);
  const column& l = *job.left;
  const column& r = *job.right;
  visit_dtype(l.type(), [&](auto tag) {
    using Key = typename decltype(tag)::type;
    if (job.check_sorted) {
      const auto start = std::chrono::steady_clock::now();
      check_sorted_columns<Key>(l, r);
      outcome.check_ms = ms_since(start);
    }
    constexpr const char* name = "corank join";
    const Key* left = l.as<Key>();
    const Key* right = r.as<Key>();
    auto start = std::chrono::steady_clock::now();
    // The counts once, then the pairs from them.
    const host::detail::join_counts counts =
        host::detail::count_matches(name, left, left + l.size(), right, right + r.size(), key_order<Key>{}, threads);
    outcome.count = counts.offsets.back();
    outcome.compute_ms = ms_since(start);
    if (job.count_only) return;
    if (job.before_output) job.before_output(outcome.count);
    outcome.keys = column(dtype::int64, outcome.count);
    outcome.values = column(dtype::int64, outcome.count);
    start = std::chrono::steady_clock::now();
    host::detail::write_pairs(name, counts, outcome.keys.as<std::int64_t>(), outcome.values.as<std::int64_t>(),
                              threads);
    outcome.compute_ms += ms_since(start);
  });
  return outcome;
}

}  // namespace corank::cli
