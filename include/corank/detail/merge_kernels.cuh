#pragma once
// The kernels of operations whose output size is known in advance (merge, merge_by_key,
// and any op with output_size_is_input_size): output position k of the whole operation
// is output position k of the merge, so every block and thread finds its inputs by a
// co-rank search on its output range ("dynamic input identification").

#include <corank/co_rank.hpp>
#include <corank/detail/block_walk.cuh>
#include <corank/detail/merge_args.hpp>
#include <corank/detail/ring_buffer.hpp>
#include <corank/detail/serial_walk.hpp>
#include <corank/detail/tile_storage.cuh>

#include <iterator>
#include <type_traits>

namespace corank::detail {

// strategy::naive: one thread, items_per_thread outputs, co-ranks found in global memory.
template <class Policy, class Op, class Args, class Compare>
__global__ void __launch_bounds__(Policy::naive_threads_per_block)
    naive_merge_kernel(Op op, Args args, Compare comp) {
  const index_t total = args.size_a + args.size_b;
  const index_t begin =
      (index_t(blockIdx.x) * blockDim.x + threadIdx.x) * Policy::naive_items_per_thread;
  if (begin >= total) return;
  const index_t end = begin + Policy::naive_items_per_thread < total
                          ? begin + Policy::naive_items_per_thread
                          : total;
  walk_output_range(op, args, comp, begin, end);
}

// Loads input positions [from, to) of `input` into the ring slots they map to.
template <int Threads, class Key, class Input>
__device__ __forceinline__ void load_to_ring(Key* ring, int mask, Input input, index_t from,
                                             index_t to) {
  for (index_t p = from + threadIdx.x; p < to; p += Threads) ring[ring_slot(p, mask)] = input[p];
}

// strategy::tiled and strategy::circular. Each block owns one contiguous output range,
// finds its A and B windows by co-rank, and streams them through shared memory one tile
// (T outputs) at a time. `tiled` reloads the window [consumed, consumed + T) of each input
// at every tile; `circular` keeps the unconsumed part and loads only what the previous tile
// consumed, prefetched into registers while the current tile merges.
template <class Policy, bool Circular, class Op, class Args, class Compare>
__global__ void __launch_bounds__(Policy::threads_per_block)
    tiled_merge_kernel(Op op, Args args, Compare comp, index_t items_per_block) {
  using key_type = typename Args::key_type;
  using value_type = typename Args::value_type;
  constexpr bool with_values = Args::with_values;
  constexpr int threads = Policy::threads_per_block;
  constexpr int items = Policy::items_per_thread;
  constexpr int tile = Policy::items_per_tile;
  using storage = tile_storage<Policy, Circular, key_type, value_type, with_values>;
  constexpr int mask = storage::ring_capacity - 1;

  extern __shared__ unsigned char shared_bytes[];
  storage& shared = *reinterpret_cast<storage*>(shared_bytes);
  const int tid = threadIdx.x;

  // Block level: the co-ranks of the block's output range give its input windows.
  const index_t total = args.size_a + args.size_b;
  const index_t block_begin = index_t(blockIdx.x) * items_per_block;
  const index_t block_end = total - block_begin < items_per_block ? total : block_begin + items_per_block;
  if (tid < 2) {
    const index_t k = tid == 0 ? block_begin : block_end;
    shared.block_split[tid] = co_rank(k, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
  }
  __syncthreads();
  const index_t a_end = shared.block_split[1];
  const index_t b_end = block_end - a_end;
  index_t a_consumed = shared.block_split[0];
  index_t b_consumed = block_begin - a_consumed;

  if constexpr (Circular) {
    load_to_ring<threads>(shared.ring_a.data(), mask, args.keys_a, a_consumed,
                          a_end - a_consumed < tile ? a_end : a_consumed + tile);
    load_to_ring<threads>(shared.ring_b.data(), mask, args.keys_b, b_consumed,
                          b_end - b_consumed < tile ? b_end : b_consumed + tile);
  }

  for (index_t out_begin = block_begin; out_begin < block_end; out_begin += tile) {
    const int tile_size = block_end - out_begin < tile ? int(block_end - out_begin) : tile;
    // Kept apart on purpose: what has been loaded (consumed + available) and what has been
    // consumed. The textbook's listing conflates them and reads past a partial window.
    const int a_available = a_end - a_consumed < tile ? int(a_end - a_consumed) : tile;
    const int b_available = b_end - b_consumed < tile ? int(b_end - b_consumed) : tile;
    if constexpr (!Circular) {
      load_to_ring<threads>(shared.ring_a.data(), mask, args.keys_a, a_consumed,
                            a_consumed + a_available);
      load_to_ring<threads>(shared.ring_b.data(), mask, args.keys_b, b_consumed,
                            b_consumed + b_available);
    }
    __syncthreads();

    const ring_view<key_type> a{shared.ring_a.data(), ring_slot(a_consumed, mask), mask};
    const ring_view<key_type> b{shared.ring_b.data(), ring_slot(b_consumed, mask), mask};
    // Where this tile ends in A and B: every thread computes it (broadcast reads).
    const int a_used = co_rank(tile_size, a, a_available, b, b_available, comp);
    const int b_used = tile_size - a_used;

    // Issue the global loads for later first, so they fly while this tile merges: the
    // refill of exactly the slots this tile consumes, and this tile's values.
    key_type refill[items];
    index_t a_refill_from = 0, b_refill_from = 0;
    int a_refill = 0, b_refill = 0;
    if constexpr (Circular) {
      a_refill_from = a_consumed + a_available;
      b_refill_from = b_consumed + b_available;
      const index_t a_refill_to = a_end - a_consumed - a_used < tile ? a_end : a_consumed + a_used + tile;
      const index_t b_refill_to = b_end - b_consumed - b_used < tile ? b_end : b_consumed + b_used + tile;
      a_refill = int(a_refill_to - a_refill_from);
      b_refill = int(b_refill_to - b_refill_from);
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < items; ++v) {
        const int e = tid + v * threads;
        if (e < a_refill) {
          refill[v] = args.keys_a[a_refill_from + e];
        } else if (e < a_refill + b_refill) {
          refill[v] = args.keys_b[b_refill_from + (e - a_refill)];
        }
      }
    }
    value_type tile_values[with_values ? items : 1];
    if constexpr (with_values) {
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < items; ++v) {
        const int e = tid + v * threads;
        if (e < a_used) {
          tile_values[v] = args.values_a[a_consumed + e];
        } else if (e < tile_size) {
          tile_values[v] = args.values_b[b_consumed + (e - a_used)];
        }
      }
    }

    // Thread level: each thread's co-rank inside the tile; its end is its neighbour's start.
    const int diagonal = tid * items < tile_size ? tid * items : tile_size;
    shared.splits[tid] = co_rank(diagonal, a, a_available, b, b_available, comp);
    if (tid == 0) shared.splits[threads] = a_used;
    __syncthreads();
    const int i = shared.splits[tid];
    const int i_end = shared.splits[tid + 1];
    const int diagonal_end = diagonal + items < tile_size ? diagonal + items : tile_size;

    thread_outputs<key_type, items> out;
    walk_tile<items>(op, comp, a, i, i_end, b, diagonal - i, diagonal_end - i_end, out);

    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      if (v < diagonal_end - diagonal) shared.staged_keys[padded(diagonal + v)] = out.keys[v];
    }
    if constexpr (Circular) {
      // The refilled slots lie outside the live window, so no barrier guards them.
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < items; ++v) {
        const int e = tid + v * threads;
        if (e < a_refill) {
          shared.ring_a[ring_slot(a_refill_from + e, mask)] = refill[v];
        } else if (e < a_refill + b_refill) {
          shared.ring_b[ring_slot(b_refill_from + (e - a_refill), mask)] = refill[v];
        }
      }
    }
    if constexpr (with_values) {
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < items; ++v) {
        const int e = tid + v * threads;
        if (e < tile_size) shared.values[e] = tile_values[v];
      }
    }
    __syncthreads();

    // Coalesced stores of the tile; values are gathered by the slots the walk recorded.
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < items; ++v) {
      const int e = tid + v * threads;
      if (e < tile_size) args.keys_out[out_begin + e] = shared.staged_keys[padded(e)];
    }
    if constexpr (with_values) {
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < items; ++v) {
        if (v < diagonal_end - diagonal) {
          tile_values[v] = shared.values[(out.from_b >> v & 1) ? a_used + out.index[v] : out.index[v]];
        }
      }
      __syncthreads();
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < items; ++v) {
        if (v < diagonal_end - diagonal) shared.values[padded(diagonal + v)] = tile_values[v];
      }
      __syncthreads();
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < items; ++v) {
        const int e = tid + v * threads;
        if (e < tile_size) args.values_out[out_begin + e] = shared.values[padded(e)];
      }
    }
    a_consumed += a_used;
    b_consumed += b_used;
    // The next iteration's first barrier orders these reads of the staging area and the
    // ring writes above before anything is overwritten.
  }
}

}  // namespace corank::detail
