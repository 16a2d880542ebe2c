#pragma once
// The merges and the multiset set operations on inputs in host memory, through the GPU in
// chunks (streamed_operation.cuh): inputs and output may be larger than the GPU's memory, the
// copies both ways and the kernels overlap, and the output goes to host arrays or to a sink.
//
//   corank::streamed_merge(a, a + m, b, b + n, out);  // a, b, out: host pointers
//   corank::streamed_options options;
//   options.gpu_memory = std::size_t(8) << 30;         // use at most 8 GiB of the GPU
//   corank::streamed_set_intersection(a, a + m, b, b + n, [&](const long* keys, corank::index_t count) {
//     std::fwrite(keys, sizeof(long), count, file);
//   }, {}, options);

#include <corank/detail/merge_instantiations.hpp>  // its merges' chunks link the library's kernels
#include <corank/detail/streamed_operation_names.hpp>
#include <corank/streamed_operation.cuh>

// The names (streamed_operation_names.hpp), runner objects of streamed_operation.cuh, whose
// contract (memory, sinks, options, errors) they follow. NAME is set_union, set_intersection,
// set_difference or set_symmetric_difference (set_operations.cuh gives their rules); A is
// [a_first, a_last) of m elements, B [b_first, b_last) of n, host pointers; options is a
// corank::streamed_options:
//   Key* streamed_merge(a_first, a_last, b_first, b_last, keys_out, comp = {}, options = {})
//   index_t streamed_merge(a_first, a_last, b_first, b_last, sink, comp = {}, options = {})
//   std::pair<Key*, Value*> streamed_merge_by_key(a_first, a_last, b_first, b_last, a_values,
//       b_values, keys_out, values_out, comp = {}, options = {})
//   index_t streamed_merge_by_key(a_first, a_last, b_first, b_last, a_values, b_values, sink,
//       comp = {}, options = {})
//   streamed_NAME(...), streamed_NAME_by_key(...)   as the merges
//   index_t streamed_NAME_count(a_first, a_last, b_first, b_last, comp = {}, options = {})
// sink(keys, count) or sink(keys, values, count) receives each chunk's outputs in order.
#define CORANK_STREAMED_NAME(x) {{}, "corank::" #x}
namespace corank {
CORANK_NAME_STREAMED_OPERATIONS(CORANK_STREAMED_NAME)
}  // namespace corank
#undef CORANK_STREAMED_NAME
