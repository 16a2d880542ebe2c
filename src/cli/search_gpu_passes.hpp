#pragma once
// The lower bounds' search pass of search_gpu.cu (search --side left), for the device key
// types: instantiated there, and declared extern here for the files that include this one.
// (join_gpu.cu's join runs a pass of its own, which also counts each key's matches:
// join_dispatch.cuh's join_stages.)

#include "set_gpu_ops.hpp"

#include <corank/search.cuh>

#include <cstdint>

// dispatch's arguments for the lower bounds of keys K into int64 positions (search.inl's
// search_pass<false>: the queries as A, the haystack as B).
#define CORANK_CLI_LOWER_BOUND_ARGS(K)                                                                     \
  ::corank::detail::merge_args<const K*, const K*, ::corank::detail::unused, ::corank::detail::b_positions, \
                               ::corank::detail::discard, ::corank::detail::unused, std::int64_t*>
#define CORANK_CLI_LOWER_BOUND(K, COMP)                                                                         \
  template cudaError_t corank::detail::dispatch<::corank::ops::sorted_search_op, CORANK_CLI_LOWER_BOUND_ARGS(K), \
                                                COMP>(void*, std::size_t&, const ::corank::ops::sorted_search_op&, \
                                                      const CORANK_CLI_LOWER_BOUND_ARGS(K)&, ::corank::index_t*,   \
                                                      COMP, cudaStream_t, ::corank::strategy);
// The device key types (gpu_key_types) with their order (key_order).
#define CORANK_CLI_LOWER_BOUNDS(X)         \
  X(std::int32_t, ::corank::less)         \
  X(std::int64_t, ::corank::less)         \
  X(float, ::corank::nan_last_less)       \
  X(double, ::corank::nan_last_less)

#ifndef CORANK_CLI_INSTANTIATING_LOWER_BOUNDS
#define CORANK_CLI_EXTERN_LOWER_BOUND(K, COMP) extern CORANK_CLI_LOWER_BOUND(K, COMP)
CORANK_CLI_LOWER_BOUNDS(CORANK_CLI_EXTERN_LOWER_BOUND)
#undef CORANK_CLI_EXTERN_LOWER_BOUND
#endif
