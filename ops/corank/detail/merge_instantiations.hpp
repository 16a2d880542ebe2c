#pragma once
// The merges that src/ compiles once, for raw pointers and corank::less: callers with
// these types link the library's kernels instead of compiling them again. Included by every
// header whose forms run merge_op through the dispatcher with these arguments (merge.cuh,
// streamed.cuh, nccl.cuh).

#include <corank/comparators.hpp>
#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/ops/merge.hpp>

#include <cstdint>

#define CORANK_MERGE_KEY_TYPES(X) \
  X(std::int8_t) X(std::uint8_t) X(std::int16_t) X(std::uint16_t) X(std::int32_t) \
  X(std::uint32_t) X(std::int64_t) X(std::uint64_t) X(float) X(double)

// Pairs: every key type with 64-bit values, and the common same-width pairs.
#define CORANK_MERGE_PAIR_TYPES(X)                                                        \
  X(std::int8_t, std::uint64_t) X(std::int16_t, std::uint64_t) X(std::int32_t, std::uint64_t) \
  X(std::uint32_t, std::uint64_t) X(std::int64_t, std::uint64_t) X(std::uint64_t, std::uint64_t) \
  X(float, std::uint64_t) X(double, std::uint64_t) X(std::int32_t, std::int32_t)         \
  X(std::uint32_t, std::uint32_t) X(std::int64_t, std::int64_t) X(float, std::int32_t)

#define CORANK_MERGE_KEYS_ARGS(K) \
  ::corank::detail::merge_args<const K*, const K*, ::corank::detail::unused, \
                               ::corank::detail::unused, K*, ::corank::detail::unused>
#define CORANK_MERGE_PAIRS_ARGS(K, V) \
  ::corank::detail::merge_args<const K*, const K*, const V*, const V*, K*, V*>

#define CORANK_MERGE_DISPATCH(ARGS)                                                            \
  template cudaError_t corank::detail::dispatch<::corank::ops::merge_op, ARGS, ::corank::less>( \
      void*, std::size_t&, const ::corank::ops::merge_op&, const ARGS&, ::corank::index_t*,     \
      ::corank::less, cudaStream_t, ::corank::strategy);

#define CORANK_EXTERN_MERGE_KEYS(K) extern CORANK_MERGE_DISPATCH(CORANK_MERGE_KEYS_ARGS(K))
#define CORANK_EXTERN_MERGE_PAIRS(K, V) extern CORANK_MERGE_DISPATCH(CORANK_MERGE_PAIRS_ARGS(K, V))

#ifndef CORANK_INSTANTIATING
CORANK_MERGE_KEY_TYPES(CORANK_EXTERN_MERGE_KEYS)
CORANK_MERGE_PAIR_TYPES(CORANK_EXTERN_MERGE_PAIRS)
#endif
