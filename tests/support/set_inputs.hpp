#pragma once
// The set operations' references and the input shapes that stress them. Plain C++.
//
// std::set_union & co. are stable and pick exactly the copies corank's multiset rules
// define (a key a times in A, b times in B): union max(a, b) (A's, then B's last b - a),
// intersection min(a, b) (A's first), difference max(a - b, 0) (A's last), symmetric
// difference |a - b| (the last ones of the side with more). Run on (key, value) pairs with
// a key-only comparator they give the one correct by-key result, values included.

#include "support/inputs.hpp"
#include "support/keys.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace corank::test {

enum class set_op : unsigned char { set_union, set_intersection, set_difference, set_symmetric_difference };

inline constexpr set_op all_set_ops[] = {set_op::set_union, set_op::set_intersection, set_op::set_difference,
                                         set_op::set_symmetric_difference};

inline const char* to_string(set_op op) {
  switch (op) {
    case set_op::set_union: return "set_union";
    case set_op::set_intersection: return "set_intersection";
    case set_op::set_difference: return "set_difference";
    case set_op::set_symmetric_difference: return "set_symmetric_difference";
  }
  return "?";
}

// std::set_<op> of two sorted vectors of anything.
template <class T, class Compare>
std::vector<T> std_set_op(set_op op, const std::vector<T>& a, const std::vector<T>& b, Compare comp) {
  std::vector<T> out;
  out.reserve(a.size() + b.size());
  auto to = std::back_inserter(out);
  switch (op) {
    case set_op::set_union: std::set_union(a.begin(), a.end(), b.begin(), b.end(), to, comp); break;
    case set_op::set_intersection: std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), to, comp); break;
    case set_op::set_difference: std::set_difference(a.begin(), a.end(), b.begin(), b.end(), to, comp); break;
    case set_op::set_symmetric_difference:
      std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), to, comp);
      break;
  }
  return out;
}

template <class K, class V, class Compare>
keys_and_values<K, V> reference_set_op_by_key(set_op op, const std::vector<K>& a, const std::vector<V>& va,
                                              const std::vector<K>& b, const std::vector<V>& vb, Compare comp) {
  std::vector<std::pair<K, V>> pa(a.size()), pb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) pa[i] = {a[i], va[i]};
  for (std::size_t j = 0; j < b.size(); ++j) pb[j] = {b[j], vb[j]};
  const std::vector<std::pair<K, V>> result =
      std_set_op(op, pa, pb, [&](const std::pair<K, V>& x, const std::pair<K, V>& y) { return comp(x.first, y.first); });
  keys_and_values<K, V> out;
  out.keys.resize(result.size());
  out.values.resize(result.size());
  for (std::size_t k = 0; k < result.size(); ++k) {
    out.keys[k] = result[k].first;
    out.values[k] = result[k].second;
  }
  return out;
}

template <class K, class V>
struct paired_result {
  std::vector<K> keys;
  std::vector<V> values;    // A's value of each output
  std::vector<V> b_values;  // the value of the B copy it was matched with
};

// Intersection with the matched B copy's value: the r-th copy of a key in A meets the
// r-th copy in B (written directly, not through std::set_intersection).
template <class K, class V, class Compare>
paired_result<K, V> reference_intersection_paired(const std::vector<K>& a, const std::vector<V>& va,
                                                  const std::vector<K>& b, const std::vector<V>& vb,
                                                  Compare comp) {
  paired_result<K, V> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (comp(a[i], b[j])) {
      ++i;
    } else if (comp(b[j], a[i])) {
      ++j;
    } else {
      // Both at the start of the key's run: pair copy by copy.
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && !comp(a[i], a[i_end])) ++i_end;
      while (j_end < b.size() && !comp(b[j], b[j_end])) ++j_end;
      for (std::size_t r = 0; r < std::min(i_end - i, j_end - j); ++r) {
        out.keys.push_back(a[i + r]);
        out.values.push_back(va[i + r]);
        out.b_values.push_back(vb[j + r]);
      }
      i = i_end;
      j = j_end;
    }
  }
  return out;
}

// The shapes of the set-operation matrix: inputs.hpp's distributions (disjoint halves,
// interleaved evens and odds, all equal with different counts, long shared runs, 10^6:1
// sizes) and those that make many matches.
enum class set_distribution {
  uniform,
  all_equal,    // one key, m copies in A and n in B
  long_runs,    // runs ~3 tiles long shared by A and B, of different lengths
  a_below_b,    // disjoint
  b_below_a,
  interleaved,  // A the evens, B the odds: disjoint, alternating
  a_tiny,
  b_tiny,
  few_keys,     // ~(m + n) / 8 distinct keys: every key several times on both sides, counts differ
  one_key_run,  // a few keys, then one key filling ~80% of A and ~70% of B, then a few more
  identical     // B is a copy of A (only where m == n)
};

inline constexpr set_distribution all_set_distributions[] = {
    set_distribution::uniform,     set_distribution::all_equal, set_distribution::long_runs,
    set_distribution::a_below_b,   set_distribution::b_below_a, set_distribution::interleaved,
    set_distribution::a_tiny,      set_distribution::b_tiny,    set_distribution::few_keys,
    set_distribution::one_key_run, set_distribution::identical};

inline const char* to_string(set_distribution d) {
  switch (d) {
    case set_distribution::uniform: return "uniform";
    case set_distribution::all_equal: return "all_equal";
    case set_distribution::long_runs: return "long_runs";
    case set_distribution::a_below_b: return "a_below_b";
    case set_distribution::b_below_a: return "b_below_a";
    case set_distribution::interleaved: return "interleaved";
    case set_distribution::a_tiny: return "a_tiny";
    case set_distribution::b_tiny: return "b_tiny";
    case set_distribution::few_keys: return "few_keys";
    case set_distribution::one_key_run: return "one_key_run";
    case set_distribution::identical: return "identical";
  }
  return "?";
}

// `identical` needs m == n; every other shape takes any sizes.
inline bool applies(set_distribution d, std::size_t m, std::size_t n) {
  return d != set_distribution::identical || m == n;
}

// n keys drawn from `distinct` consecutive keys starting at from_index(first), sorted.
template <class K>
std::vector<K> sorted_small_range(std::size_t n, std::uint64_t first, std::uint64_t distinct, std::mt19937_64& rng) {
  std::vector<std::uint64_t> u(n);
  for (std::uint64_t& x : u) x = first + rng() % (distinct == 0 ? 1 : distinct);
  std::sort(u.begin(), u.end());
  std::vector<K> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = key_traits<K>::from_index(u[i]);
  return out;
}

// `lead` keys below the run's key, `run` copies of it, `trail` keys above.
template <class K>
std::vector<K> with_one_key_run(std::size_t lead, std::size_t run, std::size_t trail, std::mt19937_64& rng) {
  std::vector<K> out = sorted_small_range<K>(lead, 0, 60, rng);
  out.insert(out.end(), run, key_traits<K>::from_index(100));
  const std::vector<K> after = sorted_small_range<K>(trail, 140, 60, rng);
  out.insert(out.end(), after.begin(), after.end());
  return out;
}

template <class K>
sorted_inputs<K> make_set_inputs(set_distribution d, std::size_t m, std::size_t n, std::size_t tile,
                                 std::mt19937_64& rng) {
  switch (d) {
    case set_distribution::uniform: return make_inputs<K>(distribution::uniform, m, n, tile, rng);
    case set_distribution::all_equal: return make_inputs<K>(distribution::all_equal, m, n, tile, rng);
    case set_distribution::long_runs: return make_inputs<K>(distribution::long_runs, m, n, tile, rng);
    case set_distribution::a_below_b: return make_inputs<K>(distribution::a_below_b, m, n, tile, rng);
    case set_distribution::b_below_a: return make_inputs<K>(distribution::b_below_a, m, n, tile, rng);
    case set_distribution::interleaved: return make_inputs<K>(distribution::interleaved, m, n, tile, rng);
    case set_distribution::a_tiny: return make_inputs<K>(distribution::a_tiny, m, n, tile, rng);
    case set_distribution::b_tiny: return make_inputs<K>(distribution::b_tiny, m, n, tile, rng);
    case set_distribution::few_keys: {
      const std::uint64_t distinct = std::max<std::uint64_t>(1, (m + n) / 8);
      return {sorted_small_range<K>(m, 0, distinct, rng), sorted_small_range<K>(n, 0, distinct, rng)};
    }
    case set_distribution::one_key_run:
      return {with_one_key_run<K>(m / 10, m - m / 10 - m / 10, m / 10, rng),
              with_one_key_run<K>(n / 7, n - n / 7 - n / 7, n / 7, rng)};
    case set_distribution::identical: {
      if (m != n) throw std::logic_error("make_set_inputs: identical inputs need m == n");
      sorted_inputs<K> in;
      in.a = sorted_small_range<K>(m, 0, std::max<std::uint64_t>(1, m / 3), rng);
      in.b = in.a;
      return in;
    }
  }
  throw std::logic_error("make_set_inputs: unknown distribution");
}

inline std::string describe(const char* key, set_distribution d, std::size_t m, std::size_t n) {
  return std::string(key) + " " + to_string(d) + " m=" + std::to_string(m) + " n=" + std::to_string(n);
}

// Checks an output buffer laid out as [guard | capacity | guard]: the first
// expected.size() elements of the capacity equal `expected` bitwise, and every other
// element (both guards and the unused capacity) still holds the poison.
template <class T>
::testing::AssertionResult exact_output(const std::vector<T>& expected, const std::vector<T>& buffer,
                                        std::size_t guard) {
  if (buffer.size() < 2 * guard + expected.size()) {
    return ::testing::AssertionFailure() << "the buffer is too small for " << expected.size() << " outputs";
  }
  const T p = poison_value<T>();
  for (std::size_t g = 0; g < guard; ++g) {
    if (!same_bits(buffer[g], p)) {
      return ::testing::AssertionFailure() << "wrote " << (guard - g) << " elements before the output";
    }
  }
  if (auto equal = equal_bits(expected, buffer, guard); !equal) return equal;
  for (std::size_t k = guard + expected.size(); k < buffer.size(); ++k) {
    if (!same_bits(buffer[k], p)) {
      return ::testing::AssertionFailure() << "wrote past the " << expected.size() << " outputs (element "
                                           << (k - guard) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace corank::test
