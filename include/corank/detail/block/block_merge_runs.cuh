#pragma once
// The block level of sorting and k-way merging: sorted runs that lie side by side in shared
// memory become one sorted run, in rounds of pairwise merges (run 2i with run 2i + 1, then
// pairs of those, ...). In each round every pair's outputs are cut into pieces of Items, a
// thread a piece: the thread finds where its piece starts by a co-rank search in its pair and
// walks it serially. Ties go to the left run, so the result is stable: equivalent keys in run
// order, each run in its own order. The block sort (each thread's sorted items are a run) and
// the k-way tile (each input run's window is a run) both end here.
//
// A piece never spans two pairs, so the walk checks nothing but the two sides' ends and, for a
// pair's last piece, which of its Items outputs exist: a step is about 13 instructions.
// Where the runs are whole threads' items (the block sort), thread t's piece is the one
// at t * Items; otherwise pair_threads (plan_pair_threads) says how many pieces each pair has.

#include <corank/config.hpp>
#include <corank/detail/block/uninitialized_array.cuh>
#include <corank/detail/forms/merge_args.hpp>

namespace corank::detail {

// The last i in [low, high] with starts[i] <= p, for nondecreasing starts and starts[low] <=
// p: where p falls among runs (empty ones skipped over), groups, samples or pieces.
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
// Spare: slots past the end that a walk reads and never uses (the right side's head once it
// is done, and the left side's beyond its end once both are).
template <class Key, class Value, int Size, int Spare>
struct merge_buffers {
  uninitialized_array<Key, Size + Spare> keys[2];
  uninitialized_array<Value, is_used_v<Value> ? Size + Spare : 1> values[2];
};

// Entries of pair_threads for `runs` runs: each round's pairs + 1 (fewer than 2 * runs).
__host__ __device__ constexpr int pair_threads_size(int runs) { return 2 * runs; }

// By one warp, for runs <= 64: for every round (width 1, 2, 4, ...), the pieces of Items
// outputs before each of its pairs and their total, one round after the other in
// pair_threads (pairs + 1 entries a round). A __syncthreads before the rounds read it.
template <int Items>
__device__ void plan_pair_threads(shared_runs in, int* pair_threads) {
  constexpr unsigned all = 0xffffffffu;
  const int lane = int(threadIdx.x % 32);
  int at = 0;
  for (int width = 1; width < in.runs; width *= 2) {
    const int span = 2 * width, pairs = (in.runs + span - 1) / span;  // at most 32
    int pieces = 0;
    if (lane < pairs) {
      const int last = (lane + 1) * span < in.runs ? (lane + 1) * span : in.runs;
      pieces = (in.starts[last] - in.starts[lane * span] + Items - 1) / Items;
    }
    CORANK_PRAGMA_UNROLL
    for (int d = 1; d < 32; d *= 2) {
      const int x = __shfl_up_sync(all, pieces, d);
      if (lane >= d) pieces += x;
    }
    if (lane == 0) pair_threads[at] = 0;
    if (lane < pairs) pair_threads[at + 1 + lane] = pieces;
    at += pairs + 1;
  }
}

// The co-rank of `diagonal` in the pair of runs [a, a_end) and [a_end, b_end) of `keys`, as
// co_rank's: the outputs before it take this many from the left run. `lo + hi` cannot
// overflow (positions in shared memory).
template <class Key, class Compare>
__device__ __forceinline__ int pair_co_rank(const Key* keys, int a, int a_end, int b_end, int diagonal,
                                            Compare& comp) {
  int lo = diagonal - (b_end - a_end) > 0 ? diagonal - (b_end - a_end) : 0;
  int hi = diagonal < a_end - a ? diagonal : a_end - a;
  const Key* left = keys + a;
  const Key* right = keys + a_end + diagonal - 1;  // right[-i]: the right run's element diagonal - 1 - i
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (comp(right[-mid], left[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// One piece: outputs [p, p + count) of the pair whose left run is [a, a_end) and right run
// [a_end, b_end), from k_in (v_in) to k_out (v_out), starting `taken_a` into the left run.
// Checked: count may be below Items (the pair's last piece, or past the data).
// One counter walks both sides: u, the right side's outputs so far plus the left side's
// remaining length, says the left side is done where u <= s (s outputs made) and the right
// one where u >= both sides' remaining length; the heads are k_in[left_at + s - u] and
// k_in[right_at + u]. Every load stays below b_end + Items (the buffers' Spare), whatever
// `comp` answers: a step takes the right side only where it is not done, and the left one
// goes on past its end only once both are.
template <int Items, bool Checked, class Key, class Value, class Compare>
__device__ __forceinline__ void merge_piece(const Key* k_in, Key* k_out, const Value* v_in, Value* v_out, int p,
                                            int count, int a, int a_end, int b_end, int taken_a, Compare& comp) {
  const int taken_b = p - a - taken_a;
  const int left = a_end - a - taken_a, both = left + b_end - a_end - taken_b;
  const int left_at = a_end, right_at = a_end + taken_b - left;
  int u = left;
  Key key_a = k_in[a + taken_a], key_b = k_in[a_end + taken_b];
  CORANK_PRAGMA_UNROLL
  for (int s = 0; s < Items; ++s) {
    const bool take_b = u < both && (u <= s || comp(key_b, key_a));
    if (!Checked || s < count) {
      k_out[p + s] = take_b ? key_b : key_a;
      if constexpr (is_used_v<Value>) v_out[p + s] = v_in[take_b ? right_at + u : left_at + s - u];
    }
    u += take_b ? 1 : 0;
    const Key loaded = k_in[take_b ? right_at + u : left_at + s + 1 - u];
    key_b = take_b ? loaded : key_b;
    key_a = take_b ? key_a : loaded;
  }
}

// The rounds of block_merge_runs; Checked as merge_piece's.
template <int Threads, int Items, bool RunsOfItems, bool Checked, class Key, class Value, int Size, int Spare,
          class Compare>
__device__ int merge_rounds(merge_buffers<Key, Value, Size, Spare>& buffers, shared_runs in, const int* pair_threads,
                            Compare& comp) {
  int from = 0;
  for (int shift = 0; (1 << shift) < in.runs; ++shift, from ^= 1) {
    // Pairs of 2 * width input runs: pair i is input runs [2i, 2i + 2) * width.
    const int width = 1 << shift, pairs = (in.runs + 2 * width - 1) >> (shift + 1);
    const int pieces = RunsOfItems ? Threads : pair_threads[pairs];
    for (int v = int(threadIdx.x); v < pieces; v += Threads) {
      // Piece v's pair and first output.
      int pair = 0, p = 0;
      if constexpr (RunsOfItems) {
        pair = v >> (shift + 1);
        p = v * Items;
      } else {
        pair = last_at_or_before(pair_threads, 0, pairs - 1, v);
      }
      const int first = pair << (shift + 1);
      const int middle = first + width < in.runs ? first + width : in.runs;
      const int last = first + 2 * width < in.runs ? first + 2 * width : in.runs;
      const int a = in.starts[first], a_end = in.starts[middle], b_end = in.starts[last];
      if constexpr (!RunsOfItems) p = a + (v - pair_threads[pair]) * Items;
      const int count = b_end - p < Items ? b_end - p : Items;
      if (Checked && count <= 0) continue;  // the block sort's threads past the data
      const int taken_a = pair_co_rank(buffers.keys[from].data(), a, a_end, b_end, p - a, comp);
      merge_piece<Items, Checked>(buffers.keys[from].data(), buffers.keys[from ^ 1].data(),
                                  buffers.values[from].data(), buffers.values[from ^ 1].data(), p, count, a, a_end,
                                  b_end, taken_a, comp);
    }
    if constexpr (!RunsOfItems) pair_threads += pairs + 1;
    __syncthreads();
  }
  return from;
}

// Merges the runs held in buffers.keys[0] (values[0]) into one run, using the other buffers
// in turn; returns the buffer (0 or 1) that holds the result. starts are nondecreasing (the
// caller checks its windows so) and total() <= Size; Spare >= Items. RunsOfItems: exactly
// Threads runs, run t starting at min(t * Items, total) (the block sort's); otherwise
// pair_threads holds plan_pair_threads' plan. Values (unless `unused`) move with their keys.
// Whatever `comp` answers (unsorted runs, a comparator that is not a strict weak order),
// every read stays in the buffers (merge_piece) and every write inside [0, total), each
// output by one thread: co_rank keeps a piece's start inside its pair, and pieces partition
// the outputs. The result is then unspecified but in bounds.
template <int Threads, int Items, bool RunsOfItems, class Key, class Value, int Size, int Spare, class Compare>
__device__ int block_merge_runs(merge_buffers<Key, Value, Size, Spare>& buffers, shared_runs in,
                                const int* pair_threads, Compare& comp) {
  static_assert(Spare >= Items, "a walk reads up to Items past its pair's end");
  // The block sort's tiles are full but for the grid's last: only that one checks counts.
  if (RunsOfItems && in.total() == Threads * Items)
    return merge_rounds<Threads, Items, RunsOfItems, false>(buffers, in, pair_threads, comp);
  return merge_rounds<Threads, Items, RunsOfItems, true>(buffers, in, pair_threads, comp);
}

}  // namespace corank::detail
