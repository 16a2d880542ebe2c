#pragma once
// Stable merge of two sorted sequences, keys only or keys with values, on the GPU.
//
//   corank::merge / corank::merge_by_key                convenience: iterator ranges like
//       std:: and Thrust; allocates what it needs; asynchronous on `stream`; throws
//       corank::cuda_error, or corank::out_of_memory (a std::bad_alloc).
//   corank::device::merge / corank::device::merge_by_key   two-phase, like CUB: call with
//       temp_storage == nullptr to get temp_storage_bytes, then again to run. Returns
//       cudaError_t; never allocates, never synchronizes; capturable in a CUDA graph.
//
// The result is stable: among equivalent keys all of A's come first, each side in its
// input order. Iterators are any random-access device iterators (raw pointers,
// thrust::device_vector iterators, counting and transform iterators); sizes are 64-bit.
// Inputs must be sorted by `comp` (see check_sorted.cuh to verify); output must not
// overlap the inputs.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>
#include <corank/strategy.hpp>
#include <corank/ops/merge.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace corank {
namespace device {

template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
cudaError_t merge(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                  KeysB keys_b, index_t size_b, KeysOut keys_out, Compare comp = {},
                  cudaStream_t stream = nullptr, strategy kind = default_strategy);

template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
          class Compare = corank::less>
cudaError_t merge_by_key(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                         ValuesA values_a, index_t size_a, KeysB keys_b, ValuesB values_b,
                         index_t size_b, KeysOut keys_out, ValuesOut values_out, Compare comp = {},
                         cudaStream_t stream = nullptr, strategy kind = default_strategy);

}  // namespace device

// Returns the end of the output, out + (a_last - a_first) + (b_last - b_first).
template <class KeysA, class KeysB, class KeysOut, class Compare = corank::less>
KeysOut merge(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
              Compare comp = {}, cudaStream_t stream = nullptr, strategy kind = default_strategy);

// Returns the ends of the key and value outputs.
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_by_key(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp = {},
                                           cudaStream_t stream = nullptr,
                                           strategy kind = default_strategy);

}  // namespace corank

#include <corank/detail/merge.inl>
