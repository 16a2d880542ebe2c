#pragma once
// Bodies of join.cuh: one search pass (the lower bounds, each left key's run of matches:
// b_runs, and each tile's sum of runs), the scan of the tile sums, the offsets from them
// (join_kernels.cuh: join_offsets_kernel), and (pairs) the expansion's two kernels.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/detail/forms/two_phase.hpp>
#include <corank/detail/join_kernels.cuh>
#include <corank/search.cuh>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <limits>
#include <string>

namespace corank {
namespace detail {

// Where a join keeps what it computes in the temporary storage: each left element's lower
// bound, the m + 1 prefix sums, each left element's run, the bound pass's tile arrays (each
// tile's first left element and sum of runs, and the prefix sums of those), two words (the
// bounds and counts' verdict, the expansion's), then one region used by one step at a time:
// the bound pass's storage, the tile sums' scan's, the expansion's tile boundaries.
struct join_layout {
  std::size_t lower_at = 0, offsets_at = 0, runs_at = 0, tile_first_at = 0, tile_sums_at = 0, tile_prefix_at = 0,
              words_at = 0, work_at = 0;
  std::size_t search_bytes = 0, scan_bytes = 0, bounds_bytes = 0;
  index_t tiles = 0;
  std::size_t bytes = 0;
};

constexpr int join_words = 2;

// The bound pass's arguments: the left column's keys as the queries (A), the right column as
// the haystack (B), each left key's bound and run written (b_runs).
template <class Left, class Right>
using join_bound_args = merge_args<Left, Right, unused, b_runs, discard, unused, bounds_and_runs>;

template <class Left, class Right>
join_bound_args<Left, Right> join_bound_args_for(Left left, index_t m, Right right, index_t n, bounds_and_runs out) {
  return {left, m, right, searched_size(n, m), unused{}, b_runs{}, discard{}, unused{}, out};
}

// The lower-bound pass: each left key's bound in the right column and its run of matches
// there (b_runs), and each tile's first key and sum of runs, in one merge-path pass of the
// search op; *count_out ends m, or -1 where it found the columns out of order.
template <class Left, class Right, class Compare>
cudaError_t join_bounds_pass(void* temp_storage, std::size_t& temp_storage_bytes, Right right, index_t n, Left left,
                             index_t m, bounds_and_runs out, index_t* count_out, Compare comp, cudaStream_t stream,
                             strategy kind) {
  const auto args = join_bound_args_for(left, m, right, n, out);
  if (temp_storage != nullptr &&
      (search_argument_error(right, n, left, m, out.bounds) != nullptr || (m > 0 && out.runs == nullptr) ||
       out.tile_first == nullptr || out.tile_sums == nullptr))
    return cudaErrorInvalidValue;
  return dispatch(temp_storage, temp_storage_bytes, ops::sorted_search_op{}, args, count_out, comp, stream, kind);
}

// The scan's input over the tiles' sums: tiles + 1 of them, the last 0.
inline auto tile_sums_input(const index_t* sums, index_t tiles) {
  return thrust::transform_iterator<tile_sum_of, thrust::counting_iterator<index_t>, index_t>(
      thrust::counting_iterator<index_t>(0), tile_sum_of{sums, tiles});
}

// `own_columns`: the lower bounds and offsets live in the storage (else they are the caller's:
// sorted_join_offsets); `pairs` >= 0: the expansion's boundaries too.
template <class Left, class Right, class Compare>
cudaError_t join_layout_for(Left left, index_t m, Right right, index_t n, index_t pairs, bool own_columns,
                            bool expands, Compare comp, cudaStream_t stream, strategy kind, join_layout& layout) {
  if (m < 0 || n < 0 || pairs < 0) return cudaErrorInvalidValue;
  index_t* none = nullptr;
  if (const cudaError_t e = join_bounds_pass(nullptr, layout.search_bytes, right, n, left, m, bounds_and_runs{}, none,
                                             comp, stream, kind);
      e != cudaSuccess)
    return e;
  layout.tiles = agent_tiles<ops::sorted_search_op>(join_bound_args_for(left, m, right, n, bounds_and_runs{}));
  if (const cudaError_t e =
          cub::DeviceScan::ExclusiveScan(nullptr, layout.scan_bytes, tile_sums_input(none, layout.tiles),
                                         none, sticky_sum{}, index_t(0), layout.tiles + 1, stream);
      e != cudaSuccess)
    return e;
  layout.bounds_bytes = expands ? std::size_t(join_expand_tiles(m, pairs) + 1) * sizeof(index_t) : 0;
  std::size_t work = layout.search_bytes > layout.scan_bytes ? layout.search_bytes : layout.scan_bytes;
  work = work > layout.bounds_bytes ? work : layout.bounds_bytes;
  const std::size_t columns =
      own_columns ? align_up(std::size_t(m) * sizeof(index_t)) + align_up(std::size_t(m + 1) * sizeof(index_t)) : 0;
  const std::size_t tile_words = align_up(std::size_t(layout.tiles + 1) * sizeof(index_t));
  layout.lower_at = 0;
  layout.offsets_at = own_columns ? align_up(std::size_t(m) * sizeof(index_t)) : 0;
  layout.runs_at = columns;
  layout.tile_first_at = layout.runs_at + align_up(std::size_t(m) * sizeof(run_length));
  layout.tile_sums_at = layout.tile_first_at + tile_words;
  layout.tile_prefix_at = layout.tile_sums_at + tile_words;
  layout.words_at = layout.tile_prefix_at + tile_words;
  layout.work_at = layout.words_at + align_up(join_words * sizeof(index_t));
  layout.bytes = layout.work_at + align_up(work);
  return cudaSuccess;
}

// *count_out: a word's negative verdict (the inputs found unsorted), else the number of pairs
// (-1 where that is negative: the counts found them unsorted).
template <int = 0>
__global__ void join_count_kernel(index_t* count_out, const index_t* words, int passes, const index_t* offsets,
                                  index_t m) {
  index_t count = offsets[m] < 0 ? -1 : offsets[m];
  for (int w = 0; w < passes; ++w) count = words[w] < 0 ? words[w] : count;
  *count_out = count;
}

// The lower bounds and runs (words[0]: the pass's count), the tiles' prefix sums, then the
// offsets: the prefix sums of the runs (-1 from where something was found out of order on).
template <class Left, class Right, class Compare>
cudaError_t run_join_offsets(char* base, const join_layout& layout, Left left, index_t m, Right right, index_t n,
                             index_t* lower, index_t* offsets, Compare comp, cudaStream_t stream, strategy kind) {
  auto* words = reinterpret_cast<index_t*>(base + layout.words_at);
  auto* runs = reinterpret_cast<run_length*>(base + layout.runs_at);
  auto* tile_first = reinterpret_cast<index_t*>(base + layout.tile_first_at);
  auto* tile_sums = reinterpret_cast<index_t*>(base + layout.tile_sums_at);
  auto* tile_prefix = reinterpret_cast<index_t*>(base + layout.tile_prefix_at);
  std::size_t search_bytes = layout.search_bytes;
  if (const cudaError_t e = join_bounds_pass(base + layout.work_at, search_bytes, right, n, left, m,
                                             bounds_and_runs{lower, runs, tile_first, tile_sums}, words, comp, stream,
                                             kind);
      e != cudaSuccess)
    return e;
  std::size_t scan_bytes = layout.scan_bytes;
  if (const cudaError_t e = cub::DeviceScan::ExclusiveScan(base + layout.work_at, scan_bytes,
                                                           tile_sums_input(tile_sums, layout.tiles),
                                                           tile_prefix, sticky_sum{}, index_t(0), layout.tiles + 1,
                                                           stream);
      e != cudaSuccess)
    return e;
  if (layout.tiles > index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
  constexpr int tile = agent_policy<ops::sorted_search_op, join_bound_args<Left, Right>>::items_per_tile;
  const join_run_count<Left, Right, Compare> recount{left, right, lower, runs, m, n, comp};
  join_offsets_kernel<tile><<<unsigned(join_offsets_blocks(layout.tiles)), join_offsets_threads, 0, stream>>>(
      runs, tile_first, tile_prefix, layout.tiles, m, recount, offsets);
  return cudaPeekAtLastError();
}

// The offsets, where `expands`, the pairs, then the count.
template <class Left, class Right, class LeftOut, class RightOut, class Compare>
cudaError_t run_join(void* temp_storage, const join_layout& layout, Left left, index_t m, Right right, index_t n,
                     index_t pairs, bool expands, LeftOut left_out, RightOut right_out, index_t* count_out,
                     Compare comp, cudaStream_t stream, strategy kind) {
  char* base = static_cast<char*>(temp_storage);
  auto* lower = reinterpret_cast<index_t*>(base + layout.lower_at);
  auto* offsets = reinterpret_cast<index_t*>(base + layout.offsets_at);
  auto* words = reinterpret_cast<index_t*>(base + layout.words_at);
  if (const cudaError_t e = run_join_offsets(base, layout, left, m, right, n, lower, offsets, comp, stream, kind);
      e != cudaSuccess)
    return e;
  if (expands) {
    if (const cudaError_t e = launch_join_expansion(lower, offsets, m, pairs, left_out, right_out,
                                                    reinterpret_cast<index_t*>(base + layout.work_at), words + 1,
                                                    stream);
        e != cudaSuccess)
      return e;
  }
  join_count_kernel<<<1, 1, 0, stream>>>(count_out, words, expands ? 2 : 1, offsets, m);
  return cudaPeekAtLastError();
}

// The two-phase rule (memory.hpp): enough bytes, aligned to temporary_storage_alignment.
inline bool join_storage_fits(const void* temp_storage, std::size_t given, std::size_t needed) {
  return given >= needed && temporary_aligned(temp_storage);
}

template <class Left, class Right>
const char* join_argument_error(const Left& left, index_t m, const Right& right, index_t n) {
  if (m < 0 || n < 0) return "a size is negative";
  if (m > 0 && is_null(left)) return "the left column is a null pointer with a nonzero size";
  if (n > 0 && is_null(right)) return "the right column is a null pointer with a nonzero size";
  return nullptr;
}

}  // namespace detail

namespace device {

template <class Left, class Right, class Compare>
cudaError_t sorted_join_count(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                              index_t n, index_t* count_out, Compare comp, cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  detail::join_layout layout;
  if (const cudaError_t e = detail::join_layout_for(l, m, r, n, 0, true, false, comp, stream, kind, layout);
      e != cudaSuccess)
    return e;
  if (temp_storage == nullptr) {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  if (!detail::join_storage_fits(temp_storage, temp_storage_bytes, layout.bytes) || count_out == nullptr ||
      detail::join_argument_error(l, m, r, n) != nullptr)
    return cudaErrorInvalidValue;
  index_t* none = nullptr;
  return detail::run_join(temp_storage, layout, l, m, r, n, 0, false, none, none, count_out, comp, stream, kind);
}

template <class Left, class Right, class LeftOut, class RightOut, class Compare>
cudaError_t sorted_join(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                        index_t n, index_t pairs, LeftOut left_out, RightOut right_out, index_t* count_out,
                        Compare comp, cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  const auto lo = detail::unwrap(left_out);
  const auto ro = detail::unwrap(right_out);
  detail::join_layout layout;
  if (const cudaError_t e = detail::join_layout_for(l, m, r, n, pairs, true, true, comp, stream, kind, layout);
      e != cudaSuccess)
    return e;
  if (temp_storage == nullptr) {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  if (!detail::join_storage_fits(temp_storage, temp_storage_bytes, layout.bytes) || count_out == nullptr ||
      detail::join_argument_error(l, m, r, n) != nullptr || (pairs > 0 && (detail::is_null(lo) || detail::is_null(ro))))
    return cudaErrorInvalidValue;
  return detail::run_join(temp_storage, layout, l, m, r, n, pairs, true, lo, ro, count_out, comp, stream, kind);
}

template <class Left, class Right, class Compare>
cudaError_t sorted_join_offsets(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                                index_t n, index_t* lower_out, index_t* offsets_out, index_t* count_out, Compare comp,
                                cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  // The lower bounds and offsets are the caller's: the storage is the words and the work region.
  detail::join_layout layout;
  if (const cudaError_t e = detail::join_layout_for(l, m, r, n, 0, false, false, comp, stream, kind, layout);
      e != cudaSuccess)
    return e;
  if (temp_storage == nullptr) {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  if (!detail::join_storage_fits(temp_storage, temp_storage_bytes, layout.bytes) || count_out == nullptr ||
      offsets_out == nullptr || (m > 0 && lower_out == nullptr) || detail::join_argument_error(l, m, r, n) != nullptr)
    return cudaErrorInvalidValue;
  char* base = static_cast<char*>(temp_storage);
  if (const cudaError_t e =
          detail::run_join_offsets(base, layout, l, m, r, n, lower_out, offsets_out, comp, stream, kind);
      e != cudaSuccess)
    return e;
  detail::join_count_kernel<<<1, 1, 0, stream>>>(count_out, reinterpret_cast<index_t*>(base + layout.words_at), 1,
                                                 offsets_out, m);
  return cudaPeekAtLastError();
}

template <class LeftOut, class RightOut>
cudaError_t sorted_join_expand(void* temp_storage, std::size_t& temp_storage_bytes, const index_t* lower,
                               const index_t* offsets, index_t m, index_t pairs, LeftOut left_out, RightOut right_out,
                               index_t* count_out, cudaStream_t stream, strategy) {
  if (m < 0 || pairs < 0) return cudaErrorInvalidValue;
  const auto lo = detail::unwrap(left_out);
  const auto ro = detail::unwrap(right_out);
  // The expansion's word, then its tile boundaries.
  const std::size_t bounds_at = detail::align_up(sizeof(index_t));
  const std::size_t bytes = bounds_at + std::size_t(detail::join_expand_tiles(m, pairs) + 1) * sizeof(index_t);
  if (temp_storage == nullptr) {
    temp_storage_bytes = bytes;
    return cudaSuccess;
  }
  if (!detail::join_storage_fits(temp_storage, temp_storage_bytes, bytes) || offsets == nullptr ||
      (m > 0 && lower == nullptr) || (pairs > 0 && (detail::is_null(lo) || detail::is_null(ro))))
    return cudaErrorInvalidValue;
  auto* word = static_cast<index_t*>(temp_storage);
  if (const cudaError_t e = detail::launch_join_expansion(
          lower, offsets, m, pairs, lo, ro, reinterpret_cast<index_t*>(static_cast<char*>(temp_storage) + bounds_at),
          word, stream);
      e != cudaSuccess)
    return e;
  if (count_out == nullptr) return cudaSuccess;
  detail::join_count_kernel<<<1, 1, 0, stream>>>(count_out, word, 1, offsets, m);
  return cudaPeekAtLastError();
}

}  // namespace device

template <class Left, class Right, class Compare>
index_t sorted_join_count(Left left_first, Left left_last, Right right_first, Right right_last, Compare comp,
                          cudaStream_t stream, strategy kind) {
  constexpr const char* name = "corank::sorted_join_count";
  const index_t m = left_last - left_first, n = right_last - right_first;
  if (const char* problem = detail::join_argument_error(detail::unwrap_input(left_first), m,
                                                        detail::unwrap_input(right_first), n)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": " + problem);
  }
  const index_t count = detail::run_two_phase_for_result(name, stream, [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_count(temp, bytes, left_first, m, right_first, n, c, comp, stream, kind);
  });
  if (count < 0) throw unsorted_input(name);
  return count;
}

template <class Left, class Right, class LeftOut, class RightOut, class Compare>
std::pair<LeftOut, RightOut> sorted_join(Left left_first, Left left_last, Right right_first, Right right_last,
                                         LeftOut left_out, RightOut right_out, Compare comp, cudaStream_t stream,
                                         strategy kind) {
  constexpr const char* name = "corank::sorted_join";
  const index_t m = left_last - left_first, n = right_last - right_first;
  if (const char* problem = detail::join_argument_error(detail::unwrap_input(left_first), m,
                                                        detail::unwrap_input(right_first), n)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": " + problem);
  }
  // The lower bounds and the offsets live from the count to the expansion: computed once.
  void* kept = nullptr;
  CORANK_TRY(detail::allocate_temporary(&kept, std::size_t(2 * m + 1) * sizeof(index_t), stream), name);
  struct release {
    void* memory;
    cudaStream_t stream;
    ~release() { cudaFreeAsync(memory, stream); }
  } const guard{kept, stream};
  index_t* lower = static_cast<index_t*>(kept);
  index_t* offsets = lower + m;
  const index_t pairs = detail::run_two_phase_for_result(name, stream, [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_offsets(temp, bytes, left_first, m, right_first, n, lower, offsets, c, comp, stream,
                                       kind);
  });
  if (pairs < 0) throw unsorted_input(name);
  if (pairs > 0 && (detail::is_null(detail::unwrap(left_out)) || detail::is_null(detail::unwrap(right_out)))) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": an output is a null pointer with a nonzero size");
  }
  // The expansion's search over the offsets is where unsorted inputs that the bounds did not
  // reveal show (counts below zero: offsets that go backwards), so its count is read back too.
  const index_t expanded = detail::run_two_phase_for_result(name, stream, [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_expand(temp, bytes, static_cast<const index_t*>(lower),
                                      static_cast<const index_t*>(offsets), m, pairs, left_out, right_out, c, stream,
                                      kind);
  });
  if (expanded < 0) throw unsorted_input(name);
  return {left_out + pairs, right_out + pairs};
}

}  // namespace corank
