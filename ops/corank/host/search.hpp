#pragma once
// The CPU backend of search.cuh: the same names, rules and results, on threads.
//   corank::host::sorted_lower_bound(h.begin(), h.end(), q.begin(), q.end(), out.begin());
//
// With the haystack H = [haystack_first, haystack_last) of n elements and the queries
// Q = [queries_first, queries_last) of m, both sorted by `comp` (a strict weak order), each
// writes m outputs, out[i] for Q[i], and returns out + m:
//   sorted_lower_bound      the first position in H whose element is not before Q[i]
//                           (std::lower_bound)
//   sorted_upper_bound      the first position in H whose element is after Q[i] (std::upper_bound)
//   sorted_equal_count      how many of H's elements are equivalent to Q[i]: upper minus lower
//   sorted_contains         whether H holds an element equivalent to Q[i] (true/false)
//   sorted_not_contains     the opposite
//
//   OutputIt NAME(haystack_first, haystack_last, queries_first, queries_last, out, comp = {},
//                 threads = 0)
//
// - How: one merge-path pass over Q and H (ops/sorted_search.hpp): each query's answer is its
//   merged position minus its own index; sorted_equal_count makes two passes (upper bounds
//   into out, then lower bounds subtracted). O(m + n) work, whatever the sizes: for a few
//   queries in a long haystack, m binary searches (std::lower_bound, O(m log n)) cost less,
//   as do they for unsorted queries (sorting them first costs O(m log m)).
// - Outputs: positions and counts are index_t, converted to out's value type; flags bool.
//   out holds m elements and overlaps neither input.
// - Threads, errors and unsorted inputs as host/operation.hpp's runners (the pieces of the
//   path per thread; std::invalid_argument for bad arguments; corank::unsorted_input where the
//   pieces' splits find the inputs unsorted, before anything is written; other unsorted
//   inputs give unspecified contents, never a write outside out[0, m)).

#include <corank/comparators.hpp>
#include <corank/detail/search_passes.hpp>
#include <corank/host/operation.hpp>

namespace corank::host {

namespace detail {

// One pass: for each query, what `computed` says (b_step_values.hpp), with ties to the
// haystack where Upper.
template <bool Upper, class Haystack, class Queries, class Out, class Computed, class Compare>
void search_pass(const char* name, Haystack haystack_first, Haystack haystack_last, Queries queries_first,
                 Queries queries_last, Out out, Computed computed, Compare comp, unsigned threads) {
  const index_t n = haystack_last - haystack_first, m = queries_last - queries_first;
  if (const char* problem = corank::detail::search_argument_error(haystack_first, n, queries_first, m, out)) {
    throw std::invalid_argument(std::string(name) + ": " + problem);
  }
  const auto args = make_args(queries_first, queries_last, haystack_first,
                              haystack_first + corank::detail::searched_size(n, m), unused{}, computed,
                              corank::detail::discard{}, unused{});
  run_counted(name, ops::sorted_search_op{}, args, out, corank::detail::search_compare<Upper>(comp), threads);
}

}  // namespace detail

// Lower (Upper: upper) bounds.
template <bool Upper>
struct sorted_bound {
  const char* name;
  template <class Haystack, class Queries, class Out, class Compare = corank::less>
  Out operator()(Haystack haystack_first, Haystack haystack_last, Queries queries_first, Queries queries_last,
                 Out out, Compare comp = {}, unsigned threads = 0) const {
    detail::search_pass<Upper>(name, haystack_first, haystack_last, queries_first, queries_last, out,
                               corank::detail::b_positions{}, comp, threads);
    return out + (queries_last - queries_first);
  }
};

// Upper minus lower bounds: two passes.
struct sorted_count {
  const char* name;
  template <class Haystack, class Queries, class Out, class Compare = corank::less>
  Out operator()(Haystack haystack_first, Haystack haystack_last, Queries queries_first, Queries queries_last,
                 Out out, Compare comp = {}, unsigned threads = 0) const {
    const corank::detail::b_positions positions;
    detail::search_pass<true>(name, haystack_first, haystack_last, queries_first, queries_last, out, positions, comp,
                              threads);
    detail::search_pass<false>(name, haystack_first, haystack_last, queries_first, queries_last,
                               corank::detail::subtract_from<Out>{out}, positions, comp, threads);
    return out + (queries_last - queries_first);
  }
};

// Whether the haystack holds each query (Invert: whether it does not).
template <bool Invert>
struct sorted_membership {
  const char* name;
  template <class Haystack, class Queries, class Out, class Compare = corank::less>
  Out operator()(Haystack haystack_first, Haystack haystack_last, Queries queries_first, Queries queries_last,
                 Out out, Compare comp = {}, unsigned threads = 0) const {
    const corank::detail::b_matches matches{index_t(haystack_last - haystack_first), Invert};
    detail::search_pass<false>(name, haystack_first, haystack_last, queries_first, queries_last, out, matches, comp,
                               threads);
    return out + (queries_last - queries_first);
  }
};

inline constexpr sorted_bound<false> sorted_lower_bound{"corank::host::sorted_lower_bound"};
inline constexpr sorted_bound<true> sorted_upper_bound{"corank::host::sorted_upper_bound"};
inline constexpr sorted_count sorted_equal_count{"corank::host::sorted_equal_count"};
inline constexpr sorted_membership<false> sorted_contains{"corank::host::sorted_contains"};
inline constexpr sorted_membership<true> sorted_not_contains{"corank::host::sorted_not_contains"};

}  // namespace corank::host
