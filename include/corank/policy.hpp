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
  circular,    // a block streams tiles through ring buffers, loading only what the last
               // tile consumed (T loads for T outputs)
  partitioned  // one tile per block: a first pass finds every tile's input windows by
               // co-rank, then each block loads exactly its windows (T loads for T outputs)
};

inline constexpr strategy default_strategy = strategy::circular;

inline const char* to_string(strategy s) {
  switch (s) {
    case strategy::naive: return "naive";
    case strategy::tiled: return "tiled";
    case strategy::circular: return "circular";
    case strategy::partitioned: return "partitioned";
  }
  return "unknown";
}

// Tuned for sm_90. Ring buffers are the next power of two above twice the tile, so they wrap
// with a mask whatever the tile size.
// CORANK_TUNE_THREADS / CORANK_TUNE_ITEMS override the table when defined: the tuning
// sweep (bench/sweep.sh) rebuilds with each candidate.
template <int KeySize, int ValueSize>
struct merge_policy_sm90 {
#if defined(CORANK_TUNE_THREADS) && defined(CORANK_TUNE_ITEMS)
  static constexpr int threads_per_block = CORANK_TUNE_THREADS;
  static constexpr int items_per_thread = CORANK_TUNE_ITEMS;
#else
  static constexpr int threads_per_block = 128;
  // Each thread's co-rank search (log2 of the tile) is shared by its items: more items
  // per thread, fewer search steps per output.
  // Odd, so that neighbouring threads' pieces start in different shared-memory banks (a
  // power of two puts a warp's walks on a few banks, an 8-way conflict at 16 items); at
  // most 15, since a thread's steps are tracked in 32-bit masks (set operations walk up to
  // items + 2 steps).
  static constexpr int items_per_thread = std::clamp(64 / std::max(KeySize, ValueSize), 2, 16) - 1;
#endif
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
