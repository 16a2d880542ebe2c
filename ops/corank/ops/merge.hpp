#pragma once
// Stable merge: every element is written once, in merge order; among equivalent keys
// all of A's come before B's. merge_by_key is the same op: the framework carries each
// written key's value along with it.

#include <corank/op.hpp>

namespace corank::ops {

struct merge_op {
  static constexpr partitioning partition = partitioning::merge_path;
  static constexpr bool output_size_is_input_size = true;

  CORANK_HOST_DEVICE constexpr action operator()(relation r) const {
    return r == relation::b_first ? take_b() : take_a();
  }
};

}  // namespace corank::ops
