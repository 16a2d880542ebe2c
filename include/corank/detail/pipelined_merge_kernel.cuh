#pragma once
// strategy::partitioned for merges of 16-byte-aligned arrays of up to a few thousand tiles:
// the one-tile kernel's tiles without the pass that finds their splits (a chain of memory
// latencies that small merges wait out whole). Each block owns a contiguous range of the
// output and merges it tile by tile, so a tile starts where the block's last one ended and
// only its end is new: a split within one tile's length of the last, which a producer warp
// finds in global memory (a warp's 33-way search, 3 rounds) one tile ahead of the block's
// other warps, and whose windows it hands to the copy engine. Two buffers: the producer
// fills one while the others merge the other. With many tiles the one-tile kernel streams
// faster (bench/NOTES.md 29), so dispatch_partitioned.cuh picks by the number of tiles.

#include <corank/detail/partitioned_kernels.cuh>

namespace corank::detail {

template <class Policy, class Key, class Value, bool WithValues>
struct pipelined_merge_storage {
  // A merge tile's windows hold exactly items_per_tile elements together (its outputs).
  static constexpr int window = Policy::items_per_tile;
  struct buffer {
    uninitialized_array<Key, window + staging_slack<Key>> keys;
    uninitialized_array<Value, WithValues ? window + staging_slack<Value> : 1> values;
    split<index_t> begin, end;  // the tile's splits, written by the producer
  };
  buffer buffers[2];
  unsigned long long full[2];   // mbarriers: the buffer's windows have landed
  unsigned long long empty[2];  // mbarriers: the merging warps are done with the buffer
};

template <class Policy, class Args>
using pipelined_storage_for =
    pipelined_merge_storage<Policy, typename Args::key_type, typename Args::value_type, Args::with_values>;

// The merging warps' own barrier (named barrier 1): the producer warp never joins it.
template <int Threads>
__device__ __forceinline__ void merging_warps_barrier() {
  asm volatile("bar.sync 1, %0;\n" ::"n"(Threads) : "memory");
}

// An mbarrier's phase, completed by `count` arrivals (the merging threads release a buffer).
__device__ __forceinline__ void init_arrivals(unsigned long long* word, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(word)), "r"(count) : "memory");
}

__device__ __forceinline__ void arrive_on(unsigned long long* word) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(word)) : "memory");
}

// Policy::threads_per_block merging threads, then the producer warp. Block b merges outputs
// [b * items_per_block, (b + 1) * items_per_block) in tiles of Policy::items_per_tile;
// items_per_block is a multiple of 16 elements, so that every tile's outputs start on a
// 16-byte line whatever the element size (store_tile's vector stores).
template <class Policy, class Op, class Args, class Compare>
__global__ void __launch_bounds__(Policy::threads_per_block + 32,
                                  blocks_per_sm_fitting<Policy, pipelined_storage_for<Policy, Args>>)
    pipelined_merge_kernel(Op op, Args args, Compare comp, index_t items_per_block) {
  using key_type = typename Args::key_type;
  using value_type = typename Args::value_type;
  using storage = pipelined_storage_for<Policy, Args>;
  constexpr bool with_values = Args::with_values;
  constexpr int threads = Policy::threads_per_block;
  constexpr int items = Policy::items_per_thread;
  constexpr int tile = Policy::items_per_tile;
  static_assert(Op::output_size_is_input_size && Op::partition == partitioning::merge_path &&
                !sees_run_starts_v<Op>);
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  storage& shared = *reinterpret_cast<storage*>(shared_bytes);
  const int tid = threadIdx.x;

  const index_t total = args.size_a + args.size_b;
  const index_t block_begin = index_t(blockIdx.x) * items_per_block;
  const index_t block_end = total - block_begin < items_per_block ? total : block_begin + items_per_block;
  const int block_tiles = int((block_end - block_begin + tile - 1) / tile);

  if (tid == 0) {
    for (int s = 0; s < 2; ++s) {
      staging_barrier(&shared.full[s]).init();
      init_arrivals(&shared.empty[s], threads);
    }
  }
  __syncthreads();

  if (tid >= threads) {
    // The producer warp. Tile r's end is within a tile's length of its start, on both inputs.
    const int lane = tid - threads;
    const index_t a_begin = warp_co_rank(block_begin, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
    split<index_t> from{a_begin, block_begin - a_begin};
    for (int r = 0; r < block_tiles; ++r) {
      const index_t diagonal = block_end - from.a - from.b > tile ? from.a + from.b + tile : block_end;
      const index_t length = diagonal - from.a - from.b;
      const index_t low = diagonal - args.size_b > from.a ? diagonal - args.size_b : from.a;
      const index_t high = from.a + length < args.size_a ? from.a + length : args.size_a;
      const index_t a_end = warp_co_rank_within(diagonal, low, high, args.keys_a, args.keys_b, comp);
      const split<index_t> to{a_end, diagonal - a_end};
      const int s = r & 1;
      typename storage::buffer& buffer = shared.buffers[s];
      // The merging warps' reads of the buffer's last tile come before the copies into it.
      if (r >= 2) staging_barrier(&shared.empty[s]).wait(unsigned((r >> 1) - 1) & 1);
      const staging_barrier full(&shared.full[s]);
      const int a_size = int(to.a - from.a), b_size = int(to.b - from.b);
      const window_layout keys_at = staging_layout<key_type>(true, from, to);
      stage_side_in_bulk(buffer.keys.data(), keys_at.a, args.keys_a, args.size_a, from.a, a_size, full, lane == 0,
                         lane);
      stage_side_in_bulk(buffer.keys.data(), keys_at.b, args.keys_b, args.size_b, from.b, b_size, full, lane == 0,
                         lane - 16);
      if constexpr (with_values) {
        const window_layout values_at = staging_layout<value_type>(true, from, to);
        stage_side_in_bulk(buffer.values.data(), values_at.a, args.values_a, args.size_a, from.a, a_size, full,
                           lane == 0, lane);
        stage_side_in_bulk(buffer.values.data(), values_at.b, args.values_b, args.size_b, from.b, b_size, full,
                           lane == 0, lane - 16);
      }
      if (lane == 0) {
        buffer.begin = from;
        buffer.end = to;
      }
      // Every lane's element copies, and the splits, before the arrival that publishes them.
      __syncwarp();
      if (lane == 0) full.arrive();
      from = to;
    }
    // The block's last copies land before the producer leaves.
    for (int r = block_tiles < 2 ? 0 : block_tiles - 2; r < block_tiles; ++r) {
      staging_barrier(&shared.empty[r & 1]).wait(unsigned(r >> 1) & 1);
    }
    return;
  }

  // The merging warps.
  for (int r = 0; r < block_tiles; ++r) {
    const int s = r & 1;
    typename storage::buffer& buffer = shared.buffers[s];
    staging_barrier(&shared.full[s]).wait(unsigned(r >> 1) & 1);
    const split<index_t> begin = buffer.begin, end = buffer.end;
    const int a_size = int(end.a - begin.a), b_size = int(end.b - begin.b);
    const int window = a_size + b_size;
    const window_layout keys_at = staging_layout<key_type>(true, begin, end);
    const window_layout values_at = staging_layout<value_type>(true, begin, end);
    const key_type* a_keys = buffer.keys.data() + keys_at.a;
    const key_type* b_keys = buffer.keys.data() + keys_at.b;

    // Each thread's piece: items outputs from its co-rank in the tile (fewer in a short tile).
    const int diagonal = tid * items < window ? tid * items : window;
    const split<int> from = path_split<partitioning::merge_path>(diagonal, a_keys, a_size, b_keys, b_size, comp);
    thread_outputs<key_type, items, with_values> out;
    walk_tile<items, true, true>(op, comp, a_keys, from.a, a_size, b_keys, from.b, b_size, out);
    value_type values[with_values ? items : 1];
    if constexpr (with_values) {
      auto value_of = [&](bool from_b, int index) -> value_type {
        return buffer.values[from_b ? values_at.b + index : values_at.a + index];
      };
      gather_values<false>(op, out, ~0u, value_of, values, static_cast<value_type*>(nullptr));
    }
    merging_warps_barrier<threads>();  // every thread is done reading the windows
    // Step v of thread t goes to t * items + v, also past a short tile's end (never stored).
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      buffer.keys[tid * items + v] = out.keys[v];
      if constexpr (with_values) buffer.values[tid * items + v] = values[v];
    }
    merging_warps_barrier<threads>();  // every output is staged
    const index_t out_begin = block_begin + index_t(r) * tile;
    store_tile<threads, items>(buffer.keys.data(), args.keys_out + out_begin, window);
    if constexpr (with_values) store_tile<threads, items>(buffer.values.data(), args.values_out + out_begin, window);
    // These reads of the buffer come before the producer's next copies into it.
    fence_shared_for_copies();
    arrive_on(&shared.empty[s]);
  }
}

}  // namespace corank::detail
