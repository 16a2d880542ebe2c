#pragma once
// Random sorted inputs in the distributions that stress a merge, the sizes to run them
// at, the reference results (std::merge is stable), and exact comparisons. Plain C++.

#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace corank::test {

// Outputs are filled with this byte before every run (never zeros), and guard elements
// on both sides of the output must still hold it afterwards.
inline constexpr unsigned char poison_byte = 0xA5;
inline constexpr std::size_t guard_elements = 32;

template <class T>
T poison_value() {
  T value;
  std::memset(static_cast<void*>(&value), poison_byte, sizeof(T));
  return value;
}

// What a poisoned buffer holds after `expected` was written `shift` elements into it.
template <class T>
std::vector<T> shifted(const std::vector<T>& expected, std::size_t shift) {
  std::vector<T> with_head(shift, poison_value<T>());
  with_head.insert(with_head.end(), expected.begin(), expected.end());
  return with_head;
}

enum class distribution {
  uniform,      // independent uniform keys over the type's range
  all_equal,    // every key of A and B is the same
  long_runs,    // runs of equal keys ~3 tiles long, shared by A and B, boundaries misaligned
  a_below_b,    // every key of A is below every key of B
  b_below_a,    // the reverse
  interleaved,  // A holds the evens, B the odds
  a_tiny,       // A is 10^6 times smaller than B (at least 1 element unless A is empty)
  b_tiny        // B is 10^6 times smaller than A
};

inline constexpr distribution all_distributions[] = {
    distribution::uniform,   distribution::all_equal,   distribution::long_runs, distribution::a_below_b,
    distribution::b_below_a, distribution::interleaved, distribution::a_tiny,    distribution::b_tiny};

inline const char* to_string(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::all_equal: return "all_equal";
    case distribution::long_runs: return "long_runs";
    case distribution::a_below_b: return "a_below_b";
    case distribution::b_below_a: return "b_below_a";
    case distribution::interleaved: return "interleaved";
    case distribution::a_tiny: return "a_tiny";
    case distribution::b_tiny: return "b_tiny";
  }
  return "?";
}

// n sorted uniform draws from [low, high] without sorting: a random walk whose steps
// average (high - low) / (n + 1), saturating at `high` (which also makes runs of the
// maximum key now and then).
inline std::vector<std::uint64_t> sorted_u64(std::size_t n, std::uint64_t low, std::uint64_t high,
                                             std::mt19937_64& rng) {
  std::vector<std::uint64_t> out(n);
  const std::uint64_t mean_step = (high - low) / (std::uint64_t(n) + 1);
  std::uniform_int_distribution<std::uint64_t> step(0, mean_step == 0 ? 1 : 2 * mean_step);
  std::uint64_t u = low;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t s = step(rng);
    u = high - u < s ? high : u + s;
    out[i] = u;
  }
  return out;
}

template <class K>
std::vector<K> sorted_keys(std::size_t n, std::uint64_t low, std::uint64_t high, std::mt19937_64& rng) {
  std::vector<K> out(n);
  const std::vector<std::uint64_t> u = sorted_u64(n, low, high, rng);
  for (std::size_t i = 0; i < n; ++i) out[i] = key_traits<K>::from_u64(u[i]);
  return out;
}

template <class K>
struct sorted_inputs {
  std::vector<K> a;
  std::vector<K> b;
};

// Sorted A and B of (about) m and n keys; the tiny distributions shrink one side.
// `tile` sets the run length of long_runs.
template <class K>
sorted_inputs<K> make_inputs(distribution d, std::size_t m, std::size_t n, std::size_t tile,
                             std::mt19937_64& rng) {
  constexpr std::uint64_t all = ~std::uint64_t(0);
  constexpr std::uint64_t half = std::uint64_t(1) << 63;
  sorted_inputs<K> in;
  switch (d) {
    case distribution::uniform:
      in.a = sorted_keys<K>(m, 0, all, rng);
      in.b = sorted_keys<K>(n, 0, all, rng);
      break;
    case distribution::all_equal: {
      K x = key_traits<K>::from_u64(rng());
      while (same_bits(x, poison_value<K>())) x = key_traits<K>::from_u64(rng());
      in.a.assign(m, x);
      in.b.assign(n, x);
      break;
    }
    case distribution::long_runs: {
      const std::size_t jitter = tile / 2 + 1;
      const std::size_t run_a = 3 * tile + rng() % jitter;
      const std::size_t run_b = 3 * tile - rng() % jitter;
      const std::uint64_t first = rng() % 16;
      in.a.resize(m);
      in.b.resize(n);
      for (std::size_t i = 0; i < m; ++i) in.a[i] = key_traits<K>::from_index(first + i / run_a);
      for (std::size_t j = 0; j < n; ++j) in.b[j] = key_traits<K>::from_index(first + j / run_b);
      break;
    }
    case distribution::a_below_b:
      in.a = sorted_keys<K>(m, 0, half - 1, rng);
      in.b = sorted_keys<K>(n, half, all, rng);
      break;
    case distribution::b_below_a:
      in.a = sorted_keys<K>(m, half, all, rng);
      in.b = sorted_keys<K>(n, 0, half - 1, rng);
      break;
    case distribution::interleaved:
      in.a.resize(m);
      in.b.resize(n);
      for (std::size_t i = 0; i < m; ++i) in.a[i] = key_traits<K>::from_index(2 * std::uint64_t(i));
      for (std::size_t j = 0; j < n; ++j) in.b[j] = key_traits<K>::from_index(2 * std::uint64_t(j) + 1);
      break;
    case distribution::a_tiny:
      in.a = sorted_keys<K>(m == 0 ? 0 : std::max<std::size_t>(1, n / 1000000), 0, all, rng);
      in.b = sorted_keys<K>(n, 0, all, rng);
      break;
    case distribution::b_tiny:
      in.a = sorted_keys<K>(m, 0, all, rng);
      in.b = sorted_keys<K>(n == 0 ? 0 : std::max<std::size_t>(1, m / 1000000), 0, all, rng);
      break;
  }
  return in;
}

// Stability payloads: (source << 32) | index, source 0 for A and 1 for B.
inline std::uint64_t payload(unsigned source, std::size_t index) {
  return (std::uint64_t(source) << 32) | std::uint64_t(index);
}

inline std::vector<std::uint64_t> payloads(unsigned source, std::size_t n) {
  std::vector<std::uint64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = payload(source, i);
  return out;
}

// The same in 32 bits: index for A, -1 - index for B.
inline std::vector<std::int32_t> int32_payloads(unsigned source, std::size_t n) {
  std::vector<std::int32_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = source == 0 ? std::int32_t(i) : -1 - std::int32_t(i);
  return out;
}

template <class K, class Compare>
std::vector<K> reference_merge(const std::vector<K>& a, const std::vector<K>& b, Compare comp) {
  std::vector<K> out(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp);
  return out;
}

template <class K, class V>
struct keys_and_values {
  std::vector<K> keys;
  std::vector<V> values;
};

// std::merge on (key, value) pairs ordered by key alone: stable, so this is the one
// correct result of merge_by_key.
template <class K, class V, class Compare>
keys_and_values<K, V> reference_merge_by_key(const std::vector<K>& a, const std::vector<V>& va,
                                             const std::vector<K>& b, const std::vector<V>& vb, Compare comp) {
  std::vector<std::pair<K, V>> pa(a.size()), pb(b.size()), merged(a.size() + b.size());
  for (std::size_t i = 0; i < a.size(); ++i) pa[i] = {a[i], va[i]};
  for (std::size_t j = 0; j < b.size(); ++j) pb[j] = {b[j], vb[j]};
  std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), merged.begin(),
             [&](const std::pair<K, V>& x, const std::pair<K, V>& y) { return comp(x.first, y.first); });
  keys_and_values<K, V> out;
  out.keys.resize(merged.size());
  out.values.resize(merged.size());
  for (std::size_t k = 0; k < merged.size(); ++k) {
    out.keys[k] = merged[k].first;
    out.values[k] = merged[k].second;
  }
  return out;
}

// Bitwise comparison of `expected` with actual[offset, offset + expected.size()): exact
// for floats (-0.0 vs 0.0, NaN payloads) and for keys without operator==.
template <class T>
::testing::AssertionResult equal_bits(const std::vector<T>& expected, const std::vector<T>& actual,
                                      std::size_t offset = 0) {
  if (actual.size() < offset + expected.size()) {
    return ::testing::AssertionFailure() << "output has " << actual.size() << " elements, expected at least "
                                         << offset + expected.size();
  }
  std::size_t mismatches = 0, first = 0;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    if (!same_bits(expected[k], actual[offset + k])) {
      if (mismatches++ == 0) first = k;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << mismatches << " of " << expected.size() << " outputs differ; first at k = " << first << ":";
  const std::size_t from = first < 3 ? 0 : first - 3;
  const std::size_t to = std::min(expected.size(), first + 4);
  for (std::size_t k = from; k < to; ++k) {
    failure << "\n  k = " << k << "  expected " << key_to_string(expected[k]) << "  got "
            << key_to_string(actual[offset + k]) << (same_bits(expected[k], actual[offset + k]) ? "" : "  <--");
  }
  return failure;
}

// The `guard` elements before and after the `count` outputs still hold the poison.
template <class T>
::testing::AssertionResult guards_intact(const std::vector<T>& buffer, std::size_t guard, std::size_t count) {
  const T p = poison_value<T>();
  for (std::size_t g = 0; g < guard; ++g) {
    if (!same_bits(buffer[g], p)) {
      return ::testing::AssertionFailure() << "wrote " << (guard - g) << " elements before the output";
    }
    if (!same_bits(buffer[guard + count + g], p)) {
      return ::testing::AssertionFailure() << "wrote past the end of the output (element " << count + g << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult all_poison(const std::vector<T>& buffer) {
  const T p = poison_value<T>();
  for (std::size_t k = 0; k < buffer.size(); ++k) {
    if (!same_bits(buffer[k], p)) return ::testing::AssertionFailure() << "element " << k << " was written";
  }
  return ::testing::AssertionSuccess();
}

struct size_pair {
  std::size_t m;
  std::size_t n;
};

inline std::string describe(const char* key, distribution d, std::size_t m, std::size_t n) {
  return std::string(key) + " " + to_string(d) + " m=" + std::to_string(m) + " n=" + std::to_string(n);
}

// GPU sizes around the tile: every (m, n) from {0, 1, T-1, T, T+1}.
inline std::vector<size_pair> tile_edge_sizes(std::size_t tile) {
  const std::size_t edges[] = {0, 1, tile - 1, tile, tile + 1};
  std::vector<size_pair> out;
  for (std::size_t m : edges)
    for (std::size_t n : edges) out.push_back({m, n});
  return out;
}

// GPU sizes over several tiles and several blocks, unequal sides, and random ones.
// 600 tiles per side make ~1200 output tiles: more than the resident blocks of an H100,
// so blocks stream several tiles each. CORANK_TEST_QUICK caps every size at 3T + 1.
inline std::vector<size_pair> multi_tile_sizes(std::size_t tile, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> random_size(0, 20 * tile);
  std::vector<size_pair> out = {{10 * tile + 3, 10 * tile + 3}, {10 * tile + 3, 3 * tile + 1},
                                {3 * tile + 1, 10 * tile + 3},  {1, 10 * tile + 3},
                                {10 * tile + 3, 0},             {7 * tile + 5, 2 * tile + 2},
                                {600 * tile + 1, 600 * tile + 7}, {random_size(rng), random_size(rng)},
                                {random_size(rng), random_size(rng)}};
  if (quick_mode()) {
    for (size_pair& s : out) {
      s.m = std::min(s.m, 3 * tile + 1);
      s.n = std::min(s.n, 3 * tile + 1);
    }
  }
  return out;
}

}  // namespace corank::test
