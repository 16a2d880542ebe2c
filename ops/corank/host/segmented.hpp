#pragma once
// The CPU backend of segmented.cuh: the merges and the set operations over S segment pairs,
// with the same names, rules and results, on threads.
//   corank::host::segmented_set_union(a.begin(), a.end(), a_offsets.begin(), b.begin(), b.end(),
//                                     b_offsets.begin(), segments, out.begin(), out_offsets.begin());

#include <corank/detail/segmented_operation_names.hpp>
#include <corank/host/segmented_operation.hpp>

// The names (segmented_operation_names.hpp), runner objects of host/segmented_operation.hpp,
// whose contract (offsets, preconditions, threads, complexity, errors) they follow. NAME is
// set_union, set_intersection, set_difference or set_symmetric_difference; segment s of A is
// A[a_offsets[s], a_offsets[s + 1]), of B likewise (S + 1 offsets each); `threads` == 0 uses
// every hardware thread:
//   KeysOut segmented_merge(a_first, a_last, a_offsets, b_first, b_last, b_offsets, segments,
//                           keys_out, offsets_out, comp = {}, threads = 0)
//   std::pair<KeysOut, ValuesOut> segmented_merge_by_key(a_first, a_last, a_offsets, b_first, b_last,
//       b_offsets, segments, a_values, b_values, keys_out, values_out, offsets_out, comp = {}, threads = 0)
//   KeysOut segmented_NAME(...)                      as segmented_merge
//   std::pair<KeysOut, ValuesOut> segmented_NAME_by_key(...)  as segmented_merge_by_key
//   index_t segmented_NAME_count(a_first, a_last, a_offsets, b_first, b_last, b_offsets, segments,
//                                counts_out, comp = {}, threads = 0)
//   std::tuple<KeysOut, ValuesOut, BValuesOut> segmented_set_intersection_by_key_paired(a_first,
//       a_last, a_offsets, b_first, b_last, b_offsets, segments, a_values, b_values, keys_out,
//       values_out, b_values_out, offsets_out, comp = {}, threads = 0)
// Each writes segment s's result at [offsets_out[s], offsets_out[s + 1]) (S + 1 offsets;
// _count: counts_out[s], S counts) and returns the end of each output (_count: the total).
// Each output holds the result: m + n elements always do. O(m + n + S) work: the inputs are
// walked twice, counting then writing (the merges and _count: once). Bad arguments throw
// std::invalid_argument, and segments found unsorted corank::unsorted_input, before anything
// is written.
#define CORANK_HOST_NAME(x) {{}, "corank::host::" #x}
namespace corank::host {
CORANK_NAME_SEGMENTED_OPERATIONS(CORANK_HOST_NAME)
}  // namespace corank::host
#undef CORANK_HOST_NAME
