#pragma once
// NumPy's set routines on sorted input, in one pass each: ops of the co-rank framework
// (corank/op.hpp) that write every key once, however often it occurs in A and B.
//   union_distinct_op                 keys in A or B         (numpy.union1d)
//   intersection_distinct_op          keys in A and in B     (numpy.intersect1d)
//   difference_distinct_op            keys in A, not in B    (numpy.setdiff1d)
//   symmetric_difference_distinct_op  keys in one of them    (numpy.setxor1d)
// They are run-aware (relation, new_key): a step writes only the first copy of its key on the
// path. The last three partition by balanced path, so a key's first copies in A and B meet as
// relation::equal: a key that comes first as a_first or b_first is in one input only.
// The CPU backend runs all four; the GPU runs union_distinct_op only (gpu_distinct.cu says why).

#include <corank/op.hpp>

#include <type_traits>

namespace corank::python {

struct union_distinct_op {
  static constexpr partitioning partition = partitioning::merge_path;
  static constexpr bool output_size_is_input_size = false;
  CORANK_HOST_DEVICE constexpr action operator()(relation r, bool new_key) const {
    const bool from_b = r == relation::b_first;
    if (!new_key) return from_b ? skip_b() : skip_a();
    return from_b ? take_b() : take_a();
  }
};

struct intersection_distinct_op {
  static constexpr partitioning partition = partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  CORANK_HOST_DEVICE constexpr action operator()(relation r, bool new_key) const {
    if (r == relation::equal) return {new_key ? emit::a : emit::nothing, advance::both};
    return r == relation::a_first ? skip_a() : skip_b();
  }
};

struct difference_distinct_op {
  static constexpr partitioning partition = partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  CORANK_HOST_DEVICE constexpr action operator()(relation r, bool new_key) const {
    if (r == relation::equal) return {emit::nothing, advance::both};
    if (r == relation::b_first) return skip_b();
    return new_key ? take_a() : skip_a();
  }
};

struct symmetric_difference_distinct_op {
  static constexpr partitioning partition = partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  CORANK_HOST_DEVICE constexpr action operator()(relation r, bool new_key) const {
    if (r == relation::equal) return {emit::nothing, advance::both};
    if (r == relation::a_first) return new_key ? take_a() : skip_a();
    return new_key ? take_b() : skip_b();
  }
};

// The distinct operations write keys only: NumPy's routines have no values.
template <class Op>
inline constexpr bool is_distinct_op =
    std::is_same_v<Op, union_distinct_op> || std::is_same_v<Op, intersection_distinct_op> ||
    std::is_same_v<Op, difference_distinct_op> || std::is_same_v<Op, symmetric_difference_distinct_op>;

}  // namespace corank::python
