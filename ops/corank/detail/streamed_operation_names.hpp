#pragma once
// Gives the merges and each set operation their streamed names (streamed_merge,
// streamed_merge_by_key, streamed_NAME, streamed_NAME_by_key, streamed_NAME_count) in the
// namespace where it is expanded, as runner objects of that namespace's streamed runners
// (streamed_operation.cuh's in corank::, host/streamed_operation.hpp's in corank::host::).

#include <corank/ops/merge.hpp>
#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

// NAMED(x) is how the namespace names its runner objects: {{}, "corank::x"}, as for
// CORANK_NAME_SET_OPERATIONS (set_operation_names.hpp).
#define CORANK_NAME_STREAMED_SET_OPERATION(name, NAMED)                                                   \
  inline constexpr streamed_keys_operation<::corank::ops::name##_op> streamed_##name NAMED(streamed_##name); \
  inline constexpr streamed_by_key_operation<::corank::ops::name##_op> streamed_##name##_by_key NAMED(     \
      streamed_##name##_by_key);                                                                          \
  inline constexpr streamed_count_operation<::corank::ops::name##_op> streamed_##name##_count NAMED(       \
      streamed_##name##_count);

#define CORANK_NAME_STREAMED_OPERATIONS(NAMED)                                                         \
  inline constexpr streamed_keys_operation<::corank::ops::merge_op> streamed_merge NAMED(streamed_merge); \
  inline constexpr streamed_by_key_operation<::corank::ops::merge_op> streamed_merge_by_key NAMED(       \
      streamed_merge_by_key);                                                                          \
  CORANK_NAME_STREAMED_SET_OPERATION(set_union, NAMED)                                                 \
  CORANK_NAME_STREAMED_SET_OPERATION(set_intersection, NAMED)                                          \
  CORANK_NAME_STREAMED_SET_OPERATION(set_difference, NAMED)                                            \
  CORANK_NAME_STREAMED_SET_OPERATION(set_symmetric_difference, NAMED)
