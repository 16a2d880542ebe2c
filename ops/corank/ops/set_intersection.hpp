#pragma once
// Multiset intersection: min(a, b) copies, A's (std::set_intersection). The by-key form
// can also write the matched B copy's value beside A's.

#include <corank/op.hpp>

namespace corank::ops {

struct set_intersection_op {
  static constexpr partitioning partition = partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;

  CORANK_HOST_DEVICE constexpr action operator()(relation r) const {
    switch (r) {
      case relation::a_first: return skip_a();
      case relation::b_first: return skip_b();
      default: return {emit::a, advance::both};
    }
  }
};

}  // namespace corank::ops
