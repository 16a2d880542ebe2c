#pragma once
// What the search operations (search.cuh, host/search.hpp) share: the passes each form makes
// over the queries (A) and the haystack (B), as the op (ops/sorted_search.hpp), the comparator
// and what is computed beside each query (detail/forms/b_step_values.hpp); the argument checks; the
// output through which the counts' second pass subtracts. Plain C++.

#include <corank/config.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/ops/sorted_search.hpp>

#include <limits>
#include <type_traits>

namespace corank::detail {

// Describes what is wrong with a search's arguments (n haystack elements, m queries), or
// returns nullptr.
template <class Haystack, class Queries, class Out>
const char* search_argument_error(const Haystack& haystack, index_t n, const Queries& queries, index_t m,
                                  const Out& out) {
  if (n < 0 || m < 0) return "a size is negative";
  if (n > std::numeric_limits<index_t>::max() - m) return "the sizes' sum does not fit in 64 bits";
  if (n > 0 && is_null(haystack)) return "the haystack is a null pointer with a nonzero size";
  if (m > 0 && is_null(queries)) return "the queries are a null pointer with a nonzero size";
  if (m > 0 && is_null(out)) return "the output is a null pointer with a nonzero size";
  return nullptr;
}

// With no queries the haystack is not walked: a pass gets it empty (a negative size stays,
// for the checks).
inline index_t searched_size(index_t n, index_t m) { return m == 0 && n > 0 ? 0 : n; }

// A pass's comparator: ties to the queries (lower bounds, matches) or to the haystack
// (upper bounds).
template <bool Upper, class Compare>
CORANK_HOST_DEVICE auto search_compare(Compare comp) {
  if constexpr (Upper) {
    return ops::ties_to_b<Compare>{comp};
  } else {
    return comp;
  }
}

// An output whose element k, assigned x, becomes x minus what it held: the counts' second
// pass (lower bounds) turns the first's upper bounds into counts. Every element is assigned
// once; host and device.
template <class Out>
struct subtract_from {
  struct element {
    Out at;
    CORANK_EXEC_CHECK_DISABLE
    template <class T>
    CORANK_HOST_DEVICE const element& operator=(const T& lower) const {
      using value_type = std::remove_cv_t<std::remove_reference_t<decltype(*at)>>;
      *at = value_type(*at - lower);
      return *this;
    }
  };

  Out out;
  CORANK_HOST_DEVICE element operator[](index_t k) const { return {out + k}; }
  CORANK_HOST_DEVICE subtract_from operator+(index_t k) const { return {out + k}; }
};

}  // namespace corank::detail
