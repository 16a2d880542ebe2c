#pragma once
// Comparators usable on host and device. Any callable `bool(const T&, const T&)` that is
// a strict weak order works as well; these are the ones corank ships.

#include <corank/config.hpp>

namespace corank {

// `a < b`, for any pair of types that have it. The default comparator everywhere.
struct less {
  CORANK_EXEC_CHECK_DISABLE
  template <class T, class U>
  CORANK_HOST_DEVICE constexpr bool operator()(const T& a, const U& b) const {
    return a < b;
  }
};

// A strict weak order on floating-point keys that holds NaN: every NaN is equivalent to
// every other NaN and greater than every number, so a column with NaNs sorted by it
// (NaNs last, as NumPy and Arrow sort) merges correctly. With plain `<` such a column is
// not sorted and the result is undefined.
struct nan_last_less {
  CORANK_EXEC_CHECK_DISABLE
  template <class T>
  CORANK_HOST_DEVICE constexpr bool operator()(const T& a, const T& b) const {
    // x != x is true exactly for NaN, and needs no <cmath> on the device.
    const bool a_nan = a != a;
    const bool b_nan = b != b;
    return a_nan ? false : (b_nan ? true : a < b);
  }
};

}  // namespace corank
