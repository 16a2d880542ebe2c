#pragma once
// Tuning as plain data: threads per block and items per thread for the tiled kernels,
// per key and value size, for sm_90 (H100/H200). Kernels read only these constants.

#include <corank/config.hpp>

#include <algorithm>

namespace corank {

// Which kernel runs an operation. All strategies give identical results.
enum class strategy : unsigned char {
  naive,    // each thread finds its co-rank in global memory and walks global memory
  tiled,    // a block streams tiles through one shared-memory buffer, reloading it whole
            // (loads up to 2T elements to produce T outputs)
  circular  // a block streams tiles through ring buffers, refilling only consumed slots
            // and prefetching the refill while it merges (the default)
};

inline constexpr strategy default_strategy = strategy::circular;

inline const char* to_string(strategy s) {
  switch (s) {
    case strategy::naive: return "naive";
    case strategy::tiled: return "tiled";
    case strategy::circular: return "circular";
  }
  return "unknown";
}

// Tuned for sm_90. items_per_thread is a power of two so that tiles, and the ring buffers
// of twice their size, are powers of two and wrap with a mask.
template <int KeySize, int ValueSize>
struct merge_policy_sm90 {
  static constexpr int threads_per_block = 256;
  static constexpr int items_per_thread = std::max(1, 32 / std::max(KeySize, ValueSize));
  static constexpr int items_per_tile = threads_per_block * items_per_thread;
  // The naive strategy's threads: each takes this many outputs.
  static constexpr int naive_items_per_thread = 8;
  static constexpr int naive_threads_per_block = 256;
};

template <class Key, class Value>
using merge_pairs_policy = merge_policy_sm90<int(sizeof(Key)), int(sizeof(Value))>;

template <class Key>
using merge_keys_policy = merge_policy_sm90<int(sizeof(Key)), 0>;

}  // namespace corank
