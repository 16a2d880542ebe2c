#pragma once
// What the set commands (set_command.cpp) hand to a backend, and what they get back
// (job_outcome.hpp). The backends: set_cpu.cpp (corank::host on threads) and set_gpu.cu
// (corank on the GPU).
//
// Values are only moved, never compared, so a backend sees them as unsigned payloads of
// their width whatever their dtype: the by-key forms compile for one value type per width
// instead of one per dtype.

#include "column.hpp"
#include "job_outcome.hpp"

#include <corank/config.hpp>
#include <corank/error.hpp>

namespace corank::cli {

enum class set_operation { merge, set_union, set_intersection, set_difference, set_symmetric_difference };

struct set_job {
  set_operation operation = set_operation::merge;
  const column* a = nullptr;  // keys, sorted (NaNs last for float keys)
  const column* b = nullptr;  // same dtype as a
  const column* a_values = nullptr;  // optional: a->size() elements of any dtype
  const column* b_values = nullptr;  // same dtype as a_values, b->size() of them
  // Segmented (segments.hpp): S + 1 int64 offsets of A and of B, checked; a and b are then
  // sorted segment by segment, and the outcome's `segments` gets the output's S + 1 offsets
  // (count_only: the S segments' sizes). Null: one pair of inputs.
  const column* a_offsets = nullptr;
  const column* b_offsets = nullptr;
  bool count_only = false;           // the output size only; no output columns
  bool check_sorted = true;          // throws corank::unsorted_input naming 'A' or 'B' and the index
  unsigned threads = 0;              // CPU backend; 0: every hardware thread

  bool segmented() const { return a_offsets != nullptr; }
  index_t segments() const { return segmented() ? a_offsets->size() - 1 : 0; }
  // The S + 1 output offsets, or the S sizes.
  index_t segments_out_size() const { return segmented() ? segments() + (count_only ? 0 : 1) : 0; }
};

using set_outcome = job_outcome;

// The most outputs the operation can write: m + n for merge, union and symmetric
// difference, min(m, n) for intersection, m for difference.
inline index_t output_bound(set_operation op, index_t m, index_t n) {
  switch (op) {
    case set_operation::set_intersection: return m < n ? m : n;
    case set_operation::set_difference: return m;
    default: return m + n;
  }
}

// A size the operation cannot have (negative, or past its bound) comes only from unsorted
// inputs: throws corank::unsorted_input (which input and where unknown) before it sizes
// anything.
inline void check_output_size(const set_job& job, index_t count) {
  if (count < 0 || count > output_bound(job.operation, job.a->size(), job.b->size())) {
    throw corank::unsorted_input("the operation's output size");
  }
}

set_outcome run_set_job_on_cpu(const set_job& job);
set_outcome run_set_job_on_gpu(const set_job& job);

}  // namespace corank::cli
