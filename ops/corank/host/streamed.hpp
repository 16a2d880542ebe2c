#pragma once
// The CPU backend of streamed.cuh: the merges and the set operations chunk by chunk, their
// output in an array or handed to a sink as it is made, in memory of one chunk.
//   corank::host::streamed_merge(a, a + m, b, b + n, [&](const int* keys, corank::index_t count) {
//     file.write(keys, count);
//   });

#include <corank/detail/streamed_operation_names.hpp>
#include <corank/host/streamed_operation.hpp>

// The names (streamed_operation_names.hpp), runner objects of host/streamed_operation.hpp,
// whose contract (sinks, options, errors) they follow. NAME is set_union, set_intersection,
// set_difference or set_symmetric_difference; A is [a_first, a_last) of m elements, B
// [b_first, b_last) of n, raw pointers; options is a corank::streamed_options:
//   Key* streamed_merge(a_first, a_last, b_first, b_last, keys_out, comp = {}, options = {})
//   index_t streamed_merge(a_first, a_last, b_first, b_last, sink, comp = {}, options = {})
//   std::pair<Key*, Value*> streamed_merge_by_key(a_first, a_last, b_first, b_last, a_values,
//       b_values, keys_out, values_out, comp = {}, options = {})
//   index_t streamed_merge_by_key(a_first, a_last, b_first, b_last, a_values, b_values, sink,
//       comp = {}, options = {})
//   streamed_NAME(...), streamed_NAME_by_key(...)   as the merges
//   index_t streamed_NAME_count(a_first, a_last, b_first, b_last, comp = {}, options = {})
// sink(keys, count) or sink(keys, values, count) receives each chunk's outputs in order.
#define CORANK_HOST_NAME(x) {{}, "corank::host::" #x}
namespace corank::host {
CORANK_NAME_STREAMED_OPERATIONS(CORANK_HOST_NAME)
}  // namespace corank::host
#undef CORANK_HOST_NAME
