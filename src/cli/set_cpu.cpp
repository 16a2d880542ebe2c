// The set commands on the CPU backend: corank::host across threads, the segmented forms too
// (segments.hpp), timed with std::chrono.

#include "segments.hpp"
#include "set_dispatch.hpp"
#include "set_job.hpp"

#include <corank/error.hpp>
#include <corank/host/check_sorted.hpp>
#include <corank/host/merge.hpp>
#include <corank/host/segmented.hpp>
#include <corank/host/set_operations.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace corank::cli {
namespace {

// A merge's output size needs no work.
const auto merge_count = [](auto a, auto a_end, auto b, auto b_end, auto, auto) {
  return index_t((a_end - a) + (b_end - b));
};

index_t run_on_host(set_operation op, const operation_operands& o, unsigned threads) {
  using namespace corank::host;
  const auto run = [&](auto runners) {
    return run_operation(all_key_types{}, all_value_payloads{}, runners, o, threads);
  };
  switch (op) {
    case set_operation::merge:
      return run(operation_runners{[](auto... x) { return merge(x...); }, [](auto... x) { return merge_by_key(x...); },
                                   merge_count});
    case set_operation::set_union: return run(operation_runners{set_union, set_union_by_key, set_union_count});
    case set_operation::set_intersection:
      return run(operation_runners{set_intersection, set_intersection_by_key, set_intersection_count});
    case set_operation::set_difference:
      return run(operation_runners{set_difference, set_difference_by_key, set_difference_count});
    case set_operation::set_symmetric_difference: break;
  }
  return run(
      operation_runners{set_symmetric_difference, set_symmetric_difference_by_key, set_symmetric_difference_count});
}

index_t run_segmented_on_host(set_operation op, const operation_operands& o, unsigned threads) {
  using namespace corank::host;
  const auto run = [&](auto keys, auto by_key, auto count) {
    return run_operation(all_key_types{}, all_value_payloads{}, segmented_runners(keys, by_key, count, o), o, threads);
  };
  switch (op) {
    case set_operation::merge: return run(segmented_merge, segmented_merge_by_key, segmented_merge_size);
    case set_operation::set_union:
      return run(segmented_set_union, segmented_set_union_by_key, segmented_set_union_count);
    case set_operation::set_intersection:
      return run(segmented_set_intersection, segmented_set_intersection_by_key, segmented_set_intersection_count);
    case set_operation::set_difference:
      return run(segmented_set_difference, segmented_set_difference_by_key, segmented_set_difference_count);
    case set_operation::set_symmetric_difference: break;
  }
  return run(segmented_set_symmetric_difference, segmented_set_symmetric_difference_by_key,
             segmented_set_symmetric_difference_count);
}

// Each segment of A, then of B, sorted: throws corank::unsorted_input as check_sorted does.
void check_sorted_in_segments(const set_job& job) {
  visit_dtype(job.a->type(), [&](auto tag) {
    using Key = typename decltype(tag)::type;
    const index_t a_at = find_unsorted_in_segments(job.a->as<Key>(), *job.a_offsets, key_order<Key>{});
    if (a_at < job.a->size()) throw corank::unsorted_input("the segmented check", 'A', a_at);
    const index_t b_at = find_unsorted_in_segments(job.b->as<Key>(), *job.b_offsets, key_order<Key>{});
    if (b_at < job.b->size()) throw corank::unsorted_input("the segmented check", 'B', b_at);
  });
}

}  // namespace

set_outcome run_set_job_on_cpu(const set_job& job) {
  const unsigned threads = cpu_threads(job.threads);
  set_outcome outcome;
  outcome.where = cpu_backend_name(threads);
  const column& a = *job.a;
  const column& b = *job.b;

  if (job.check_sorted && job.segmented()) {
    const auto start = std::chrono::steady_clock::now();
    check_sorted_in_segments(job);
    outcome.check_ms = ms_since(start);
  } else if (job.check_sorted) {
    const auto start = std::chrono::steady_clock::now();
    visit_dtype(a.type(), [&](auto tag) {
      using Key = typename decltype(tag)::type;
      corank::host::check_sorted(a.as<Key>(), a.as<Key>() + a.size(), b.as<Key>(), b.as<Key>() + b.size(),
                                 key_order<Key>{});
    });
    outcome.check_ms = ms_since(start);
  }

  operation_operands o;
  o.key_type = a.type();
  o.a = a.data();
  o.size_a = a.size();
  o.b = b.data();
  o.size_b = b.size();
  o.count_only = job.count_only;
  if (job.a_values != nullptr) {
    o.value_bytes = dtype_size(job.a_values->type());
    o.a_values = job.a_values->data();
    o.b_values = job.b_values->data();
  }
  if (!job.count_only) {
    const index_t bound = output_bound(job.operation, a.size(), b.size());
    outcome.keys = column(a.type(), bound);
    o.keys_out = outcome.keys.data();
    if (job.a_values != nullptr) {
      outcome.values = column(job.a_values->type(), bound);
      o.values_out = outcome.values.data();
    }
  }
  if (job.segmented()) {
    o.a_offsets = job.a_offsets->as<std::int64_t>();
    o.b_offsets = job.b_offsets->as<std::int64_t>();
    o.segments = job.segments();
    outcome.segments = column(dtype::int64, job.segments_out_size());
    o.segments_out = outcome.segments.as<std::int64_t>();
  }
  const auto start = std::chrono::steady_clock::now();
  outcome.count = job.segmented() ? run_segmented_on_host(job.operation, o, threads)
                                  : run_on_host(job.operation, o, threads);
  outcome.compute_ms = ms_since(start);
  check_output_size(job, outcome.count);
  outcome.keys.shrink(outcome.count);
  outcome.values.shrink(outcome.count);
  return outcome;
}

}  // namespace corank::cli
