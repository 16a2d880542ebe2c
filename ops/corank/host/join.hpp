#pragma once
// The sort-merge inner join of two sorted key columns on CPU threads (the CPU backend of
// join.cuh): every pair of positions (i, j) whose keys are equivalent, left[i] ~ right[j], in
// the order of i, then j. A key a times on the left and b times on the right gives its a * b
// pairs.
//   const index_t pairs = corank::host::sorted_join_count(l.begin(), l.end(), r.begin(), r.end());
//   corank::host::sorted_join(l.begin(), l.end(), r.begin(), r.end(), left_out, right_out);
//
//   index_t sorted_join_count(left_first, left_last, right_first, right_last, comp = {}, threads = 0)
//   std::pair<LeftOut, RightOut> sorted_join(left_first, left_last, right_first, right_last,
//                                            left_out, right_out, comp = {}, threads = 0)
//
// - How (join_expansion.hpp): each left element's lower and upper bound in the right column
//   (two passes of search.cuh's sorted search), an exclusive prefix sum of their differences
//   (the match counts), and one more sorted search that gives each output position its left
//   element, in pieces of equal length however the pairs fall on the keys. O(m + n + pairs)
//   work, 2m + 1 index_t of memory; sorted_join computes the counts again (it does not keep
//   them between the calls).
// - Outputs: positions as index_t, converted to the outputs' value types; left_out and
//   right_out hold sorted_join_count elements and overlap nothing else. sorted_join writes
//   them all and returns the outputs' ends.
// - Preconditions, threads, errors and unsorted inputs as host/search.hpp's (with the left
//   column as the queries and the right as the haystack): bad arguments throw
//   std::invalid_argument, inputs found unsorted corank::unsorted_input, before any output is
//   written; unsorted inputs not found so give pairs of unspecified contents, never a write
//   outside the outputs' count nor a read outside the inputs.
// - Left, outer and anti joins are not built yet: they are the same counts with each unmatched
//   left (right) element given one pair (with a missing partner).

#include <corank/comparators.hpp>
#include <corank/detail/join_expansion.hpp>
#include <corank/error.hpp>
#include <corank/host/search.hpp>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace corank::host {

namespace detail {

// Each left element's lower bound in the right column, and the exclusive prefix sum of the
// match counts (m + 1 entries: the last is the number of pairs).
struct join_counts {
  std::vector<index_t> lower;
  std::vector<index_t> offsets;
};

// Fills lower (m: each left element's lower bound in the right column) and offsets (m + 1: the
// exclusive prefix sum of the match counts); returns the number of pairs, offsets[m].
template <class Left, class Right, class Compare>
index_t count_matches_into(const char* name, Left left_first, Left left_last, Right right_first, Right right_last,
                           index_t* lower, index_t* offsets, Compare comp, unsigned threads) {
  const index_t m = left_last - left_first;
  if (m < 0 || right_last - right_first < 0) throw std::invalid_argument(std::string(name) + ": a size is negative");
  const sorted_bound<false> lower_bounds{name};
  const sorted_bound<true> upper_bounds{name};
  lower_bounds(right_first, right_last, left_first, left_last, lower, comp, threads);
  upper_bounds(right_first, right_last, left_first, left_last, offsets + 1, comp, threads);
  // offsets[i + 1] holds upper bound i: in place, offsets[i + 1] = offsets[i] + upper - lower.
  // An upper bound below its lower bound comes only from unsorted inputs.
  offsets[0] = 0;
  for (index_t i = 0; i < m; ++i) {
    const index_t count = offsets[i + 1] - lower[i];
    if (count < 0) throw unsorted_input(name);
    offsets[i + 1] = offsets[i] + count;
  }
  return offsets[m];
}

template <class Left, class Right, class Compare>
join_counts count_matches(const char* name, Left left_first, Left left_last, Right right_first, Right right_last,
                          Compare comp, unsigned threads) {
  const index_t m = left_last - left_first;
  if (m < 0 || right_last - right_first < 0) throw std::invalid_argument(std::string(name) + ": a size is negative");
  join_counts c;
  c.lower.resize(std::size_t(m));
  c.offsets.resize(std::size_t(m) + 1);
  count_matches_into(name, left_first, left_last, right_first, right_last, c.lower.data(), c.offsets.data(), comp,
                     threads);
  return c;
}

// The pairs that m lower bounds and m + 1 offsets give (offsets[m] of them) to left_out and
// right_out.
template <class LeftOut, class RightOut>
void write_pairs(const char* name, const index_t* lower, const index_t* offsets, index_t m, LeftOut left_out,
                 RightOut right_out, unsigned threads) {
  const index_t pairs = offsets[m];
  if (pairs > 0 && (corank::detail::is_null(left_out) || corank::detail::is_null(right_out))) {
    throw std::invalid_argument(std::string(name) + ": an output is a null pointer with a nonzero size");
  }
  // The offsets are sorted, and so are the positions: the expansion's search never finds
  // them unsorted.
  const corank::detail::join_expansion<LeftOut, RightOut> expansion{left_out, right_out, lower, offsets};
  sorted_bound<true>{name}(offsets, offsets + m, corank::detail::counting_index{0},
                           corank::detail::counting_index{pairs}, expansion, corank::less{}, threads);
}

template <class LeftOut, class RightOut>
void write_pairs(const char* name, const join_counts& c, LeftOut left_out, RightOut right_out, unsigned threads) {
  write_pairs(name, c.lower.data(), c.offsets.data(), index_t(c.lower.size()), left_out, right_out, threads);
}

}  // namespace detail

struct sorted_join_count_runner {
  const char* name;
  template <class Left, class Right, class Compare = corank::less>
  index_t operator()(Left left_first, Left left_last, Right right_first, Right right_last, Compare comp = {},
                     unsigned threads = 0) const {
    return detail::count_matches(name, left_first, left_last, right_first, right_last, comp, threads).offsets.back();
  }
};

struct sorted_join_runner {
  const char* name;
  template <class Left, class Right, class LeftOut, class RightOut, class Compare = corank::less>
  std::pair<LeftOut, RightOut> operator()(Left left_first, Left left_last, Right right_first, Right right_last,
                                          LeftOut left_out, RightOut right_out, Compare comp = {},
                                          unsigned threads = 0) const {
    const detail::join_counts c = detail::count_matches(name, left_first, left_last, right_first, right_last, comp,
                                                        threads);
    detail::write_pairs(name, c, left_out, right_out, threads);
    const index_t pairs = c.offsets.back();
    return {left_out + pairs, right_out + pairs};
  }
};

inline constexpr sorted_join_count_runner sorted_join_count{"corank::host::sorted_join_count"};
inline constexpr sorted_join_runner sorted_join{"corank::host::sorted_join"};

}  // namespace corank::host
