#pragma once
// Multiset union: a key a times in A and b times in B is written max(a, b) times, A's
// copies first, then B's last b - a (std::set_union).

#include <corank/op.hpp>

namespace corank::ops {

struct set_union_op {
  static constexpr partitioning partition = partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;

  CORANK_HOST_DEVICE constexpr action operator()(relation r) const {
    switch (r) {
      case relation::a_first: return take_a();
      case relation::b_first: return take_b();
      default: return {emit::a, advance::both};
    }
  }
};

}  // namespace corank::ops
