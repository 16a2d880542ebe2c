#pragma once
// The one-tile-per-block kernel, for every operation whose output size depends on the
// data (the set operations, any op without output_size_is_input_size) and for merges under
// strategy::partitioned. The input path is cut into tiles of equal length on the op's path
// (balanced for the set operations); each block takes one tile, walks it with the op,
// compacts what was written, finds the tile's output offset (by decoupled look-back when
// it depends on the data) and stores it coalesced. Inputs are read from DRAM once.

#include <corank/balanced_path.hpp>
#include <corank/detail/block_walk.cuh>
#include <corank/detail/dependent_launch.cuh>
#include <corank/detail/look_back.cuh>
#include <corank/detail/merge_args.hpp>
#include <corank/detail/published_splits.cuh>
#include <corank/detail/stage_window.cuh>
#include <corank/detail/tile_storage.cuh>

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <iterator>
#include <type_traits>

namespace corank::detail {

inline constexpr int tile_splits_threads = 256;

// A set operation's arguments: a merge's, plus the matched B values of the paired forms.
template <class Base, class PartnerOut>
struct set_args : Base {
  PartnerOut partner_out;

  static constexpr bool paired = is_used_v<PartnerOut>;
  static constexpr bool writes_keys = is_used_v<decltype(Base::keys_out)>;
  using partner_type = typename std::conditional_t<paired, std::iterator_traits<decltype(Base::values_b)>,
                                                   std::iterator_traits<const char*>>::value_type;
};

// The split of every tile boundary on the op's path (tiles + 1 of them), a thread or (with
// ByWarp) a warp each. The searches run over the whole inputs in global memory, a chain of
// about 25 dependent loads for a thread. A warp's 33-way search waits out 5 or 6 instead,
// for 32 times the loads: faster where there are few tiles (the kernel is one long chain
// of latencies), slower where there are many (the loads then cost bandwidth).
// `zeroed`, unless null, is the tile kernel's state (tiles + 1 words: the look-back words
// and the tile counter), zeroed here rather than by a memset of its own between the two
// kernels. The tile kernel is launched as the pass starts (dependent_launch.cuh).
template <bool ByWarp, class Op, class Args, class Compare>
__global__ void __launch_bounds__(tile_splits_threads)
    tile_splits_kernel(Args args, Compare comp, split<index_t>* splits, index_t tiles, int items_per_tile,
                       unsigned long long* zeroed) {
  allow_next_kernel();
  const index_t t = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) / (ByWarp ? 32 : 1);
  if (t > tiles) return;  // whole warps when ByWarp
  const bool writes = !ByWarp || threadIdx.x % 32 == 0;  // a warp's answer is its lane 0's
  if (zeroed != nullptr && writes) zeroed[t] = 0;
  const index_t diagonal = tile_diagonal(t, items_per_tile, args.size_a + args.size_b);
  const split<index_t> s = find_split<ByWarp, Op>(diagonal, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
  if (writes) splits[t] = s;
}

// Zeroes words[0, count): the persistent tile kernel's state where no split pass runs to
// zero it (a tile per block). As after the pass, the tile kernel is launched while this one
// runs and waits for its end; after a memset, it would be launched only then.
template <class Word>
__global__ void __launch_bounds__(tile_splits_threads) zero_words_kernel(Word* words, index_t count) {
  allow_next_kernel();
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) words[i] = 0;
}

// Copies a tile's outputs, staged in shared memory, to `out[0, count)`, coalesced. Raw
// pointers that are 16-byte aligned get 16-byte stores (4 int32 keys a store): a quarter
// of the store instructions, which is what a memory-bound kernel's issue slots are short of.
template <int Threads, int Steps, class T, class Out>
__device__ __forceinline__ void store_tile(const T* staged, Out out, int count) {
  constexpr int per_vector = 16 / int(sizeof(T));
  if constexpr (std::is_pointer_v<Out> && sizeof(T) < 16 && 16 % sizeof(T) == 0 && alignof(T) == sizeof(T)) {
    if (reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      const int vectors = count / per_vector;
      const auto* from = reinterpret_cast<const uint4*>(staged);
      auto* to = reinterpret_cast<uint4*>(out);
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < (Steps + per_vector - 1) / per_vector; ++v) {
        // A set operation's tile often has far fewer outputs than steps: the block leaves
        // once no thread has any left (checked every 4 rounds, so a full tile pays little).
        if (v % 4 == 0 && v * Threads >= vectors) break;
        const int e = int(threadIdx.x) + v * Threads;
        if (e < vectors) to[e] = from[e];
      }
      for (int e = vectors * per_vector + int(threadIdx.x); e < count; e += Threads) out[e] = staged[e];
      return;
    }
  }
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    if (v % 4 == 0 && v * Threads >= count) break;  // as above
    const int e = int(threadIdx.x) + v * Threads;
    if (e < count) out[e] = staged[e];
  }
}

// Copies a tile's staged outputs to position `offset` of the output: the keys, and the
// values and B's matched values where Args carries them.
template <int Threads, int Steps, class Args, class Staged>
__device__ __forceinline__ void store_tile_outputs(const Args& args, Staged& staged, index_t offset, int count) {
  store_tile<Threads, Steps>(staged.keys.data(), args.keys_out + offset, count);
  if constexpr (Args::with_values) store_tile<Threads, Steps>(staged.values.data(), args.values_out + offset, count);
  if constexpr (Args::paired) store_tile<Threads, Steps>(staged.partners.data(), args.partner_out + offset, count);
}

// Where tile `tile` (of `tiles`, `count` outputs) goes in the output: warp 0 looks back
// and leaves it in `slot`, and the last tile also writes the output's size to `count_out`.
// Every thread of the block calls it; the barrier at its end also orders the staged
// outputs before their store.
__device__ __forceinline__ index_t find_tile_offset(const tile_prefix_state& prefix_state, int tile, index_t count,
                                                     int tiles, index_t* count_out, index_t& slot) {
  if (threadIdx.x < 32) {
    const index_t offset = prefix_state.exclusive_prefix(tile, count);
    if (threadIdx.x == 0) {
      slot = offset;
      if (tile == tiles - 1) *count_out = offset + count;
    }
  }
  __syncthreads();
  return slot;
}

template <class Policy, class Key, class Value, class Partner, bool WithValues, bool Paired>
struct set_tile_storage {
  static constexpr int threads = Policy::threads_per_block;
  // A tile's window is items_per_tile + 1 long at most (a boundary moves back one step);
  // staging adds the slots before each side's window and partial lines (stage_window.cuh).
  static constexpr int window = Policy::items_per_tile + 2;
  using block_scan = cub::BlockScan<int, threads, cub::BLOCK_SCAN_WARP_SCANS>;  // in-tile counts

  // The staged windows (stage_window.cuh); after the walk, the outputs
  uninitialized_array<Key, window + staging_slack<Key>> keys;
  uninitialized_array<Value, WithValues ? window + staging_slack<Value> : 1> values;
  uninitialized_array<Partner, Paired ? window : 1> partners;
  split<int> splits[threads + 1];
  typename block_scan::TempStorage scan;
  index_t tile_offset;
  unsigned long long staged;  // the mbarrier of bulk staging
};

// Stages a tile's key windows (and value windows, for by-key forms) in shared memory and
// waits until every thread may read them (phase `parity` of `barrier` for bulk copies).
template <int Threads, int Steps, class Op, class Args, class Key, class Value>
__device__ __forceinline__ void stage_tile(const Args& args, Key* keys, const window_layout& keys_at, Value* values,
                                           const window_layout& values_at, bool bulk, split<index_t> begin,
                                           split<index_t> end, const staging_barrier& barrier, unsigned parity) {
  stage_window<Threads, Steps>(keys, keys_at, bulk, args.keys_a, args.size_a, args.keys_b, args.size_b, begin, end,
                               barrier);
  if constexpr (Args::with_values) {
    stage_window<Threads, Steps>(values, values_at, bulk, args.values_a, args.size_a, args.values_b, args.size_b,
                                 begin, end, barrier);
  }
  if (bulk && threadIdx.x == 0) barrier.arrive();
  if constexpr (sees_run_starts_v<Op>) stage_elements_before(keys, keys_at, args.keys_a, args.keys_b, begin);
  finish_async_copies();
  __syncthreads();
  finish_staging(bulk, barrier, parity);
}

// Asks L2 for a tile's key (and value) windows ahead of stage_tile's bulk copies of them:
// by one thread, where the arrays stage in bulk (`bulk`, from stages_in_bulk).
template <class Args>
__device__ __forceinline__ void prefetch_tile(const Args& args, split<index_t> begin, split<index_t> end) {
  using key_type = typename Args::key_type;
  using value_type = typename Args::value_type;
  if constexpr (copies_bulk_v<key_type, decltype(args.keys_a)> && copies_bulk_v<key_type, decltype(args.keys_b)>) {
    prefetch_window(args.keys_a, args.size_a, begin.a, int(end.a - begin.a));
    prefetch_window(args.keys_b, args.size_b, begin.b, int(end.b - begin.b));
  }
  if constexpr (Args::with_values && copies_bulk_v<value_type, decltype(args.values_a)> &&
                copies_bulk_v<value_type, decltype(args.values_b)>) {
    prefetch_window(args.values_a, args.size_a, begin.a, int(end.a - begin.a));
    prefetch_window(args.values_b, args.size_b, begin.b, int(end.b - begin.b));
  }
}

// The value step v of a walk writes, by what the walk recorded: A's value i, B's value j,
// or both combined. value_of(from_b, index) reads one value.
template <int Steps, class Op, class Key, class ValueOf>
__device__ __forceinline__ auto step_value(const Op& op, const thread_outputs<Key, Steps, true>& out, int v,
                                           ValueOf value_of) {
  if (out.combined >> v & 1) return combine_values(op, value_of(false, out.index[v]), value_of(true, out.partner[v]));
  return value_of(out.from_b >> v & 1, out.index[v]);
}

// Gathers the values of the steps set in `gathered` into registers; with Paired, also B's
// matched values.
template <bool Paired, int Steps, class Op, class Key, class ValueOf, class Value, class Partner>
__device__ __forceinline__ void gather_values(const Op& op, const thread_outputs<Key, Steps, true>& out,
                                              step_mask<Steps> gathered, ValueOf value_of, Value (&values)[Steps],
                                              Partner* partners) {
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    if (gathered >> v & 1) {
      values[v] = step_value(op, out, v, value_of);
      if constexpr (Paired) partners[v] = value_of(true, out.partner[v]);
    }
  }
}

// One tile per block: the tile's input windows come from the tile splits, are staged in
// shared memory (strategy::partitioned and tiled/circular for data-dependent ops) or read
// in place (Staged = false: strategy::naive), and walked by every thread from its own split.
// Ops with output_size_is_input_size write tile t at output t * T; the others find the
// tile's output offset by decoupled look-back.
template <class Policy, bool Staged, class Op, class Args, class Compare>
__global__ void __launch_bounds__(Policy::threads_per_block, Policy::min_blocks_per_sm)
    partitioned_tile_kernel(Op op, Args args, Compare comp, const split<index_t>* tile_splits,
                            tile_prefix_state prefix_state, index_t* count_out, int tiles) {
  using key_type = typename Args::key_type;
  using value_type = typename Args::value_type;
  using partner_type = typename Args::partner_type;
  constexpr bool with_values = Args::with_values;
  constexpr bool known_size = Op::output_size_is_input_size;
  constexpr int threads = Policy::threads_per_block;
  constexpr int items = Policy::items_per_thread;
  // A merge-path piece is exactly `items` long; a balanced one up to items + 2.
  constexpr int steps = Op::partition == partitioning::balanced_path ? items + 2 : items;
  using storage = set_tile_storage<Policy, key_type, value_type, partner_type, with_values, Args::paired>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  storage& shared = *reinterpret_cast<storage*>(shared_bytes);
  const int tid = threadIdx.x;
  const int tile = blockIdx.x;

  wait_for_earlier_kernel();  // the split pass
  const split<index_t> begin = tile_splits[tile];
  const split<index_t> end = tile_splits[tile + 1];
  const int a_size = int(end.a - begin.a);
  const int b_size = int(end.b - begin.b);
  const int window = a_size + b_size;

  // The window: staged in shared memory, or read in place. Element -1 of each side is
  // the one before the window, which run-aware ops look at.
  const bool bulk = Staged && stages_in_bulk<key_type>(args.keys_a, args.keys_b) &&
                    (!with_values || stages_in_bulk<value_type>(args.values_a, args.values_b));
  const window_layout keys_at = staging_layout<key_type>(bulk, begin, end);
  auto a_keys = [&] {
    if constexpr (Staged) return shared.keys.data() + keys_at.a; else return args.keys_a + begin.a;
  }();
  auto b_keys = [&] {
    if constexpr (Staged) return shared.keys.data() + keys_at.b; else return args.keys_b + begin.b;
  }();
  const window_layout values_at = staging_layout<value_type>(bulk, begin, end);
  if constexpr (Staged) {
    const staging_barrier barrier(&shared.staged);
    if (bulk && tid == 0) barrier.init();
    // Thread 0 alone uses the barrier until staging's own barrier; racecheck still counts
    // its first uses as warp 0's reads of the initializing write, which this orders.
    __syncwarp();
    stage_tile<threads, steps, Op>(args, shared.keys.data(), keys_at, shared.values.data(), values_at, bulk, begin,
                                   end, barrier, 0);
  }

  // Thread level: each thread's split of the window. A merge-path piece is `items` long
  // (less at the window's end), so the walk needs only its start; a balanced-path piece
  // ends at its neighbour's start, which comes through shared memory.
  const int diagonal = tid * items < window ? tid * items : window;
  thread_outputs<key_type, steps, with_values> out;
  if constexpr (Op::partition == partitioning::merge_path) {
    const split<int> from = path_split<Op::partition>(diagonal, a_keys, a_size, b_keys, b_size, comp);
    walk_tile<steps, true, Staged>(op, comp, a_keys, from.a, a_size, b_keys, from.b, b_size, out, begin.a > 0,
                                   begin.b > 0);
  } else {
    shared.splits[tid] = path_split<Op::partition>(diagonal, a_keys, a_size, b_keys, b_size, comp);
    if (tid == 0) shared.splits[threads] = {a_size, b_size};
    __syncthreads();
    const split<int> from = shared.splits[tid];
    const split<int> to = shared.splits[tid + 1];
    walk_tile<steps, true, Staged>(op, comp, a_keys, from.a, to.a, b_keys, from.b, to.b, out, begin.a > 0,
                                   begin.b > 0);
  }

  // Values, by what the walk recorded: value `index` of B (from_b) or A, one shared-memory
  // load at a computed slot when staged. The outputs overwrite a staged window, so a staged
  // tile gathers its values into registers first. Read in place, each value goes straight
  // to its output slot in the store loop below: holding them all in registers spilled.
  auto value_of = [&](bool from_b, int index) -> value_type {
    if constexpr (!with_values) {
      return {};
    } else if constexpr (Staged) {
      return shared.values[from_b ? values_at.b + index : values_at.a + index];
    } else {
      return from_b ? args.values_b[begin.b + index] : args.values_a[begin.a + index];
    }
  };
  constexpr bool gathers_first = with_values && Staged;
  value_type values[gathers_first ? steps : 1];
  partner_type partners[gathers_first && Args::paired ? steps : 1];
  if constexpr (gathers_first) {
    gather_values<Args::paired>(op, out, known_size ? ~step_mask<steps>(0) : out.written, value_of, values, partners);
  }
  // In place, a known-size walk's steps past the window's end (slots never copied out)
  // must not read global memory.
  const int readable_steps = window - diagonal;

  // Where the thread's outputs go in the tile, and how many the tile writes. Known size:
  // step v of thread t goes to t * items + v, also past the window's end (never copied out),
  // so that no two threads' slots meet.
  int rank = known_size ? tid * items : diagonal, tile_count = window;
  if constexpr (known_size) {
    __syncthreads();  // every thread is done reading the window, which the outputs reuse
  } else {
    // The scan's own barriers also see every thread done with the window.
    typename storage::block_scan(shared.scan).ExclusiveSum(count_steps(out.written), rank, tile_count);
  }
  if constexpr (!Args::writes_keys) {
    // Count-only forms need no offsets, only the total: one atomic add per tile onto the
    // count, which the launch zeroed.
    if (tid == 0) atomicAdd(reinterpret_cast<unsigned long long*>(count_out), static_cast<unsigned long long>(tile_count));
  } else {
    // Where the tile goes in the output: known, or found by the first warp's look-back
    // once every thread has staged its outputs (their registers are free by then). The
    // count is published first, for the successors' look-backs.
    if constexpr (!known_size) {
      if (tid == 0) prefix_state.publish_count(tile, tile_count);
    }
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < steps; ++v) {
      if (known_size || (out.written >> v & 1)) {
        shared.keys[rank] = out.keys[v];
        if constexpr (gathers_first) {
          shared.values[rank] = values[v];
          if constexpr (Args::paired) shared.partners[rank] = partners[v];
        } else if constexpr (with_values) {
          if (!known_size || v < readable_steps) {
            shared.values[rank] = step_value(op, out, v, value_of);
            if constexpr (Args::paired) shared.partners[rank] = value_of(true, out.partner[v]);
          }
        }
        ++rank;
      }
    }
    index_t tile_offset = index_t(tile) * Policy::items_per_tile;
    if constexpr (known_size) {
      __syncthreads();  // every output is staged
    } else {
      tile_offset = find_tile_offset(prefix_state, tile, tile_count, tiles, count_out, shared.tile_offset);
    }
    store_tile_outputs<threads, steps>(args, shared, tile_offset, tile_count);
  }
}

}  // namespace corank::detail
