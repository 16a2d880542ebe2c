#pragma once
// The reference merge kernels, from the documents corank grew from: strategy::naive (a
// thread's co-rank in global memory), strategy::tiled and strategy::circular (a block
// streams its share of the output through shared memory, tile by tile; circular keeps ring
// buffers, PMPP 12.7). They run merge-like ops (output size m + n): output position k of
// the operation is output position k of the merge, so every block and thread finds its
// inputs by a co-rank search on its output range ("dynamic input identification").

#include <corank/co_rank.hpp>
#include <corank/detail/block/ring_buffer.hpp>
#include <corank/detail/block/uninitialized_array.cuh>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/thread/block_walk.cuh>
#include <corank/detail/thread/serial_walk.hpp>

#include <iterator>
#include <type_traits>

namespace corank::detail {

// Staging writes land at thread * items + v; one padding slot per 32 makes those strided
// writes, and the coalesced reads, free of bank conflicts.
__device__ constexpr int padded(int i) { return i + (i >> 5); }

// A block of the streaming kernels: the A and B key buffers (rings for circular), a staging
// area that turns per-thread outputs into coalesced stores, the tile's values, and the
// per-thread co-rank splits.
template <class Policy, class Key, class Value, bool WithValues>
struct streaming_storage {
  static constexpr int threads = Policy::threads_per_block;
  static constexpr int tile = Policy::items_per_tile;
  // Both hold one window of T; the ring wraps with a mask, so its capacity is a power of two.
  static constexpr int ring_capacity = next_power_of_two(tile);
  static constexpr int staging_size = tile + tile / 32;

  uninitialized_array<Key, ring_capacity> ring_a;
  uninitialized_array<Key, ring_capacity> ring_b;
  uninitialized_array<Key, staging_size> staged_keys;
  uninitialized_array<Value, WithValues ? staging_size : 1> values;
  int splits[threads + 1];
  index_t block_split[2];
};

// strategy::naive: a thread takes items_per_thread outputs, its co-ranks found in global memory.
template <class Policy, class Op, class Args, class Compare>
__global__ void __launch_bounds__(Policy::threads_per_block) naive_merge_kernel(Op op, Args args, Compare comp) {
  const index_t total = args.size_a + args.size_b;
  const index_t begin = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) * Policy::items_per_thread;
  if (begin >= total) return;
  const index_t end = begin + Policy::items_per_thread < total ? begin + Policy::items_per_thread : total;
  walk_output_range(op, args, comp, begin, end);
}

// Loads positions [a_from, a_from + a_count) of A and [b_from, b_from + b_count) of B into
// the ring slots they map to (a_count + b_count <= Items * Threads). Every load is issued
// into registers before the first store to shared memory, so each thread has all of its
// loads in flight at once; a store right behind each load would wait out DRAM latency per
// element.
template <int Threads, int Items, class Key, class InputA, class InputB>
__device__ __forceinline__ void load_windows(Key* ring_a, Key* ring_b, int mask, InputA input_a, index_t a_from,
                                             int a_count, InputB input_b, index_t b_from, int b_count) {
  const auto a = input_a + a_from;
  const auto b = input_b + b_from;
  Key loaded[Items];
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Items; ++v) {
    const int e = threadIdx.x + v * Threads;
    if (e < a_count) {
      loaded[v] = a[e];
    } else if (e < a_count + b_count) {
      loaded[v] = b[e - a_count];
    }
  }
  const int a_slot = ring_slot(a_from, mask);
  const int b_slot = ring_slot(b_from, mask) - a_count;
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Items; ++v) {
    const int e = threadIdx.x + v * Threads;
    if (e < a_count) {
      ring_a[(a_slot + e) & mask] = loaded[v];
    } else if (e < a_count + b_count) {
      ring_b[(b_slot + e) & mask] = loaded[v];
    }
  }
}

// One tile of the tiled kernels: T outputs from the buffers' current windows. FullTile
// (every tile but a block's last) drops the bounds guards: every thread then has exactly
// items_per_thread outputs and every index is in range.
// Where a thread's piece goes backwards (only unsorted inputs give that: its walk would run
// past the tile's part of B), the tile writes nothing and the block goes on past it.
template <bool FullTile, class Policy, bool Circular, class Storage, class Op, class Args, class Compare>
__device__ __forceinline__ void merge_tile(Storage& shared, const Op& op, const Args& args, Compare& comp,
                                           index_t out_begin, int tile_size, index_t& a_consumed,
                                           index_t& b_consumed, index_t& a_loaded, index_t& b_loaded,
                                           index_t a_end, index_t b_end) {
  using key_type = typename Args::key_type;
  using value_type = typename Args::value_type;
  constexpr bool with_values = Args::with_values;
  constexpr int threads = Policy::threads_per_block;
  constexpr int items = Policy::items_per_thread;
  constexpr int tile = Policy::items_per_tile;
  constexpr int mask = Storage::ring_capacity - 1;
  const int tid = threadIdx.x;

  // Each buffer holds the window [consumed, consumed + T) of its input. `tiled` reloads it
  // whole; `circular` loads only [loaded, consumed + T): the slots the last tile consumed.
  // Loaded and consumed are kept apart on purpose: the textbook's listing conflates them.
  const int a_available = a_end - a_consumed < tile ? int(a_end - a_consumed) : tile;
  const int b_available = b_end - b_consumed < tile ? int(b_end - b_consumed) : tile;
  const index_t a_from = Circular ? a_loaded : a_consumed;
  const index_t b_from = Circular ? b_loaded : b_consumed;
  // At most T loads (circular: what the last tile consumed, once the kernel loaded the first
  // windows) or 2T (tiled: both windows).
  load_windows<threads, Circular ? items : 2 * items>(
      shared.ring_a.data(), shared.ring_b.data(), mask, args.keys_a, a_from, int(a_consumed + a_available - a_from),
      args.keys_b, b_from, int(b_consumed + b_available - b_from));
  a_loaded = a_consumed + a_available;
  b_loaded = b_consumed + b_available;
  __syncthreads();

  const ring_view<key_type> a{shared.ring_a.data(), ring_slot(a_consumed, mask), mask};
  const ring_view<key_type> b{shared.ring_b.data(), ring_slot(b_consumed, mask), mask};
  // Thread level: each thread's co-rank inside the tile; its end is its neighbour's start,
  // and the last thread also finds where the whole tile ends (one search per thread).
  const int diagonal = FullTile || tid * items < tile_size ? tid * items : tile_size;
  shared.splits[tid] = co_rank(diagonal, a, a_available, b, b_available, comp);
  if (tid == threads - 1) shared.splits[threads] = co_rank(tile_size, a, a_available, b, b_available, comp);
  __syncthreads();
  const int a_used = shared.splits[threads];
  const int i = shared.splits[tid];
  const int i_end = shared.splits[tid + 1];
  const int count = FullTile ? items : (diagonal + items < tile_size ? items : tile_size - diagonal);
  if (__syncthreads_or(i > i_end || i_end - i > count)) {
    a_consumed += a_used;
    b_consumed += tile_size - a_used;
    return;
  }

  // This tile's values: A's consumed ones, then B's; loads fly while the keys merge.
  value_type tile_values[with_values ? items : 1];
  if constexpr (with_values) {
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      const int e = tid + v * threads;
      if (e < a_used) {
        tile_values[v] = args.values_a[a_consumed + e];
      } else if (FullTile || e < tile_size) {
        tile_values[v] = args.values_b[b_consumed + (e - a_used)];
      }
    }
  }

  thread_outputs<key_type, items, with_values> out;
  walk_tile<items, !FullTile>(op, comp, a, i, i_end, b, diagonal - i, diagonal + count - i_end, out);

  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < items; ++v) {
    if (FullTile || v < count) shared.staged_keys[padded(diagonal + v)] = out.keys[v];
  }
  if constexpr (with_values) {
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      const int e = tid + v * threads;
      if (FullTile || e < tile_size) shared.values[e] = tile_values[v];
    }
  }
  __syncthreads();

  // Coalesced stores of the tile; values are gathered by the indices the walk recorded.
  const auto keys_out = args.keys_out + out_begin;
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < items; ++v) {
    const int e = tid + v * threads;
    if (FullTile || e < tile_size) keys_out[e] = shared.staged_keys[padded(e)];
  }
  if constexpr (with_values) {
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      if (FullTile || v < count) {
        tile_values[v] = shared.values[(out.from_b >> v & 1) ? a_used + out.index[v] : out.index[v]];
      }
    }
    __syncthreads();
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      if (FullTile || v < count) shared.values[padded(diagonal + v)] = tile_values[v];
    }
    __syncthreads();
    const auto values_out = args.values_out + out_begin;
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      const int e = tid + v * threads;
      if (FullTile || e < tile_size) values_out[e] = shared.values[padded(e)];
    }
  }
  a_consumed += a_used;
  b_consumed += tile_size - a_used;
  // No barrier needed here: the next tile's loads overwrite only slots of elements this
  // tile consumed, which every thread finished reading before the barrier above, and its
  // first barrier orders these reads of the staging area before it is overwritten.
}

// strategy::tiled and strategy::circular. Each block owns one contiguous output range,
// finds its A and B windows by co-rank, and streams them through shared memory one tile
// (T outputs) at a time. `tiled` reloads the window [consumed, consumed + T) of each input
// at every tile (up to 2T loads for T outputs); `circular` keeps the unconsumed part in a
// ring buffer and loads only what the previous tile consumed (T loads for T outputs).
template <class Policy, bool Circular, class Op, class Args, class Compare>
__global__ void __launch_bounds__(Policy::threads_per_block)
    tiled_merge_kernel(Op op, Args args, Compare comp, index_t items_per_block) {
  using storage = streaming_storage<Policy, typename Args::key_type, typename Args::value_type,
                               Args::with_values>;
  constexpr int tile = Policy::items_per_tile;
  extern __shared__ unsigned char shared_bytes[];
  storage& shared = *reinterpret_cast<storage*>(shared_bytes);

  // Block level: the co-ranks of the block's output range give its input windows.
  const index_t total = args.size_a + args.size_b;
  const index_t block_begin = index_t(blockIdx.x) * items_per_block;
  const index_t block_end = total - block_begin < items_per_block ? total : block_begin + items_per_block;
  if (threadIdx.x < 2) {
    const index_t k = threadIdx.x == 0 ? block_begin : block_end;
    shared.block_split[threadIdx.x] = co_rank(k, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
  }
  __syncthreads();
  const index_t a_end = shared.block_split[1];
  const index_t b_end = block_end - a_end;
  index_t a_consumed = shared.block_split[0];
  index_t b_consumed = block_begin - a_consumed;
  // Only unsorted inputs give a block windows that go backwards: it then writes nothing (its
  // tiles would size their loads and searches from negative windows).
  if (a_end < a_consumed || b_end < b_consumed) return;

  index_t a_loaded = a_consumed;
  index_t b_loaded = b_consumed;
  if constexpr (Circular) {
    // The first windows whole (up to 2T); from then on a tile loads at most T.
    constexpr int threads = Policy::threads_per_block;
    a_loaded += a_end - a_consumed < tile ? a_end - a_consumed : tile;
    b_loaded += b_end - b_consumed < tile ? b_end - b_consumed : tile;
    load_windows<threads, 2 * Policy::items_per_thread>(
        shared.ring_a.data(), shared.ring_b.data(), storage::ring_capacity - 1, args.keys_a, a_consumed,
        int(a_loaded - a_consumed), args.keys_b, b_consumed, int(b_loaded - b_consumed));
  }
  for (index_t out_begin = block_begin; out_begin < block_end; out_begin += tile) {
    if (block_end - out_begin >= tile) {
      merge_tile<true, Policy, Circular>(shared, op, args, comp, out_begin, tile, a_consumed, b_consumed,
                                         a_loaded, b_loaded, a_end, b_end);
    } else {
      merge_tile<false, Policy, Circular>(shared, op, args, comp, out_begin, int(block_end - out_begin),
                                          a_consumed, b_consumed, a_loaded, b_loaded, a_end, b_end);
    }
  }
}

}  // namespace corank::detail
