#pragma once
// Custom op example: adding two sparse vectors stored as sorted (index, value) pairs.
// It is union by key, except that an index present in both writes the sum of the values.
//
//   corank::by_key_operation<sparse_add_op>{}(a_index, a_index_end, b_index, b_index_end,
//                                             a_value, b_value, out_index, out_value);

#include <corank/op.hpp>

struct sparse_add_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;

  CORANK_HOST_DEVICE constexpr corank::action operator()(corank::relation r) const {
    switch (r) {
      case corank::relation::a_first: return corank::take_a();
      case corank::relation::b_first: return corank::take_b();
      default: return {corank::emit::combined, corank::advance::both};
    }
  }

  template <class Value>
  CORANK_HOST_DEVICE Value combine(const Value& a, const Value& b) const {
    return a + b;
  }
};
