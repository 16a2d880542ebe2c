#pragma once
// Inputs and references for the custom-op examples of examples/ (sparse-vector
// addition, sparse dot product, distinct union). Plain C++.
//
// Values are small integers (in integer or double form), so every sum and product is
// exact whatever the order of the additions.

#include "support/keys.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <vector>

namespace corank::test {

template <class Index, class Value>
struct sparse_vector {
  std::vector<Index> index;  // sorted, unique
  std::vector<Value> value;
};

// n unique sorted indices with gaps of 1 to 2 * mean_gap - 1 (mean_gap >= 1), starting
// below `mean_gap`; values are integers in [-1000, 1000] without zeros.
template <class Index, class Value>
sparse_vector<Index, Value> random_sparse_vector(std::size_t n, std::uint64_t mean_gap, std::mt19937_64& rng) {
  sparse_vector<Index, Value> v;
  v.index.resize(n);
  v.value.resize(n);
  std::uint64_t at = rng() % mean_gap;
  for (std::size_t i = 0; i < n; ++i) {
    v.index[i] = Index(at);
    const long long x = static_cast<long long>(rng() % 2000) - 1000;
    v.value[i] = Value(x >= 0 ? x + 1 : x);
    at += 1 + rng() % (2 * mean_gap - 1);
  }
  return v;
}

// a + b through std::map.
template <class Index, class Value>
sparse_vector<Index, Value> reference_sparse_add(const sparse_vector<Index, Value>& a,
                                                 const sparse_vector<Index, Value>& b) {
  std::map<Index, Value> sum;
  for (std::size_t i = 0; i < a.index.size(); ++i) sum[a.index[i]] += a.value[i];
  for (std::size_t j = 0; j < b.index.size(); ++j) sum[b.index[j]] += b.value[j];
  sparse_vector<Index, Value> out;
  for (const auto& [index, value] : sum) {
    out.index.push_back(index);
    out.value.push_back(value);
  }
  return out;
}

// The products of the entries present in both, in index order, and their sum.
template <class Index, class Value>
struct dot_reference {
  std::vector<Index> index;
  std::vector<Value> products;
  Value sum = Value(0);
};

template <class Index, class Value>
dot_reference<Index, Value> reference_sparse_dot(const sparse_vector<Index, Value>& a,
                                                 const sparse_vector<Index, Value>& b) {
  dot_reference<Index, Value> out;
  std::size_t i = 0, j = 0;
  while (i < a.index.size() && j < b.index.size()) {
    if (a.index[i] < b.index[j]) {
      ++i;
    } else if (b.index[j] < a.index[i]) {
      ++j;
    } else {
      out.index.push_back(a.index[i]);
      out.products.push_back(a.value[i] * b.value[j]);
      out.sum += a.value[i] * b.value[j];
      ++i;
      ++j;
    }
  }
  return out;
}

// Every key of A and B once, in order: std::set_union, then std::unique by equivalence.
template <class K, class Compare>
std::vector<K> reference_distinct_union(const std::vector<K>& a, const std::vector<K>& b, Compare comp) {
  std::vector<K> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out), comp);
  out.erase(std::unique(out.begin(), out.end(), [&](const K& x, const K& y) { return !comp(x, y) && !comp(y, x); }),
            out.end());
  return out;
}

}  // namespace corank::test
