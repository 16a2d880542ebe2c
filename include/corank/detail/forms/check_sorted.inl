#pragma once
// Bodies of check_sorted.cuh.

#include <corank/detail/dispatch/temporary_arena.hpp>
#include <corank/detail/forms/iterators.hpp>
#include <corank/detail/forms/two_phase.hpp>

#include <string>

namespace corank {
namespace detail {

// A template, so that several translation units can include this header.
template <class Index>
__global__ void set_index_kernel(Index* target, Index value) {
  *target = value;
}

template <class Keys, class Compare>
__global__ void __launch_bounds__(256)
    find_unsorted_kernel(Keys keys, index_t size, index_t* first_unsorted, Compare comp) {
  // Each thread keeps its own first break; one atomic per thread that found one.
  index_t first = size;
  const index_t stride = index_t(gridDim.x) * blockDim.x;
  for (index_t i = 1 + index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size; i += stride) {
    if (comp(keys[i], keys[i - 1])) {
      first = i;
      break;
    }
  }
  if (first < size) {
    atomicMin(reinterpret_cast<unsigned long long*>(first_unsorted),
              static_cast<unsigned long long>(first));
  }
}

}  // namespace detail

namespace device {

template <class Keys, class Compare>
cudaError_t find_unsorted(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys,
                          index_t size, index_t* first_unsorted, Compare comp, cudaStream_t stream) {
  constexpr std::size_t needed = 1;  // no scratch, but a null pointer must mean "query"
  if (temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (temp_storage_bytes < needed || !detail::temporary_aligned(temp_storage) || size < 0 || first_unsorted == nullptr)
    return cudaErrorInvalidValue;
  auto raw = detail::unwrap_input(keys);
  if (size > 0 && detail::is_null(raw)) return cudaErrorInvalidValue;
  detail::set_index_kernel<<<1, 1, 0, stream>>>(first_unsorted, size);
  if (size > 1) {
    constexpr int threads = 256;
    const index_t wanted = (size + threads - 1) / threads;
    const unsigned blocks = static_cast<unsigned>(wanted < 65536 ? wanted : 65536);
    detail::find_unsorted_kernel<<<blocks, threads, 0, stream>>>(raw, size, first_unsorted, comp);
  }
  return cudaPeekAtLastError();
}

}  // namespace device

template <class Keys, class Compare>
index_t find_unsorted(Keys first, Keys last, Compare comp, cudaStream_t stream) {
  const index_t size = last - first;
  return detail::run_two_phase_for_result(
      "corank::find_unsorted", stream, [&](void* temp, std::size_t& bytes, index_t* result) {
        return device::find_unsorted(temp, bytes, first, size, result, comp, stream);
      });
}

template <class KeysA, class KeysB, class Compare>
void check_sorted(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp,
                  cudaStream_t stream) {
  if (const index_t i = find_unsorted(a_first, a_last, comp, stream); i != index_t(a_last - a_first)) {
    throw unsorted_input("corank::check_sorted", 'A', i);
  }
  if (const index_t i = find_unsorted(b_first, b_last, comp, stream); i != index_t(b_last - b_first)) {
    throw unsorted_input("corank::check_sorted", 'B', i);
  }
}

}  // namespace corank
