#pragma once
// Tuning as plain data: one table of tile shapes per GPU architecture (the two-input kernels',
// the block sort's and the k-way merge's), the split searches' and the k-way passes'
// constants, one selector, and one override for tuning runs. The kernels and the dispatchers
// read tiles only through tile_policy_for; nothing else in the library holds a tuned tile or
// pass constant (the automatic strategy's size thresholds are strategy.hpp's).
//
// Where a new row goes: a function like sm90_tiles for the architecture, a case in
// architecture_tiles, and its limits in architecture_limits_for (docs/design.md, "Tuning").

#include <corank/config.hpp>

#include <algorithm>
#include <type_traits>

namespace corank {

// The kernels a row tunes.
enum class tile_kind : unsigned char {
  naive_merge,        // strategy::naive's merge kernel: outputs per thread
  streaming_merge,    // strategy::tiled and ::circular
  partitioned_merge,  // merges on the tile agent (strategy::partitioned)
  balanced_path,      // the set operations, and every other op of data-dependent output size
  sorted_search,      // the sorted search (each query written once, at its own index)
  join_bounds,        // the join's bound pass: the sorted search that also counts each query's run
  block_sort,         // the sort's first stage: a block sorts a tile into a run
  multiway_merge,     // the k-way merge's tiles (merge_runs, the sort's passes)
};

// A block's threads, each thread's items, and the registers a thread may use (which sets the
// blocks per SM the compiler is told of; 0: no cap). The items come from sweeps, not from a
// rule: odd counts (against bank conflicts) measured no change (docs/decisions.md).
struct tile_shape {
  int threads;
  int items;
  int registers;
};

// The tile boundaries' searches (the split pass and the persistent kernel's own searches).
struct split_tuning {
  index_t warp_split_tiles;  // a warp's 33-way search per boundary up to this many tiles, a thread's beyond
  index_t search_grid;       // a thread's search first narrows on a grid of this many positions
};

// The k-way merge's passes: runs merged by one tile at most (a group) and how far apart its
// samples lie, in bytes of keys (a few sectors: gathering them reads a fraction of the
// sectors).
struct multiway_tuning {
  int max_group;
  int sample_spacing_bytes;
};

// What an architecture gives a block: the shared memory a block may opt in to, what an SM
// holds, and what it keeps back per resident block.
struct architecture_limits {
  int shared_bytes_per_block;
  int shared_bytes_per_sm;
  int reserved_shared_bytes_per_block;
};

// sm_90 (H100, H200), swept by bench/sweep.sh (docs/decisions.md: "Partitioned merge tiles",
// "Set-operation tiles", "Register caps per type").
constexpr tile_shape sm90_tiles(tile_kind kind, int key_size, int value_size) {
  // The streaming kernels: 128 threads, and as many items as registers allow, since each
  // thread's co-rank search (log2 of the tile) is shared by its items. 4-byte keys cap at
  // 56 registers (8 blocks of the tile agent fit, a little faster on the H200); others at 64
  // (capped lower they spill).
  const bool keys_only = value_size == 0;
  const int streaming_items = keys_only ? (key_size <= 4 ? 31 : key_size <= 8 ? 23 : 11)
                                        : (std::max(key_size, value_size) <= 4 ? 23 : 11);
  const int registers = keys_only && key_size <= 4 ? 56 : 64;
  switch (kind) {
    case tile_kind::naive_merge: return {256, 8, 0};
    case tile_kind::streaming_merge:
      // 1-byte keys with 8-byte values take 12: with 11, ptxas spilled in tiled_merge_kernel.
      return {128, key_size == 1 && value_size == 8 ? 12 : streaming_items, 0};
    case tile_kind::partitioned_merge:
      // Bigger tiles than streaming ones: each tile boundary costs a search over both inputs
      // in global memory. 256 x 29 int32 keys, 256 x 23 int64 keys and int32 pairs ran
      // 7-11% faster at 2^28 than 128-thread tiles. 8-byte keys with 8-byte values take 10:
      // with 11 they spilled and ran 1-3% slower.
      return {256, std::min(streaming_items, !keys_only && key_size + value_size == 16 ? 10 : 29), registers};
    case tile_kind::balanced_path:
    case tile_kind::sorted_search:  // its own row, the same shape for now (docs/decisions.md,
                                    // "The sorted search: a block per tile, written in place")
      // At most 29 items (a thread walks up to items + 2 steps, tracked in 64-bit masks);
      // elements of 8 bytes take 27, the most with which 4 blocks still fit an SM.
      return {128, key_size + value_size == 8 ? 27 : std::min(streaming_items, 29), registers};
    case tile_kind::join_bounds:
      // Smaller tiles than the search's: more blocks an SM hide the staging's wait, and the
      // expansion stages a tile per piece. H200, the join at 2^24 with 2 pairs a key and the
      // count known, items 27 -> 17: int64 0.427 -> 0.398 ms, int32 (29 -> 17) 0.373 -> 0.358;
      // int32 with few pairs a key 4% slower; 15 slower than 19 and 27 (docs/decisions.md,
      // "The join's runs from where the right column's runs start; the join's tiles").
      return {128, 17, registers};
    case tile_kind::block_sort:
    case tile_kind::multiway_merge: {
      // By the bytes an element moves; odd, so that the threads' serial walks (thread t at
      // t * items) fall in distinct banks. No register cap.
      const int element_bytes = key_size + value_size;
      return {256, element_bytes <= 4 ? 15 : element_bytes <= 8 ? 7 : element_bytes <= 24 ? 5 : 3, 0};
    }
  }
  return {128, 1, 0};
}

// sm_80 (A100) and sm_100 start as copies of sm_90's rows: not measured there yet.
constexpr tile_shape sm80_tiles(tile_kind kind, int key_size, int value_size) {
  return sm90_tiles(kind, key_size, value_size);
}
constexpr tile_shape sm100_tiles(tile_kind kind, int key_size, int value_size) {
  return sm90_tiles(kind, key_size, value_size);
}

inline constexpr split_tuning sm90_splits{3072, 4096};
inline constexpr multiway_tuning sm90_multiway{64, 128};

// An architecture's shared-memory limits (architecture as 10 * major + minor): sm_80's below
// 90, sm_90's from 90.
constexpr architecture_limits architecture_limits_for(int architecture) {
  if (architecture < 90) return {163 * 1024, 164 * 1024, 1024};
  return {227 * 1024, 228 * 1024, 1024};
}

// An architecture's row: sm80_tiles below 90, sm90_tiles below 100, sm100_tiles from 100.
constexpr tile_shape architecture_tiles(int architecture, tile_kind kind, int key_size, int value_size) {
  if (architecture < 90) return sm80_tiles(kind, key_size, value_size);
  if (architecture < 100) return sm90_tiles(kind, key_size, value_size);
  return sm100_tiles(kind, key_size, value_size);
}

// The architecture whose rows a translation unit uses: the oldest it compiles code for,
// whose tiles fit every newer one. The host's grid arithmetic and the kernels read the same
// row (nvcc defines __CUDA_ARCH_LIST__ in every pass); a plain C++ compiler gets sm_90's.
#if defined(__CUDA_ARCH_LIST__)
namespace detail {
constexpr int compiled_architecture_list[] = {__CUDA_ARCH_LIST__};
}
inline constexpr int tuned_architecture = detail::compiled_architecture_list[0] / 10;
#else
inline constexpr int tuned_architecture = 90;
#endif

// The one override, for tuning runs (bench/sweep.sh): compile with
//   -DCORANK_TUNE=<tile_kind>,<threads>,<items>[,<warp_split_tiles>[,<search_grid>]]
// e.g. -DCORANK_TUNE=balanced_path,128,27 to give every balanced-path tile 128 x 27. A zero
// keeps the table's value.
struct tuning_override {
  tile_kind kind;
  int threads = 0;
  int items = 0;
  index_t warp_split_tiles = 0;
  index_t search_grid = 0;
};
#ifdef CORANK_TUNE
inline constexpr tuning_override tune{tile_kind::CORANK_TUNE};
#else
inline constexpr tuning_override tune{tile_kind::naive_merge};
#endif

// The selector: the row for `kind` and these element sizes, with the override applied.
constexpr tile_shape tuned_tile(tile_kind kind, int key_size, int value_size) {
  tile_shape shape = architecture_tiles(tuned_architecture, kind, key_size, value_size);
  if (kind == tune.kind && tune.threads > 0) shape.threads = tune.threads;
  if (kind == tune.kind && tune.items > 0) shape.items = tune.items;
  return shape;
}

// The split searches' constants: sm90_splits on every architecture, with the override applied.
constexpr split_tuning tuned_splits() {
  split_tuning splits = sm90_splits;
  if (tune.warp_split_tiles > 0) splits.warp_split_tiles = tune.warp_split_tiles;
  if (tune.search_grid > 0) splits.search_grid = tune.search_grid;
  return splits;
}

// The split searches' tuning as the constants the kernels are compiled with.
inline constexpr index_t warp_split_tiles = tuned_splits().warp_split_tiles;
inline constexpr index_t split_search_grid = tuned_splits().search_grid;

// The k-way merge's constants: sm90_multiway on every architecture.
inline constexpr int multiway_max_group = sm90_multiway.max_group;
inline constexpr int multiway_sample_spacing_bytes = sm90_multiway.sample_spacing_bytes;

// A row as the constants the kernels are compiled with.
template <tile_kind Kind, int KeySize, int ValueSize>
struct tile_policy {
  static constexpr tile_shape shape = tuned_tile(Kind, KeySize, ValueSize);
  static constexpr int threads_per_block = shape.threads;
  static constexpr int items_per_thread = shape.items;
  static constexpr int items_per_tile = threads_per_block * items_per_thread;
  // Blocks per SM the compiler is told of, so that it keeps to the register cap.
  static constexpr int min_blocks_per_sm =
      shape.registers == 0 ? 1 : std::max(1, 65536 / (threads_per_block * shape.registers));
  static constexpr architecture_limits limits = architecture_limits_for(tuned_architecture);
  static_assert(threads_per_block % 32 == 0 && items_per_thread > 0, "a tile is whole warps of at least one item");
};

// The tiles of `Kind` for keys of Key and values of Value (void: keys only).
template <tile_kind Kind, class Key, class Value = void>
using tile_policy_for = tile_policy<Kind, int(sizeof(Key)), std::is_void_v<Value> ? 0 : int(sizeof(std::conditional_t<std::is_void_v<Value>, char, Value>))>;

// Tile sizes by name, for tests that size inputs around tiles and for tuning runs.
template <class Key>
using merge_keys_policy = tile_policy_for<tile_kind::streaming_merge, Key>;
template <class Key, class Value>
using merge_pairs_policy = tile_policy_for<tile_kind::streaming_merge, Key, Value>;
template <class Key>
using partitioned_merge_keys_policy = tile_policy_for<tile_kind::partitioned_merge, Key>;
template <class Key, class Value>
using partitioned_merge_pairs_policy = tile_policy_for<tile_kind::partitioned_merge, Key, Value>;
template <class Key>
using set_keys_policy = tile_policy_for<tile_kind::balanced_path, Key>;
template <class Key, class Value>
using set_pairs_policy = tile_policy_for<tile_kind::balanced_path, Key, Value>;
template <class Key>
using sorted_search_policy = tile_policy_for<tile_kind::sorted_search, Key>;
template <class Key>
using join_bounds_policy = tile_policy_for<tile_kind::join_bounds, Key>;
template <class Key, class Value = void>
using block_sort_policy = tile_policy_for<tile_kind::block_sort, Key, Value>;
template <class Key, class Value = void>
using multiway_merge_policy = tile_policy_for<tile_kind::multiway_merge, Key, Value>;

}  // namespace corank
