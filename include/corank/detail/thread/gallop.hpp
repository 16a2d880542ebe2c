#pragma once
// The end of a run of equivalent elements, found by one thread: a galloping search, whose
// reads grow with the log of the run rather than of the array (the join's runs are short).

#include <corank/config.hpp>

namespace corank::detail {

// The first position in [at, size) whose element is after `key`, in `b` sorted under `comp`
// where no element before `at` is after key: doubles the step while the element at its end is
// not after key, then bisects the last step. `size` if there is none.
template <class Index, class In, class Key, class Compare>
CORANK_HOST_DEVICE Index gallop_past(In b, Index at, Index size, const Key& key, Compare&& comp) {
  Index step = 1;
  while (step <= size - at && !comp(key, b[at + step - 1])) {
    at += step;
    step *= 2;
  }
  Index last = step <= size - at ? at + step - 1 : size;
  while (at < last) {
    const Index mid = at + (last - at) / 2;
    if (comp(key, b[mid])) {
      last = mid;
    } else {
      at = mid + 1;
    }
  }
  return at;
}

}  // namespace corank::detail
