#pragma once
// The merges and the multiset set operations over S segment pairs at once, on the GPU, in one
// launch balanced on the total path (segmented_operation.cuh): segment s of A is
// A[a_offsets[s], a_offsets[s + 1]), of B likewise, and segment s of the output is the
// operation on the pair, at out[offsets_out[s], offsets_out[s + 1]). CSR matrices' rows, list
// columns, posting lists.
//
//   corank::segmented_set_union(a.begin(), a.end(), a_offsets.begin(), b.begin(), b.end(),
//                               b_offsets.begin(), segments, out.begin(), out_offsets.begin());
//   corank::device::segmented_merge(temp, temp_bytes, a_ptr, m, a_offsets_ptr, b_ptr, n,
//                                   b_offsets_ptr, segments, out_ptr, out_offsets_ptr, d_count);

#include <corank/detail/segmented_operation_names.hpp>
#include <corank/segmented_operation.cuh>

// The names (segmented_operation_names.hpp), runner objects of segmented_operation.cuh, whose
// contract they follow; NAME is set_union, set_intersection, set_difference or
// set_symmetric_difference (set_operations.cuh gives their rules), A is m elements, B n:
//
// corank:: (convenience): return the end of each output (_count: the total), which they wait for.
//   KeysOut segmented_merge(a_first, a_last, a_offsets, b_first, b_last, b_offsets, segments,
//                           keys_out, offsets_out, comp = {}, stream = nullptr)
//   std::pair<KeysOut, ValuesOut> segmented_merge_by_key(a_first, a_last, a_offsets, b_first,
//       b_last, b_offsets, segments, a_values, b_values, keys_out, values_out, offsets_out,
//       comp = {}, stream = nullptr)
//   segmented_NAME(...), segmented_NAME_by_key(...)   as segmented_merge(_by_key)
//   index_t segmented_NAME_count(a_first, a_last, a_offsets, b_first, b_last, b_offsets,
//                                segments, counts_out, comp = {}, stream = nullptr)
//   std::tuple<KeysOut, ValuesOut, BValuesOut> segmented_set_intersection_by_key_paired(a_first,
//       a_last, a_offsets, b_first, b_last, b_offsets, segments, a_values, b_values, keys_out,
//       values_out, b_values_out, offsets_out, comp = {}, stream = nullptr)
// corank::device:: (two-phase): the total goes to *count_out in device memory (optional for
// the merges).
//   cudaError_t segmented_merge(temp_storage, temp_storage_bytes, keys_a, size_a, a_offsets,
//       keys_b, size_b, b_offsets, segments, keys_out, offsets_out, count_out, comp = {},
//       stream = nullptr)
//   cudaError_t segmented_merge_by_key(temp_storage, temp_storage_bytes, keys_a, values_a, size_a,
//       a_offsets, keys_b, values_b, size_b, b_offsets, segments, keys_out, values_out,
//       offsets_out, count_out, comp = {}, stream = nullptr)
//   segmented_NAME, segmented_NAME_by_key             as the merges
//   cudaError_t segmented_NAME_count(temp_storage, temp_storage_bytes, keys_a, size_a, a_offsets,
//       keys_b, size_b, b_offsets, segments, counts_out, count_out, comp = {}, stream = nullptr)
//   cudaError_t segmented_set_intersection_by_key_paired(temp_storage, temp_storage_bytes, keys_a,
//       values_a, size_a, a_offsets, keys_b, values_b, size_b, b_offsets, segments, keys_out,
//       values_out, b_values_out, offsets_out, count_out, comp = {}, stream = nullptr)
// Each output holds the result: m + n elements always do; offsets_out holds S + 1, counts_out S.
#define CORANK_CONVENIENCE_NAME(x) {{}, "corank::" #x}
#define CORANK_DEVICE_NAME(x) {}
namespace corank {
CORANK_NAME_SEGMENTED_OPERATIONS(CORANK_CONVENIENCE_NAME)
namespace device {
CORANK_NAME_SEGMENTED_OPERATIONS(CORANK_DEVICE_NAME)
}  // namespace device
}  // namespace corank
#undef CORANK_CONVENIENCE_NAME
#undef CORANK_DEVICE_NAME
