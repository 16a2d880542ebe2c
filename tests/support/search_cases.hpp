#pragma once
// The search operations' references (std::lower_bound and std::upper_bound per query) and the
// check of one result, shared by the CPU and GPU tests. Queries are A and the haystack B of
// support/inputs.hpp's distributions. Plain C++.

#include "support/inputs.hpp"

#include <corank/config.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace corank::test {

enum class search_form : unsigned char { lower_bound, upper_bound, equal_count, contains, not_contains };

inline constexpr search_form all_search_forms[] = {search_form::lower_bound, search_form::upper_bound,
                                                   search_form::equal_count, search_form::contains,
                                                   search_form::not_contains};

inline const char* to_string(search_form f) {
  switch (f) {
    case search_form::lower_bound: return "sorted_lower_bound";
    case search_form::upper_bound: return "sorted_upper_bound";
    case search_form::equal_count: return "sorted_equal_count";
    case search_form::contains: return "sorted_contains";
    case search_form::not_contains: return "sorted_not_contains";
  }
  return "?";
}

inline bool writes_flags(search_form f) { return f == search_form::contains || f == search_form::not_contains; }

// Each query's answer by binary searches: positions and counts, or flags as 0 and 1.
template <class K, class Compare>
std::vector<index_t> reference_search(search_form f, const std::vector<K>& haystack, const std::vector<K>& queries,
                                      Compare comp) {
  std::vector<index_t> out(queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const index_t lower = std::lower_bound(haystack.begin(), haystack.end(), queries[i], comp) - haystack.begin();
    const index_t upper = std::upper_bound(haystack.begin(), haystack.end(), queries[i], comp) - haystack.begin();
    switch (f) {
      case search_form::lower_bound: out[i] = lower; break;
      case search_form::upper_bound: out[i] = upper; break;
      case search_form::equal_count: out[i] = upper - lower; break;
      case search_form::contains: out[i] = upper > lower; break;
      case search_form::not_contains: out[i] = upper == lower; break;
    }
  }
  return out;
}

// A haystack of h and queries of q doubles from a few hundred values, sorted, then `nans_h`
// and `nans_q` NaNs at their ends (NaNs last: sorted under nan_last_less).
inline sorted_inputs<double> inputs_with_nans(std::size_t h, std::size_t q, std::size_t nans_h, std::size_t nans_q,
                                              std::mt19937_64& rng) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  sorted_inputs<double> in;  // a: the queries, b: the haystack
  in.b.resize(h);
  in.a.resize(q);
  for (double& x : in.b) x = double(rng() % 1000);
  for (double& x : in.a) x = double(rng() % 1100) - 50.0;
  std::sort(in.b.begin(), in.b.end());
  std::sort(in.a.begin(), in.a.end());
  in.b.insert(in.b.end(), nans_h, nan);
  in.a.insert(in.a.end(), nans_q, nan);
  return in;
}

// Whether `out` (guard_elements of poison, the m answers, guard_elements of poison) holds
// exactly `expected`, as T; the first difference is described.
template <class T>
::testing::AssertionResult search_output_is(const std::vector<index_t>& expected, const std::vector<T>& out) {
  const std::size_t m = expected.size();
  if (out.size() != m + 2 * guard_elements) return ::testing::AssertionFailure() << "the output has the wrong size";
  for (std::size_t k = 0; k < out.size(); ++k) {
    const bool guard = k < guard_elements || k >= guard_elements + m;
    if (guard) {
      if (!same_bits(out[k], poison_value<T>())) {
        return ::testing::AssertionFailure() << "wrote outside the output, at " << (long long)(k) - (long long)(guard_elements);
      }
    } else if (out[k] != T(expected[k - guard_elements])) {
      return ::testing::AssertionFailure() << "query " << (k - guard_elements) << " of " << m << ": got "
                                           << (long long)(out[k]) << ", expected " << (long long)(expected[k - guard_elements]);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace corank::test
