#pragma once
// Gives each set operation its standard names (NAME, NAME_by_key, NAME_count, and
// set_intersection_by_key_paired) in the namespace where it is expanded, as runner objects
// of that namespace (corank::, corank::device:: or corank::host::).

#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

#define CORANK_NAME_SET_OPERATION(name)                                  \
  inline constexpr keys_operation<::corank::ops::name##_op> name{};      \
  inline constexpr by_key_operation<::corank::ops::name##_op> name##_by_key{}; \
  inline constexpr count_operation<::corank::ops::name##_op> name##_count{};

#define CORANK_NAME_SET_OPERATIONS                                                        \
  CORANK_NAME_SET_OPERATION(set_union)                                                    \
  CORANK_NAME_SET_OPERATION(set_intersection)                                             \
  CORANK_NAME_SET_OPERATION(set_difference)                                               \
  CORANK_NAME_SET_OPERATION(set_symmetric_difference)                                     \
  inline constexpr paired_by_key_operation<::corank::ops::set_intersection_op>            \
      set_intersection_by_key_paired{};
