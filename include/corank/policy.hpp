#pragma once
// Tuning as plain data: threads per block and items per thread for the tiled kernels,
// per key and value size, for sm_90 (H100/H200). Kernels read only these constants.

#include <corank/config.hpp>

#include <algorithm>

namespace corank {

// Which kernel runs an operation. All strategies give identical results.
enum class strategy : unsigned char {
  automatic,  // the default: the strategy measured fastest for the operation and its size
              // (see merge_strategy_for)
  naive,      // each thread finds its co-rank in global memory and walks global memory
  tiled,      // a block streams tiles through one shared-memory buffer, reloading it whole
              // (loads up to 2T elements to produce T outputs)
  circular,    // a block streams tiles through ring buffers, loading only what the last
               // tile consumed (T loads for T outputs)
  partitioned  // one tile per block: a first pass finds every tile's input windows by
               // co-rank, then each block loads exactly its windows (T loads for T outputs)
};

// strategy::automatic runs a merge of at most this many elements (both inputs together)
// naive, a single kernel, and everything else partitioned. Measured on an H100
// (bench/RESULTS.md, "Naive or partitioned"): below, where launches rather than bytes set
// the time, naive's one kernel beats partitioned's two; int32 and int64 keys up to 2^17
// elements per input, int32 pairs up to 2^16.
inline constexpr index_t automatic_naive_merge_max_keys = index_t(1) << 18;
inline constexpr index_t automatic_naive_merge_max_pairs = index_t(1) << 17;
inline constexpr strategy default_strategy = strategy::automatic;

// The strategy a merge of m + n elements (with values or not) runs under `kind`.
constexpr strategy merge_strategy_for(strategy kind, index_t m, index_t n, bool with_values) {
  if (kind != strategy::automatic) return kind;
  const index_t most = with_values ? automatic_naive_merge_max_pairs : automatic_naive_merge_max_keys;
  const bool small = m >= 0 && n >= 0 && m <= most && n <= most - m;
  return small ? strategy::naive : strategy::partitioned;
}

inline const char* to_string(strategy s) {
  switch (s) {
    case strategy::automatic: return "automatic";
    case strategy::naive: return "naive";
    case strategy::tiled: return "tiled";
    case strategy::circular: return "circular";
    case strategy::partitioned: return "partitioned";
  }
  return "unknown";
}

// Tuned for sm_90 on an H200 by bench/sweep.sh (bench/NOTES.md has the sweep): 128
// threads, and as many items per thread as registers allow, since each thread's co-rank
// search (log2 of the tile) is shared by its items. Items are odd, so that neighbouring
// threads' pieces start in different shared-memory banks, and at most 31: a thread's steps
// are tracked in 32-bit masks. Sizes the sweep did not cover are extrapolated.
// CORANK_TUNE_THREADS / CORANK_TUNE_ITEMS override the table (the sweep rebuilds with each
// candidate).
template <int KeySize, int ValueSize>
struct merge_policy_sm90 {
#if defined(CORANK_TUNE_THREADS) && defined(CORANK_TUNE_ITEMS)
  static constexpr int threads_per_block = CORANK_TUNE_THREADS;
  static constexpr int items_per_thread = CORANK_TUNE_ITEMS;
#else
  static constexpr int threads_per_block = 128;
  static constexpr int items_per_thread = ValueSize == 0 ? (KeySize <= 4 ? 31 : KeySize <= 8 ? 23 : 11)
                                                         : (std::max(KeySize, ValueSize) <= 4 ? 23 : 11);
#endif
  static constexpr int items_per_tile = threads_per_block * items_per_thread;
  static constexpr int key_size = KeySize;
  static constexpr int value_size = ValueSize;
  // Registers a thread of the one-tile kernel may use (the compiler is told the blocks per
  // SM that this leaves room for). Left alone, it takes 72 for 4-byte keys and 7 blocks fit;
  // capped at 64, 8 blocks fit and int32 merges ran a little faster on the H200. Pairs and
  // 8-byte keys keep their 72: capped at 64 they spill and ran slower (bench/NOTES.md).
  static constexpr int registers_per_thread = ValueSize == 0 && KeySize <= 4 ? 56 : 64;
  static constexpr int min_blocks_per_sm = 65536 / (threads_per_block * registers_per_thread) > 0
                                               ? 65536 / (threads_per_block * registers_per_thread)
                                               : 1;
  // The naive strategy's threads: each takes this many outputs.
  static constexpr int naive_items_per_thread = 8;
  static constexpr int naive_threads_per_block = 256;
};

// The set operations' tiles: the streaming kernels' threads and at most 29 items, measured
// on the H100 against 21 to 61 items and 64 to 256 threads (bench/NOTES.md 24, 30, 34);
// elements of 8 bytes (int64 keys, int32 keys with int32 values) take 27, the most with
// which 4 blocks still fit an SM (1-8% faster than the streaming policy's 23 from 2^22 per
// input). A thread walks up to items + 2 steps (balanced-path pieces), tracked in step masks
// of up to 64 bits. CORANK_TUNE_SET_THREADS / _ITEMS override the table (bench/sweep.sh --set-ops).
template <class Policy>
struct set_operation_policy : Policy {
#if defined(CORANK_TUNE_SET_THREADS) && defined(CORANK_TUNE_SET_ITEMS)
  static constexpr int threads_per_block = CORANK_TUNE_SET_THREADS;
  static constexpr int items_per_thread = CORANK_TUNE_SET_ITEMS;
#else
  static constexpr int threads_per_block = Policy::threads_per_block;
  static constexpr int items_per_thread = Policy::key_size + Policy::value_size == 8 ? 27
                                          : Policy::items_per_thread < 29             ? Policy::items_per_thread
                                                                                      : 29;
#endif
  static_assert(items_per_thread + 2 <= 64, "a thread's steps are tracked in 64-bit masks");
  static constexpr int items_per_tile = threads_per_block * items_per_thread;
  static constexpr int min_blocks_per_sm = std::max(1, 65536 / (threads_per_block * Policy::registers_per_thread));
};

template <class Key, class Value>
using merge_pairs_policy = merge_policy_sm90<int(sizeof(Key)), int(sizeof(Value))>;

template <class Key>
using merge_keys_policy = merge_policy_sm90<int(sizeof(Key)), 0>;

// strategy::partitioned merges in bigger tiles than the streaming kernels: 256 threads of
// at most 29 items. Each tile boundary costs a search over both inputs in global memory
// (the tile splits); at 2^28 int32 keys per input, 128 x 31 tiles spent 205 us of 1.64 ms
// on them. Measured on the H100 (bench/NOTES.md 26): 256 x 29 int32 keys and 256 x 23
// int64 keys and int32 pairs ran 7-11% faster at 2^28 than 128-thread tiles, as fast at
// 2^24. CORANK_TUNE_PARTITIONED_THREADS / _ITEMS override it (bench/sweep.sh --partitioned);
// items never exceed the streaming kernels' for the type.
template <class Policy>
struct partitioned_merge_policy : Policy {
#if defined(CORANK_TUNE_PARTITIONED_THREADS) && defined(CORANK_TUNE_PARTITIONED_ITEMS)
  static constexpr int threads_per_block = CORANK_TUNE_PARTITIONED_THREADS;
  static constexpr int most_items = CORANK_TUNE_PARTITIONED_ITEMS;
#else
  static constexpr int threads_per_block = 256;
  // 8-byte keys with 8-byte values take 10: with 11 the kernel spilled 12-16 bytes (at its 64
  // registers) and ran 1-3% slower at 2^20-2^22 per input, as fast above (bench/NOTES.md 37).
  static constexpr int most_items = Policy::value_size != 0 && Policy::key_size + Policy::value_size == 16 ? 10 : 29;
#endif
  static constexpr int items_per_thread = std::min(Policy::items_per_thread, most_items);
  static constexpr int items_per_tile = threads_per_block * items_per_thread;
  static constexpr int min_blocks_per_sm = std::max(1, 65536 / (threads_per_block * Policy::registers_per_thread));
};

}  // namespace corank

namespace corank {

// The tiles of the set operations (and other balanced-path ops), for tests and tuning.
template <class Key>
using set_keys_policy = set_operation_policy<merge_keys_policy<Key>>;
template <class Key, class Value>
using set_pairs_policy = set_operation_policy<merge_pairs_policy<Key, Value>>;

// The tiles of merges under strategy::partitioned, for tests and tuning.
template <class Key>
using partitioned_merge_keys_policy = partitioned_merge_policy<merge_keys_policy<Key>>;
template <class Key, class Value>
using partitioned_merge_pairs_policy = partitioned_merge_policy<merge_pairs_policy<Key, Value>>;

}  // namespace corank
