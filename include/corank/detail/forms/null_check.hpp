#pragma once
// The null-pointer test shared by the CPU and GPU argument checks; plain C++, so the CPU
// backend needs no CUDA header. A null raw pointer with a nonzero size is rejected.

#include <type_traits>

namespace corank::detail {

template <class Iterator>
bool is_null(const Iterator& it) {
  if constexpr (std::is_pointer_v<Iterator>) {
    return it == nullptr;
  } else {
    return false;
  }
}

}  // namespace corank::detail
