#pragma once
// A binary search by one thread in a short sorted array (the join's offsets staged in shared
// memory): the last position whose element is not after a value. Plain C++.

#include <corank/config.hpp>

namespace corank::detail {

// The last s in [from, last] with sorted[s] <= value, where sorted[from] <= value.
template <class T>
CORANK_HOST_DEVICE int last_not_after(const T* sorted, int from, int last, const T& value) {
  while (from < last) {
    const int mid = from + (last - from + 1) / 2;
    if (sorted[mid] <= value) from = mid; else last = mid - 1;
  }
  return from;
}

}  // namespace corank::detail
