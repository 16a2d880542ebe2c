#pragma once
// The tile kernel of operations whose output size depends on the data (the set operations):
// persistent blocks that store each tile one round late. A tile's output offset is known
// only once every earlier tile has published its count, and those publish at scattered
// times (their staging and walks take more or less long). A block that waited for the
// offset right after its walk would sit idle for about as long as the walk took (bench/
// NOTES.md entry 18); this one walks its next tile meanwhile, and finds the previous tile's
// offset and stores it after that walk, when its predecessors have long published.

#include <corank/detail/partitioned_kernels.cuh>
#include <corank/detail/published_splits.cuh>

#include <algorithm>
#include <type_traits>

namespace corank::detail {

template <class Policy, class Key, class Value, class Partner, bool WithValues, bool Paired>
struct deferred_tile_storage {
  static constexpr int threads = Policy::threads_per_block;
  static constexpr int window = Policy::items_per_tile + 2;  // see set_tile_storage
  using block_scan = cub::BlockScan<int, threads, cub::BLOCK_SCAN_WARP_SCANS>;  // in-tile counts

  // A tile's windows, then its outputs until they are stored the next round.
  struct buffer {
    uninitialized_array<Key, window + staging_slack<Key>> keys;
    uninitialized_array<Value, WithValues ? window + staging_slack<Value> : 1> values;
    uninitialized_array<Partner, Paired ? window : 1> partners;
  };
  buffer buffers[2];  // this round's tile, and the last round's outputs
  split<int> splits[threads + 1];
  typename block_scan::TempStorage scan;
  index_t pending_offset;
  unsigned long long staged[2];  // the mbarriers of the buffers' bulk copies
  // The tile to take next and its splits: written by thread 0 (splits not published yet
  // by warps 0 and 1), read by all after a barrier.
  int next_tile;
  int missing;  // published_splits: bit 0, next_begin is still to be found; bit 1, next_end
  split<index_t> next_begin, next_end;
};

// Blocks per SM: as many as shared memory holds (228 KiB per SM, 1 KiB of it reserved per
// block on sm_90), at most the policy's; the compiler may use the registers that leaves.
template <class Policy, class Storage>
inline constexpr int deferred_blocks_per_sm =
    std::max(1, std::min(Policy::min_blocks_per_sm, int(228 * 1024 / (sizeof(Storage) + 1024))));

template <class Policy, class Op, class Args>
using deferred_storage_for =
    deferred_tile_storage<Policy, typename Args::key_type, typename Args::value_type, typename Args::partner_type,
                          Args::with_values, Args::paired>;

// Tiles are handed out by `counter` (zeroed before the kernel reads it) in the order blocks ask,
// so a tile is only ever taken by a running block, as are all of its predecessors: every
// look-back ends, whatever else shares the GPU.
// The tile boundaries come as `Splits`: an array that the split pass filled, or (where
// every block takes about one tile and no split pass runs) published_splits, whose missing
// boundaries the blocks find themselves.
template <class Policy, class Op, class Args, class Compare, class Splits>
__global__ void __launch_bounds__(Policy::threads_per_block,
                                  deferred_blocks_per_sm<Policy, deferred_storage_for<Policy, Op, Args>>)
    deferred_tile_kernel(Op op, Args args, Compare comp, Splits tile_splits, tile_prefix_state prefix_state,
                         index_t* count_out, int tiles, int* counter) {
  using key_type = typename Args::key_type;
  using value_type = typename Args::value_type;
  using partner_type = typename Args::partner_type;
  constexpr bool with_values = Args::with_values;
  constexpr int threads = Policy::threads_per_block;
  constexpr int items = Policy::items_per_thread;
  constexpr int steps = Op::partition == partitioning::balanced_path ? items + 2 : items;
  static_assert(!Op::output_size_is_input_size && Args::writes_keys);
  using storage = deferred_storage_for<Policy, Op, Args>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  storage& shared = *reinterpret_cast<storage*>(shared_bytes);
  const int tid = threadIdx.x;

  const bool bulk = stages_in_bulk<key_type>(args.keys_a, args.keys_b) &&
                    (!with_values || stages_in_bulk<value_type>(args.values_a, args.values_b));
  // The next tile's splits, read by thread 0. Published ones (published_splits.cuh) are
  // decoded, and those not found yet marked missing (bit 0: the begin, bit 1: the end), for
  // warps 0 and 1 to find at the top of the next round.
  constexpr bool finds_splits = std::is_same_v<Splits, published_splits>;
  static_assert(!finds_splits || threads >= 64, "the first two warps find a tile's missing splits");
  const int warp = tid / 32;
  using boundary = std::conditional_t<finds_splits, unsigned long long, split<index_t>>;  // as read
  auto read_boundary = [&](int t) -> boundary {
    if constexpr (finds_splits) return tile_splits.word(t); else return tile_splits[t];
  };
  auto take_next = [&](int next, boundary begin, boundary end) {
    shared.next_tile = next;
    if constexpr (finds_splits) {
      // Past the last tile the words are not read (zero), and nothing is missing.
      shared.missing = next < tiles ? (begin == 0 ? 1 : 0) | (end == 0 ? 2 : 0) : 0;
      if (begin != 0) shared.next_begin = tile_splits.decode(next, begin);
      if (end != 0) shared.next_end = tile_splits.decode(next + 1, end);
    } else {
      shared.next_begin = begin;
      shared.next_end = end;
    }
  };

  wait_for_earlier_kernel();  // the split pass or zero_words_kernel: either zeroes the counter and look-back words
  if (tid == 0) {
    if (bulk) {
      staging_barrier(&shared.staged[0]).init();
      staging_barrier(&shared.staged[1]).init();
    }
    const int first = atomicAdd(counter, 1);
    if (first < tiles) take_next(first, read_boundary(first), read_boundary(first + 1));
    else take_next(first, {}, {});
  }

  // The tile whose outputs wait in the other buffer: its index and count.
  int pending = -1;
  index_t pending_count = 0;
  auto store_pending = [&](int b) {
    // Its predecessors published a round ago: the look-back seldom waits.
    const index_t offset =
        find_tile_offset(prefix_state, pending, pending_count, tiles, count_out, shared.pending_offset);
    store_tile_outputs<threads, steps>(args, shared.buffers[b], offset, int(pending_count));
    // The copy engine writes this buffer next round: order these reads before that (the
    // barrier at the top of the round completes the order).
    if (bulk) fence_shared_for_copies();
  };

  for (int round = 0;; ++round) {
    const int b = round & 1;  // this round's buffer; the pending outputs are in b ^ 1
    __syncthreads();          // the last round is done with next_* and with buffer b
    if constexpr (finds_splits) {
      if (const int missing = shared.missing; missing != 0) {  // the same in every thread
        if (warp < 2 && (missing >> warp & 1) != 0) {
          const split<index_t> s = warp_find_boundary<Op>(tile_splits, shared.next_tile + warp, args.keys_a,
                                                          args.size_a, args.keys_b, args.size_b, comp);
          if (tid % 32 == 0) (warp == 0 ? shared.next_begin : shared.next_end) = s;
        }
        __syncthreads();
      }
    }
    const int tile = shared.next_tile;
    if (tile >= tiles) {
      if (pending >= 0) store_pending(b ^ 1);
      return;
    }
    const split<index_t> begin = shared.next_begin, end = shared.next_end;
    // Thread 0 asks for the next round's tile now, and reads its splits after the walk.
    int next = tiles;
    if (tid == 0) next = atomicAdd(counter, 1);
    const int a_size = int(end.a - begin.a), b_size = int(end.b - begin.b);
    const int window = a_size + b_size;
    typename storage::buffer& buffer = shared.buffers[b];

    // Stage this tile's windows.
    const window_layout keys_at = staging_layout<key_type>(bulk, begin, end);
    const window_layout values_at = staging_layout<value_type>(bulk, begin, end);
    stage_tile<threads, steps, Op>(args, buffer.keys.data(), keys_at, buffer.values.data(), values_at, bulk, begin, end,
                                   staging_barrier(&shared.staged[b]), unsigned(round >> 1) & 1);
    const key_type* a_keys = buffer.keys.data() + keys_at.a;
    const key_type* b_keys = buffer.keys.data() + keys_at.b;

    // Each thread's piece of the balanced path, and its walk.
    const int diagonal = tid * items < window ? tid * items : window;
    thread_outputs<key_type, steps, with_values> out;
    shared.splits[tid] = path_split<Op::partition>(diagonal, a_keys, a_size, b_keys, b_size, comp);
    if (tid == 0) shared.splits[threads] = {a_size, b_size};
    __syncthreads();
    {
      const split<int> from = shared.splits[tid];
      const split<int> to = shared.splits[tid + 1];
      walk_tile<steps, true, true>(op, comp, a_keys, from.a, to.a, b_keys, from.b, to.b, out, begin.a > 0, begin.b > 0);
    }
    value_type values[with_values ? steps : 1];
    partner_type partners[Args::paired ? steps : 1];
    if constexpr (with_values) {
      auto value_of = [&](bool from_b, int index) -> value_type {
        return buffer.values[from_b ? values_at.b + index : values_at.a + index];
      };
      gather_values<Args::paired>(op, out, out.written, value_of, values, partners);
    }
    boundary next_begin{}, next_end{};
    if (tid == 0 && next < tiles) {
      next_begin = read_boundary(next);
      next_end = read_boundary(next + 1);
    }

    // The tile's count, published at once; the scan's barriers also see every thread done
    // with the window (the outputs take its place) and with next_*.
    int rank = 0, tile_count = 0;
    typename storage::block_scan(shared.scan).ExclusiveSum(count_steps(out.written), rank, tile_count);
    if (tid == 0) {
      prefix_state.publish_count(tile, tile_count);
      take_next(next, next_begin, next_end);
      // The next tile's windows asked of L2 now: its bulk copies, issued next round after this
      // tile's compaction and the last one's look-back and store, then find most of them there
      // instead of waiting out DRAM (bench/NOTES.md 36).
      if constexpr (!finds_splits) {
        if (bulk && next < tiles) prefetch_tile(args, next_begin, next_end);
      }
    }
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < steps; ++v) {
      if (out.written >> v & 1) {
        buffer.keys[rank] = out.keys[v];
        if constexpr (with_values) buffer.values[rank] = values[v];
        if constexpr (Args::paired) buffer.partners[rank] = partners[v];
        ++rank;
      }
    }
    // The last round's tile: its offset, then its outputs.
    if (pending >= 0) store_pending(b ^ 1);
    pending = tile;
    pending_count = tile_count;
  }
}

}  // namespace corank::detail
