#pragma once
// Shared memory of one block of the streaming kernels: the A and B key buffers (rings
// for the circular strategy), a staging area that turns per-thread outputs into coalesced stores,
// the tile's values, and the per-thread co-rank splits.

#include <corank/config.hpp>
#include <corank/detail/ring_buffer.hpp>

namespace corank::detail {

// Storage for N objects of a trivially copyable T without constructing them.
template <class T, int N>
struct uninitialized_array {
  alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char bytes[sizeof(T) * N];
  __device__ T* data() { return reinterpret_cast<T*>(bytes); }
  __device__ T& operator[](int i) { return data()[i]; }
};

// Staging writes land at thread * items + v; one padding slot per 32 makes those strided
// writes, and the coalesced reads, free of bank conflicts.
__device__ constexpr int padded(int i) { return i + (i >> 5); }

template <class Policy, class Key, class Value, bool WithValues>
struct tile_storage {
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

}  // namespace corank::detail
