#pragma once
// The block level of sorting and k-way merging: sorted runs that lie side by side in shared
// memory become one sorted run, in rounds of pairwise merges (run 2i with run 2i + 1, then
// pairs of those, ...). In each round every thread finds where its Items outputs start by a
// co-rank search in its pair and walks them serially, moving on to the next pair where one
// ends. Ties go to the left run, so the result is stable: equivalent keys in run order, each
// run in its own order. The block sort (each thread's sorted items are a run) and the k-way
// tile (each input run's window is a run) both end here.

#include <corank/co_rank.hpp>
#include <corank/config.hpp>

namespace corank::detail {

// The last i in [low, high] with starts[i] <= p, for nondecreasing starts and starts[low] <=
// p: where p falls among runs (empty ones skipped over), groups or samples.
template <class Index, class Value>
__device__ Index last_at_or_before(const Value* starts, Index low, Index high, Value p) {
  while (low < high) {
    const Index mid = low + (high - low + 1) / 2;
    if (starts[mid] <= p) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return low;
}

// Where sorted runs lie in a shared-memory buffer: run r is [starts[r], starts[r + 1]).
struct shared_runs {
  const int* starts;  // runs + 1 entries
  int runs;
  __device__ int total() const { return starts[runs]; }
  // The run that output p (< total()) falls in.
  __device__ int run_at(int p) const { return last_at_or_before(starts, 0, runs - 1, p); }
};

// Merges the runs held in keys[0] (values[0]) into one run, using keys[1] (values[1]) as the
// other buffer of each round; returns the buffer (0 or 1) that holds the result. Threads *
// Items is at least runs.total(). Values are moved with their keys where WithValues.
template <int Threads, int Items, bool WithValues, class Key, class Value, class Compare>
__device__ int block_merge_runs(Key* const (&keys)[2], Value* const (&values)[2], shared_runs in, Compare& comp) {
  const int total = in.total();
  int from = 0;
  for (int width = 1; width < in.runs; width *= 2, from ^= 1) {
    const Key* k_in = keys[from];
    Key* k_out = keys[from ^ 1];
    const int p0 = int(threadIdx.x) * Items;
    if (p0 < total) {
      // The pair of runs [first, middle) and [middle, last) that output p0 falls in.
      int first = in.run_at(p0) / (2 * width) * (2 * width);
      int middle = 0, last = 0, a = 0, b = 0, a_end = 0, b_end = 0;
      auto enter_pair = [&](int pair_first) {
        first = pair_first;
        middle = first + width < in.runs ? first + width : in.runs;
        last = first + 2 * width < in.runs ? first + 2 * width : in.runs;
        a = in.starts[first];
        a_end = b = in.starts[middle];
        b_end = in.starts[last];
      };
      enter_pair(first);
      {
        const int diagonal = p0 - a;
        const int taken_a = co_rank(diagonal, k_in + a, a_end - a, k_in + b, b_end - b, comp);
        b += diagonal - taken_a;
        a += taken_a;
      }
      CORANK_PRAGMA_UNROLL
      for (int s = 0; s < Items; ++s) {
        const int p = p0 + s;
        if (p >= total) break;
        while (p == b_end) enter_pair(last);  // the pair ended: the next one starts here
        const bool take_a = b == b_end || (a < a_end && !comp(k_in[b], k_in[a]));
        const int source = take_a ? a++ : b++;
        k_out[p] = k_in[source];
        if constexpr (WithValues) values[from ^ 1][p] = values[from][source];
      }
    }
    __syncthreads();
  }
  return from;
}

}  // namespace corank::detail
