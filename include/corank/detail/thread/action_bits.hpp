#pragma once
// An op's answers as bits. The unrolled walks ask the op once, before the walk, for its
// action on every relation (and, for run-aware ops, both values of new_key); each step then
// picks its answer (lookup, or bit by bit with has) instead of branching through the op's
// switch. Also which inputs an op writes nothing for alone (silent_inputs_v), for the
// persistent driver's skipped tiles.

#include <corank/config.hpp>
#include <corank/op.hpp>

#include <type_traits>

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

// The op's answer to relation `r` (run-aware ops: at a run's first element or not).
template <class Op>
CORANK_HOST_DEVICE constexpr action answer_of(const Op& op, relation r, bool new_key) {
  if constexpr (sees_run_starts_v<Op>) {
    return op(r, new_key);
  } else {
    return op(r);
  }
}

// Whether the op writes nothing where one input is walked alone (the other's window empty:
// its front is always first), A's (`from_b` false) or B's: each answer it may give there
// consumes the element and writes nothing (intersection for both, difference for B's).
template <class Op>
CORANK_HOST_DEVICE constexpr bool writes_nothing_alone(const Op& op, bool from_b) {
  const relation front_first = from_b ? relation::b_first : relation::a_first;
  const advance keeps_front = from_b ? advance::a : advance::b;
  for (int new_key = 0; new_key < 2; ++new_key) {
    const action act = answer_of(op, front_first, new_key != 0);
    if (act.write != emit::nothing || act.step == keeps_front) return false;
  }
  return true;
}

// Which inputs the op writes nothing for alone, known at compile time: for stateless ops
// whose answers are constant expressions (the library's); false for any other op.
struct silent_inputs {
  bool a, b;
};
template <class Op, class = void>
inline constexpr silent_inputs silent_inputs_v{false, false};
template <class Op>
inline constexpr silent_inputs
    silent_inputs_v<Op, std::enable_if_t<std::is_empty_v<Op> && (writes_nothing_alone(Op{}, false), true)>>{
        writes_nothing_alone(Op{}, false), writes_nothing_alone(Op{}, true)};

// The table of an op's answers; index [new_key] (plain ops answer the same for both).
template <class Op>
struct action_table {
  unsigned a_first[2], b_first[2], equal[2];

  CORANK_HOST_DEVICE explicit action_table(const Op& op) {
    for (int new_key = 0; new_key < 2; ++new_key) {
      a_first[new_key] = to_bits(answer_of(op, relation::a_first, new_key != 0));
      b_first[new_key] = to_bits(answer_of(op, relation::b_first, new_key != 0));
      equal[new_key] = to_bits(answer_of(op, relation::equal, new_key != 0));
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
};

}  // namespace corank::detail
