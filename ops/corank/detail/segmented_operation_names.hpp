#pragma once
// Gives the merges and each set operation their segmented names (segmented_merge,
// segmented_merge_by_key, segmented_NAME, segmented_NAME_by_key, segmented_NAME_count, and
// segmented_set_intersection_by_key_paired) in the namespace where it is expanded, as runner
// objects of that namespace's segmented runners (segmented_operation.cuh's in corank:: and
// corank::device::, host/segmented_operation.hpp's in corank::host::).

#include <corank/ops/merge.hpp>
#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

// NAMED(x) is how the namespace names its runner objects, as for CORANK_NAME_SET_OPERATIONS
// (set_operation_names.hpp): {{}, "corank::x"} where the runners report errors by name, {} in
// corank::device.
#define CORANK_NAME_SEGMENTED_SET_OPERATION(name, NAMED)                                                   \
  inline constexpr segmented_keys_operation<::corank::ops::name##_op> segmented_##name NAMED(segmented_##name); \
  inline constexpr segmented_by_key_operation<::corank::ops::name##_op> segmented_##name##_by_key NAMED(     \
      segmented_##name##_by_key);                                                                          \
  inline constexpr segmented_count_operation<::corank::ops::name##_op> segmented_##name##_count NAMED(       \
      segmented_##name##_count);

#define CORANK_NAME_SEGMENTED_OPERATIONS(NAMED)                                                          \
  inline constexpr segmented_keys_operation<::corank::ops::merge_op> segmented_merge NAMED(segmented_merge); \
  inline constexpr segmented_by_key_operation<::corank::ops::merge_op> segmented_merge_by_key NAMED(       \
      segmented_merge_by_key);                                                                           \
  CORANK_NAME_SEGMENTED_SET_OPERATION(set_union, NAMED)                                                  \
  CORANK_NAME_SEGMENTED_SET_OPERATION(set_intersection, NAMED)                                           \
  CORANK_NAME_SEGMENTED_SET_OPERATION(set_difference, NAMED)                                             \
  CORANK_NAME_SEGMENTED_SET_OPERATION(set_symmetric_difference, NAMED)                                   \
  inline constexpr segmented_paired_by_key_operation<::corank::ops::set_intersection_op>                 \
      segmented_set_intersection_by_key_paired NAMED(segmented_set_intersection_by_key_paired);
