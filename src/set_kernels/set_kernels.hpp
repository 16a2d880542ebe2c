#pragma once
// The set operations' kernels that both the `corank` command (src/cli/set_gpu_<op>.cu) and
// the GPU tests (tests/support/shared_kernels.hpp) run with the same types, compiled once in
// the static library corank_set_kernels (set_kernels_<key>.cu) instead of in each: int32 and
// int64 keys, corank::less, raw pointers (device iterators become raw pointers), keys only,
// count, and by key with int32 or uint64 values; and the by-key merge of int64 keys with
// int32 values, which libcorank.a does not hold. Declared extern here, as the library's
// merges are (ops/corank/detail/merge_instantiations.hpp): a source that includes this
// header and links corank_set_kernels links these kernels; any other type compiles where it
// is called, as before. Not installed: the command and the tests only.

#include <corank/comparators.hpp>
#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/ops/merge.hpp>
#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

#include <cstdint>

// The dispatcher's argument blocks of the two-input forms, on raw pointers.
#define CORANK_SET_KERNELS_KEYS_ARGS(K)                                                                     \
  ::corank::detail::merge_args<const K*, const K*, ::corank::detail::unused, ::corank::detail::unused, K*, \
                               ::corank::detail::unused>
#define CORANK_SET_KERNELS_COUNT_ARGS(K)                                                                    \
  ::corank::detail::merge_args<const K*, const K*, ::corank::detail::unused, ::corank::detail::unused,     \
                               ::corank::detail::unused, ::corank::detail::unused>
#define CORANK_SET_KERNELS_BY_KEY_ARGS(K, V) ::corank::detail::merge_args<const K*, const K*, const V*, const V*, K*, V*>

// X(op, argument block) for the four set operations (the block's commas make it the
// variadic arguments).
#define CORANK_SET_KERNELS_OPERATIONS(X, ...)                \
  X(::corank::ops::set_union_op, __VA_ARGS__)                \
  X(::corank::ops::set_intersection_op, __VA_ARGS__)         \
  X(::corank::ops::set_difference_op, __VA_ARGS__)           \
  X(::corank::ops::set_symmetric_difference_op, __VA_ARGS__)

// One source file per key type, so that the two compile in parallel. The command moves
// values of 4 bytes as int32 and of 8 as uint64 (src/cli/set_gpu_ops.hpp's payloads), which
// are the tests' value types too.
#define CORANK_SET_KERNELS_KEY(X, K)                                        \
  CORANK_SET_KERNELS_OPERATIONS(X, CORANK_SET_KERNELS_KEYS_ARGS(K))         \
  CORANK_SET_KERNELS_OPERATIONS(X, CORANK_SET_KERNELS_COUNT_ARGS(K))        \
  CORANK_SET_KERNELS_OPERATIONS(X, CORANK_SET_KERNELS_BY_KEY_ARGS(K, std::int32_t)) \
  CORANK_SET_KERNELS_OPERATIONS(X, CORANK_SET_KERNELS_BY_KEY_ARGS(K, std::uint64_t))
#define CORANK_SET_KERNELS_INT32(X) CORANK_SET_KERNELS_KEY(X, std::int32_t)
#define CORANK_SET_KERNELS_INT64(X)         \
  CORANK_SET_KERNELS_KEY(X, std::int64_t) \
  X(::corank::ops::merge_op, CORANK_SET_KERNELS_BY_KEY_ARGS(std::int64_t, std::int32_t))

#define CORANK_SET_KERNELS_DISPATCH(OP, ...)                                                               \
  template cudaError_t corank::detail::dispatch<OP, __VA_ARGS__, ::corank::less>(                          \
      void*, std::size_t&, const OP&, const __VA_ARGS__&, ::corank::index_t*, ::corank::less, cudaStream_t, \
      ::corank::strategy);

#ifndef CORANK_SET_KERNELS_INSTANTIATING
#define CORANK_SET_KERNELS_EXTERN(OP, ...) extern CORANK_SET_KERNELS_DISPATCH(OP, __VA_ARGS__)
CORANK_SET_KERNELS_INT32(CORANK_SET_KERNELS_EXTERN)
CORANK_SET_KERNELS_INT64(CORANK_SET_KERNELS_EXTERN)
#undef CORANK_SET_KERNELS_EXTERN
#endif
