#pragma once
// Sorted search: A holds sorted queries, B a sorted array (the haystack), and the merge path
// of the two writes each query once, at the step where it meets B's front, and skips B's
// elements. What the search operations write beside each query is B's position at that step
// (detail::b_positions, or the comparison with B's element there: detail::b_matches), which
// is the query's merged position minus its own index:
//   - with `comp`, ties go to A (the queries): B's elements before a query are those strictly
//     before it, and the position is the query's lower bound in B;
//   - with ties_to_b<comp>, B's elements equivalent to the query come first: the upper bound.
// So one pass of O(m + n) steps answers every query (ops/corank/search.cuh).

#include <corank/config.hpp>
#include <corank/op.hpp>

namespace corank::ops {

struct sorted_search_op {
  static constexpr partitioning partition = partitioning::merge_path;
  static constexpr bool output_size_is_input_size = false;  // m of the m + n steps write
  static constexpr bool writes_a_in_place = true;           // query i is output i (op.hpp)

  CORANK_HOST_DEVICE constexpr action operator()(relation r) const {
    return r == relation::b_first ? skip_b() : take_a();
  }
};

// `comp` with ties sent to B: on the merge path B's element comes first where it is not
// after A's. Not a strict weak order (it is "<=" for `<`), which the merge path does not
// need: its searches, splits and walks only ever ask comp(B's element, A's element), and
// for that question this is the order in which B's equivalent elements come first.
template <class Compare>
struct ties_to_b {
  Compare comp;

  CORANK_EXEC_CHECK_DISABLE
  template <class KeyB, class KeyA>
  CORANK_HOST_DEVICE constexpr bool operator()(const KeyB& b, const KeyA& a) const {
    return !comp(a, b);
  }
};

}  // namespace corank::ops
