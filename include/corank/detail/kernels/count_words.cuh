#pragma once
// One-thread kernels that settle a form's count word (device memory, or the convenience
// forms' pinned host word) from the words its passes wrote: a negative word means a pass found the
// inputs out of order, and wins.

#include <corank/config.hpp>

namespace corank::detail {

// *count_out keeps the first pass's count unless the second's is negative
// (dispatch/two_pass_dispatch.cuh: sorted_count).
template <int = 0>
__global__ void keep_negative_count_kernel(index_t* count_out, const index_t* second) {
  if (*second < 0) *count_out = *second;
}

// The join's count (dispatch/join_dispatch.cuh): a word's negative verdict (the inputs found
// unsorted), else the number of pairs, *pairs (-1 where that is negative: the counts found
// them unsorted).
template <int = 0>
__global__ void join_count_kernel(index_t* count_out, const index_t* words, int passes, const index_t* pairs) {
  index_t count = *pairs < 0 ? -1 : *pairs;
  for (int w = 0; w < passes; ++w) count = words[w] < 0 ? words[w] : count;
  *count_out = count;
}

}  // namespace corank::detail
