#pragma once
// The CPU backend of set_operations.cuh: the same names, rules and results, on threads.
//   corank::host::set_union(a.begin(), a.end(), b.begin(), b.end(), out.begin());

#include <corank/detail/set_operation_names.hpp>
#include <corank/host/operation.hpp>

// The names (set_operation_names.hpp), runner objects of host/operation.hpp, whose contract
// (preconditions, threads, complexity, errors) they follow. NAME is set_union,
// set_intersection, set_difference or set_symmetric_difference; A is [a_first, a_last) of m
// elements, B [b_first, b_last) of n; `threads` == 0 uses every hardware thread:
//   KeysOut NAME(a_first, a_last, b_first, b_last, keys_out, comp = {}, threads = 0)
//   std::pair<KeysOut, ValuesOut> NAME_by_key(a_first, a_last, b_first, b_last, a_values, b_values,
//                                             keys_out, values_out, comp = {}, threads = 0)
//   index_t NAME_count(a_first, a_last, b_first, b_last, comp = {}, threads = 0)
//   std::tuple<KeysOut, ValuesOut, BValuesOut> set_intersection_by_key_paired(
//       a_first, a_last, b_first, b_last, a_values, b_values, keys_out, values_out, b_values_out,
//       comp = {}, threads = 0)
// They return the end of each output (NAME_count: the output size). Each output holds the
// result: m + n elements always do (intersection: min(m, n), difference: m). O(m + n) work:
// the inputs are walked twice, counting then writing (NAME_count: once). Bad arguments
// throw std::invalid_argument, and inputs found unsorted corank::unsorted_input, before
// anything is written; unsorted inputs not found so give a result within those sizes.
#define CORANK_HOST_NAME(x) {{}, "corank::host::" #x}
namespace corank::host {
CORANK_NAME_SET_OPERATIONS(CORANK_HOST_NAME)
}  // namespace corank::host
#undef CORANK_HOST_NAME
