#pragma once
// The merge-path op concept. Every operation (merge, the set operations, users' own) is a
// small functor that the framework consults at each step of the serial walk over A and B.
//
// At each step the framework shows the op how the front elements of A and B relate:
//   relation::a_first  A's front comes first (or B is used up in this partition),
//   relation::b_first  B's front comes first (or A is used up),
//   relation::equal    the fronts are equivalent: the r-th copy of a key in A meets the
//                      r-th copy in B. Only ops with `partition == balanced_path` see
//                      it; for merge-path ops equivalent keys are ordered, A first.
// and the op answers with an `action`: what is written and which inputs advance.
//
// An op type provides
//   static constexpr corank::partitioning partition;      // merge_path or balanced_path
//   static constexpr bool output_size_is_input_size;       // true: every step writes one
//                                                          // element and consumes one
//   CORANK_HOST_DEVICE action operator()(relation) const;
// An op may instead take `(relation, bool new_key)`: new_key is true when the key of the
// step's front differs from the last key consumed on the path (or nothing precedes it),
// which is what an op needs to write each distinct key once. Only the data-dependent
// kernels (operation.cuh) run such ops.
// An op's answer must depend only on its arguments: the GPU kernels ask it once, before a
// walk, for every relation (and both values of new_key), and look the answers up per step.
// And, if any action writes `emit::combined`, a value combiner
//   template <class V> CORANK_HOST_DEVICE V combine(const V& a_value, const V& b_value) const;
// The key written for `emit::combined` is A's key; an op without `combine` writes A's value.

#include <corank/config.hpp>

#include <type_traits>

namespace corank {

enum class partitioning : unsigned char {
  merge_path,    // output ranges of equal length; ties to A (stable merge order)
  balanced_path  // like merge_path, but a matched pair of equal keys never straddles a
                 // partition boundary (multiset set operations need it)
};

enum class relation : unsigned char { a_first, b_first, equal };

enum class emit : unsigned char { nothing, a, b, combined };

enum class advance : unsigned char { a, b, both };

struct action {
  emit write;
  advance step;
};

// Actions are equal when they write the same and advance alike.
CORANK_HOST_DEVICE constexpr bool operator==(action x, action y) {
  return x.write == y.write && x.step == y.step;
}

// The common actions, so that ops read like their rules. Functions rather than constants:
// namespace-scope constexpr objects are not visible in device code.
CORANK_HOST_DEVICE constexpr action take_a() { return {emit::a, advance::a}; }
CORANK_HOST_DEVICE constexpr action take_b() { return {emit::b, advance::b}; }
CORANK_HOST_DEVICE constexpr action skip_a() { return {emit::nothing, advance::a}; }
CORANK_HOST_DEVICE constexpr action skip_b() { return {emit::nothing, advance::b}; }

// Compile-time check that a type models the op concept; false (not a hard error) for a
// type that lacks a member, so the framework's static_assert gives a readable message.
template <class Op, class = void>
struct is_op : std::false_type {};
template <class Op>
struct is_op<Op, std::void_t<decltype(Op::partition), decltype(Op::output_size_is_input_size)>>
    : std::bool_constant<std::is_same_v<std::remove_cv_t<decltype(Op::partition)>, partitioning> &&
                         std::is_same_v<std::remove_cv_t<decltype(Op::output_size_is_input_size)>, bool> &&
                         (std::is_invocable_r_v<action, const Op&, relation> ||
                          std::is_invocable_r_v<action, const Op&, relation, bool>)> {};
template <class Op>
inline constexpr bool is_op_v = is_op<Op>::value;

// True for ops that take (relation, bool new_key).
template <class Op>
inline constexpr bool sees_run_starts_v = std::is_invocable_r_v<action, const Op&, relation, bool>;

// True for ops that declare `static constexpr bool writes_a_in_place = true`: every step that
// takes A's element writes it, and no other step writes (the sorted search), so A's element
// i is output i and a tile's outputs start at its A window's start, whatever the data. The
// GPU then writes each tile in place, with no look-back (tile_kernels.cuh).
template <class Op, class = void>
struct writes_a_in_place : std::false_type {};
template <class Op>
struct writes_a_in_place<Op, std::void_t<decltype(Op::writes_a_in_place)>>
    : std::bool_constant<bool(Op::writes_a_in_place)> {};
template <class Op>
inline constexpr bool writes_a_in_place_v = writes_a_in_place<Op>::value;

// The value written for emit::combined.
template <class Op, class Value, class = void>
struct has_combine : std::false_type {};
template <class Op, class Value>
struct has_combine<Op, Value,
                   std::void_t<decltype(std::declval<const Op&>().combine(std::declval<const Value&>(),
                                                                          std::declval<const Value&>()))>>
    : std::true_type {};

// The value an emit::combined step writes: op.combine(a, b) where the op has a combine for
// values of ValueA, else A's value.
CORANK_EXEC_CHECK_DISABLE
template <class Op, class ValueA, class ValueB>
CORANK_HOST_DEVICE auto combine_values(const Op& op, const ValueA& a, const ValueB& b) {
  if constexpr (has_combine<Op, ValueA>::value) {
    return op.combine(a, b);
  } else {
    return a;
  }
}

}  // namespace corank
