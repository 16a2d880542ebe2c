#pragma once
// Bodies of check_sorted.cuh.

#include <corank/detail/dispatch/find_unsorted_dispatch.cuh>
#include <corank/detail/dispatch/temporary_arena.hpp>
#include <corank/detail/forms/iterators.hpp>
#include <corank/detail/forms/two_phase.hpp>

#include <string>

namespace corank {
namespace device {

template <class Keys, class Compare>
cudaError_t find_unsorted(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys,
                          index_t size, index_t* first_unsorted, Compare comp, cudaStream_t stream) {
  // No scratch: the storage is the arena's least, 1 byte, so that a null pointer means "query".
  char* base = nullptr;
  if (const cudaError_t e =
          detail::caller_storage{temp_storage, temp_storage_bytes}.provide(detail::temporary_arena{}.bytes(), base);
      e != cudaSuccess || base == nullptr)
    return e;
  if (size < 0 || first_unsorted == nullptr) return cudaErrorInvalidValue;
  auto raw = detail::unwrap_input(keys);
  if (size > 0 && detail::is_null(raw)) return cudaErrorInvalidValue;
  return detail::launch_find_unsorted(raw, size, first_unsorted, comp, stream);
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
