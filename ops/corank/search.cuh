#pragma once
// Sorted search on the GPU: for sorted queries Q (m elements) and a sorted haystack H (n),
// each query's bound in H, count in H or membership of H, all queries in one pass over both
// (NumPy's searchsorted and isin, Thrust's vectorized lower_bound, for sorted queries). Each
// writes m outputs, out[i] for Q[i]:
//   sorted_lower_bound    the first position in H whose element is not before Q[i]
//   sorted_upper_bound    the first position in H whose element is after Q[i]
//   sorted_equal_count    how many of H's elements are equivalent to Q[i] (upper minus lower)
//   sorted_contains       whether H holds an element equivalent to Q[i] (true/false)
//   sorted_not_contains   the opposite
// in the convenience form (namespace corank) and the two-phase form (corank::device); the CPU
// backend is host/search.hpp.
//
//   auto end = corank::sorted_lower_bound(h.begin(), h.end(), q.begin(), q.end(), out.begin());
//   corank::device::sorted_lower_bound(temp, temp_bytes, h_ptr, n, q_ptr, m, out_ptr, d_count);
//
// corank:: (convenience): returns out + m once the outputs are written (it synchronizes
// `stream`, to learn whether the inputs were found unsorted).
//   OutputIt NAME(haystack_first, haystack_last, queries_first, queries_last, out, comp = {},
//                 stream = nullptr, kind = default_strategy)
// corank::device:: (two-phase; the protocol of operation.cuh): *count_out (device memory)
// receives m, or a negative number where the kernels found the inputs unsorted.
//   cudaError_t NAME(temp_storage, temp_storage_bytes, haystack, n, queries, m, out, count_out,
//                    comp = {}, stream = nullptr, kind = default_strategy)
//
// - How: the merge path of Q and H (ops/sorted_search.hpp) writes each query once, with B's
//   position at its step (detail/forms/b_step_values.hpp): the query's merged position minus its
//   own index. Ties to the queries give lower bounds, ties to the haystack upper bounds; the
//   membership flag compares the query with H's element at its lower bound (the tile also
//   stages the element after its window of H for it). sorted_equal_count makes two passes:
//   upper bounds into out, then lower bounds subtracted from them.
// - Complexity: O(m + n) work in tiles of equal length (operation.cuh's data-dependent
//   kernels: every query and every haystack element is a step), plus a co-rank search per
//   tile boundary. So a few queries in a long haystack cost a whole read of it: where
//   m log2(n) is well below m + n, binary searches per query (thrust::lower_bound) cost less,
//   and so they do for unsorted queries, which this form does not take (sorting them first
//   costs more than the searches; the Python package chooses between the two by size).
// - Preconditions: Q and H sorted by `comp`, a strict weak order (not checked; see
//   check_sorted.cuh). `out` holds m elements and overlaps neither input; positions and
//   counts are index_t, converted to out's value type, flags bool. Iterators, `comp` and
//   `kind` as in operation.cuh; m, n >= 0 and m + n < 2^63; a pointer may be null where its
//   size is 0 (the output where m == 0).
// - Errors (operation.cuh): the two-phase forms return cudaErrorInvalidValue for bad
//   arguments, too little temporary storage or a null count_out, with nothing launched; the
//   convenience forms throw corank::cuda_error with a sentence for those, corank::out_of_memory,
//   and corank::unsorted_input where the kernels found the inputs unsorted.
// - Unsorted inputs: nothing is read or written outside the inputs and out[0, m); where the
//   kernels find them unsorted, the count is negative and the outputs' contents unspecified.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>
#include <corank/strategy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace corank {
namespace device {

// Lower (Upper: upper) bounds.
template <bool Upper>
struct sorted_bound {
  template <class Haystack, class Queries, class Out, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, Haystack haystack, index_t n,
                         Queries queries, index_t m, Out out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

// Upper minus lower bounds: two passes, sharing the temporary storage.
struct sorted_count {
  template <class Haystack, class Queries, class Out, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, Haystack haystack, index_t n,
                         Queries queries, index_t m, Out out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

// Whether the haystack holds each query (Invert: whether it does not).
template <bool Invert>
struct sorted_membership {
  template <class Haystack, class Queries, class Out, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, Haystack haystack, index_t n,
                         Queries queries, index_t m, Out out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

inline constexpr sorted_bound<false> sorted_lower_bound{};
inline constexpr sorted_bound<true> sorted_upper_bound{};
inline constexpr sorted_count sorted_equal_count{};
inline constexpr sorted_membership<false> sorted_contains{};
inline constexpr sorted_membership<true> sorted_not_contains{};

}  // namespace device

// The convenience form of a device:: search runner (Device); `name` says who failed.
template <class Device>
struct sorted_search_runner {
  const char* name;
  template <class Haystack, class Queries, class Out, class Compare = corank::less>
  Out operator()(Haystack haystack_first, Haystack haystack_last, Queries queries_first, Queries queries_last,
                 Out out, Compare comp = {}, cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

inline constexpr sorted_search_runner<device::sorted_bound<false>> sorted_lower_bound{"corank::sorted_lower_bound"};
inline constexpr sorted_search_runner<device::sorted_bound<true>> sorted_upper_bound{"corank::sorted_upper_bound"};
inline constexpr sorted_search_runner<device::sorted_count> sorted_equal_count{"corank::sorted_equal_count"};
inline constexpr sorted_search_runner<device::sorted_membership<false>> sorted_contains{"corank::sorted_contains"};
inline constexpr sorted_search_runner<device::sorted_membership<true>> sorted_not_contains{
    "corank::sorted_not_contains"};

}  // namespace corank

#include <corank/detail/search.inl>
