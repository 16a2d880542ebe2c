#pragma once
// Multiset union, intersection, difference and symmetric difference of sorted sequences on
// the GPU, with the standard library's rules (a key a times in A and b times in B):
//   set_union                 max(a, b) copies: A's, then B's last b - a
//   set_intersection          min(a, b) copies, A's first ones
//   set_difference            max(a - b, 0) copies, A's last ones
//   set_symmetric_difference  |a - b| copies, the last ones of the side with more
// The output is in `comp` order, each copy an input element, and the _by_key forms write each
// copy's own value beside it (A's where a matched pair writes one). Each comes as NAME (keys),
// NAME_by_key (keys and values), NAME_count (the output size only), in the convenience form
// (namespace corank) and the two-phase form (namespace corank::device): runner objects of
// operation.cuh, whose contract they follow. set_intersection_by_key_paired writes, beside
// each A value, the value of the B copy it matched.
//
//   auto end = corank::set_union(a.begin(), a.end(), b.begin(), b.end(), out.begin());
//   corank::device::set_union(temp, temp_bytes, a_ptr, m, b_ptr, n, out_ptr, d_count);

#include <corank/detail/set_operation_names.hpp>
#include <corank/operation.cuh>

// The names (set_operation_names.hpp), NAME being set_union, set_intersection, set_difference
// or set_symmetric_difference, and A of m elements, B of n:
//
// corank:: (convenience): return the end of each output (NAME_count: the size), which they
// wait for.
//   KeysOut NAME(a_first, a_last, b_first, b_last, keys_out, comp = {}, stream = nullptr,
//                kind = default_strategy)
//   std::pair<KeysOut, ValuesOut> NAME_by_key(a_first, a_last, b_first, b_last, a_values, b_values,
//                                             keys_out, values_out, comp = {}, stream = nullptr,
//                                             kind = default_strategy)
//   index_t NAME_count(a_first, a_last, b_first, b_last, comp = {}, stream = nullptr, kind = default_strategy)
//   std::tuple<KeysOut, ValuesOut, BValuesOut> set_intersection_by_key_paired(
//       a_first, a_last, b_first, b_last, a_values, b_values, keys_out, values_out, b_values_out,
//       comp = {}, stream = nullptr, kind = default_strategy)
// corank::device:: (two-phase): the output size goes to *count_out, in device memory.
//   cudaError_t NAME(temp_storage, temp_storage_bytes, keys_a, size_a, keys_b, size_b, keys_out,
//                    count_out, comp = {}, stream = nullptr, kind = default_strategy)
//   cudaError_t NAME_by_key(temp_storage, temp_storage_bytes, keys_a, values_a, size_a, keys_b,
//                           values_b, size_b, keys_out, values_out, count_out, comp = {},
//                           stream = nullptr, kind = default_strategy)
//   cudaError_t NAME_count(temp_storage, temp_storage_bytes, keys_a, size_a, keys_b, size_b,
//                          count_out, comp = {}, stream = nullptr, kind = default_strategy)
//   cudaError_t set_intersection_by_key_paired(temp_storage, temp_storage_bytes, keys_a, values_a,
//       size_a, keys_b, values_b, size_b, keys_out, values_out, b_values_out, count_out,
//       comp = {}, stream = nullptr, kind = default_strategy)
//
// - Preconditions: A and B sorted by `comp`, a strict weak order (not checked; see
//   check_sorted.cuh). Each output holds the result: m + n elements always do (intersection:
//   min(m, n), difference: m). Outputs overlap no input and not each other. Iterators, `comp`,
//   sizes and null pointers as in merge.cuh.
// - Complexity: O(m + n) work, plus per tile boundary a co-rank search, O(log(m + n)), and
//   O(log r) for a run of r equal keys that it cuts. Each input element is read once into a
//   tile, each output written once; a tile finds its offset by decoupled look-back.
// - Errors and synchronization (operation.cuh): the convenience forms throw corank::cuda_error
//   (cudaErrorInvalidValue and a sentence for bad arguments) or corank::out_of_memory, take
//   temporary storage from corank's pool and synchronize `stream` to read the size back. The
//   two-phase forms return cudaErrorInvalidValue for bad arguments, too little temporary
//   storage or a null count_out; they never allocate or synchronize and can be captured in a
//   CUDA graph. Empty inputs write a count of 0.
// - Unsorted inputs (operation.cuh): nothing is read or written outside the inputs and the
//   bounds above; where the kernels find them unsorted, the two-phase forms write a negative
//   *count_out and the convenience forms throw corank::unsorted_input; otherwise the result's
//   contents are unspecified.
#define CORANK_CONVENIENCE_NAME(x) {{}, "corank::" #x}
#define CORANK_DEVICE_NAME(x) {}
namespace corank {
CORANK_NAME_SET_OPERATIONS(CORANK_CONVENIENCE_NAME)
namespace device {
CORANK_NAME_SET_OPERATIONS(CORANK_DEVICE_NAME)
}  // namespace device
}  // namespace corank
#undef CORANK_CONVENIENCE_NAME
#undef CORANK_DEVICE_NAME
