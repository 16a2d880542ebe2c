#pragma once
// Inputs and references for the sort and k-way merge tests (GPU and CPU): keys of several
// shapes, a 16-byte key ordered by half of it, and the std:: reference of each operation.

#include "support/keys.hpp"

#include <corank/comparators.hpp>
#include <corank/config.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace corank::test {

// 16 bytes, compared by `key` only: `tag` tells equal keys apart, for stability checks.
struct alignas(16) wide_key {
  std::int64_t key;
  std::int64_t tag;
};

struct wide_less {
  CORANK_HOST_DEVICE bool operator()(const wide_key& a, const wide_key& b) const { return a.key < b.key; }
};

inline bool operator==(const wide_key& a, const wide_key& b) { return a.key == b.key && a.tag == b.tag; }

enum class shape { random, few_distinct, all_equal, sorted, reversed };

inline std::string shape_name(shape s) {
  switch (s) {
    case shape::random: return "random";
    case shape::few_distinct: return "few_distinct";
    case shape::all_equal: return "all_equal";
    case shape::sorted: return "sorted";
    case shape::reversed: return "reversed";
  }
  return "?";
}

inline constexpr shape all_shapes[] = {shape::random, shape::few_distinct, shape::all_equal, shape::sorted,
                                       shape::reversed};

// n keys of `s`: wide random keys, 7 distinct values (long runs of equal keys across tiles),
// one value, or a sorted / reversed sequence.
template <class K>
std::vector<K> make_keys(std::size_t n, shape s, std::mt19937_64& rng) {
  std::vector<K> keys(n);
  std::uniform_int_distribution<std::uint64_t> any;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t u = 0;
    switch (s) {
      case shape::random: u = any(rng); break;
      case shape::few_distinct: u = (any(rng) % 7) << 60; break;
      case shape::all_equal: u = std::uint64_t(1) << 63; break;
      case shape::sorted: u = std::uint64_t(i) << 20; break;
      case shape::reversed: u = std::uint64_t(n - i) << 20; break;
    }
    if constexpr (std::is_same_v<K, wide_key>) {
      keys[i] = wide_key{std::int64_t(u >> 1), std::int64_t(i)};
    } else {
      keys[i] = key_traits<K>::from_u64(u);
    }
  }
  return keys;
}

// Positions 0..n-1 ordered stably by keys[position] under comp: the reference of every
// stable sort (and, over the concatenated runs, of every stable k-way merge).
template <class K, class Compare>
std::vector<std::int64_t> stable_order(const std::vector<K>& keys, Compare comp) {
  std::vector<std::int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return comp(keys[std::size_t(a)], keys[std::size_t(b)]); });
  return order;
}

// Run lengths of k runs with `n` elements in all: equal, skewed (run 0 holds half), or
// random with many empty runs.
enum class lengths { equal, skewed, random_with_empty };

inline std::vector<std::int64_t> make_offsets(std::size_t n, std::size_t k, lengths how, std::mt19937_64& rng) {
  std::vector<std::int64_t> offsets(k + 1, 0);
  if (k == 0) return offsets;
  std::vector<std::int64_t> cuts;
  if (how == lengths::equal) {
    for (std::size_t j = 1; j < k; ++j) cuts.push_back(std::int64_t(n * j / k));
  } else if (how == lengths::skewed) {
    for (std::size_t j = 1; j < k; ++j) cuts.push_back(std::int64_t(n / 2 + (n - n / 2) * (j - 1) / (k - 1 > 0 ? k - 1 : 1)));
  } else {
    std::uniform_int_distribution<std::size_t> at(0, n);
    for (std::size_t j = 1; j < k; ++j) cuts.push_back(std::int64_t(rng() % 3 == 0 ? 0 : at(rng)));
    std::sort(cuts.begin(), cuts.end());
  }
  for (std::size_t j = 1; j < k; ++j) offsets[j] = cuts[j - 1];
  offsets[k] = std::int64_t(n);
  return offsets;
}

inline std::string lengths_name(lengths how) {
  return how == lengths::equal ? "equal" : how == lengths::skewed ? "skewed" : "random_with_empty";
}

// Sorts each run [offsets[j], offsets[j + 1]) of keys in place by comp (stably).
template <class K, class Compare>
void sort_runs(std::vector<K>& keys, const std::vector<std::int64_t>& offsets, Compare comp) {
  for (std::size_t j = 0; j + 1 < offsets.size(); ++j)
    std::stable_sort(keys.begin() + offsets[j], keys.begin() + offsets[j + 1], comp);
}

}  // namespace corank::test
