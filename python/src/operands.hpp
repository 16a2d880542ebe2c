#pragma once
// One call of the Python package: an operation on raw pointers whose element types are known
// only at run time (the arrays' dtypes), for a backend to run. Plain C++: the bindings
// (module.cpp, g++), the CPU backend (host_operations.cpp) and the GPU one (gpu_*.cu) share it.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/strategy.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace corank::python {

// The dtypes the package takes, numbered as corank/_arrays.py numbers them.
enum class dtype : int { int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64 };

inline std::size_t dtype_size(dtype type) {
  switch (type) {
    case dtype::int8:
    case dtype::uint8: return 1;
    case dtype::int16:
    case dtype::uint16: return 2;
    case dtype::int32:
    case dtype::uint32:
    case dtype::float32: return 4;
    default: return 8;
  }
}

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) for the C++ type of `type`.
template <class F>
decltype(auto) visit_dtype(dtype type, F&& f) {
  switch (type) {
    case dtype::int8: return f(type_tag<std::int8_t>{});
    case dtype::uint8: return f(type_tag<std::uint8_t>{});
    case dtype::int16: return f(type_tag<std::int16_t>{});
    case dtype::uint16: return f(type_tag<std::uint16_t>{});
    case dtype::int32: return f(type_tag<std::int32_t>{});
    case dtype::uint32: return f(type_tag<std::uint32_t>{});
    case dtype::int64: return f(type_tag<std::int64_t>{});
    case dtype::uint64: return f(type_tag<std::uint64_t>{});
    case dtype::float32: return f(type_tag<float>{});
    case dtype::float64: break;
  }
  return f(type_tag<double>{});
}

// Values are only moved, never compared: the backends move them as unsigned payloads of
// their width, 4 or 8 bytes (narrower values are widened to 4 on the way in and back out).
template <class F>
decltype(auto) visit_payload(std::size_t bytes, F&& f) {
  if (bytes == 4) return f(type_tag<std::uint32_t>{});
  return f(type_tag<std::uint64_t>{});
}

// Multiset operations as in the C++ library; the *_distinct ones are numpy's union1d,
// intersect1d, setdiff1d and setxor1d: every key written once (distinct_ops.hpp); the
// searches (search.cuh) take the queries as A and the haystack as B and write one int64
// position (lower_bound, upper_bound) or one bool (contains, not_contains) per query to
// keys_out; the join (join.cuh) writes its pairs' int64 positions in A to keys_out and in B
// to values_out, `pairs` of them (what its count form gave).
enum class operation : int {
  merge,
  set_union,
  set_intersection,
  set_difference,
  set_symmetric_difference,
  union_distinct,
  intersection_distinct,
  difference_distinct,
  symmetric_difference_distinct,
  lower_bound,
  upper_bound,
  contains,
  not_contains,
  join
};

inline bool is_search(operation op) {
  return op == operation::lower_bound || op == operation::upper_bound || op == operation::contains ||
         op == operation::not_contains;
}

// The most elements the operation writes for inputs of m and n: the size its outputs need
// (the join: its pairs, counted first).
inline index_t output_bound(operation op, index_t m, index_t n, index_t pairs = 0) {
  switch (op) {
    case operation::join: return pairs;
    case operation::set_intersection:
    case operation::intersection_distinct: return m < n ? m : n;
    case operation::set_difference:
    case operation::difference_distinct:
    case operation::lower_bound:
    case operation::upper_bound:
    case operation::contains:
    case operation::not_contains: return m;
    default: return m + n;
  }
}

struct operands {
  operation op = operation::merge;
  dtype key_type = dtype::int32;
  std::size_t a_value_bytes = 0;  // 0: keys only; else the width of A's values
  std::size_t b_value_bytes = 0;  // B's; differs from A's only in the paired intersection
  const void* a = nullptr;
  index_t size_a = 0;
  const void* b = nullptr;
  index_t size_b = 0;
  const void* a_values = nullptr;
  const void* b_values = nullptr;
  void* keys_out = nullptr;      // output_bound elements (searches: int64 positions or bools)
  void* values_out = nullptr;    // as many values, where there are values
  void* b_values_out = nullptr;  // non-null: the paired intersection, B's matched values here
  bool count_only = false;       // the size only; no outputs
  index_t* count_out = nullptr;  // GPU: the size goes to this device word and nothing waits
  strategy kind = strategy::automatic;
  bool check_sorted = false;  // throws corank::unsorted_input for an unsorted input
  index_t pairs = 0;          // the join: how many pairs its outputs hold
  // What the join's count keeps for its pairs, or null: its count fills it, and its pairs
  // come from it without counting again. On CPU threads each left key's lower bound and the
  // size_a + 1 offsets of the pairs (index_t each; host/join.hpp), on the GPU the bound
  // pass's results (join.cuh's sorted_join_count_and_keep; gpu_join_kept_bytes of them).
  void* join_kept = nullptr;

  bool paired() const { return b_values_out != nullptr; }
};

// Whether `size` is one o's operation can have, 0 to output_bound. Only unsorted inputs (or
// a comparator that is not a strict weak order) give another, and it must never size a copy:
// the backends throw corank::unsorted_input instead.
inline bool possible_size(const operands& o, index_t size) {
  if (o.op == operation::join) return size >= 0 && (o.count_only || size == o.pairs);
  return size >= 0 && size <= output_bound(o.op, o.size_a, o.size_b);
}

// The order of keys: floats NaN last, as NumPy sorts them (corank::nan_last_less).
template <class Key>
using key_order = std::conditional_t<std::is_floating_point_v<Key>, corank::nan_last_less, corank::less>;

// Runs o on CPU threads (0: every hardware thread); returns the output size.
index_t run_on_host(const operands& o, unsigned threads);

// The first i in [1, n) with keys[i] before keys[i - 1] in key_order, or n (corank::host::find_unsorted).
index_t find_unsorted_on_host(dtype key_type, const void* keys, index_t n);

}  // namespace corank::python
