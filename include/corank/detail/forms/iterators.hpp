#pragma once
// Iterator plumbing for the dispatch layer: contiguous device iterators (thrust::device_ptr,
// device_vector iterators) become raw pointers, so kernels read plain memory, and a null
// raw pointer with a nonzero size can be rejected before anything runs.

#include <corank/detail/forms/null_check.hpp>

#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <type_traits>

namespace corank::detail {

template <class Iterator>
auto unwrap(Iterator it) {
  return thrust::try_unwrap_contiguous_iterator(it);
}

// Inputs are read only: a T* becomes const T*, which also lets one explicit instantiation
// serve callers that pass mutable and const pointers.
template <class Iterator>
auto unwrap_input(Iterator it) {
  auto raw = unwrap(it);
  if constexpr (std::is_pointer_v<decltype(raw)>) {
    return static_cast<const std::remove_pointer_t<decltype(raw)>*>(raw);
  } else {
    return raw;
  }
}

// Outputs that hold intermediate runs (the sort's and the k-way merge's), so they are read
// back: contiguous memory only.
template <class Iterator>
auto contiguous_output(Iterator it) {
  auto raw = unwrap(it);
  static_assert(std::is_pointer_v<decltype(raw)>,
                "corank's sort writes its outputs as intermediate runs: pass raw device pointers or "
                "thrust::device_ptr / device_vector iterators");
  return raw;
}

}  // namespace corank::detail
