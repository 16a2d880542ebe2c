#pragma once
// Custom op example: the union of two sorted sequences with every key written once, however
// often it occurs in A and B (std::set_union followed by std::unique). The op is run-aware:
// it takes (relation, new_key) and writes a step's element only when its key is new.
// It partitions by merge path: with each key written once, matching A's and B's copies
// pairwise does not matter.
//
//   auto end = corank::keys_operation<distinct_union_op>{}(a, a_end, b, b_end, out);

#include <corank/op.hpp>

struct distinct_union_op {
  static constexpr corank::partitioning partition = corank::partitioning::merge_path;
  static constexpr bool output_size_is_input_size = false;

  CORANK_HOST_DEVICE constexpr corank::action operator()(corank::relation r, bool new_key) const {
    const bool from_b = r == corank::relation::b_first;
    if (!new_key) return from_b ? corank::skip_b() : corank::skip_a();
    return from_b ? corank::take_b() : corank::take_a();
  }
};
