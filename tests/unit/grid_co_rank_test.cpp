// grid_co_rank (the split pass's search: narrowed on a grid of aligned positions first)
// against co_rank, which co_rank_test.cpp checks against std::merge: every diagonal of
// small inputs of many shapes and several grids, 64-bit positions with long duplicate runs,
// and that all but its last few probes fall on the grid (what makes it cheap).

#include <corank/co_rank.hpp>
#include <corank/comparators.hpp>
#include <corank/detail/block/grid_co_rank.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using corank::index_t;
using corank::detail::grid_co_rank;

std::vector<int> sorted_keys(std::mt19937_64& rng, std::size_t n, std::uint64_t range, int base = 0) {
  std::vector<int> v(n);
  for (int& x : v) x = base + int(rng() % range);
  std::sort(v.begin(), v.end());
  return v;
}

template <index_t Grid>
void check_every_diagonal(const std::vector<int>& a, const std::vector<int>& b, const std::string& what) {
  const index_t m = index_t(a.size()), n = index_t(b.size());
  corank::less comp;
  for (index_t k = 0; k <= m + n; ++k) {
    const index_t want = corank::co_rank(k, a, m, b, n, comp);
    const index_t got = grid_co_rank<Grid>(k, a, m, b, n, comp);
    ASSERT_EQ(want, got) << what << ", grid " << Grid << ", m " << m << ", n " << n << ", k " << k;
  }
}

template <index_t Grid>
void check_shapes(std::mt19937_64& rng) {
  const std::size_t sizes[] = {0, 1, 2, 7, 8, 9, 63, 64, 65, 200, 1000};
  for (std::size_t m : sizes) {
    for (std::size_t n : sizes) {
      // All equal, long runs, some ties, almost none.
      for (std::uint64_t range : {std::uint64_t(1), std::uint64_t(3), std::uint64_t(100), std::uint64_t(1) << 30}) {
        check_every_diagonal<Grid>(sorted_keys(rng, m, range), sorted_keys(rng, n, range),
                                   "range " + std::to_string(range));
      }
      // Disjoint, either way round.
      check_every_diagonal<Grid>(sorted_keys(rng, m, 100), sorted_keys(rng, n, 100, 1000), "A before B");
      check_every_diagonal<Grid>(sorted_keys(rng, m, 100, 1000), sorted_keys(rng, n, 100), "B before A");
    }
  }
  // One side tiny against one much longer than the grid.
  for (std::size_t tiny : {0, 1, 3}) {
    check_every_diagonal<Grid>(sorted_keys(rng, 5000, 4000), sorted_keys(rng, tiny, 4000), "B tiny");
    check_every_diagonal<Grid>(sorted_keys(rng, tiny, 4000), sorted_keys(rng, 5000, 4000), "A tiny");
  }
}

TEST(GridCoRank, EveryDiagonalOfManyShapes) {
  auto rng = corank::test::make_rng();
  check_shapes<1>(rng);
  check_shapes<2>(rng);
  check_shapes<8>(rng);
  check_shapes<64>(rng);
}

// Keys as a formula of 64-bit positions: runs of `run` equal keys, `step` apart.
struct run_sequence {
  std::int64_t run, step, offset;
  std::int64_t operator[](index_t i) const { return i / run * step + offset; }
};

TEST(GridCoRank, SixtyFourBitPositionsWithLongRuns) {
  const index_t m = (index_t(3) << 31) + 5, n = (index_t(5) << 30) + 3;
  const run_sequence a{1000, 7, 0}, b{7, 2, 1};
  auto rng = corank::test::make_rng();
  std::uniform_int_distribution<index_t> diagonal(0, m + n);
  corank::less comp;
  std::vector<index_t> ks{0, 1, m, n, index_t(1) << 31, index_t(1) << 32, m + n - 1, m + n};
  for (int r = 0; r < 2000; ++r) ks.push_back(diagonal(rng));
  for (index_t k : ks) {
    const index_t want = corank::co_rank(k, a, m, b, n, comp);
    ASSERT_EQ(want, grid_co_rank<1024>(k, a, m, b, n, comp)) << "k " << k;
    ASSERT_EQ(want, grid_co_rank<16>(k, a, m, b, n, comp)) << "k " << k;
  }
}

// Records where it was read.
struct recorded_sequence {
  const std::vector<int>* keys;
  std::vector<index_t>* reads;
  int operator[](index_t i) const {
    reads->push_back(i);
    return (*keys)[std::size_t(i)];
  }
};

TEST(GridCoRank, AllButTheLastProbesAreOnTheGrid) {
  constexpr index_t grid = 64;
  auto rng = corank::test::make_rng();
  for (std::uint64_t range : {std::uint64_t(50), std::uint64_t(1) << 30}) {
    const std::vector<int> ha = sorted_keys(rng, 100000, range), hb = sorted_keys(rng, 70000, range);
    std::uniform_int_distribution<index_t> diagonal(0, index_t(ha.size() + hb.size()));
    for (int r = 0; r < 500; ++r) {
      std::vector<index_t> reads_a, reads_b;
      const recorded_sequence a{&ha, &reads_a}, b{&hb, &reads_b};
      corank::less comp;
      const index_t k = diagonal(rng);
      ASSERT_EQ(corank::co_rank(k, ha, index_t(ha.size()), hb, index_t(hb.size()), comp),
                grid_co_rank<grid>(k, a, index_t(ha.size()), b, index_t(hb.size()), comp))
          << "range " << range << ", k " << k;
      // The plain search over the last 2 * grid - 1 candidates: log2(2 * grid) probes.
      const auto off_grid = [](const std::vector<index_t>& reads) {
        return std::count_if(reads.begin(), reads.end(), [](index_t i) { return i % grid != 0; });
      };
      EXPECT_LE(off_grid(reads_a), 7) << "range " << range << ", k " << k;
      EXPECT_LE(off_grid(reads_b), 7) << "range " << range << ", k " << k;
    }
  }
}

}  // namespace
