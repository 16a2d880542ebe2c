#pragma once
// The sort-merge join's dispatcher (join.cuh's two-phase forms; ops/corank/detail/join.inl
// builds the bound pass's arguments and checks the caller's): the only code that launches the
// join's kernels. The stages: one pass of the search op through the two-input dispatcher
// (dispatch.cuh: each left key's lower bound and run of matches in the right column, b_runs,
// and each tile's first key and sum of runs), the exclusive scan of the tiles' sums
// (cub::DeviceScan), the offsets (kernels/join_offsets_kernel.cuh); where the form expands,
// the pairs (kernels/join_expand_kernels.cuh); then the count (kernels/count_words.cuh).
//
// The storage (temporary_arena.hpp), laid out by the same code that launches, once counting
// (the query) and once placing (the run): the lower bounds and the m + 1 offsets (unless they
// are the caller's), each left key's run, the pass's tile arrays (first key, sum of runs,
// prefix sums), two words (the bound pass's count, the expansion's verdict), then one region
// used by one stage at a time: the bound pass's storage, the scan's, the expansion's tile
// boundaries.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/dispatch/temporary_arena.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/detail/kernels/count_words.cuh>
#include <corank/detail/kernels/join_expand_kernels.cuh>
#include <corank/detail/kernels/join_offsets_kernel.cuh>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <type_traits>

namespace corank::detail {

// The outputs of a join form that writes no pairs (sorted_join_count, sorted_join_offsets).
struct no_pairs {};

// What a join form asks for. The lower bounds and offsets are pieces of the storage
// (own_columns), else the caller's (sorted_join_offsets: `lower`, `offsets`); with output
// iterators (not no_pairs) the form expands, `pairs` of them into left_out and right_out.
// Pointers are null in a query, so the layout depends on the flags and sizes, never on them.
// Built whole ({...}): the output iterators need not be default-constructible.
template <class LeftOut, class RightOut>
struct join_outputs {
  static constexpr bool expands = !std::is_same_v<LeftOut, no_pairs>;
  bool own_columns;
  index_t* lower;
  index_t* offsets;
  index_t pairs;
  LeftOut left_out;
  RightOut right_out;
  index_t* count_out;
};

// The scan's input over the tiles' sums: tiles + 1 of them, the last 0.
inline auto tile_sums_input(const index_t* sums, index_t tiles) {
  return thrust::transform_iterator<tile_sum_of, thrust::counting_iterator<index_t>, index_t>(
      thrust::counting_iterator<index_t>(0), tile_sum_of{sums, tiles});
}

// The expansion: `bounds` holds join_expand_tiles(m, pairs) + 1 index_t; *word ends 0, or -1
// where a tile found the offsets out of order.
template <class LeftOut, class RightOut>
cudaError_t launch_join_expansion(const index_t* lower, const index_t* offsets, index_t m, index_t pairs,
                                  LeftOut left_out, RightOut right_out, index_t* bounds, index_t* word,
                                  cudaStream_t stream) {
  const index_t tiles = join_expand_tiles(m, pairs);
  if (tiles > index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
  const unsigned partition_blocks = unsigned((tiles + 1 + 255) / 256);
  join_partition_kernel<<<partition_blocks, 256, 0, stream>>>(offsets, m, pairs, tiles, bounds, word);
  if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
  if (tiles == 0) return cudaSuccess;
  // Many pairs a left element: the walk, else a search per position (join_expand_kernels.cuh).
  // On an H200 the walk took 5% less time with 2 pairs a key (2^24 and 2^28) and 5% more with
  // 1.27 (2^24): the threshold lies between.
  if (pairs >= m + m / 2) {
    join_walk_expand_kernel<<<unsigned(tiles), join_expand_threads, 0, stream>>>(lower, offsets, m, pairs, bounds,
                                                                                 left_out, right_out, word);
  } else {
    join_expand_kernel<<<unsigned(tiles), join_expand_threads, 0, stream>>>(lower, offsets, m, pairs, bounds, left_out,
                                                                            right_out, word);
  }
  return cudaPeekAtLastError();
}

// Every stage of sorted_join_count, sorted_join and sorted_join_offsets, laid out on `temp`
// and, where it has a base, launched. `args`: the bound pass's (the left column as the
// queries, A; the right as the haystack, B; b_runs), whose bounds_and_runs output is filled
// in here; *out.count_out ends the number of pairs, or -1 where the inputs were found out of
// order.
template <class Op, class Args, class LeftOut, class RightOut, class Compare>
cudaError_t join_stages(temporary_arena& temp, const Op& op, const Args& args, const join_outputs<LeftOut, RightOut>& out,
                        Compare comp, cudaStream_t stream, strategy kind) {
  const index_t m = args.size_a;
  if (m < 0 || args.size_b < 0 || out.pairs < 0) return cudaErrorInvalidValue;
  index_t* none = nullptr;
  std::size_t search_bytes = 0, scan_bytes = 0;
  if (const cudaError_t e = dispatch(nullptr, search_bytes, op, args, none, comp, stream, kind); e != cudaSuccess)
    return e;
  const index_t tiles = agent_tiles<Op>(args);
  if (const cudaError_t e = cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, tile_sums_input(none, tiles), none,
                                                           sticky_sum{}, index_t(0), tiles + 1, stream);
      e != cudaSuccess)
    return e;
  const std::size_t bounds_bytes =
      out.expands ? std::size_t(join_expand_tiles(m, out.pairs) + 1) * sizeof(index_t) : 0;
  std::size_t work_bytes = search_bytes > scan_bytes ? search_bytes : scan_bytes;
  work_bytes = work_bytes > bounds_bytes ? work_bytes : bounds_bytes;

  index_t* lower = temp.take<index_t>(out.own_columns ? m : 0);
  index_t* offsets = temp.take<index_t>(out.own_columns ? m + 1 : 0);
  if (!out.own_columns) {
    lower = out.lower;
    offsets = out.offsets;
  }
  auto* runs = temp.take<run_length>(m);
  index_t* tile_first = temp.take<index_t>(tiles + 1);
  index_t* tile_sums = temp.take<index_t>(tiles + 1);
  index_t* tile_prefix = temp.take<index_t>(tiles + 1);
  index_t* words = temp.take<index_t>(2);
  char* work = temp.take<char>(index_t(work_bytes));
  if (!temp.runs()) return cudaSuccess;
  if (tiles > index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;

  // The lower bounds and runs (words[0]: the pass's count), the tiles' prefix sums, then the
  // offsets: the prefix sums of the runs (-1 from where something was found out of order on).
  Args pass = args;
  pass.b_values_out = bounds_and_runs{lower, runs, tile_first, tile_sums};
  std::size_t given = search_bytes;
  if (const cudaError_t e = dispatch(work, given, op, pass, words, comp, stream, kind); e != cudaSuccess) return e;
  given = scan_bytes;
  if (const cudaError_t e = cub::DeviceScan::ExclusiveScan(work, given, tile_sums_input(tile_sums, tiles), tile_prefix,
                                                           sticky_sum{}, index_t(0), tiles + 1, stream);
      e != cudaSuccess)
    return e;
  constexpr int tile = agent_policy<Op, Args>::items_per_tile;
  // With no left keys nothing is recounted, so the pass's size of the right column serves.
  const join_run_count<decltype(args.keys_a), decltype(args.keys_b), Compare> recount{
      args.keys_a, args.keys_b, lower, runs, m, args.size_b, comp};
  join_offsets_kernel<tile><<<unsigned(join_offsets_blocks(tiles)), join_offsets_threads, 0, stream>>>(
      runs, tile_first, tile_prefix, tiles, m, recount, offsets);
  if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
  if constexpr (join_outputs<LeftOut, RightOut>::expands) {
    if (const cudaError_t e = launch_join_expansion(lower, offsets, m, out.pairs, out.left_out, out.right_out,
                                                    reinterpret_cast<index_t*>(work), words + 1, stream);
        e != cudaSuccess)
      return e;
  }
  join_count_kernel<<<1, 1, 0, stream>>>(out.count_out, words, out.expands ? 2 : 1, offsets, m);
  return cudaPeekAtLastError();
}

// sorted_join_expand's stages: the expansion's word, then its tile boundaries; *count_out
// (where not null) as join_stages writes it.
template <class LeftOut, class RightOut>
cudaError_t join_expand_stages(temporary_arena& temp, const index_t* lower, const index_t* offsets, index_t m,
                               index_t pairs, LeftOut left_out, RightOut right_out, index_t* count_out,
                               cudaStream_t stream) {
  if (m < 0 || pairs < 0) return cudaErrorInvalidValue;
  index_t* word = temp.take<index_t>(1);
  index_t* bounds = temp.take<index_t>(join_expand_tiles(m, pairs) + 1);
  if (!temp.runs()) return cudaSuccess;
  if (const cudaError_t e = launch_join_expansion(lower, offsets, m, pairs, left_out, right_out, bounds, word, stream);
      e != cudaSuccess)
    return e;
  if (count_out == nullptr) return cudaSuccess;
  join_count_kernel<<<1, 1, 0, stream>>>(count_out, word, 1, offsets, m);
  return cudaPeekAtLastError();
}

// The two-phase forms (temp_storage == nullptr: a query); the caller has checked its
// arguments where temp_storage is not null.
template <class Op, class Args, class LeftOut, class RightOut, class Compare>
cudaError_t dispatch_join(void* temp_storage, std::size_t& temp_storage_bytes, const Op& op, const Args& args,
                          const join_outputs<LeftOut, RightOut>& out, Compare comp, cudaStream_t stream,
                          strategy kind) {
  return lay_out_and_launch(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
    return join_stages(temp, op, args, out, comp, stream, kind);
  });
}

template <class LeftOut, class RightOut>
cudaError_t dispatch_join_expand(void* temp_storage, std::size_t& temp_storage_bytes, const index_t* lower,
                                 const index_t* offsets, index_t m, index_t pairs, LeftOut left_out,
                                 RightOut right_out, index_t* count_out, cudaStream_t stream) {
  return lay_out_and_launch(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
    return join_expand_stages(temp, lower, offsets, m, pairs, left_out, right_out, count_out, stream);
  });
}

}  // namespace corank::detail
