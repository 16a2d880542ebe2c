#pragma once
// Gives each set operation its standard names (NAME, NAME_by_key, NAME_count, and
// set_intersection_by_key_paired) in the namespace where it is expanded, as runner objects
// of that namespace (corank::, corank::device:: or corank::host::).

#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

// NAMED(x) is how the namespace names its runner objects: {{}, "corank::x"} where the
// runners report errors by name, {} in corank::device, whose runners return codes.
#define CORANK_NAME_SET_OPERATION(name, NAMED)                                          \
  inline constexpr keys_operation<::corank::ops::name##_op> name NAMED(name);           \
  inline constexpr by_key_operation<::corank::ops::name##_op> name##_by_key NAMED(name##_by_key); \
  inline constexpr count_operation<::corank::ops::name##_op> name##_count NAMED(name##_count);

#define CORANK_NAME_SET_OPERATIONS(NAMED)                                                \
  CORANK_NAME_SET_OPERATION(set_union, NAMED)                                            \
  CORANK_NAME_SET_OPERATION(set_intersection, NAMED)                                     \
  CORANK_NAME_SET_OPERATION(set_difference, NAMED)                                       \
  CORANK_NAME_SET_OPERATION(set_symmetric_difference, NAMED)                             \
  inline constexpr paired_by_key_operation<::corank::ops::set_intersection_op>           \
      set_intersection_by_key_paired NAMED(set_intersection_by_key_paired);
