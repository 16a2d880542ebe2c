#pragma once
// Multiset symmetric difference: |a - b| copies, the extras of whichever side has more
// (std::set_symmetric_difference).

#include <corank/op.hpp>

namespace corank::ops {

struct set_symmetric_difference_op {
  static constexpr partitioning partition = partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;

  CORANK_HOST_DEVICE constexpr action operator()(relation r) const {
    switch (r) {
      case relation::a_first: return take_a();
      case relation::b_first: return take_b();
      default: return {emit::nothing, advance::both};
    }
  }
};

}  // namespace corank::ops
