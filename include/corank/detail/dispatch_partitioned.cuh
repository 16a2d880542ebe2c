#pragma once
// The only place that launches the one-tile-per-block kernel: argument checks, the
// temporary-storage layout (tile splits and look-back state), and the launches.

#include <corank/config.hpp>
#include <corank/detail/dependent_launch.cuh>
#include <corank/detail/device_limits.hpp>
#include <corank/detail/occupancy_cache.cuh>
#include <corank/detail/deferred_tile_kernel.cuh>
#include <corank/detail/partitioned_kernels.cuh>
#include <corank/detail/published_splits.cuh>
#include <corank/policy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <type_traits>

namespace corank::detail {

constexpr std::size_t align_up(std::size_t bytes, std::size_t alignment = 256) {
  return (bytes + alignment - 1) / alignment * alignment;
}

// The splits of the tiles + 1 tile boundaries: a warp each up to this many tiles, where
// the fewer latencies of its search pay for its extra loads (measured on the H100 for set
// operations and merges: faster up to 2849 tiles, slower from 4228; bench/NOTES.md 25).
// CORANK_TUNE_WARP_SPLIT_TILES overrides it (for tuning runs).
#ifdef CORANK_TUNE_WARP_SPLIT_TILES
inline constexpr index_t warp_split_tiles = CORANK_TUNE_WARP_SPLIT_TILES;
#else
inline constexpr index_t warp_split_tiles = 3072;
#endif

// The split pass; `zeroed` (or null): the tile state it zeroes (tile_splits_kernel).
template <class Op, class Args, class Compare>
void launch_tile_splits(const Args& args, Compare comp, split<index_t>* splits, index_t tiles, int items_per_tile,
                        unsigned long long* zeroed, cudaStream_t stream) {
  if (tiles <= warp_split_tiles) {
    constexpr index_t per_block = tile_splits_threads / 32;
    tile_splits_kernel<true, Op><<<unsigned((tiles + per_block) / per_block), tile_splits_threads, 0, stream>>>(
        args, comp, splits, tiles, items_per_tile, zeroed);
  } else {
    constexpr index_t per_block = tile_splits_threads;
    tile_splits_kernel<false, Op><<<unsigned((tiles + per_block) / per_block), tile_splits_threads, 0, stream>>>(
        args, comp, splits, tiles, items_per_tile, zeroed);
  }
}

// The look-back words of the tiles, then the counter that hands tiles out (in a word of its
// own, so that the split pass zeroes tiles + 1 words).
inline std::size_t tile_state_bytes(index_t tiles) { return align_up(tile_prefix_state::bytes(tiles + 1)); }

// Data-dependent outputs, staged: persistent blocks that store each tile a round late
// (deferred_tile_kernel.cuh), as many as fit on the GPU at once.
template <class Policy, class Op, class Args, class Compare>
cudaError_t launch_deferred(const Op& op, const Args& args, Compare comp, split<index_t>* splits,
                            unsigned long long* prefix_words, index_t tiles, index_t* count_out,
                            cudaStream_t stream) {
  using storage = deferred_storage_for<Policy, Op, Args>;
  constexpr std::size_t shared_bytes = sizeof(storage);
  // The kernel for its most common case, which the occupancy of both stands for.
  constexpr auto kernel = deferred_tile_kernel<Policy, Op, Args, Compare, split<index_t>*>;
  constexpr auto finding_kernel = deferred_tile_kernel<Policy, Op, Args, Compare, published_splits>;
  int per_sm = 0;
  if (const cudaError_t e = cached_blocks_per_sm<kernel, Policy::threads_per_block, shared_bytes>(per_sm);
      e != cudaSuccess)
    return e;
  device_limits limits;
  if (const cudaError_t e = current_device_limits(limits); e != cudaSuccess) return e;
  const index_t resident = index_t(per_sm) * limits.multiprocessors;
  const index_t blocks = tiles < resident ? tiles : resident;
  int* counter = reinterpret_cast<int*>(prefix_words + tiles);
  const tile_prefix_state prefix_state(prefix_words);
  if (tiles > blocks) {
    // Blocks take several tiles each: the split pass finds every boundary first, and zeroes
    // the look-back words and the counter.
    launch_tile_splits<Op>(args, comp, splits, tiles, Policy::items_per_tile, prefix_words, stream);
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
    if (const cudaError_t e =
            cached_blocks_per_sm<finding_kernel, Policy::threads_per_block, shared_bytes>(finding_per_sm);
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

template <class Policy, bool Staged, class Op, class Args, class Compare>
cudaError_t launch_partitioned(const Op& op, const Args& args, Compare comp, split<index_t>* splits,
                               unsigned long long* prefix_words, index_t tiles, index_t* count_out,
                               cudaStream_t stream) {
  using storage = set_tile_storage<Policy, typename Args::key_type, typename Args::value_type,
                                   typename Args::partner_type, Args::with_values, Args::paired>;
  constexpr std::size_t shared_bytes = sizeof(storage);
  constexpr auto kernel = partitioned_tile_kernel<Policy, Staged, Op, Args, Compare>;
  // Only for the shared-memory opt-in: one block per tile, the hardware schedules them.
  int per_sm = 0;
  if (const cudaError_t e = cached_blocks_per_sm<kernel, Policy::threads_per_block, shared_bytes>(per_sm);
      e != cudaSuccess)
    return e;

  device_limits limits;
  if (const cudaError_t e = current_device_limits(limits); e != cudaSuccess) return e;

  // The look-back words are zeroed by the split pass (ops of data-dependent size that write).
  unsigned long long* zeroed = nullptr;
  if constexpr (!Args::writes_keys) {
    // Count-only: the tiles add their counts onto *count_out.
    const cudaError_t e = cudaMemsetAsync(count_out, 0, sizeof(index_t), stream);
    if (e != cudaSuccess) return e;
  } else if constexpr (!Op::output_size_is_input_size) {
    zeroed = prefix_words;
  }
  launch_tile_splits<Op>(args, comp, splits, tiles, Policy::items_per_tile, zeroed, stream);
  if (const cudaError_t e = launch_dependent(kernel, unsigned(tiles), Policy::threads_per_block, shared_bytes, stream,
                                             limits.compute_major >= 9, op, args, comp,
                                             static_cast<const split<index_t>*>(splits),
                                             tile_prefix_state(prefix_words), count_out, int(tiles));
      e != cudaSuccess)
    return e;
  return cudaPeekAtLastError();
}

// The streaming kernels' tiles for the key (and value) type of `Args`.
template <class Args>
using merge_policy_for = std::conditional_t<Args::with_values,
                                            merge_pairs_policy<typename Args::key_type, typename Args::value_type>,
                                            merge_keys_policy<typename Args::key_type>>;

// The one-tile-per-block kernels' tiles for `Op` on `Args`.
template <class Op, class Args>
using partitioned_policy_for = std::conditional_t<Op::partition == partitioning::balanced_path,
                                                  set_operation_policy<merge_policy_for<Args>>,
                                                  partitioned_merge_policy<merge_policy_for<Args>>>;

// What the one-tile-per-block kernels keep in the temporary storage: the splits of the
// tiles + 1 boundaries, then (ops of data-dependent size) the look-back state.
struct partitioned_layout {
  index_t tiles = 0;
  std::size_t splits_bytes = 0;
  std::size_t bytes = 0;  // all of it: what a query answers and a run needs
};

// The layout for these sizes, whatever the strategy: the query and the run both take their
// bytes from here, so they cannot disagree. Plain arithmetic, no CUDA call: a run with too
// little storage is refused before anything touches the device. Sizes that do not fit:
// cudaErrorInvalidValue.
template <class Op, class Args>
cudaError_t partitioned_layout_for(const Args& args, partitioned_layout& layout) {
  using policy = partitioned_policy_for<Op, Args>;
  if (args.size_a < 0 || args.size_b < 0 || args.size_a > std::numeric_limits<index_t>::max() - args.size_b)
    return cudaErrorInvalidValue;
  const index_t total = args.size_a + args.size_b;
  const index_t tiles = total == 0 ? 1 : (total + policy::items_per_tile - 1) / policy::items_per_tile;
  if (tiles >= index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
  layout.tiles = tiles;
  layout.splits_bytes = align_up(std::size_t(tiles + 1) * sizeof(split<index_t>));
  layout.bytes = layout.splits_bytes + (Op::output_size_is_input_size ? 0 : tile_state_bytes(tiles));
  return cudaSuccess;
}

// The two-phase entry point of the one-tile-per-block kernel: every data-dependent
// operation, and merge-like ops under strategy::partitioned. The output size goes to
// *count_out (device memory), which ops of known output size do not need.
template <class Op, class Args, class Compare>
cudaError_t dispatch_partitioned(void* temp_storage, std::size_t& temp_storage_bytes, const Op& op,
                                 const Args& args, index_t* count_out, Compare comp, cudaStream_t stream,
                                 strategy kind) {
  static_assert(is_merge_path_op_v<Op>, "Op does not model the corank op concept (see op.hpp)");
  static_assert(!Op::output_size_is_input_size || Op::partition == partitioning::merge_path,
                "an op whose output size is its input size walks the merge path (see op.hpp)");
  constexpr bool known_size = Op::output_size_is_input_size;
  using policy = partitioned_policy_for<Op, Args>;
  partitioned_layout layout;
  if (const cudaError_t e = partitioned_layout_for<Op>(args, layout); e != cudaSuccess) return e;
  if (temp_storage == nullptr) {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  // Checked first, before anything that could touch the device.
  if (temp_storage_bytes < layout.bytes) return cudaErrorInvalidValue;
  if (merge_argument_error(args) != nullptr) return cudaErrorInvalidValue;
  if (!known_size && count_out == nullptr) return cudaErrorInvalidValue;
  const index_t total = args.size_a + args.size_b;
  const index_t tiles = layout.tiles;
  if constexpr (Args::paired) {
    if (total > 0 && is_null(args.partner_out)) return cudaErrorInvalidValue;
  }
  if (known_size && total == 0) return cudaSuccess;

  auto* splits = static_cast<split<index_t>*>(temp_storage);
  auto* prefix_words =
      reinterpret_cast<unsigned long long*>(static_cast<char*>(temp_storage) + layout.splits_bytes);
  if (kind == strategy::naive) {
    return launch_partitioned<policy, false>(op, args, comp, splits, prefix_words, tiles, count_out, stream);
  }
  // strategy::automatic runs the staged kernels: measured faster than naive at every size.
  // The streaming kernels of strategy::tiled and ::circular need a block's outputs to
  // start where its predecessor's end, which a data-dependent size tells only after the
  // fact: those strategies run this staged kernel for data-dependent ops.
  if constexpr (!known_size && Args::writes_keys) {
    return launch_deferred<policy>(op, args, comp, splits, prefix_words, tiles, count_out, stream);
  } else {
    return launch_partitioned<policy, true>(op, args, comp, splits, prefix_words, tiles, count_out, stream);
  }
}

}  // namespace corank::detail
