#pragma once
// Running any merge-path op (op.hpp) on the GPU: the set operations are these runners
// applied to the ops in ops/, and a user's own op runs the same way, on the same kernels:
//
//   corank::by_key_operation<sparse_add_op>{}(a, a_end, b, b_end, a_vals, b_vals, out, out_vals);
//
// Each runner is a function object holding the op (so ops may carry state), in two forms:
//   corank::          convenience: iterator ranges, allocates, throws corank::cuda_error /
//                     corank::out_of_memory; returns the output end(s), so it waits for
//                     the output size (synchronizes `stream`).
//   corank::device::  two-phase, like CUB: temp_storage == nullptr queries the bytes; the
//                     output size goes to *count_out in device memory; returns cudaError_t;
//                     never allocates, never synchronizes; capturable in a CUDA graph.
// Runners: keys_operation (keys), by_key_operation (keys and values), count_operation
// (the output size only), paired_by_key_operation (values of A and of the matched B).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>
#include <corank/strategy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <tuple>
#include <utility>

namespace corank {
namespace device {

template <class Op>
struct keys_operation {
  Op op{};
  template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                         KeysB keys_b, index_t size_b, KeysOut keys_out, index_t* count_out,
                         Compare comp = {}, cudaStream_t stream = nullptr,
                         strategy kind = default_strategy) const;
};

template <class Op>
struct by_key_operation {
  Op op{};
  template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
            class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, ValuesA values_a,
                         index_t size_a, KeysB keys_b, ValuesB values_b, index_t size_b, KeysOut keys_out,
                         ValuesOut values_out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

template <class Op>
struct count_operation {
  Op op{};
  template <class KeysA, class KeysB, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                         KeysB keys_b, index_t size_b, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

template <class Op>
struct paired_by_key_operation {
  Op op{};
  template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
            class BValuesOut, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, ValuesA values_a,
                         index_t size_a, KeysB keys_b, ValuesB values_b, index_t size_b, KeysOut keys_out,
                         ValuesOut values_out, BValuesOut b_values_out, index_t* count_out,
                         Compare comp = {}, cudaStream_t stream = nullptr,
                         strategy kind = default_strategy) const;
};

}  // namespace device

template <class Op>
struct keys_operation {
  Op op{};
  const char* name = "corank::keys_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
  KeysOut operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
                     Compare comp = {}, cudaStream_t stream = nullptr,
                     strategy kind = default_strategy) const;
};

template <class Op>
struct by_key_operation {
  Op op{};
  const char* name = "corank::by_key_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
            class Compare = corank::less>
  std::pair<KeysOut, ValuesOut> operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp = {},
                                           cudaStream_t stream = nullptr,
                                           strategy kind = default_strategy) const;
};

template <class Op>
struct count_operation {
  Op op{};
  const char* name = "corank::count_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class Compare = corank::less>
  index_t operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp = {},
                     cudaStream_t stream = nullptr, strategy kind = default_strategy) const;
};

template <class Op>
struct paired_by_key_operation {
  Op op{};
  const char* name = "corank::paired_by_key_operation";  // says who failed, in errors
  template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
            class BValuesOut, class Compare = corank::less>
  std::tuple<KeysOut, ValuesOut, BValuesOut> operator()(KeysA a_first, KeysA a_last, KeysB b_first,
                                                        KeysB b_last, ValuesA a_values, ValuesB b_values,
                                                        KeysOut keys_out, ValuesOut values_out,
                                                        BValuesOut b_values_out, Compare comp = {},
                                                        cudaStream_t stream = nullptr,
                                                        strategy kind = default_strategy) const;
};

// So that `corank::by_key_operation{my_op{3}}` deduces the op.
template <class Op> keys_operation(Op) -> keys_operation<Op>;
template <class Op> by_key_operation(Op) -> by_key_operation<Op>;
template <class Op> count_operation(Op) -> count_operation<Op>;
template <class Op> paired_by_key_operation(Op) -> paired_by_key_operation<Op>;

}  // namespace corank

#include <corank/detail/operation.inl>
