// co_rank (the merge-path search): the prefix property, ties to A, the search bound, and
// 64-bit indices.

#include <corank/co_rank.hpp>
#include <corank/comparators.hpp>

#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace {

using corank::index_t;

// For each k, how many of the first k outputs of the stable merge (std::merge, A first
// among equivalents) come from A: the one correct co-rank.
template <class T, class Compare>
std::vector<index_t> stable_a_counts(const std::vector<T>& a, const std::vector<T>& b, Compare comp) {
  std::vector<std::pair<T, int>> ta, tb, merged(a.size() + b.size());
  for (const T& x : a) ta.push_back({x, 0});
  for (const T& x : b) tb.push_back({x, 1});
  std::merge(ta.begin(), ta.end(), tb.begin(), tb.end(), merged.begin(),
             [&](const auto& x, const auto& y) { return comp(x.first, y.first); });
  std::vector<index_t> counts(merged.size() + 1, 0);
  for (std::size_t k = 0; k < merged.size(); ++k) counts[k + 1] = counts[k] + (merged[k].second == 0);
  return counts;
}

// Checks every k in [0, m + n]: the range of i, the prefix property against std::merge,
// and that ties went to A.
template <class T, class Compare = corank::less>
void check_every_k(const std::vector<T>& a, const std::vector<T>& b, Compare comp = {}) {
  const index_t m = index_t(a.size()), n = index_t(b.size());
  std::vector<T> full(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), full.begin(), comp);
  const std::vector<index_t> expected = stable_a_counts(a, b, comp);
  for (index_t k = 0; k <= m + n; ++k) {
    SCOPED_TRACE("k = " + std::to_string(k) + " m = " + std::to_string(m) + " n = " + std::to_string(n));
    const index_t i = corank::co_rank(k, a, m, b, n, comp);
    const index_t j = k - i;
    ASSERT_GE(i, 0);
    ASSERT_LE(i, m);
    ASSERT_GE(j, 0);
    ASSERT_LE(j, n);
    // Prefix property: the first k outputs are exactly merge(A[0, i), B[0, j)).
    std::vector<T> prefix(static_cast<std::size_t>(k));
    std::merge(a.begin(), a.begin() + i, b.begin(), b.begin() + j, prefix.begin(), comp);
    ASSERT_TRUE(std::equal(prefix.begin(), prefix.end(), full.begin(),
                           [&](const T& x, const T& y) { return !comp(x, y) && !comp(y, x); }));
    // Ties go to A: i is the count of A's elements among the stable merge's first k.
    ASSERT_EQ(i, expected[static_cast<std::size_t>(k)]);
    // The split conditions themselves.
    if (i > 0 && j < n) EXPECT_FALSE(comp(b[j], a[i - 1])) << "A[i-1] should not come after B[j]";
    if (j > 0 && i < m) EXPECT_TRUE(comp(b[j - 1], a[i])) << "B[j-1] should come strictly before A[i]";
  }
}

TEST(CoRank, TextbookExample) {
  // PMPP ch. 12: A = 1 7 8 9 10, B = 7 10 10 12; merged 1 7a 7b 8 9 10a 10b 10b 12.
  const std::vector<int> a{1, 7, 8, 9, 10};
  const std::vector<int> b{7, 10, 10, 12};
  const index_t expected_i[] = {0, 1, 2, 2, 3, 4, 5, 5, 5, 5};
  for (index_t k = 0; k <= 9; ++k) {
    EXPECT_EQ(corank::co_rank(k, a, index_t(5), b, index_t(4), corank::less{}), expected_i[k]) << "k = " << k;
  }
  check_every_k(a, b);
}

TEST(CoRank, TiesGoToA) {
  const std::vector<int> a{5, 5, 5};
  const std::vector<int> b{5, 5};
  for (index_t k = 0; k <= 5; ++k) {
    EXPECT_EQ(corank::co_rank(k, a, index_t(3), b, index_t(2), corank::less{}), std::min<index_t>(k, 3));
  }
}

TEST(CoRank, EmptySides) {
  const std::vector<int> none;
  const std::vector<int> some{1, 2, 3};
  for (index_t k = 0; k <= 3; ++k) {
    EXPECT_EQ(corank::co_rank(k, none, index_t(0), some, index_t(3), corank::less{}), 0);
    EXPECT_EQ(corank::co_rank(k, some, index_t(3), none, index_t(0), corank::less{}), k);
  }
  EXPECT_EQ(corank::co_rank(index_t(0), none, index_t(0), none, index_t(0), corank::less{}), 0);
}

TEST(CoRank, ExhaustiveSmallArraysWithHeavyDuplicates) {
  std::mt19937_64 rng = corank::test::make_rng();
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t m = rng() % 13, n = rng() % 13;
    const int values = 1 + int(rng() % 4);  // 1 to 4 distinct values: long ties
    std::vector<int> a(m), b(n);
    for (int& x : a) x = int(rng() % values);
    for (int& x : b) x = int(rng() % values);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    check_every_k(a, b);
    if (HasFatalFailure()) return;
  }
}

TEST(CoRank, CustomComparatorDescending) {
  std::mt19937_64 rng = corank::test::make_rng();
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<int> a(rng() % 10), b(rng() % 10);
    for (int& x : a) x = int(rng() % 5);
    for (int& x : b) x = int(rng() % 5);
    std::sort(a.begin(), a.end(), std::greater<>());
    std::sort(b.begin(), b.end(), std::greater<>());
    check_every_k(a, b, corank::test::greater_op{});
    if (HasFatalFailure()) return;
  }
}

TEST(CoRank, ComparatorOnlyKeys) {
  using corank::test::opaque_key;
  const std::vector<opaque_key> a{{1, 0}, {1, 0}, {2, 5}, {3, 0}};
  const std::vector<opaque_key> b{{1, 0}, {2, 4}, {2, 5}, {2, 5}, {4, 1}};
  check_every_k(a, b, corank::test::opaque_less{});
}

TEST(CoRank, IntIndexAndPointers) {
  const int a[] = {1, 3, 5, 7};
  const int b[] = {2, 3, 4};
  // Index is deduced from k, m and n: here int, as in the tiled kernels' shared-memory search.
  EXPECT_EQ(corank::co_rank(3, a, 4, b, 3, corank::less{}), 2);  // 1 2 3a
  EXPECT_EQ(corank::co_rank(4, a, 4, b, 3, corank::less{}), 2);  // 1 2 3a 3b
  EXPECT_EQ(corank::co_rank(7, a, 4, b, 3, corank::less{}), 4);
}

// Counts comparisons: the search is O(log min(k, m, n)).
struct counting_less {
  int* count;
  bool operator()(int x, int y) const {
    ++*count;
    return x < y;
  }
};

TEST(CoRank, LogarithmicComparisons) {
  std::vector<int> a(1000), b(3000);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = int(3 * i);
  for (std::size_t j = 0; j < b.size(); ++j) b[j] = int(j);
  for (index_t k : {index_t(0), index_t(1), index_t(2), index_t(17), index_t(999), index_t(2000), index_t(3999),
                    index_t(4000)}) {
    int count = 0;
    corank::co_rank(k, a, index_t(1000), b, index_t(3000), counting_less{&count});
    const index_t range = std::min({k, index_t(1000), index_t(3000), index_t(4000) - k});
    int bound = 0;
    while ((index_t(1) << bound) <= range) ++bound;  // bit width of the search range
    EXPECT_LE(count, bound) << "k = " << k;
  }
}

// A sequence that exists only as a formula: 2i + offset, for 64-bit positions.
struct arithmetic_sequence {
  std::int64_t offset;
  std::int64_t operator[](index_t i) const { return 2 * i + offset; }
};

TEST(CoRank, SixtyFourBitPositions) {
  const index_t m = (index_t(3) << 31) + 5;  // evens
  const index_t n = (index_t(3) << 31) + 2;  // odds
  const arithmetic_sequence evens{0}, odds{1};
  // The merge is 0, 1, 2, ...: its first k outputs hold ceil(k / 2) evens.
  for (index_t k : {index_t(0), index_t(1), index_t(1) << 32, (index_t(1) << 32) + 1, (index_t(5) << 31) + 3,
                    2 * n - 1, 2 * n}) {
    EXPECT_EQ(corank::co_rank(k, evens, m, odds, n, corank::less{}), (k + 1) / 2) << "k = " << k;
  }
  // Past the end of the odds, the rest is evens.
  EXPECT_EQ(corank::co_rank(m + n, evens, m, odds, n, corank::less{}), m);
  EXPECT_EQ(corank::co_rank(m + n - 1, evens, m, odds, n, corank::less{}), m - 1);
}

}  // namespace
