#pragma once
// An op's answers as bits. The unrolled walks ask the op once, before the walk, for its
// action on every relation (and, for run-aware ops, both values of new_key); each step then
// picks its answer (lookup, or bit by bit with has) instead of branching through the op's
// switch.

#include <corank/config.hpp>
#include <corank/op.hpp>

namespace corank::detail {

enum action_bit : unsigned {
  writes = 1u,           // the step writes an output
  writes_b = 2u,         // ... B's element
  writes_combined = 4u,  // ... a value combined from A's and B's
  moves_a = 8u,          // A advances
  moves_b = 16u          // B advances
};

CORANK_HOST_DEVICE constexpr unsigned to_bits(action act) {
  return (act.write != emit::nothing ? writes : 0u) | (act.write == emit::b ? writes_b : 0u) |
         (act.write == emit::combined ? writes_combined : 0u) | (act.step != advance::b ? moves_a : 0u) |
         (act.step != advance::a ? moves_b : 0u);
}

// The table of an op's answers; index [new_key] (plain ops answer the same for both).
template <class Op>
struct action_table {
  unsigned a_first[2], b_first[2], equal[2];

  CORANK_HOST_DEVICE explicit action_table(const Op& op) {
    for (int new_key = 0; new_key < 2; ++new_key) {
      a_first[new_key] = to_bits(ask(op, relation::a_first, new_key != 0));
      b_first[new_key] = to_bits(ask(op, relation::b_first, new_key != 0));
      equal[new_key] = to_bits(ask(op, relation::equal, new_key != 0));
    }
  }

  // The step's bits: B's front first, the fronts equal, A's front first, or nothing left.
  CORANK_HOST_DEVICE unsigned lookup(bool b_is_first, bool are_equal, bool a_left, bool new_key) const {
    const int k = new_key ? 1 : 0;
    return b_is_first ? b_first[k] : are_equal ? equal[k] : a_left ? a_first[k] : 0u;
  }

  // Whether any answer has `bit` (constant where the op's answers are).
  CORANK_HOST_DEVICE bool ever_has(unsigned bit) const {
    return ((a_first[0] | a_first[1] | b_first[0] | b_first[1] | equal[0] | equal[1]) & bit) != 0;
  }

  // Whether the step's answer has `bit`, given which of the (mutually exclusive) relations
  // holds: B's front first, the fronts equal, A's front first (none: nothing is left).
  // Written as an OR of the relations whose answer has the bit, so that with the table
  // known at compile time it is one predicate operation, not a select and a bit test.
  CORANK_HOST_DEVICE bool has(unsigned bit, bool b_is_first, bool are_equal, bool a_is_first, bool new_key) const {
    const int k = new_key ? 1 : 0;
    return (b_is_first && (b_first[k] & bit) != 0) || (are_equal && (equal[k] & bit) != 0) ||
           (a_is_first && (a_first[k] & bit) != 0);
  }

 private:
  CORANK_HOST_DEVICE static action ask(const Op& op, relation r, bool new_key) {
    if constexpr (sees_run_starts_v<Op>) {
      return op(r, new_key);
    } else {
      return op(r);
    }
  }
};

}  // namespace corank::detail
