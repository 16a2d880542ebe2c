#pragma once
// The CPU backend of set_operations.cuh: the same names, rules and results, on threads.
//   corank::host::set_union(a.begin(), a.end(), b.begin(), b.end(), out.begin());

#include <corank/detail/set_operation_names.hpp>
#include <corank/host/operation.hpp>

#define CORANK_HOST_NAME(x) {{}, "corank::host::" #x}
namespace corank::host {
CORANK_NAME_SET_OPERATIONS(CORANK_HOST_NAME)
}  // namespace corank::host
#undef CORANK_HOST_NAME
