#pragma once
// Bodies of join.cuh: the bound pass's arguments and the caller's checks; the stages and
// their storage are the join's dispatcher's (detail/dispatch/join_dispatch.cuh).

#include <corank/detail/dispatch/join_dispatch.cuh>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/detail/forms/two_phase.hpp>
#include <corank/detail/search_passes.hpp>
#include <corank/search.cuh>

#include <limits>
#include <string>

namespace corank {
namespace detail {

// The bound pass's arguments: the left column's keys as the queries (A), the right column as
// the haystack (B), each left key's bound and run written (b_runs) where the dispatcher
// places them.
template <class Left, class Right>
auto join_bound_args_for(Left left, index_t m, Right right, index_t n) {
  return merge_args<Left, Right, unused, b_runs, discard, unused, bounds_and_runs>{
      left, m, right, searched_size(n, m), unused{}, b_runs{}, discard{}, unused{}, bounds_and_runs{}};
}

// The bound pass's tiles for these arguments, and the bytes its results take when kept from
// the count to the pairs (sorted_join_count_and_keep, the convenience sorted_join).
template <class Args>
index_t join_pass_tiles(const Args& args) {
  return agent_tiles<ops::sorted_search_op>(args);
}

template <class Args>
std::size_t join_kept_bytes_for(const Args& args) {
  return join_kept_bytes(args.size_a, join_pass_tiles(args));
}

// Sizes whose tiles can be counted: nonnegative, their sum an index_t.
inline bool join_sizes_fit(index_t m, index_t n) {
  return m >= 0 && n >= 0 && m <= std::numeric_limits<index_t>::max() - n;
}

template <class Left, class Right>
const char* join_argument_error(const Left& left, index_t m, const Right& right, index_t n) {
  if (m < 0 || n < 0) return "a size is negative";
  if (!join_sizes_fit(m, n)) return "the columns' sizes add up to more than an index_t holds";
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
  if (temp_storage != nullptr && (count_out == nullptr || detail::join_argument_error(l, m, r, n) != nullptr))
    return cudaErrorInvalidValue;
  const detail::join_outputs<detail::no_pairs, detail::no_pairs> out{false, nullptr, nullptr, 0, {}, {}, count_out};
  return detail::dispatch_join(temp_storage, temp_storage_bytes, ops::sorted_search_op{},
                               detail::join_bound_args_for(l, m, r, n), out, comp, stream, kind);
}

template <class Left, class Right, class LeftOut, class RightOut, class Compare>
cudaError_t sorted_join(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                        index_t n, index_t pairs, LeftOut left_out, RightOut right_out, index_t* count_out,
                        Compare comp, cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  auto lo = detail::unwrap(left_out);
  auto ro = detail::unwrap(right_out);
  if (temp_storage != nullptr &&
      (count_out == nullptr || detail::join_argument_error(l, m, r, n) != nullptr ||
       (pairs > 0 && (detail::is_null(lo) || detail::is_null(ro)))))
    return cudaErrorInvalidValue;
  const detail::join_outputs<decltype(lo), decltype(ro)> out{false, nullptr, nullptr, pairs, lo, ro, count_out};
  return detail::dispatch_join(temp_storage, temp_storage_bytes, ops::sorted_search_op{},
                               detail::join_bound_args_for(l, m, r, n), out, comp, stream, kind);
}

template <class Left, class Right, class Compare>
cudaError_t sorted_join_count_and_keep(void* temp_storage, std::size_t& temp_storage_bytes, void* kept,
                                       std::size_t& kept_bytes, Left left, index_t m, Right right, index_t n,
                                       index_t* count_out, Compare comp, cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  if (!detail::join_sizes_fit(m, n)) return cudaErrorInvalidValue;
  const auto args = detail::join_bound_args_for(l, m, r, n);
  const std::size_t needed = detail::join_kept_bytes_for(args);
  if (temp_storage == nullptr) {
    kept_bytes = needed;
  } else if (count_out == nullptr || detail::join_argument_error(l, m, r, n) != nullptr || kept == nullptr ||
             kept_bytes < needed || !detail::temporary_aligned(kept)) {
    return cudaErrorInvalidValue;
  }
  const detail::join_outputs<detail::no_pairs, detail::no_pairs> out{
      false, nullptr, nullptr, 0, {}, {}, count_out, true, static_cast<char*>(kept)};
  return detail::dispatch_join(temp_storage, temp_storage_bytes, ops::sorted_search_op{}, args, out, comp, stream,
                               kind);
}

template <class Left, class Right, class LeftOut, class RightOut>
cudaError_t sorted_join_from_kept(void* temp_storage, std::size_t& temp_storage_bytes, const void* kept,
                                  std::size_t kept_bytes, Left left, index_t m, Right right, index_t n, index_t pairs,
                                  LeftOut left_out, RightOut right_out, index_t* count_out, cudaStream_t stream,
                                  strategy) {
  if (!detail::join_sizes_fit(m, n) || pairs < 0) return cudaErrorInvalidValue;
  // The columns' types and sizes give the pass's tiles, which place its results; not read.
  const auto args = detail::join_bound_args_for(detail::unwrap_input(left), m, detail::unwrap_input(right), n);
  constexpr int tile = detail::agent_policy<ops::sorted_search_op, decltype(args)>::items_per_tile;
  const auto lo = detail::unwrap(left_out);
  const auto ro = detail::unwrap(right_out);
  if (temp_storage != nullptr && (kept == nullptr || kept_bytes < detail::join_kept_bytes_for(args) ||
                                  !detail::temporary_aligned(kept) ||
                                  (pairs > 0 && (detail::is_null(lo) || detail::is_null(ro)))))
    return cudaErrorInvalidValue;
  // The expansion only reads what the count kept.
  char* results = const_cast<char*>(static_cast<const char*>(kept));
  return detail::dispatch_join_kept_expand<tile>(temp_storage, temp_storage_bytes, results, m,
                                                 detail::join_pass_tiles(args), pairs, lo, ro, count_out, stream);
}

template <class Left, class Right, class Compare>
cudaError_t sorted_join_offsets(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                                index_t n, index_t* lower_out, index_t* offsets_out, index_t* count_out, Compare comp,
                                cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  if (temp_storage != nullptr && (count_out == nullptr || offsets_out == nullptr || (m > 0 && lower_out == nullptr) ||
                                  detail::join_argument_error(l, m, r, n) != nullptr))
    return cudaErrorInvalidValue;
  const detail::join_outputs<detail::no_pairs, detail::no_pairs> out{true, lower_out, offsets_out, 0, {}, {},
                                                                     count_out};
  return detail::dispatch_join(temp_storage, temp_storage_bytes, ops::sorted_search_op{},
                               detail::join_bound_args_for(l, m, r, n), out, comp, stream, kind);
}

template <class LeftOut, class RightOut>
cudaError_t sorted_join_expand(void* temp_storage, std::size_t& temp_storage_bytes, const index_t* lower,
                               const index_t* offsets, index_t m, index_t pairs, LeftOut left_out, RightOut right_out,
                               index_t* count_out, cudaStream_t stream, strategy) {
  const auto lo = detail::unwrap(left_out);
  const auto ro = detail::unwrap(right_out);
  if (temp_storage != nullptr && (m < 0 || pairs < 0 || offsets == nullptr || (m > 0 && lower == nullptr) ||
                                  (pairs > 0 && (detail::is_null(lo) || detail::is_null(ro)))))
    return cudaErrorInvalidValue;
  return detail::dispatch_join_expand(temp_storage, temp_storage_bytes, lower, offsets, m, pairs, lo, ro, count_out,
                                      stream);
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
  // Stored once (join_count_kernel): straight into the pinned host word.
  const auto call = [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_count(temp, bytes, left_first, m, right_first, n, c, comp, stream, kind);
  };
  const index_t count = detail::run_two_phase_for_result<detail::result_word::host>(name, stream, call);
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
  // The bound pass's results live from the count to the pairs: computed once.
  const auto args = detail::join_bound_args_for(detail::unwrap_input(left_first), m, detail::unwrap_input(right_first), n);
  std::size_t kept_bytes = detail::join_kept_bytes_for(args);
  detail::pool_storage kept(stream);
  char* base = nullptr;
  CORANK_TRY(kept.provide(kept_bytes, base), name);
  // The count is stored once (join_count_kernel): straight into the pinned host word.
  const auto count = [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_count_and_keep(temp, bytes, base, kept_bytes, left_first, m, right_first, n, c, comp,
                                              stream, kind);
  };
  const index_t pairs = detail::run_two_phase_for_result<detail::result_word::host>(name, stream, count);
  if (pairs < 0) throw unsorted_input(name);
  if (pairs > 0 && (detail::is_null(detail::unwrap(left_out)) || detail::is_null(detail::unwrap(right_out)))) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": an output is a null pointer with a nonzero size");
  }
  detail::run_two_phase(name, stream, [&](void* temp, std::size_t& bytes, index_t*) {
    return device::sorted_join_from_kept(temp, bytes, base, kept_bytes, left_first, m, right_first, n, pairs, left_out,
                                         right_out, nullptr, stream, kind);
  });
  CORANK_TRY(kept.release(), name);
  CORANK_TRY(cudaStreamSynchronize(stream), name);
  return {left_out + pairs, right_out + pairs};
}

}  // namespace corank
