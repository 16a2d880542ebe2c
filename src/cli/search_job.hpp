#pragma once
// What `corank search` and `corank join` (search_command.cpp) hand to a backend, and what they
// get back (job_outcome.hpp). The backends: search_cpu.cpp (corank::host on threads), and on
// the GPU search_gpu.cu and join_gpu.cu (corank::device's two-phase forms).
//
// Both take two sorted key columns of one dtype and write positions (int64) or flags (bool):
//   search   for each query, its bound in the haystack, or whether the haystack holds it
//   join     every pair (i, j) with left[i] equal to right[j]: i to the outcome's keys, j to
//            its values

#include "column.hpp"
#include "job_outcome.hpp"

#include <corank/config.hpp>

#include <functional>

namespace corank::cli {

// np.searchsorted(haystack, queries, side='left' | 'right'), np.isin(queries, haystack)
// and its invert=True.
enum class search_kind { left, right, contains, not_contains };

struct search_job {
  search_kind kind = search_kind::left;
  const column* haystack = nullptr;  // sorted (NaNs last for float keys)
  const column* queries = nullptr;   // sorted, of the haystack's dtype
  bool check_sorted = true;          // throws corank::unsorted_input: 'A' the haystack, 'B' the queries
  unsigned threads = 0;              // CPU backend; 0: every hardware thread
};

// The outcome's keys: one int64 position or one bool flag per query.
job_outcome run_search_on_cpu(const search_job& job);
job_outcome run_search_on_gpu(const search_job& job);

struct join_job {
  const column* left = nullptr;   // sorted (NaNs last for float keys)
  const column* right = nullptr;  // sorted, of left's dtype
  bool count_only = false;        // the number of pairs only; no output columns
  bool check_sorted = true;       // throws corank::unsorted_input: 'A' left, 'B' right
  unsigned threads = 0;           // CPU backend; 0: every hardware thread
  // Called with the number of pairs once it is known, before the outputs are allocated: the
  // command checks that they fit in host memory (it throws if not).
  std::function<void(index_t pairs)> before_output;
};

// The outcome's count: the number of pairs; its keys the pairs' int64 positions in left, its
// values those in right.
job_outcome run_join_on_cpu(const join_job& job);
job_outcome run_join_on_gpu(const join_job& job);

}  // namespace corank::cli
