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
#include <corank/detail/block/uninitialized_array.cuh>
#include <corank/detail/forms/merge_args.hpp>

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

// The two shared-memory buffers that the rounds alternate between, for keys and (where
// used) values. Passed by reference, never as pointers kept in an array, so that the
// compiler still sees shared memory behind them and uses shared loads and stores.
template <class Key, class Value, int Size>
struct merge_buffers {
  // A spare slot past the end, which the walks read (and never use) once a side is done.
  uninitialized_array<Key, Size + 1> keys[2];
  uninitialized_array<Value, is_used_v<Value> ? Size + 1 : 1> values[2];
};

// Merges the runs held in buffers.keys[0] (values[0]) into one run, using the other buffers
// in turn; returns the buffer (0 or 1) that holds the result. Threads * Items is at least
// runs.total(), and starts are nondecreasing (the caller checks its windows so). Values
// (unless `unused`) are moved with their keys.
// Whatever `comp` answers (unsorted runs, a comparator that is not a strict weak order),
// every read and write stays in [0, total] (the spare slot included): co_rank keeps a
// thread's split inside its pair, and each step takes the side that is not done, so a walk
// never passes either side's end; a thread writes its own Items positions only. The result
// is then unspecified but in bounds.
// Each thread keeps the next key of each side in registers, so an output costs one shared
// load (the side it advanced) and one store. RunsOfItems: every run but the last is a
// multiple of Items long (the block sort's), so a thread's outputs never span two pairs
// and take the unchecked walk. (On an H200 that walk made the block sort 15% faster but the
// k-way tiles, whose windows have any length, 17% slower: they keep the checked one.)
template <int Threads, int Items, bool RunsOfItems, class Key, class Value, int Size, class Compare>
__device__ int block_merge_runs(merge_buffers<Key, Value, Size>& buffers, shared_runs in, Compare& comp) {
  constexpr bool with_values = is_used_v<Value>;
  const int total = in.total();
  const int p0 = int(threadIdx.x) * Items;
  // Rounds merge unions of the same runs, so the run of p0 names its pair in every round.
  const int run = p0 < total ? in.run_at(p0) : 0;
  int from = 0;
  for (int width = 1; width < in.runs; width *= 2, from ^= 1) {
    const Key* k_in = buffers.keys[from].data();
    Key* k_out = buffers.keys[from ^ 1].data();
    if (p0 < total) {
      // The pair of runs [first, first + width) and [first + width, last) being walked: a
      // and b are the next positions of each, a_end == the pair's middle, b_end its end.
      int a = 0, a_end = 0, b = 0, b_end = 0, last = 0;
      auto enter_pair = [&](int first) {
        const int middle = first + width < in.runs ? first + width : in.runs;
        last = first + 2 * width < in.runs ? first + 2 * width : in.runs;
        a = in.starts[first];
        a_end = b = in.starts[middle];
        b_end = in.starts[last];
      };
      enter_pair(run & ~(2 * width - 1));  // width is a power of 2
      {
        const int diagonal = p0 - a;
        const int taken_a = co_rank(diagonal, k_in + a, a_end - a, k_in + b, b_end - b, comp);
        b += diagonal - taken_a;
        a += taken_a;
      }
      // Past a side's end the cached key is a stand-in, never used.
      auto load = [&](int i) { return k_in[i < total ? i : total - 1]; };
      Key key_a = load(a), key_b = load(b);
      if (RunsOfItems && p0 + Items <= b_end) {
        // Every output in this pair: no checks, and the buffers' spare slot (index total)
        // for the load past the end.
        CORANK_PRAGMA_UNROLL
        for (int s = 0; s < Items; ++s) {
          const bool take_b = b < b_end && (a == a_end || comp(key_b, key_a));
          k_out[p0 + s] = take_b ? key_b : key_a;
          if constexpr (with_values) buffers.values[from ^ 1][p0 + s] = buffers.values[from][take_b ? b : a];
          const Key loaded = k_in[take_b ? ++b : ++a];
          key_b = take_b ? loaded : key_b;
          key_a = take_b ? key_a : loaded;
        }
      } else {
        CORANK_PRAGMA_UNROLL
        for (int s = 0; s < Items; ++s) {
          const int p = p0 + s;
          if (p >= total) break;
          if (p == b_end) {  // the pair ended: the next one starts here
            while (p == b_end) enter_pair(last);
            key_a = load(a);
            key_b = load(b);
          }
          const bool take_b = b < b_end && (a == a_end || comp(key_b, key_a));
          k_out[p] = take_b ? key_b : key_a;
          if constexpr (with_values) buffers.values[from ^ 1][p] = buffers.values[from][take_b ? b : a];
          const int next = take_b ? ++b : ++a;
          const Key loaded = load(next);
          if (take_b) {
            key_b = loaded;
          } else {
            key_a = loaded;
          }
        }
      }
    }
    __syncthreads();
  }
  return from;
}

}  // namespace corank::detail
