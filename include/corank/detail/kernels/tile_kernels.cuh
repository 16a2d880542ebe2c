#pragma once
// The two drivers of the tile agent (tile_agent.cuh), and two small kernels: one zeroes the
// persistent driver's state where no split pass runs, one writes an output size known up front.
//  - tile_kernel: a block per tile, its boundaries from the split pass. Merges write tile t
//    at t * T; ops that write A in place (the sorted search) at the tile's A window start;
//    count-only forms add their tiles' counts; other ops of data-dependent size find their
//    tile's offset by decoupled look-back right after the walk.
// A tile that finds the inputs unsorted (tile_agent.cuh: not `consistent`) stores nothing
// and makes the size negative: count-only forms set its sign bit, the look-back's forms
// poison the look-back, so that no later tile stores and the last tile writes -1.
//  - persistent_tile_kernel: for ops of data-dependent size that write: as many blocks as
//    fit take tiles from a counter and store each tile one round late, when its predecessors
//    have long published their counts and the look-back seldom waits. Tiles that write
//    nothing (tile_agent::writes_nothing) it skips: nothing staged, a count of 0.

#include <corank/detail/agent/tile_agent.cuh>
#include <corank/detail/block/look_back.cuh>
#include <corank/detail/dispatch/dependent_launch.cuh>
#include <corank/detail/kernels/tile_boundaries.cuh>

#include <algorithm>
#include <type_traits>

namespace corank::detail {

// Blocks per SM a tile kernel is compiled for: as many as the architecture's shared memory
// holds, at most the policy's; the compiler may use the registers that leaves.
template <class Policy, class Storage>
inline constexpr int blocks_per_sm_for =
    std::max(1, std::min(Policy::min_blocks_per_sm,
                         int(Policy::limits.shared_bytes_per_sm /
                             (sizeof(Storage) + Policy::limits.reserved_shared_bytes_per_block))));

// A block per tile: the tile's boundaries come from the split pass.
template <class Policy, class Rule, class Op, class Args, class Compare>
struct tile_kernel_storage {
  using agent = tile_agent<Policy, Rule, Op, Args, Compare>;
  typename agent::buffer buffer;
  typename agent::workspace work;
  unsigned long long staged;  // the buffer's mbarrier, for bulk staging
};

template <class Policy, class Rule, class Op, class Args, class Compare>
__global__ void __launch_bounds__(Policy::threads_per_block,
                                  blocks_per_sm_for<Policy, tile_kernel_storage<Policy, Rule, Op, Args, Compare>>)
    tile_kernel(Op op, Args args, Compare comp, const split<index_t>* tile_splits, tile_prefix_state prefix_state,
                index_t* count_out, int tiles) {
  using agent_type = tile_agent<Policy, Rule, Op, Args, Compare>;
  using storage = tile_kernel_storage<Policy, Rule, Op, Args, Compare>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  storage& shared = *reinterpret_cast<storage*>(shared_bytes);
  const int index = blockIdx.x;
  const agent_type agent(op, args, comp);

  wait_for_earlier_kernel();  // the split pass
  const staging_barrier barrier(&shared.staged);
  if (agent.stages_in_bulk_copies() && threadIdx.x == 0) barrier.init();
  // Thread 0 alone uses the barrier until staging's own barrier; racecheck still counts
  // its first uses as warp 0's reads of the initializing write, which this orders.
  __syncwarp();
  typename agent_type::tile t;
  const split<index_t> begin = tile_splits[index], end = tile_splits[index + 1];
  agent.stage(t, index, begin, end, agent.in_order(begin, end), shared.buffer, barrier, 0);
  agent.walk(t, shared.buffer, shared.work);
  agent.count(t, shared.work);
  if constexpr (!Args::writes_keys) {
    // Count-only forms need no offsets, only the total: one atomic add per tile onto the
    // count, which the launch zeroed.
    if (threadIdx.x == 0) {
      auto* total = reinterpret_cast<unsigned long long*>(count_out);
      // The sign bit stays set whatever is added: the sizes add up to less than 2^63.
      if (t.consistent) atomicAdd(total, static_cast<unsigned long long>(t.count)); else atomicOr(total, 1ull << 63);
    }
    if constexpr (agent_type::segmented) {
      // Per segment too: the outputs' labels are compacted, and the outputs added up per segment.
      agent.compact(t, shared.buffer);
      __syncthreads();
      if (t.consistent) agent.finish_segments(shared.buffer, t, index, 0);
    }
  } else if constexpr (agent_type::in_place) {
    // No look-back: the outputs start at the A window's start. *count_out holds A's size (the
    // launch wrote it); a tile that finds the inputs out of order writes -1 there.
    agent.compact(t, shared.buffer);
    __syncthreads();  // every output is compacted
    agent.store_in_place(shared.buffer, t, index, count_out, shared.work);
  } else if constexpr (agent_type::known_size) {
    agent.compact(t, shared.buffer);
    __syncthreads();  // every output is compacted
    const index_t offset = index_t(index) * Policy::items_per_tile;
    agent.store(shared.buffer, offset, t.count);
    if constexpr (agent_type::segmented) agent.finish_segments(shared.buffer, t, index, offset);
  } else {
    // The count is published first, for the successors' look-backs, which then overlap the
    // compaction.
    if (threadIdx.x == 0) agent.publish(prefix_state, index, t);
    agent.compact(t, shared.buffer);
    const index_t offset =
        agent.look_back(prefix_state, index, t.consistent ? t.count : -1, tiles, count_out, shared.work);
    agent.store(shared.buffer, offset, t.count);
    if constexpr (agent_type::segmented) {
      if (offset >= 0) agent.finish_segments(shared.buffer, t, index, offset);
    }
  }
}

// The persistent driver's shared memory: two buffers (this round's tile, and the last
// round's outputs until they are stored) and the next tile, which thread 0 takes.
template <class Policy, class Rule, class Op, class Args, class Compare>
struct persistent_kernel_storage {
  using agent = tile_agent<Policy, Rule, Op, Args, Compare>;
  typename agent::buffer buffers[2];
  typename agent::workspace work;
  unsigned long long staged[2];  // the buffers' mbarriers, for bulk staging
  // The tile to take next and its splits: written by thread 0 (splits not published yet
  // by warps 0 and 1), read by all after a barrier.
  int next_tile;
  int missing;  // published_splits: bit 0, next_begin is still to be found; bit 1, next_end
  bool next_in_order;  // split array: next_begin and next_end are in order (thread 0 checks them once)
  alignas(16) split<index_t> next_begin, next_end;  // each read in one 16-byte load
};

// Tiles are handed out by `counter` (zeroed before the kernel reads it) in the order blocks
// ask, so a tile is only ever taken by a running block, as are all of its predecessors:
// every look-back ends, whatever else shares the GPU.
// The tile boundaries come as `Splits`: an array that the split pass filled, or (where
// every block takes about one tile and no split pass runs) published_splits, whose missing
// boundaries the blocks find themselves.
template <class Policy, class Rule, class Op, class Args, class Compare, class Splits>
__global__ void __launch_bounds__(Policy::threads_per_block,
                                  blocks_per_sm_for<Policy, persistent_kernel_storage<Policy, Rule, Op, Args, Compare>>)
    persistent_tile_kernel(Op op, Args args, Compare comp, Splits tile_splits, tile_prefix_state prefix_state,
                           index_t* count_out, int tiles, int* counter) {
  using agent_type = tile_agent<Policy, Rule, Op, Args, Compare>;
  using storage = persistent_kernel_storage<Policy, Rule, Op, Args, Compare>;
  static_assert(!agent_type::known_size && !agent_type::in_place && Args::writes_keys);
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  storage& shared = *reinterpret_cast<storage*>(shared_bytes);
  const int tid = threadIdx.x;
  const agent_type agent(op, args, comp);
  const bool bulk = agent.stages_in_bulk_copies();

  // The next tile's splits, read by thread 0. Published ones (tile_boundaries.cuh) are
  // decoded, and those not found yet marked missing (bit 0: the begin, bit 1: the end), for
  // warps 0 and 1 to find at the top of the next round.
  constexpr bool finds_splits = std::is_same_v<Splits, published_splits>;
  static_assert(!finds_splits || agent_type::threads >= 64, "the first two warps find a tile's missing splits");
  const int warp = tid / 32;
  // The thread that takes the next tile and publishes this one's count: thread 0. (The last
  // warp's first, which spares the first warp's look-back the wait for the next tile's
  // splits, measured up to 4% faster where tiles take from both inputs, but 12-26% slower
  // where they copy one input or runs of one key: docs/decisions.md, "The thread that takes
  // the next tile".)
  const bool taker = tid == 0;
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
      shared.next_in_order = agent.in_order(begin, end);
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
    const index_t offset = agent.look_back(prefix_state, pending, pending_count, tiles, count_out, shared.work);
    agent.store(shared.buffers[b], offset, int(pending_count));
    // The copy engine writes this buffer next round: order these reads before that (the
    // barrier at the top of the round completes the order).
    if (bulk) fence_shared_for_copies();
  };

  // Rounds that stage a tile: tiles that write nothing are skipped and stage nothing.
  for (int staged = 0;;) {
    const int b = staged & 1;  // this round's buffer; the pending outputs are in b ^ 1
    __syncthreads();          // the last round is done with next_* and with buffer b
    if constexpr (finds_splits) {
      if (const int missing = shared.missing; missing != 0) {  // the same in every thread
        if (warp < 2 && (missing >> warp & 1) != 0) {
          const split<index_t> s = warp_find_boundary<Rule>(tile_splits, shared.next_tile + warp, args.keys_a,
                                                            args.size_a, args.keys_b, args.size_b, comp);
          if (tid % 32 == 0) (warp == 0 ? shared.next_begin : shared.next_end) = s;
        }
        __syncthreads();
      }
    }
    const int index = shared.next_tile;
    if (index >= tiles) {
      if (pending >= 0) store_pending(b ^ 1);
      return;
    }
    // The taker asks for the next round's tile now, and reads its splits after the walk.
    int next = tiles;
    if (taker) next = atomicAdd(counter, 1);
    typename agent_type::tile t;
    const split<index_t> begin = shared.next_begin, end = shared.next_end;
    const bool ordered = finds_splits ? agent.in_order(begin, end) : shared.next_in_order;
    boundary next_begin{}, next_end{};
    if constexpr (agent_type::skips_silent_tiles) {
      if (ordered && agent.writes_nothing(begin, end)) {  // the same in every thread
        // Count 0, published at once; the last tile's store and look-back, then the next
        // tile, once every thread is done with next_* (the look-back's barrier, or one of its
        // own). The next round stages in buffer b, unused.
        if (taker) prefix_state.publish_count(index, 0);
        if (taker && next < tiles) {
          next_begin = read_boundary(next);
          next_end = read_boundary(next + 1);
        }
        if (pending >= 0) {
          store_pending(b ^ 1);
        } else {
          __syncthreads();
        }
        if (taker) {
          take_next(next, next_begin, next_end);
          if constexpr (!finds_splits) {
            if (bulk && next < tiles && shared.next_in_order) agent.prefetch(next_begin, next_end);
          }
        }
        pending = index;
        pending_count = 0;
        continue;
      }
    }
    agent.stage(t, index, begin, end, ordered, shared.buffers[b], staging_barrier(&shared.staged[b]),
                unsigned(staged >> 1) & 1);
    agent.walk(t, shared.buffers[b], shared.work);
    if (taker && next < tiles) {
      next_begin = read_boundary(next);
      next_end = read_boundary(next + 1);
    }
    // The count's scan also sees every thread done with the window (the outputs take its
    // place) and with next_*.
    agent.count(t, shared.work);
    if (taker) {
      agent.publish(prefix_state, index, t);
      take_next(next, next_begin, next_end);
      // The next tile's windows asked of L2 now: its bulk copies, issued next round after this
      // tile's compaction and the last one's look-back and store, then find most of them there
      // instead of waiting out DRAM.
      if constexpr (!finds_splits) {
        if (bulk && next < tiles && shared.next_in_order) agent.prefetch(next_begin, next_end);
      }
    }
    agent.compact(t, shared.buffers[b]);
    // The last round's tile: its offset, then its outputs.
    if (pending >= 0) store_pending(b ^ 1);
    pending = index;
    pending_count = t.consistent ? t.count : -1;
    ++staged;
  }
}

// *count_out = count: the output size of an op of known size, for the runners that report one.
template <int = 0>
__global__ void write_count_kernel(index_t* count_out, index_t count) { *count_out = count; }

// Zeroes words[0, count): the persistent kernel's state where no split pass runs to zero it
// (a tile per block). As after the pass, the tile kernel is launched while this one runs and
// waits for its end; after a memset, it would be launched only then.
template <class Word>
__global__ void __launch_bounds__(tile_splits_threads) zero_words_kernel(Word* words, index_t count) {
  allow_next_kernel();
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) words[i] = 0;
}

}  // namespace corank::detail
