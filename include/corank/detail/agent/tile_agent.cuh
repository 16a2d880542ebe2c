#pragma once
// The tile agent: what a block does with one tile of an operation, whichever kernel drives
// it. A tile is a stretch of the op's path (merge path or balanced path: the Rule) whose
// input windows, A[begin.a, end.a) and B[begin.b, end.b), the block
//   1. stages into a shared-memory buffer (stage_window.cuh: bulk copies, cp.async or
//      registers, best first),
//   2. walks: each thread finds its piece by the rule's search in shared memory and walks it
//      with the op, unrolled into registers (block_walk.cuh), then gathers the values its
//      steps wrote,
//   3. counts: where each thread's outputs go in the tile and how many the tile writes,
//   4. compacts the outputs into the buffer (they take the windows' place), and
//   5. stores them, coalesced, at the tile's offset in the output.
// Segmented operations (segmented_args.hpp): a tile inside one segment is walked as above.
// Elsewhere the block stages where the tile's segments start, once per tile, and each thread
// walks plain keys between its segment's ends (segment_starts.cuh); the set operations and
// the count-only forms also label each output with the start its walk was in
// (segment_outputs.cuh). The rest is the same.
// The drivers (tile_kernels.cuh) decide which tiles a block takes, where the tile boundaries
// come from and how a tile finds its output offset. Keys, key-value pairs, B's matched values
// (paired forms), the searches' B positions and matches (b_step_values.hpp, computed from the
// walk) and count-only forms differ only in what Args carries.
//
// Unsorted inputs (a precondition broken, or a comparator that is not a strict weak order)
// must not make a tile read or write outside its inputs, buffers or outputs. Sorted inputs
// give boundaries that lie inside the inputs and never go backwards, and pieces that chain
// from the tile's start to its end; then every step consumes an element, the tile writes at
// most its window, and the op's bound on the whole output holds (intersection min(m, n),
// difference m) whatever the keys. The agent checks exactly that, at a few comparisons per
// tile and thread: a tile whose boundaries are out of order is not staged, and one whose
// pieces go backwards or whose count passes its window is not `consistent`; the drivers then
// poison the look-back (look_back.cuh), so that neither it nor any later tile stores, and the
// size written is negative: "the inputs are not sorted".

#include <corank/detail/block/look_back.cuh>
#include <corank/detail/block/segment_outputs.cuh>
#include <corank/detail/block/segment_starts.cuh>
#include <corank/detail/block/stage_window.cuh>
#include <corank/detail/block/store_tile.cuh>
#include <corank/detail/block/uninitialized_array.cuh>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/rules/partition_rule.hpp>
#include <corank/detail/thread/action_bits.hpp>
#include <corank/detail/thread/block_walk.cuh>
#include <corank/detail/thread/gallop.hpp>

#include <cub/block/block_scan.cuh>

#include <type_traits>

namespace corank::detail {

template <class Policy, class Rule, class Op, class Args, class Compare>
class tile_agent {
 public:
  using key_type = typename Args::key_type;
  using value_type = typename Args::value_type;
  using values_b_type = decltype(Args::values_b);
  // What a step keeps for B's value output: the paired forms' B value, or, for the searches
  // (b_step_values.hpp), B's position in the tile's window, from which the store computes
  // what they write.
  using b_value_type =
      std::conditional_t<Args::computes_b_values, std::uint32_t, typename Args::b_value_type>;
  static constexpr bool with_values = Args::with_values;
  // Where each step's elements lie in the windows is recorded for values, A's or B's, read or
  // computed (b_step_values.hpp).
  static constexpr bool records_sources = with_values || Args::writes_b_values;
  static constexpr bool known_size = Op::output_size_is_input_size;
  // Ops that write each of A's elements once, in order (the sorted search): a tile's outputs
  // go to its A window's start, found without a look-back (tile_kernel).
  static constexpr bool in_place = writes_a_in_place_v<Op>;
  static_assert(!Args::computes_b_values || in_place, "the searches' B values are written in place");
  // The join's bound pass (b_runs): B's window is staged run_lookahead elements further, and
  // the elements before both windows, for its checks of the order.
  static constexpr bool counts_runs = std::is_same_v<values_b_type, b_runs>;
  static constexpr int lookahead = counts_runs ? run_lookahead : 0;
  static_assert(!counts_runs || Policy::items_per_tile + 2 + run_lookahead < (1 << 16),
                "b_runs writes a bound as its position in the B window in 16 bits");
  static constexpr bool segmented = Args::segmented;
  // Segmented forms whose outputs are not the path itself (set operations, count-only
  // forms) label each output with its segment where a tile spans segments; merges that
  // write take their offsets from the segments' starts.
  static constexpr bool labels_outputs = segmented && !(known_size && Args::writes_keys);
  static constexpr int threads = Policy::threads_per_block;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int steps = Rule::steps(items);
  // A tile's window is items_per_tile + 1 long at most (a balanced boundary moves back one
  // step); staging adds the slots before each side's window and partial lines.
  static constexpr int window_capacity = Policy::items_per_tile + 2;
  using block_scan = cub::BlockScan<int, threads, cub::BLOCK_SCAN_WARP_SCANS>;
  static_assert(!segmented || window_capacity < (1 << 16), "segment starts and output labels hold a window index in 16 bits");
  // Segmented: the starts a thread may begin in, per round, and the starts staged per round
  // (those, and the ones a walk passes). A quarter of the window: the merge tile then fits
  // as many blocks per SM as the registers allow (4 of 256 threads for int32 keys, against 3
  // with a start per element); only segments shorter than 4 on average take more rounds.
  static constexpr int starts_per_round = window_capacity / 4;
  static constexpr int start_slots = starts_per_round + steps + 2;
  // The inputs the op writes nothing for alone (intersection: both; difference: B), where
  // the persistent driver skips tiles that take from those alone (writes_nothing); for the
  // other ops the test is not compiled.
  static constexpr silent_inputs silent = silent_inputs_v<Op>;
  static constexpr bool skips_silent_tiles = (silent.a || silent.b) && !known_size && !in_place && !segmented;

  // A tile's windows, then its outputs until they are stored.
  struct buffer {
    uninitialized_array<key_type, window_capacity + staging_slack<key_type> + lookahead> keys;
    uninitialized_array<value_type, with_values ? window_capacity + staging_slack<value_type> : 1> values;
    uninitialized_array<b_value_type, Args::writes_b_values ? window_capacity : 1> b_values;
    // Segmented: the starts of the tile's segments (segment_starts.cuh); forms that label
    // their outputs (segment_outputs.cuh), the compacted outputs' labels.
    uninitialized_array<segment_start, segmented ? start_slots : 1> starts;
    std::conditional_t<segmented, typename block_scan::TempStorage, char> starts_scan;
    std::conditional_t<labels_outputs, uninitialized_array<output_label, window_capacity>, char> output_labels;
  };

  // Shared memory the agent needs besides its buffers.
  struct workspace {
    split<int> splits[threads + 1];  // the threads' pieces, for rules whose pieces end at their neighbour's start
    typename block_scan::TempStorage scan;
    index_t tile_offset;
    index_t warp_sums[counts_runs ? threads / 32 : 1];  // b_runs: the tile's runs, a sum per warp
    // b_runs: where B's runs of equivalent elements start in its staged elements, a bit each
    // (store_in_place), with room for the staged end's bit and a word read past it.
    std::uint32_t b_run_starts[counts_runs ? (window_capacity + lookahead + 1) / 32 + 2 : 1];
  };

  // A thread's part of one tile, in registers.
  struct tile {
    split<index_t> begin, end;
    int window;  // elements in both windows
    int b_staged;  // B's elements staged (b_runs: up to run_lookahead more than its window)
    window_layout keys_at, values_at;
    thread_outputs<key_type, steps, records_sources> out;
    value_type values[with_values ? steps : 1];
    b_value_type b_values[Args::writes_b_values ? steps : 1];
    int rank;   // where the thread's first output goes in the tile
    int count;  // the tile's outputs
    int most;   // the outputs a consistent tile has at most: its window, or -1 where it is not ordered
    segment_span segments;  // segmented: the segments of the tile's boundaries
    int segment_starts;     // segmented: the segment starts staged inside the tile
    int walk_start;                  // labelled outputs: the start the thread's walk began in
    step_mask<steps> entered_start;  // labelled outputs: the steps before which the walk moved on to a start
    bool ordered;           // the boundaries lie inside the inputs, in order, at most a tile apart
    bool piece_backwards;   // this thread's piece ends before it starts (pieces that end at their neighbour's)
    bool consistent;        // ordered, no piece backwards, at most `window` outputs: the tile may store
  };

  __device__ __forceinline__ tile_agent(const Op& op, const Args& args, Compare& comp)
      : op_(op),
        args_(args),
        comp_(comp),
        bulk_(stages_in_bulk<key_type>(args.keys_a, args.keys_b) &&
              (!with_values || stages_in_bulk<value_type>(args.values_a, args.values_b))) {}

  // Whether this operation's windows are staged by bulk copies (then the driver initializes
  // each buffer's barrier once).
  __device__ __forceinline__ bool stages_in_bulk_copies() const { return bulk_; }

  // Whether a tile's boundaries lie inside the inputs, in order, at most a tile (and the
  // balanced path's step back) apart: always so for sorted inputs. Where the driver cannot
  // check a tile ahead (the persistent kernel that finds its own splits), every thread runs
  // this before staging, so it is kept short: one test of the sign bits of the begins and of
  // the windows' lengths (0 <= begin, 0 <= length), the lengths' sum, and the ends as
  // unsigned numbers (end <= size, so that begin = end - length cannot have wrapped).
  __device__ __forceinline__ bool in_order(split<index_t> begin, split<index_t> end) const {
    using u = unsigned long long;
    const u a_length = u(end.a) - u(begin.a), b_length = u(end.b) - u(begin.b);
    return ((u(begin.a) | u(begin.b) | a_length | b_length) >> 63) == 0 &&
           a_length + b_length <= u(Policy::items_per_tile + 1) && u(end.a) <= u(args_.size_a) &&
           u(end.b) <= u(args_.size_b);
  }

  // 1. Stages the windows of tile `index`, between `begin` and `end`, in `into` and waits
  // until every thread may read them (phase `parity` of `barrier`, for bulk copies).
  // `ordered`: in_order(begin, end), which the driver finds where it costs least.
  __device__ __forceinline__ void stage(tile& t, int index, split<index_t> begin, split<index_t> end, bool ordered,
                                       buffer& into, const staging_barrier& barrier, unsigned parity) const {
    t.ordered = ordered;
    if constexpr (segmented) {
      t.segments = {args_.boundary_segments[index], args_.boundary_segments[index + 1]};
      t.ordered = t.ordered && 0 <= t.segments.first && t.segments.first <= t.segments.last &&
                  t.segments.last <= args_.offsets.segments;
    }
    if (!t.ordered) {  // an empty tile: nothing staged, walked or stored
      begin = end = {0, 0};
      if constexpr (segmented) t.segments = {0, 0};
    }
    t.begin = begin;
    t.end = end;
    t.window = int(end.a - begin.a) + int(end.b - begin.b);
    t.most = t.ordered ? t.window : -1;  // while the copies are in flight: the count's test is one comparison
    t.keys_at = staging_layout<key_type>(bulk_, begin, end);
    t.values_at = staging_layout<value_type>(bulk_, begin, end);
    split<index_t> staged_end = end;
    if constexpr (counts_runs) {
      if (t.ordered) staged_end.b = end.b + lookahead < args_.size_b ? end.b + lookahead : args_.size_b;
    }
    t.b_staged = int(staged_end.b - begin.b);
    // The walk's steps, and for b_runs the lookahead's (a round of the block at most).
    constexpr int staging_steps = steps + (lookahead + threads - 1) / threads;
    // Set operations stage keys and values under one test of `bulk_`: the compiler then
    // shares the two copy loops' predicates and addresses (1-3% on the _by_key forms).
    // Merges stage them one after the other: 8-byte pairs spilled with the shared loops.
    auto stage_both = [&](bool bulk) {
      stage_window<threads, staging_steps>(into.keys.data(), t.keys_at, bulk, args_.keys_a, args_.size_a,
                                           args_.keys_b, args_.size_b, begin, staged_end, barrier);
      if constexpr (with_values) {
        stage_window<threads, steps>(into.values.data(), t.values_at, bulk, args_.values_a, args_.size_a,
                                     args_.values_b, args_.size_b, begin, end, barrier);
      }
    };
    if constexpr (known_size) {
      stage_both(bulk_);
    } else if (bulk_) {
      stage_both(true);
    } else {
      stage_both(false);
    }
    if (bulk_ && threadIdx.x == 0) barrier.arrive();
    if constexpr (sees_run_starts_v<Op> || counts_runs) {
      stage_elements_before(into.keys.data(), t.keys_at, args_.keys_a, args_.keys_b, begin);
    }
    if constexpr (std::is_same_v<decltype(args_.values_b), b_matches>) {
      static_assert(!segmented, "the segmented forms do not compute B's values");
      stage_element_after(into.keys.data(), t.keys_at, bulk_, args_.keys_b, args_.size_b, begin, end);
    }
    if constexpr (segmented) {
      // While the copies are in flight.
      // Starts are needed only where a segment starts inside the tile (the same in every
      // thread).
      t.segment_starts = 0;
      if (t.ordered && t.segments.first != t.segments.last) {
        t.segment_starts = stage_segment_starts<threads, block_scan>(
            into.starts.data(), 0, start_slots, into.starts_scan, args_.offsets, begin, int(end.a - begin.a),
            int(end.b - begin.b), t.segments.first, t.segments.last);
      }
    }
    finish_async_copies();
    __syncthreads();
    finish_staging(bulk_, barrier, parity);
  }

  // Asks L2 for a tile's windows ahead of their bulk copies: by one thread, where the
  // arrays stage in bulk (not for a tile that writes nothing, which reads nothing).
  __device__ __forceinline__ void prefetch(split<index_t> begin, split<index_t> end) const {
    if constexpr (skips_silent_tiles) {
      if (writes_nothing(begin, end)) return;
    }
    if constexpr (copies_bulk_v<key_type, decltype(args_.keys_a)> && copies_bulk_v<key_type, decltype(args_.keys_b)>) {
      prefetch_window(args_.keys_a, args_.size_a, begin.a, int(end.a - begin.a));
      prefetch_window(args_.keys_b, args_.size_b, begin.b, int(end.b - begin.b));
    }
    if constexpr (with_values && copies_bulk_v<value_type, decltype(args_.values_a)> &&
                  copies_bulk_v<value_type, decltype(args_.values_b)>) {
      prefetch_window(args_.values_a, args_.size_a, begin.a, int(end.a - begin.a));
      prefetch_window(args_.values_b, args_.size_b, begin.b, int(end.b - begin.b));
    }
  }

  // 2. Each thread's piece of the staged tile, walked with the op; then the values of the
  // steps that wrote (every step, for ops of known size), gathered into registers before the
  // outputs overwrite the windows.
  __device__ __forceinline__ void walk(tile& t, buffer& staged, workspace& work) const {
    const int tid = threadIdx.x;
    t.piece_backwards = false;
    t.walk_start = 0;
    t.entered_start = 0;
    const int a_size = int(t.end.a - t.begin.a), b_size = int(t.end.b - t.begin.b);
    const key_type* a_keys = staged.keys.data() + t.keys_at.a;
    const key_type* b_keys = staged.keys.data() + t.keys_at.b;
    const int diagonal = tid * items < t.window ? tid * items : t.window;  // the thread's first step
    auto walk_windows = [&](const auto& a, const auto& b, auto& comp) {
      if constexpr (!Rule::piece_ends_at_neighbour) {
        // The piece is `items` long (less at the window's end): its start is enough.
        const split<int> from = Rule::split_at(diagonal, a, a_size, b, b_size, comp);
        walk_tile<steps, true, true>(op_, comp, a, from.a, a_size, b, from.b, b_size, t.out, t.begin.a > 0,
                                     t.begin.b > 0);
      } else {
        work.splits[tid] = Rule::split_at(diagonal, a, a_size, b, b_size, comp);
        if (tid == 0) work.splits[threads] = {a_size, b_size};
        __syncthreads();
        const split<int> from = work.splits[tid];
        const split<int> to = work.splits[tid + 1];
        t.piece_backwards = from.a > to.a || from.b > to.b;
        walk_tile<steps, true, true>(op_, comp, a, from.a, to.a, b, from.b, to.b, t.out, t.begin.a > 0,
                                     t.begin.b > 0);
      }
    };
    if constexpr (segmented) {
      if (t.segments.first == t.segments.last) {
        walk_windows(a_keys, b_keys, comp_);
      } else {
        walk_segments(t, staged, work, a_keys, b_keys, a_size, b_size, diagonal);
      }
    } else {
      walk_windows(a_keys, b_keys, comp_);
    }
    if constexpr (with_values) {
      const window_layout at = t.values_at;
      auto value_of = [&](bool from_b, int index) { return staged.values[from_b ? at.b + index : at.a + index]; };
      const auto& out = t.out;
      const step_mask<steps> gathered = known_size ? ~step_mask<steps>(0) : out.written;
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < steps; ++v) {
        if (gathered >> v & 1) {
          // One load for the value the step wrote (A's, where it combined both), and B's
          // only where it combined: branch-free, where the op never combines.
          const bool combined = out.combined >> v & 1;
          t.values[v] = value_of(!combined && (out.from_b >> v & 1), out.index[v]);
          if (combined) t.values[v] = combine_values(op_, t.values[v], value_of(true, out.b_index[v]));
          if constexpr (Args::writes_b_values && !Args::computes_b_values) {
            t.b_values[v] = value_of(true, out.b_index[v]);
          }
        }
      }
    }
    if constexpr (Args::computes_b_values) {
      // B's position in the window at each step that wrote: the store adds the window's
      // start, or (b_matches) compares the query with B's element there.
      const auto& out = t.out;
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < steps; ++v) {
        if (out.written >> v & 1) t.b_values[v] = std::uint32_t(out.b_index[v]);
      }
    }
  }

  // 3. Where each thread's outputs go in the tile, and the tile's count. Known size: step v
  // of thread t goes to t * items + v, also past the window's end (never stored), so that no
  // two threads' slots meet (and an unordered tile, of window 0, stores nothing). Else the
  // scan also counts the pieces that go backwards, each as more than a window, so that the
  // tile learns whether it is consistent from the count, with no barrier of its own; ops
  // that write A in place are consistent where they wrote exactly A's window.
  // Every thread is done reading the windows when it returns.
  __device__ __forceinline__ void count(tile& t, workspace& work) const {
    if constexpr (known_size) {
      t.rank = int(threadIdx.x) * items;
      t.count = t.window;
      t.consistent = t.ordered;
      __syncthreads();
    } else {
      constexpr int backwards = window_capacity;  // more than any window
      block_scan(work.scan).ExclusiveSum(count_steps(t.out.written) + (t.piece_backwards ? backwards : 0), t.rank,
                                         t.count);
      // Ordered, no piece backwards, at most the window (t.most); ops that write A in place:
      // exactly A's window.
      t.consistent = in_place ? t.ordered && t.count == int(t.end.a - t.begin.a) : t.count <= t.most;
    }
  }

  // 4. The outputs, compacted into the buffer at their ranks (a tile that is not consistent
  // has none).
  __device__ __forceinline__ void compact(tile& t, buffer& into) const {
    if (!t.consistent) return;
    int rank = t.rank;
    // Labelled outputs: the start each step's walk was in (segment_outputs.cuh).
    [[maybe_unused]] int label = 0, last_label = 0;
    if constexpr (labels_outputs) {
      label = t.walk_start;
      last_label = t.segment_starts + 1;
    }
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < steps; ++v) {
      if constexpr (labels_outputs) {
        if (t.entered_start >> v & 1) label = label < last_label ? label + 1 : last_label;
      }
      if (known_size || (t.out.written >> v & 1)) {
        if constexpr (labels_outputs) into.output_labels[rank] = output_label(label);
        if constexpr (is_stored_v<decltype(args_.keys_out)>) into.keys[rank] = t.out.keys[v];
        if constexpr (with_values) into.values[rank] = t.values[v];
        if constexpr (Args::writes_b_values) into.b_values[rank] = t.b_values[v];
        ++rank;
      }
    }
  }

  // Whether the tile between `begin` and `end` (in order) writes nothing, as its windows'
  // sizes alone tell: it takes from one input only, one the op writes nothing for alone.
  // Such a tile needs nothing staged or walked: its count is 0 and it is consistent (one
  // window's pieces chain, and no count passes the window).
  __device__ __forceinline__ bool writes_nothing(split<index_t> begin, split<index_t> end) const {
    return (silent.a && end.b == begin.b) || (silent.b && end.a == begin.a);
  }

  // Publishes tile `index`'s count for the successors' look-backs (one thread calls it), or,
  // where the tile is not consistent, poisons them.
  __device__ __forceinline__ void publish(const tile_prefix_state& prefix_state, int index, const tile& t) const {
    prefix_state.publish_checked(index, t.consistent, t.count);
  }

  // Where tile `index` (of `tiles`, `count` outputs; -1: not consistent) goes in an output of
  // data-dependent size: the first warp looks back (look_back.cuh), and the last tile also
  // writes the output's size to `count_out`. -1 where this tile or an earlier one is not
  // consistent: the tile stores nothing, and the size written is -1. The barrier at its end
  // orders the compacted outputs before their store.
  __device__ __forceinline__ index_t look_back(const tile_prefix_state& prefix_state, int index, index_t count,
                                               int tiles, index_t* count_out, workspace& work) const {
    if (threadIdx.x < 32) {
      const index_t offset = count < 0 ? -1 : prefix_state.exclusive_prefix(index, count);
      if (threadIdx.x == 0) {
        const bool poisoned = static_cast<unsigned long long>(offset) >= tile_prefix_state::poisoned;
        work.tile_offset = poisoned ? -1 : offset;
        if (index == tiles - 1) *count_out = poisoned ? -1 : offset + count;
      }
    }
    __syncthreads();
    return work.tile_offset;
  }

  // Segmented, after the compaction's barrier: the output offsets of the segments that start
  // in tile `index` (its outputs at `offset`; forms that write), or the tile's per-segment
  // counts (count-only forms).
  __device__ __forceinline__ void finish_segments(buffer& compacted, const tile& t, int index,
                                                  index_t offset) const {
    const segment_span span = t.segments;
    if constexpr (!labels_outputs) {
      store_path_offsets<threads>(args_.segments_out, args_.offsets, span.first, span.last, index == 0);
    } else {
      const bool one_segment = span.first == span.last;
      const int a_size = int(t.end.a - t.begin.a), b_size = int(t.end.b - t.begin.b);
      if constexpr (Args::writes_keys) {
        store_segment_offsets<threads, block_scan>(args_.segments_out, compacted.output_labels.data(), one_segment,
                                                   t.count, offset, compacted.starts_scan, args_.offsets, t.begin,
                                                   a_size, b_size, span, index == 0);
      } else {
        add_segment_counts<threads, block_scan>(args_.segments_out, compacted.output_labels.data(), one_segment,
                                                t.count, compacted.starts_scan, args_.offsets, t.begin, a_size, b_size,
                                                span);
      }
    }
  }

  // 5, for ops that write A in place (after the compaction's barrier): the tile's outputs at
  // its A window's start, B's positions as the window's start plus the staged ones. b_runs
  // writes each query's position in B's window instead (or its whole bound, where `bounds` is
  // not null) and its run of equivalent elements in B (run_length; a saturated one also whole,
  // to long_runs), the tile's first query, B start and sum of runs (bounds_and_runs' tile
  // arrays, at `index`), and checks the order as the join promises: each query against the
  // one before it and each staged element of B against the one before it (either column
  // going down anywhere is found, where A is not empty). A tile that is not consistent stores
  // nothing (b_runs: -1 as its first query and sum); it, or elements out of order, write -1 to
  // *count_out, which the launch set to A's size (the stores of the others stay inside the
  // output).
  __device__ __forceinline__ void store_in_place(buffer& compacted, const tile& t, int index, index_t* count_out,
                                                 workspace& work) const {
    const int tid = threadIdx.x;
    if (!t.consistent) {
      if (tid == 0) {
        *count_out = -1;
        if constexpr (counts_runs) {
          args_.b_values_out.tile_first[index] = -1;
          args_.b_values_out.tile_sums[index] = -1;
        }
      }
      return;
    }
    const b_value_type* staged = compacted.b_values.data();
    const int count = t.count;
    // The windows, still staged: the searches compact no keys.
    const key_type* a_keys = compacted.keys.data() + t.keys_at.a;
    const key_type* b_keys = compacted.keys.data() + t.keys_at.b;
    if constexpr (counts_runs) {
      const int b_staged = t.b_staged;
      const index_t staged_end = t.begin.b + b_staged;
      const bool a_before = t.begin.a > 0, b_before = t.begin.b > 0;
      const bounds_and_runs& out = args_.b_values_out;
      index_t rest = -1;  // the run past the staged elements: the same for every query that reaches it
      index_t sum = 0;
      bool out_of_order = false;
      const int lane = tid % 32;
      // Where B's runs start among its staged elements: bit p of the words is set where B[p]
      // is after B[p - 1] (or has no element before it), and from the staged end on. A warp
      // writes a word at a time. The same comparisons check B's order: with the queries'
      // (below), every bound the walk found is right, or the inputs are not sorted.
      std::uint32_t* starts = work.b_run_starts;
      const int words = (b_staged + 1) / 32 + 2;
      for (int w = tid / 32; w < words; w += threads / 32) {
        const int p = w * 32 + lane;
        bool starts_run = true;
        if (p < b_staged && (p > 0 || b_before)) {
          const key_type here = b_keys[p], before = b_keys[p - 1];
          starts_run = comp_(before, here);
          if (!starts_run && comp_(here, before)) out_of_order = true;
        }
        const std::uint32_t bits = __ballot_sync(0xffffffffu, starts_run);
        if (lane == 0) starts[w] = bits;
      }
      __syncthreads();
      // Query e's run: where B[j] holds its key, from j to the next run start, read from the
      // words (up to 64 elements on; a galloping search past those), and on in B past the
      // staged elements.
      std::uint16_t* positions = out.positions != nullptr ? out.positions + t.begin.a : nullptr;
      run_length* runs = out.runs != nullptr ? out.runs + t.begin.a : nullptr;
      auto one = [&](int e) {
        const key_type key = a_keys[e];
        const int j = int(staged[e]);
        if ((e > 0 || a_before) && comp_(key, a_keys[e - 1])) out_of_order = true;
        index_t run = 0;
        if (j < b_staged && !comp_(key, b_keys[j])) {
          const int from = j + 1, word = from / 32, bit = from % 32;
          const unsigned long long ahead =
              (static_cast<unsigned long long>(starts[word + 1]) << 32 | starts[word]) >> bit;
          const int at = ahead != 0 ? from + __ffsll(static_cast<long long>(ahead)) - 1
                                    : gallop_past(b_keys, from + 64 - bit, b_staged, key, comp_);
          run = at - j;
          if (at == b_staged && staged_end < args_.size_b) {
            if (rest < 0) rest = gallop_past(args_.keys_b, staged_end, args_.size_b, key, comp_) - staged_end;
            run += rest;
          }
        }
        if (out.bounds != nullptr) {
          out.bounds[t.begin.a + e] = t.begin.b + j;
        } else if (positions != nullptr) {
          positions[e] = std::uint16_t(j);
        }
        if (runs == nullptr) {
          // the count alone
        } else if (run < index_t(saturated_run)) {
          runs[e] = run_length(run);
        } else {
          runs[e] = saturated_run;
          out.long_runs[t.begin.a + e] = run;
        }
        sum += run;
      };
      // A strided loop: unrolled over the tile's steps it measured slower (2^28 int32 dup2 on
      // an H200: the pass 2.03 -> 2.12 ms).
      for (int e = tid; e < count; e += threads) one(e);
      if (out_of_order) *count_out = -1;
      // The tile's sum: each warp's, then thread 0's.
      CORANK_PRAGMA_UNROLL
      for (int d = 16; d > 0; d /= 2) sum += __shfl_down_sync(0xffffffffu, sum, d);
      if (tid % 32 == 0) work.warp_sums[tid / 32] = sum;
      __syncthreads();
      if (tid == 0) {
        index_t total = 0;
        CORANK_PRAGMA_UNROLL
        for (int w = 0; w < threads / 32; ++w) total += work.warp_sums[w];
        out.tile_first[index] = t.begin.a;
        out.tile_b[index] = t.begin.b;
        out.tile_sums[index] = total;
      }
    } else {
      const auto out = args_.b_values_out + t.begin.a;
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < steps; ++v) {
        if (v % 4 == 0 && v * threads >= count) break;
        const int e = tid + v * threads;
        if (e < count) {
          if constexpr (std::is_same_v<values_b_type, b_matches>) {
            // The query against B's element at its position, which may be the one staged
            // after B's window. Here rather than in the walk, which then keeps no keys for
            // its outputs.
            const int j = int(staged[e]);
            out[e] = b_step_value(args_.values_b, a_keys[e], t.begin.b + j, [&] { return b_keys[j]; }, comp_);
          } else {
            out[e] = index_t(t.begin.b + index_t(staged[e]));
          }
        }
      }
    }
  }

  // 5. `count` compacted outputs to position `offset` of the outputs (none where the offset
  // is -1: the look-back found an inconsistent tile).
  __device__ __forceinline__ void store(buffer& compacted, index_t offset, int count) const {
    if (offset < 0) return;
    if constexpr (is_stored_v<decltype(args_.keys_out)>) {
      store_tile<threads, steps>(compacted.keys.data(), args_.keys_out + offset, count);
    }
    if constexpr (with_values) store_tile<threads, steps>(compacted.values.data(), args_.values_out + offset, count);
    if constexpr (Args::writes_b_values) {
      store_tile<threads, steps>(compacted.b_values.data(), args_.b_values_out + offset, count);
    }
  }

 private:
  // 2, for a segmented tile that spans segments: a round of starts at a time
  // (segment_starts.cuh; round 0 was staged with the windows), the threads that begin in the
  // round's starts find their segment, their split there (and, where pieces end at their
  // neighbour's start, the neighbour's split the same way), then walk plain keys from segment
  // to segment; forms that label their outputs keep the start they began in and the steps
  // before which they moved on (compact labels the outputs). Clamped, so that starts out of
  // order (offsets that are no offsets) keep the searches and the walk inside the windows,
  // and every thread walks once at least; where pieces end at their neighbour's start, a
  // piece that does not end where the next one starts is reported as one going backwards.
  __device__ __forceinline__ void walk_segments(tile& t, buffer& staged, workspace& work, const key_type* a_keys,
                                                const key_type* b_keys, int a_size, int b_size, int diagonal) const {
    const segment_start* starts = staged.starts.data();
    const int count = t.segment_starts, rounds = count / starts_per_round + 1;
    // The split of diagonal d: its segment (the last of starts[0, top] at or before d), then
    // the rule's split inside that segment's part of the windows.
    auto split_in_segment = [&](int d, int top, int& k) {
      k = segment_start_at(starts, top, d);
      const int a0 = start_a(starts[k]), b0 = start_b(starts[k]);
      const int m = max(0, start_a(starts[k + 1]) - a0), n = max(0, start_b(starts[k + 1]) - b0);
      const int q = min(max(0, d - a0 - b0), m + n);
      const split<int> in = Rule::split_at(q, a_keys + a0, m, b_keys + b0, n, comp_);
      return split<int>{a0 + in.a, b0 + in.b};
    };
    bool walked = false;
    split<int> piece_from{}, piece_to{};  // the piece this thread walked
    for (int r = 0; r < rounds; ++r) {
      const int first_start = r * starts_per_round;
      if (r > 0) {
        __syncthreads();  // the last round's walks are done with its starts
        stage_segment_starts<threads, block_scan>(staged.starts.data(), first_start, start_slots, staged.starts_scan,
                                                  args_.offsets, t.begin, a_size, b_size, t.segments.first,
                                                  t.segments.last);
        __syncthreads();
      }
      const bool last_round = r == rounds - 1;
      const bool begins_here = (r == 0 || start_diagonal(starts[0]) <= diagonal) &&
                               (last_round || start_diagonal(starts[starts_per_round]) > diagonal);
      if (begins_here || (last_round && !walked)) {
        walked = true;
        const int last = min(count + 1 - first_start, start_slots - 1);
        int k;
        const split<int> from = split_in_segment(diagonal, min(starts_per_round - 1, count - first_start), k);
        split<int> to = {a_size, b_size};
        if constexpr (Rule::piece_ends_at_neighbour) {
          // The neighbour's diagonal is at most `items` on: its segment is among the starts
          // staged past the round's (start_slots). The last thread's piece ends at the windows'.
          if (threadIdx.x < threads - 1) {
            int k_end;
            to = split_in_segment(min(diagonal + items, t.window), min(start_slots - 2, count - first_start), k_end);
          }
          t.piece_backwards = from.a > to.a || from.b > to.b;
        }
        piece_from = from;
        piece_to = to;
        t.walk_start = first_start + k;
        walk_tile<steps, true, true>(op_, comp_, a_keys, from.a, min(start_a(starts[k + 1]), to.a), b_keys, from.b,
                                     min(start_b(starts[k + 1]), to.b), t.out, t.begin.a > 0, t.begin.b > 0,
                                     segment_ends<step_mask<steps>, Rule::piece_ends_at_neighbour>{
                                         starts, k + 1, last, pack_start(to.a, to.b),
                                         labels_outputs ? &t.entered_start : nullptr});
      }
    }
    if constexpr (Rule::piece_ends_at_neighbour) {
      // Each thread found its neighbour's split itself: with valid offsets both searches give
      // the same one, so pieces that do not meet are starts out of order.
      work.splits[threadIdx.x] = piece_from;
      __syncthreads();
      if (threadIdx.x < threads - 1) {
        const split<int> next = work.splits[threadIdx.x + 1];
        t.piece_backwards = t.piece_backwards || piece_to.a != next.a || piece_to.b != next.b;
      }
    }
  }

  const Op& op_;
  const Args& args_;
  Compare& comp_;
  const bool bulk_;
};

}  // namespace corank::detail
