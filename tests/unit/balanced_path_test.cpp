// balanced_co_rank (the split of the set operations) against a brute-force balanced path,
// and the galloping run searches it is built on.

#include <corank/balanced_path.hpp>
#include <corank/comparators.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using corank::index_t;

// The balanced path spelled out: key by key, A's and B's copies alternate A0 B0 A1 B1 ...,
// then the side with more copies finishes. Entry k is the (i, j) after k steps, where a
// step that would leave A_r without its partner B_r is taken back (the split rule).
std::vector<corank::split<index_t>> brute_force_splits(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<corank::split<index_t>> path{{0, 0}};  // positions after each step
  std::vector<bool> cuts_pair{false};                // that position separates A_r from B_r
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const int key = j == b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
    std::size_t a_copies = 0, b_copies = 0;
    while (i + a_copies < a.size() && a[i + a_copies] == key) ++a_copies;
    while (j + b_copies < b.size() && b[j + b_copies] == key) ++b_copies;
    for (std::size_t r = 0; r < std::max(a_copies, b_copies); ++r) {
      if (r < a_copies) {
        ++i;
        path.push_back({index_t(i), index_t(j)});
        cuts_pair.push_back(r < b_copies);
      }
      if (r < b_copies) {
        ++j;
        path.push_back({index_t(i), index_t(j)});
        cuts_pair.push_back(false);
      }
    }
  }
  for (std::size_t k = 0; k < path.size(); ++k) {
    if (cuts_pair[k]) path[k] = path[k - 1];
  }
  return path;
}

// `trials` random inputs of up to max_size - 1 keys each, from up to `max_range` distinct
// keys: every diagonal's balanced split as the brute-force path's.
void check_every_diagonal(int trials, int max_size, int max_range) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < trials; ++trial) {
    const int m = int(rng() % unsigned(max_size)), n = int(rng() % unsigned(max_size));
    const int range = 1 + int(rng() % unsigned(max_range));
    std::vector<int> a(m), b(n);
    for (int& x : a) x = int(rng() % range);
    for (int& x : b) x = int(rng() % range);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const auto expected = brute_force_splits(a, b);
    for (index_t k = 0; k <= m + n; ++k) {
      const auto s = corank::balanced_co_rank(k, a, index_t(m), b, index_t(n), corank::less{});
      ASSERT_EQ(s.a, expected[k].a) << "trial " << trial << " k " << k << " m " << m << " n " << n;
      ASSERT_EQ(s.b, expected[k].b) << "trial " << trial << " k " << k << " m " << m << " n " << n;
    }
  }
}

TEST(BalancedPath, EveryDiagonalMatchesTheBruteForcePath) { check_every_diagonal(400, 40, 12); }

// Runs of hundreds to thousands of equal keys, of different lengths in A and B: the run
// searches gallop and bisect far from the split.
TEST(BalancedPath, LongRunsMatchTheBruteForcePath) { check_every_diagonal(40, 3000, 4); }

TEST(BalancedPath, RunSearchesAgreeWithTheStandardBounds) {
  auto rng = corank::test::make_rng();
  corank::less less;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<int> x(1 + rng() % 200);
    for (int& v : x) v = int(rng() % 6);
    std::sort(x.begin(), x.end());
    const index_t size = index_t(x.size());
    const index_t p = index_t(rng() % x.size());
    const int key = x[p];
    const index_t first = std::lower_bound(x.begin(), x.end(), key) - x.begin();
    const index_t last = std::upper_bound(x.begin(), x.end(), key) - x.begin();
    // run_start: the run ending at any high in (first, last] starts at `first`.
    EXPECT_EQ(corank::detail::run_start(x, index_t(0), p + 1, key, less), first);
    EXPECT_EQ(corank::detail::run_start(x, index_t(0), first, key, less), first);
    // run_end: from any low in [first, last], limited by high.
    const index_t high = p + index_t(rng() % (size - p + 1));
    EXPECT_EQ(corank::detail::run_end(x, p, high, key, less), std::min(last, high));
  }
}

struct counting_less {
  int* count;
  bool operator()(int x, int y) const {
    ++*count;
    return x < y;
  }
};

// The run searches cost O(log run length), not O(log size): a split next to a short run
// in a long input probes only near the run.
TEST(BalancedPath, RunSearchesCostTheLogOfTheRun) {
  std::vector<int> x(1 << 20);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = int(i / 5);  // runs of 5
  const index_t p = index_t(1) << 19;                              // inside the run of key p / 5
  const int key = x[p];
  int count = 0;
  counting_less counted{&count};
  EXPECT_EQ(corank::detail::run_start(x, index_t(0), p + 1, key, counted), p / 5 * 5);
  EXPECT_LE(count, 6);
  count = 0;
  EXPECT_EQ(corank::detail::run_end(x, p, index_t(x.size()), key, counted), p / 5 * 5 + 5);
  EXPECT_LE(count, 6);
}

}  // namespace
