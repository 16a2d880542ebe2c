#pragma once
// The operations that several GPU test programs run with the same types, compiled once
// (shared_kernels_<key>.cu, the library corank_test_kernels) rather than in every program
// that runs them: declared extern here, as the library's merges are
// (ops/corank/detail/merge_instantiations.hpp). A test that includes this header and links
// corank_test_kernels links these kernels; any other type or form compiles in the test as
// before. Raw pointers, as the tests pass them (device iterators become raw pointers).
// The set operations of int32 and int64 keys under corank::less (keys, count, by key with
// int32 or uint64 values) are the command's too: src/set_kernels/set_kernels.hpp declares
// them, corank_set_kernels holds them, and corank_test_kernels links it.

#include <corank/comparators.hpp>
#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/ops/merge.hpp>
#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

#include "set_kernels/set_kernels.hpp"
#include "support/keys.hpp"

#include <cstdint>

namespace corank::test::shared {

using corank::detail::unused;
template <class K>
using keys_args = corank::detail::merge_args<const K*, const K*, unused, unused, K*, unused>;
template <class K>
using count_args = corank::detail::merge_args<const K*, const K*, unused, unused, unused, unused>;
template <class K, class V>
using by_key_args = corank::detail::merge_args<const K*, const K*, const V*, const V*, K*, V*>;
template <class K, class V>
using paired_args = corank::detail::merge_args<const K*, const K*, const V*, const V*, K*, V*, V*>;

}  // namespace corank::test::shared

// X(op, comparator, argument block): the dispatcher's instantiation for each.
#define CORANK_TEST_SET_OPERATIONS(X, COMP, ...)             \
  X(::corank::ops::set_union_op, COMP, __VA_ARGS__)          \
  X(::corank::ops::set_intersection_op, COMP, __VA_ARGS__)   \
  X(::corank::ops::set_difference_op, COMP, __VA_ARGS__)     \
  X(::corank::ops::set_symmetric_difference_op, COMP, __VA_ARGS__)

// Per key type, one source file each (so that they compile in parallel). The merges of int32
// and int64 keys and of int64 keys with uint64 values are the library's; the set operations
// of int32 and int64 keys (keys, count, by key with int32 and uint64 values) and the by-key
// merge of int64 keys with int32 values are corank_set_kernels' (set_kernels.hpp), shared
// with the command. Left here of those two key types: the paired intersections, one source.
#define CORANK_TEST_KERNELS_INT32_INT64(X)                                                                  \
  X(::corank::ops::set_intersection_op, ::corank::less, ::corank::test::shared::paired_args<std::int32_t, std::int32_t>) \
  X(::corank::ops::set_intersection_op, ::corank::less, ::corank::test::shared::paired_args<std::int32_t, std::uint64_t>) \
  X(::corank::ops::set_intersection_op, ::corank::less, ::corank::test::shared::paired_args<std::int64_t, std::uint64_t>)
#define CORANK_TEST_KERNELS_UINT64(X)                                                                       \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::less, ::corank::test::shared::keys_args<std::uint64_t>)         \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::less, ::corank::test::shared::count_args<std::uint64_t>)        \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::less, ::corank::test::shared::by_key_args<std::uint64_t, std::uint64_t>) \
  X(::corank::ops::set_intersection_op, ::corank::less, ::corank::test::shared::paired_args<std::uint64_t, std::uint64_t>)
#define CORANK_TEST_KERNELS_OPAQUE(X)                                                                       \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::test::opaque_less, ::corank::test::shared::keys_args<::corank::test::opaque_key>) \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::test::opaque_less, ::corank::test::shared::count_args<::corank::test::opaque_key>) \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::test::opaque_less,                                               \
                             ::corank::test::shared::by_key_args<::corank::test::opaque_key, std::int32_t>) \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::test::opaque_less,                                               \
                             ::corank::test::shared::by_key_args<::corank::test::opaque_key, std::uint64_t>) \
  X(::corank::ops::set_intersection_op, ::corank::test::opaque_less,                                       \
    ::corank::test::shared::paired_args<::corank::test::opaque_key, std::uint64_t>)                         \
  X(::corank::ops::merge_op, ::corank::test::opaque_less, ::corank::test::shared::keys_args<::corank::test::opaque_key>) \
  X(::corank::ops::merge_op, ::corank::test::opaque_less,                                                  \
    ::corank::test::shared::by_key_args<::corank::test::opaque_key, std::int32_t>)

// The set-operation matrix's other key types (set_ops_typed_test.cu: keys, count, by key and
// paired with uint64 values), one source each, so that they compile in parallel rather than
// in one translation unit.
#define CORANK_TEST_KERNELS_SET_MATRIX(X, K)                                                           \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::less, ::corank::test::shared::keys_args<K>)                 \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::less, ::corank::test::shared::count_args<K>)                \
  CORANK_TEST_SET_OPERATIONS(X, ::corank::less, ::corank::test::shared::by_key_args<K, std::uint64_t>) \
  X(::corank::ops::set_intersection_op, ::corank::less, ::corank::test::shared::paired_args<K, std::uint64_t>)
#define CORANK_TEST_KERNELS_INT8(X) CORANK_TEST_KERNELS_SET_MATRIX(X, std::int8_t)
#define CORANK_TEST_KERNELS_INT16(X) CORANK_TEST_KERNELS_SET_MATRIX(X, std::int16_t)
#define CORANK_TEST_KERNELS_UINT32(X) CORANK_TEST_KERNELS_SET_MATRIX(X, std::uint32_t)
#define CORANK_TEST_KERNELS_FLOAT(X) CORANK_TEST_KERNELS_SET_MATRIX(X, float)
#define CORANK_TEST_KERNELS_DOUBLE(X) CORANK_TEST_KERNELS_SET_MATRIX(X, double)

#define CORANK_TEST_DISPATCH(OP, COMP, ...)                                                          \
  template cudaError_t corank::detail::dispatch<OP, __VA_ARGS__, COMP>(                              \
      void*, std::size_t&, const OP&, const __VA_ARGS__&, ::corank::index_t*, COMP, cudaStream_t, \
      ::corank::strategy);

#ifndef CORANK_TEST_INSTANTIATING
#define CORANK_TEST_EXTERN_DISPATCH(OP, COMP, ...) extern CORANK_TEST_DISPATCH(OP, COMP, __VA_ARGS__)
CORANK_TEST_KERNELS_INT32_INT64(CORANK_TEST_EXTERN_DISPATCH)
CORANK_TEST_KERNELS_UINT64(CORANK_TEST_EXTERN_DISPATCH)
CORANK_TEST_KERNELS_OPAQUE(CORANK_TEST_EXTERN_DISPATCH)
CORANK_TEST_KERNELS_INT8(CORANK_TEST_EXTERN_DISPATCH)
CORANK_TEST_KERNELS_INT16(CORANK_TEST_EXTERN_DISPATCH)
CORANK_TEST_KERNELS_UINT32(CORANK_TEST_EXTERN_DISPATCH)
CORANK_TEST_KERNELS_FLOAT(CORANK_TEST_EXTERN_DISPATCH)
CORANK_TEST_KERNELS_DOUBLE(CORANK_TEST_EXTERN_DISPATCH)
#undef CORANK_TEST_EXTERN_DISPATCH
#endif
