#pragma once
// Bodies of search.cuh: each pass is the dispatcher's data-dependent path with the search op.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/dispatch/two_pass_dispatch.cuh>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/two_phase.hpp>
#include <corank/detail/search_passes.hpp>

namespace corank {
namespace detail {

// One two-phase pass: for each query, what `computed` says (b_step_values.hpp), ties to the
// haystack where Upper.
template <bool Upper, class Haystack, class Queries, class Out, class Computed, class Compare>
cudaError_t search_pass(void* temp_storage, std::size_t& temp_storage_bytes, Haystack haystack, index_t n,
                        Queries queries, index_t m, Out out, Computed computed, index_t* count_out, Compare comp,
                        cudaStream_t stream, strategy kind) {
  auto q = unwrap_input(queries);
  auto h = unwrap_input(haystack);
  auto o = unwrap(out);
  const merge_args<decltype(q), decltype(h), unused, Computed, discard, unused, decltype(o)> args{
      q, m, h, searched_size(n, m), unused{}, computed, discard{}, unused{}, o};
  if (temp_storage != nullptr && search_argument_error(h, n, q, m, o) != nullptr) return cudaErrorInvalidValue;
  return dispatch(temp_storage, temp_storage_bytes, ops::sorted_search_op{}, args, count_out,
                  search_compare<Upper>(comp), stream, kind);
}

}  // namespace detail

namespace device {

template <bool Upper>
template <class Haystack, class Queries, class Out, class Compare>
cudaError_t sorted_bound<Upper>::operator()(void* temp_storage, std::size_t& temp_storage_bytes, Haystack haystack,
                                            index_t n, Queries queries, index_t m, Out out, index_t* count_out,
                                            Compare comp, cudaStream_t stream, strategy kind) const {
  return detail::search_pass<Upper>(temp_storage, temp_storage_bytes, haystack, n, queries, m, out,
                                    detail::b_positions{}, count_out, comp, stream, kind);
}

template <bool Invert>
template <class Haystack, class Queries, class Out, class Compare>
cudaError_t sorted_membership<Invert>::operator()(void* temp_storage, std::size_t& temp_storage_bytes,
                                                  Haystack haystack, index_t n, Queries queries, index_t m, Out out,
                                                  index_t* count_out, Compare comp, cudaStream_t stream,
                                                  strategy kind) const {
  return detail::search_pass<false>(temp_storage, temp_storage_bytes, haystack, n, queries, m, out,
                                    detail::b_matches{n, Invert}, count_out, comp, stream, kind);
}

// The upper bounds, then the lower bounds subtracted from them, in one storage
// (dispatch/two_pass_dispatch.cuh).
template <class Haystack, class Queries, class Out, class Compare>
cudaError_t sorted_count::operator()(void* temp_storage, std::size_t& temp_storage_bytes, Haystack haystack,
                                     index_t n, Queries queries, index_t m, Out out, index_t* count_out,
                                     Compare comp, cudaStream_t stream, strategy kind) const {
  auto raw_out = detail::unwrap(out);
  const detail::subtract_from<decltype(raw_out)> subtracting{raw_out};
  const detail::b_positions positions;
  auto upper = [&](void* temp, std::size_t& bytes, index_t* count) {
    return detail::search_pass<true>(temp, bytes, haystack, n, queries, m, raw_out, positions, count, comp, stream,
                                     kind);
  };
  auto lower = [&](void* temp, std::size_t& bytes, index_t* count) {
    return detail::search_pass<false>(temp, bytes, haystack, n, queries, m, subtracting, positions, count, comp,
                                      stream, kind);
  };
  if (temp_storage != nullptr &&
      (count_out == nullptr || detail::search_argument_error(haystack, n, queries, m, out) != nullptr)) {
    return cudaErrorInvalidValue;
  }
  return detail::dispatch_two_passes(temp_storage, temp_storage_bytes, upper, lower, count_out, stream);
}

}  // namespace device

template <class Device>
template <class Haystack, class Queries, class Out, class Compare>
Out sorted_search_runner<Device>::operator()(Haystack haystack_first, Haystack haystack_last, Queries queries_first,
                                             Queries queries_last, Out out, Compare comp, cudaStream_t stream,
                                             strategy kind) const {
  const index_t n = haystack_last - haystack_first, m = queries_last - queries_first;
  const auto haystack = detail::unwrap_input(haystack_first);
  const auto queries = detail::unwrap_input(queries_first);
  if (const char* problem = detail::search_argument_error(haystack, n, queries, m, detail::unwrap(out))) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": " + problem);
  }
  const index_t count =
      detail::run_two_phase_for_result(name, stream, [&](void* temp, std::size_t& bytes, index_t* count_out) {
        return Device{}(temp, bytes, haystack, n, queries, m, out, count_out, comp, stream, kind);
      });
  if (count < 0) throw unsorted_input(name);  // the kernels found the inputs unsorted
  return out + m;
}

}  // namespace corank
