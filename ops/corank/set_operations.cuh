#pragma once
// Multiset union, intersection, difference and symmetric difference of sorted sequences on
// the GPU, with the standard library's rules (a key a times in A and b times in B):
//   set_union                 max(a, b) copies: A's, then B's last b - a
//   set_intersection          min(a, b) copies, A's
//   set_difference            max(a - b, 0) copies, A's last ones
//   set_symmetric_difference  |a - b| copies, the extras of the side with more
// Each comes as NAME (keys), NAME_by_key (keys and values), NAME_count (the output size
// only), in the convenience form (namespace corank) and the two-phase form (namespace
// corank::device); see operation.cuh for the call signatures. set_intersection_by_key_paired
// writes, beside each A value, the value of the B copy it matched.
//
//   auto end = corank::set_union(a.begin(), a.end(), b.begin(), b.end(), out.begin());
//   corank::device::set_union(temp, temp_bytes, a_ptr, m, b_ptr, n, out_ptr, d_count);

#include <corank/detail/set_operation_names.hpp>
#include <corank/operation.cuh>

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
