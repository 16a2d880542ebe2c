#pragma once
// The only place that launches the merge kernels: argument checks, the temporary-storage
// protocol, grid sizing from the device and the policy, and the launch itself.

#include <corank/config.hpp>
#include <corank/detail/device_limits.hpp>
#include <corank/detail/iterators.hpp>
#include <corank/detail/dispatch_partitioned.cuh>
#include <corank/detail/merge_kernels.cuh>
#include <corank/detail/occupancy_cache.cuh>
#include <corank/policy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>

namespace corank::detail {

// The streaming strategies need no scratch memory, but the two-phase protocol reserves one
// byte so that a null pointer always means "query".
inline constexpr std::size_t merge_temp_bytes = 1;

template <class Policy, bool Circular, class Op, class Args, class Compare>
cudaError_t launch_tiled_merge(const Op& op, const Args& args, Compare comp, cudaStream_t stream) {
  using storage = tile_storage<Policy, typename Args::key_type, typename Args::value_type,
                               Args::with_values>;
  constexpr std::size_t shared_bytes = sizeof(storage);
  constexpr auto kernel = tiled_merge_kernel<Policy, Circular, Op, Args, Compare>;

  device_limits limits;
  if (const cudaError_t e = current_device_limits(limits); e != cudaSuccess) return e;
  if (shared_bytes > std::size_t(limits.max_shared_bytes_per_block)) return cudaErrorInvalidConfiguration;
  int per_sm = 0;
  if (const cudaError_t e = cached_blocks_per_sm<kernel, Policy::threads_per_block, shared_bytes>(per_sm);
      e != cudaSuccess)
    return e;

  // One wave of resident blocks, each streaming an equal share of whole tiles.
  const index_t total = args.size_a + args.size_b;
  const index_t tiles = (total + Policy::items_per_tile - 1) / Policy::items_per_tile;
  const index_t resident = index_t(limits.multiprocessors) * per_sm;
  const index_t tiles_per_block = (tiles + resident - 1) / resident;
  const index_t blocks = (tiles + tiles_per_block - 1) / tiles_per_block;
  kernel<<<unsigned(blocks), Policy::threads_per_block, shared_bytes, stream>>>(
      op, args, comp, tiles_per_block * Policy::items_per_tile);
  return cudaPeekAtLastError();
}

template <class Policy, class Op, class Args, class Compare>
cudaError_t launch_naive_merge(const Op& op, const Args& args, Compare comp, cudaStream_t stream) {
  const index_t total = args.size_a + args.size_b;
  const index_t threads = (total + Policy::naive_items_per_thread - 1) / Policy::naive_items_per_thread;
  const index_t blocks = (threads + Policy::naive_threads_per_block - 1) / Policy::naive_threads_per_block;
  if (blocks > index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidConfiguration;
  naive_merge_kernel<Policy><<<unsigned(blocks), Policy::naive_threads_per_block, 0, stream>>>(op, args, comp);
  return cudaPeekAtLastError();
}

// The temporary storage a merge-like op needs under `kind` as the caller gave it: the query
// answers with it and the run refuses less, so the two cannot disagree. strategy::automatic
// asks for partitioned's bytes whichever strategy the sizes pick: the most any strategy
// needs, so that one query serves every strategy. Plain arithmetic, no CUDA call: a run
// with too little storage is refused before anything touches the device. Negative sizes,
// or sizes whose sum does not fit: cudaErrorInvalidValue, under every strategy.
template <class Op, class Args>
cudaError_t merge_temp_storage_bytes(const Args& args, strategy kind, std::size_t& bytes) {
  if (kind == strategy::automatic || kind == strategy::partitioned) {
    partitioned_layout layout;
    if (const cudaError_t e = partitioned_layout_for<Op>(set_args<Args, unused>{args, {}}, layout); e != cudaSuccess)
      return e;
    bytes = layout.bytes;
    return cudaSuccess;
  }
  if (args.size_a < 0 || args.size_b < 0 || args.size_a > std::numeric_limits<index_t>::max() - args.size_b)
    return cudaErrorInvalidValue;
  bytes = merge_temp_bytes;
  return cudaSuccess;
}

// The two-phase entry point behind every merge-like operation.
template <class Op, class Args, class Compare>
cudaError_t dispatch_merge(void* temp_storage, std::size_t& temp_storage_bytes, const Op& op,
                           const Args& args, Compare comp, cudaStream_t stream, strategy kind) {
  static_assert(is_merge_path_op_v<Op>, "Op does not model the corank op concept (see op.hpp)");
  static_assert(Op::output_size_is_input_size, "dispatch_merge runs ops whose output size is m + n");
  static_assert(!sees_run_starts_v<Op>, "run-aware ops run on the data-dependent kernels (operation.cuh)");
  std::size_t needed = 0;
  if (const cudaError_t e = merge_temp_storage_bytes<Op>(args, kind, needed); e != cudaSuccess) return e;
  if (temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  // Against the bytes for the strategy as given, before it is resolved: under automatic a
  // small merge runs naive, but its query asked for partitioned's bytes.
  if (temp_storage_bytes < needed) return cudaErrorInvalidValue;
  if (merge_argument_error(args) != nullptr) return cudaErrorInvalidValue;
  kind = merge_strategy_for(kind, args.size_a, args.size_b, Args::with_values);
  if (kind == strategy::partitioned) {
    return dispatch_partitioned(temp_storage, temp_storage_bytes, op, set_args<Args, unused>{args, {}}, nullptr,
                                comp, stream, kind);
  }
  if (args.size_a + args.size_b == 0) return cudaSuccess;

  using policy = merge_policy_for<Args>;
  switch (kind) {
    case strategy::naive: return launch_naive_merge<policy>(op, args, comp, stream);
    case strategy::tiled: return launch_tiled_merge<policy, false>(op, args, comp, stream);
    case strategy::circular: return launch_tiled_merge<policy, true>(op, args, comp, stream);
    case strategy::partitioned: break;  // dispatched above
    case strategy::automatic: break;    // resolved above
  }
  return cudaErrorInvalidValue;
}

}  // namespace corank::detail
