#pragma once
// The two-input dispatcher. The dispatch layer is the only code that launches kernels: this
// dispatcher for every operation on two inputs (merges, the set operations, users' ops; keys,
// by-key, count-only and paired forms), and the multiway dispatcher beside it
// (multiway_dispatch.cuh) for the sort and the k-way merge. Each owns the argument checks,
// the temporary-storage layout (temporary_arena.hpp), the choice of kernel and tiles, and the
// launches. The public forms (merge.inl, operation.inl) only build the arguments and call
// dispatch().
//
// Kernels, by op and strategy:
//   ops of known output size (merges)     naive, tiled, circular: the reference kernels;
//                                         partitioned: split pass + tile_kernel
//   ops that write A in place (the        split pass + tile_kernel (no look-back), under
//   sorted search)                        every strategy
//   data-dependent ops that write         automatic, partitioned, tiled, circular: the
//                                         persistent_tile_kernel; naive: split pass + tile_kernel
//   count-only forms                      split pass + tile_kernel, under every strategy

#include <corank/config.hpp>
#include <corank/detail/dispatch/dependent_launch.cuh>
#include <corank/detail/dispatch/device_limits.hpp>
#include <corank/detail/dispatch/occupancy_cache.cuh>
#include <corank/detail/dispatch/temporary_arena.hpp>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/kernels/reference_kernels.cuh>
#include <corank/detail/kernels/tile_kernels.cuh>
#include <corank/op.hpp>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <type_traits>

namespace corank::detail {

// The tiles of `Kind` for the key and value types of `Args`.
template <tile_kind Kind, class Args>
using args_policy = tile_policy<Kind, int(sizeof(typename Args::key_type)),
                                Args::with_values ? int(sizeof(typename Args::value_type)) : 0>;

// The tile agent's tiles for `Op`: merge-path ops of known size take the partitioned merges'
// tiles, ops that write A in place (the sorted search) their own row, and the join's bound
// pass (b_runs) another, every other op the balanced-path ops' tiles (segmented operations
// too: half the items measured no faster, at 2^28 on an H200).
template <class Op, class Args>
inline constexpr tile_kind agent_tile_kind =
    Op::output_size_is_input_size                      ? tile_kind::partitioned_merge
    : !writes_a_in_place_v<Op>                         ? tile_kind::balanced_path
    : std::is_same_v<decltype(Args::values_b), b_runs> ? tile_kind::join_bounds
                                                       : tile_kind::sorted_search;

template <class Op, class Args>
using agent_policy = args_policy<agent_tile_kind<Op, Args>, Args>;

// Whether `kind`, as the caller gave it, runs a merge-like op on a reference kernel, which
// needs no temporary storage.
constexpr bool runs_reference_kernel(strategy kind) {
  return kind == strategy::naive || kind == strategy::tiled || kind == strategy::circular;
}

// What an operation keeps in the temporary storage (temporary_arena.hpp), as offsets from its
// base: the splits of the tiles + 1 tile boundaries, then, for ops of data-dependent size,
// one look-back word per tile and the counter that hands tiles out (in a word of its own, so
// that the split pass zeroes tiles + 1 words), then for segmented operations each tile
// boundary's segment. The reference kernels need none (the arena then answers one byte, so
// that a null pointer always means "query").
struct temporary_layout {
  index_t tiles = 0;
  std::size_t prefix_at = 0;    // the look-back words (ops of data-dependent size)
  std::size_t segments_at = 0;  // segmented operations: each tile boundary's segment (tiles + 1)
  std::size_t bytes = 1;        // all of it: what a query answers and a run needs
};

// How many tiles the tile agent cuts an operation of `Op` on `args` into (one, with no
// elements): what temporary_layout_for reserves for, and what ops that write A in place
// index their tiles by (the join's bound pass: join_dispatch.cuh).
template <class Op, class Args>
index_t agent_tiles(const Args& args) {
  constexpr index_t tile = agent_policy<Op, Args>::items_per_tile;
  const index_t total = args.size_a + args.size_b;
  return total == 0 ? 1 : (total + tile - 1) / tile;
}

// The layout for these sizes and `kind` as the caller gave it, computed once per call: the
// query and the run both take their bytes from here, so they cannot disagree.
// strategy::automatic answers with the tile kernels' bytes whichever kernel the sizes pick,
// the most any strategy needs, so one query serves every strategy. Plain arithmetic, no CUDA
// call: a run with too little storage is refused before anything touches the device.
// Negative sizes, or sizes whose sum or tile count does not fit: cudaErrorInvalidValue.
template <class Op, class Args>
cudaError_t temporary_layout_for(const Args& args, strategy kind, temporary_layout& layout) {
  if (args.size_a < 0 || args.size_b < 0 || args.size_a > std::numeric_limits<index_t>::max() - args.size_b)
    return cudaErrorInvalidValue;
  temporary_arena arena;
  if (!(Op::output_size_is_input_size && runs_reference_kernel(kind))) {
    const index_t tiles = agent_tiles<Op>(args);
    if (tiles >= index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
    layout.tiles = tiles;
    arena.reserve<split<index_t>>(tiles + 1);  // at 0
    layout.prefix_at = arena.reserve<unsigned char>(
        Op::output_size_is_input_size || writes_a_in_place_v<Op> ? 0 : index_t(tile_prefix_state::bytes(tiles + 1)));
    layout.segments_at = arena.reserve<index_t>(Args::segmented ? tiles + 1 : 0);
  }
  layout.bytes = arena.bytes();
  return cudaSuccess;
}

// How many blocks of `Kernel` fit on an SM of the current device (after the opt-in to its
// shared memory), and the device's limits; a tile that does not fit the device:
// cudaErrorInvalidConfiguration.
template <auto Kernel, int Threads, std::size_t SharedBytes>
cudaError_t fit_kernel(device_limits& limits, int& per_sm) {
  if (const cudaError_t e = current_device_limits(limits); e != cudaSuccess) return e;
  if (SharedBytes > std::size_t(limits.max_shared_bytes_per_block)) return cudaErrorInvalidConfiguration;
  return cached_blocks_per_sm<Kernel, Threads, SharedBytes>(per_sm);
}

// Launches `Kernel` on `blocks` blocks of Threads threads and SharedBytes of dynamic shared
// memory, once its tile is known to fit the device (fit_kernel).
template <auto Kernel, int Threads, std::size_t SharedBytes, class... Params>
cudaError_t launch_fitted(index_t blocks, cudaStream_t stream, const Params&... params) {
  device_limits limits;
  int per_sm = 0;  // only for the opt-in: the hardware schedules the blocks
  if (const cudaError_t e = fit_kernel<Kernel, Threads, SharedBytes>(limits, per_sm); e != cudaSuccess) return e;
  Kernel<<<unsigned(blocks), Threads, SharedBytes, stream>>>(params...);
  return cudaPeekAtLastError();
}

// The split pass; `zeroed` (or null): the tile state it zeroes (tile_splits_kernel).
template <class Rule, class Args, class Compare>
void launch_split_pass(const Args& args, Compare comp, split<index_t>* splits, index_t tiles, int items_per_tile,
                       unsigned long long* zeroed, cudaStream_t stream) {
  if (tiles <= warp_split_tiles && !Args::segmented) {
    constexpr index_t per_block = tile_splits_threads / 32;
    tile_splits_kernel<true, Rule><<<unsigned((tiles + per_block) / per_block), tile_splits_threads, 0, stream>>>(
        args, comp, splits, tiles, items_per_tile, zeroed);
  } else {
    constexpr index_t per_block = tile_splits_threads;
    tile_splits_kernel<false, Rule><<<unsigned((tiles + per_block) / per_block), tile_splits_threads, 0, stream>>>(
        args, comp, splits, tiles, items_per_tile, zeroed);
  }
}

// The split pass, then a block per tile (tile_kernel).
template <class Policy, class Rule, class Op, class Args, class Compare>
cudaError_t launch_tiles(const Op& op, const Args& args, Compare comp, split<index_t>* splits,
                         unsigned long long* prefix_words, index_t tiles, index_t* count_out, cudaStream_t stream) {
  constexpr std::size_t shared_bytes = sizeof(tile_kernel_storage<Policy, Rule, Op, Args, Compare>);
  static_assert(shared_bytes <= std::size_t(Policy::limits.shared_bytes_per_block),
                "the tile does not fit in the architecture's shared memory (tuning.hpp)");
  constexpr auto kernel = tile_kernel<Policy, Rule, Op, Args, Compare>;
  device_limits limits;
  int per_sm = 0;  // only for the opt-in: the hardware schedules a block per tile
  if (const cudaError_t e = fit_kernel<kernel, Policy::threads_per_block, shared_bytes>(limits, per_sm);
      e != cudaSuccess)
    return e;
  // The look-back words are zeroed by the split pass (ops of data-dependent size that write).
  unsigned long long* zeroed = nullptr;
  if constexpr (!Args::writes_keys) {
    // Count-only: the tiles add their counts onto *count_out.
    if (const cudaError_t e = cudaMemsetAsync(count_out, 0, sizeof(index_t), stream); e != cudaSuccess) return e;
  } else if constexpr (!Op::output_size_is_input_size && !writes_a_in_place_v<Op>) {
    zeroed = prefix_words;
  }
  launch_split_pass<Rule>(args, comp, splits, tiles, Policy::items_per_tile, zeroed, stream);
  if (const cudaError_t e = launch_dependent(kernel, unsigned(tiles), Policy::threads_per_block, shared_bytes, stream,
                                             limits.compute_major >= 9, op, args, comp,
                                             static_cast<const split<index_t>*>(splits),
                                             tile_prefix_state(prefix_words), count_out, int(tiles));
      e != cudaSuccess)
    return e;
  return cudaPeekAtLastError();
}

// Data-dependent outputs: persistent blocks that store each tile a round late
// (persistent_tile_kernel), as many as fit on the GPU at once.
template <class Policy, class Rule, class Op, class Args, class Compare>
cudaError_t launch_persistent(const Op& op, const Args& args, Compare comp, split<index_t>* splits,
                              unsigned long long* prefix_words, index_t tiles, index_t* count_out,
                              cudaStream_t stream) {
  constexpr std::size_t shared_bytes = sizeof(persistent_kernel_storage<Policy, Rule, Op, Args, Compare>);
  static_assert(shared_bytes <= std::size_t(Policy::limits.shared_bytes_per_block),
                "the tile does not fit in the architecture's shared memory (tuning.hpp)");
  // The kernel for its most common case, whose occupancy stands for both.
  constexpr auto kernel = persistent_tile_kernel<Policy, Rule, Op, Args, Compare, split<index_t>*>;
  constexpr auto finding_kernel = persistent_tile_kernel<Policy, Rule, Op, Args, Compare, published_splits>;
  device_limits limits;
  int per_sm = 0;
  if (const cudaError_t e = fit_kernel<kernel, Policy::threads_per_block, shared_bytes>(limits, per_sm);
      e != cudaSuccess)
    return e;
  const index_t resident = index_t(per_sm) * limits.multiprocessors;
  const index_t blocks = tiles < resident ? tiles : resident;
  int* counter = reinterpret_cast<int*>(prefix_words + tiles);
  const tile_prefix_state prefix_state(prefix_words);
  if (tiles > blocks) {
    // Blocks take several tiles each: the split pass finds every boundary first, and zeroes
    // the look-back words and the counter.
    launch_split_pass<Rule>(args, comp, splits, tiles, Policy::items_per_tile, prefix_words, stream);
    if (const cudaError_t e = launch_dependent(kernel, unsigned(blocks), Policy::threads_per_block, shared_bytes,
                                               stream, limits.compute_major >= 9, op, args, comp, splits, prefix_state,
                                               count_out, int(tiles), counter);
        e != cudaSuccess)
      return e;
  } else {
    // A tile per block: each block finds its own boundaries (a round of warp searches,
    // where the pass would add its own and a launch), published as words at the start of
    // `splits`. Those, the look-back words and the counter are zeroed by a small kernel
    // that the tile kernel's launch overlaps.
    int finding_per_sm = 0;  // as per_sm; asked for its shared-memory opt-in
    if (const cudaError_t e = fit_kernel<finding_kernel, Policy::threads_per_block, shared_bytes>(limits, finding_per_sm);
        e != cudaSuccess)
      return e;
    auto* words = reinterpret_cast<unsigned long long*>(splits);
    const index_t zeroed = prefix_words + tiles + 1 - words;
    zero_words_kernel<<<unsigned((zeroed + tile_splits_threads - 1) / tile_splits_threads), tile_splits_threads, 0,
                        stream>>>(words, zeroed);
    const published_splits boundaries(words, args.size_a + args.size_b, Policy::items_per_tile);
    if (const cudaError_t e = launch_dependent(finding_kernel, unsigned(blocks), Policy::threads_per_block,
                                               shared_bytes, stream, limits.compute_major >= 9, op, args, comp,
                                               boundaries, prefix_state, count_out, int(tiles), counter);
        e != cudaSuccess)
      return e;
  }
  return cudaPeekAtLastError();
}

// strategy::naive's merge: a thread per items_per_thread outputs.
template <class Policy, class Op, class Args, class Compare>
cudaError_t launch_naive_merge(const Op& op, const Args& args, Compare comp, cudaStream_t stream) {
  const index_t total = args.size_a + args.size_b;
  const index_t threads = (total + Policy::items_per_thread - 1) / Policy::items_per_thread;
  const index_t blocks = (threads + Policy::threads_per_block - 1) / Policy::threads_per_block;
  if (blocks > index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidConfiguration;
  naive_merge_kernel<Policy><<<unsigned(blocks), Policy::threads_per_block, 0, stream>>>(op, args, comp);
  return cudaPeekAtLastError();
}

// strategy::tiled and ::circular: one wave of resident blocks, each streaming an equal share
// of whole tiles.
template <class Policy, bool Circular, class Op, class Args, class Compare>
cudaError_t launch_streaming_merge(const Op& op, const Args& args, Compare comp, cudaStream_t stream) {
  constexpr std::size_t shared_bytes =
      sizeof(streaming_storage<Policy, typename Args::key_type, typename Args::value_type, Args::with_values>);
  static_assert(shared_bytes <= std::size_t(Policy::limits.shared_bytes_per_block),
                "the tile does not fit in the architecture's shared memory (tuning.hpp)");
  constexpr auto kernel = tiled_merge_kernel<Policy, Circular, Op, Args, Compare>;
  device_limits limits;
  int per_sm = 0;
  if (const cudaError_t e = fit_kernel<kernel, Policy::threads_per_block, shared_bytes>(limits, per_sm);
      e != cudaSuccess)
    return e;
  const index_t total = args.size_a + args.size_b;
  const index_t tiles = (total + Policy::items_per_tile - 1) / Policy::items_per_tile;
  const index_t resident = index_t(limits.multiprocessors) * per_sm;
  const index_t tiles_per_block = (tiles + resident - 1) / resident;
  const index_t blocks = (tiles + tiles_per_block - 1) / tiles_per_block;
  kernel<<<unsigned(blocks), Policy::threads_per_block, shared_bytes, stream>>>(op, args, comp,
                                                                               tiles_per_block * Policy::items_per_tile);
  return cudaPeekAtLastError();
}

// An op of known size (a merge) under `kind`: the seeds' reference kernels, or the tile
// kernel after the split pass.
template <class Policy, class Rule, class Op, class Args, class Compare>
cudaError_t launch_merge(const Op& op, const Args& args, Compare comp, split<index_t>* splits, index_t tiles,
                         cudaStream_t stream, strategy kind) {
  switch (merge_strategy_for(kind, args.size_a, args.size_b, Args::with_values)) {
    case strategy::naive: return launch_naive_merge<args_policy<tile_kind::naive_merge, Args>>(op, args, comp, stream);
    case strategy::tiled:
      return launch_streaming_merge<args_policy<tile_kind::streaming_merge, Args>, false>(op, args, comp, stream);
    case strategy::circular:
      return launch_streaming_merge<args_policy<tile_kind::streaming_merge, Args>, true>(op, args, comp, stream);
    case strategy::partitioned:
      return launch_tiles<Policy, Rule>(op, args, comp, splits, nullptr, tiles, nullptr, stream);
    case strategy::automatic: break;  // resolved by merge_strategy_for
  }
  return cudaErrorInvalidValue;
}

// The two-phase entry point behind every operation (the convenience forms call it through
// run_two_phase, so that src/'s pre-compiled merges serve them too). The output size goes to
// *count_out (device memory): required for ops of data-dependent size, optional for ops of
// known size (the merges pass none).
template <class Op, class Args, class Compare>
cudaError_t dispatch(void* temp_storage, std::size_t& temp_storage_bytes, const Op& op, const Args& args,
                     index_t* count_out, Compare comp, cudaStream_t stream, strategy kind) {
  static_assert(is_op_v<Op>, "Op does not model the corank op concept (see op.hpp)");
  static_assert(!Op::output_size_is_input_size || Op::partition == partitioning::merge_path,
                "an op whose output size is its input size walks the merge path (see op.hpp)");
  static_assert(!Op::output_size_is_input_size || !sees_run_starts_v<Op>,
                "an op that sees run starts has an output size that depends on the data (see op.hpp)");
  constexpr bool known_size = Op::output_size_is_input_size;
  using rule = partition_rule_for<Op>;
  using policy = agent_policy<Op, Args>;
  temporary_layout layout;
  if (const cudaError_t e = temporary_layout_for<Op>(args, kind, layout); e != cudaSuccess) return e;
  // Checked first, before anything that could touch the device; the bytes against the
  // strategy as given, before it is resolved (under automatic a small merge runs naive, but
  // its query asked for the tile kernels' bytes). A query ends at provide().
  char* base = nullptr;
  if (const cudaError_t e = caller_storage{temp_storage, temp_storage_bytes}.provide(layout.bytes, base);
      e != cudaSuccess || base == nullptr)
    return e;
  if (merge_argument_error(args) != nullptr) return cudaErrorInvalidValue;
  if (!known_size && count_out == nullptr) return cudaErrorInvalidValue;
  const index_t total = args.size_a + args.size_b;
  auto* splits = reinterpret_cast<split<index_t>*>(base);
  auto* prefix_words = reinterpret_cast<unsigned long long*>(base + layout.prefix_at);

  if constexpr (Args::segmented) {
    // Every form runs the split pass and a block per tile, even with no elements: the tiles
    // also write the segments' offsets or counts. (The set operations' persistent driver
    // measured slower here: set_union at 2^28, 15-20% of copy against 20-29%.)
    static_assert(!sees_run_starts_v<Op>, "the segmented forms do not take ops that see run starts (op.hpp) yet");
    Args segmented = args;
    segmented.boundary_segments = reinterpret_cast<index_t*>(base + layout.segments_at);
    if (known_size && count_out != nullptr) {
      write_count_kernel<<<1, 1, 0, stream>>>(count_out, total);
      if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
    }
    if constexpr (!Args::writes_keys) {
      const std::size_t bytes = std::size_t(args.offsets.segments) * sizeof(*args.segments_out);
      if (const cudaError_t e = cudaMemsetAsync(args.segments_out, 0, bytes, stream); e != cudaSuccess) return e;
    }
    return launch_tiles<policy, rule>(op, segmented, comp, splits, prefix_words, layout.tiles, count_out, stream);
  } else if constexpr (known_size) {
    // The runners of operation.cuh report a size for every op; this one is m + n.
    if (count_out != nullptr) {
      write_count_kernel<<<1, 1, 0, stream>>>(count_out, total);
      if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
    }
    if constexpr (Args::writes_keys) {
      if (total > 0) return launch_merge<policy, rule>(op, args, comp, splits, layout.tiles, stream, kind);
    }
    return cudaSuccess;
  } else if constexpr (!Args::writes_keys) {
    return launch_tiles<policy, rule>(op, args, comp, splits, prefix_words, layout.tiles, count_out, stream);
  } else if constexpr (writes_a_in_place_v<Op>) {
    // A's size, which a tile that finds the inputs out of order overwrites with -1; every
    // strategy runs the split pass and a block per tile.
    write_count_kernel<<<1, 1, 0, stream>>>(count_out, args.size_a);
    if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
    return launch_tiles<policy, rule>(op, args, comp, splits, nullptr, layout.tiles, count_out, stream);
  } else {
    // The reference strategies' streaming kernels need a block's outputs to start where its
    // predecessor's end, which a data-dependent size tells only after the fact: tiled and
    // circular run the persistent kernel too, naive the simpler driver.
    if (kind == strategy::naive) {
      return launch_tiles<policy, rule>(op, args, comp, splits, prefix_words, layout.tiles, count_out, stream);
    }
    return launch_persistent<policy, rule>(op, args, comp, splits, prefix_words, layout.tiles, count_out, stream);
  }
}

}  // namespace corank::detail
