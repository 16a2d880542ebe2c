// The windows' moves in rounds (detail/forms/exchange_rounds.hpp): every pair that moves
// bytes gets one round, in no round does a rank send to two peers or receive from two, and
// there are as few rounds as the most pairs one rank sends or receives in.

#include <corank/detail/forms/exchange_rounds.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace {

using corank::detail::exchange_rounds;
using corank::detail::rounds_of;

// Checks the rounds of one transfer matrix; `what` names the case in failures.
void check(const std::vector<std::size_t>& bytes, int ranks, const std::string& what) {
  const exchange_rounds r = rounds_of(bytes, ranks);
  const std::size_t p = std::size_t(ranks);
  int most = 0;
  std::vector<int> sends(p, 0), receives(p, 0);
  std::vector<std::vector<int>> sent_in(p, std::vector<int>(std::size_t(r.rounds), 0)), heard_in = sent_in;
  for (int f = 0; f < ranks; ++f) {
    for (int t = 0; t < ranks; ++t) {
      const bool moves = f != t && bytes[std::size_t(f) * p + std::size_t(t)] > 0;
      const int k = r.round(f, t);
      if (!moves) {
        EXPECT_EQ(k, -1) << what << ": pair " << f << " -> " << t << " moves nothing";
        continue;
      }
      ASSERT_TRUE(k >= 0 && k < r.rounds) << what << ": pair " << f << " -> " << t << " in round " << k;
      most = std::max({most, ++sends[std::size_t(f)], ++receives[std::size_t(t)]});
      EXPECT_EQ(++sent_in[std::size_t(f)][std::size_t(k)], 1) << what << ": rank " << f << " sends twice in round " << k;
      EXPECT_EQ(++heard_in[std::size_t(t)][std::size_t(k)], 1) << what << ": rank " << t << " hears twice in round " << k;
    }
  }
  EXPECT_EQ(r.rounds, most) << what;
}

TEST(ExchangeRounds, TheDistributedMergesPatterns) {
  const std::size_t g = std::size_t(1) << 31;
  // 4 ranks; A before B (disjoint), B half A's range above (shifted), nothing moving.
  std::vector<std::size_t> disjoint(16, 0), shifted(16, 0), none(16, 0);
  for (const auto& [f, t] : {std::pair{0, 2}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 1}}) disjoint[std::size_t(f * 4 + t)] = g;
  for (const auto& [f, t] : {std::pair{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 2}}) shifted[std::size_t(f * 4 + t)] = g;
  check(disjoint, 4, "disjoint");
  check(shifted, 4, "shifted");
  check(none, 4, "nothing moves");
  EXPECT_EQ(rounds_of(disjoint, 4).rounds, 2);  // one group took 14.7 ms, two rounds 12.25 (4 x H200)
  EXPECT_EQ(rounds_of(none, 4).rounds, 0);
  EXPECT_EQ(rounds_of({}, 0).rounds, 0);
  EXPECT_EQ(rounds_of({7}, 1).rounds, 0);  // a rank's own entry never moves
}

// A plan's moves: the balanced placement of 4 ranks over disjoint inputs (A before B, 8
// elements a rank and input) moves what NCCL took 14.7 ms for in one group; in rounds, two.
TEST(ExchangeRounds, OfAPlanTheWindowsThatMove) {
  corank::distributed_plan plan;
  plan.a_sizes = plan.b_sizes = {8, 8, 8, 8};
  plan.diagonals = {0, 16, 32, 48, 64};
  plan.splits = {{0, 0}, {16, 0}, {32, 0}, {32, 16}, {32, 32}};
  plan.owners = {0, 1, 2, 3};
  plan.stages = {0, 0, 0, 0};
  const std::vector<exchange_rounds> rounds = corank::detail::rounds_of_stages(plan, 12);
  ASSERT_EQ(rounds.size(), 1u);
  const exchange_rounds& r = rounds[0];
  EXPECT_EQ(r.rounds, 2);
  std::vector<std::size_t> expected(16, 0);  // 8 elements of 12 bytes for each pair that moves
  for (const auto& [f, t] : {std::pair{1, 0}, {2, 1}, {3, 1}, {0, 2}, {1, 2}, {2, 3}}) expected[std::size_t(f * 4 + t)] = 96;
  check(expected, 4, "the plan's pairs");
  for (int f = 0; f < 4; ++f) {
    for (int t = 0; t < 4; ++t) EXPECT_EQ(r.round(f, t) >= 0, expected[std::size_t(f * 4 + t)] > 0) << f << " -> " << t;
  }
  plan.stages = {0, 1, 0, 1};  // two stages: each its own rounds
  const std::vector<exchange_rounds> staged = corank::detail::rounds_of_stages(plan, 12);
  ASSERT_EQ(staged.size(), 2u);
  EXPECT_EQ(staged[0].round(1, 0), 0);
  EXPECT_EQ(staged[0].round(2, 1), -1);  // piece 1 moves in stage 1
  EXPECT_GE(staged[1].round(2, 1), 0);
}

TEST(ExchangeRounds, RandomTransfersOfEveryDensity) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 3000; ++trial) {
    const int ranks = 1 + int(rng() % 17);
    const unsigned density = unsigned(rng() % 101);  // percent of pairs that move
    std::vector<std::size_t> bytes(std::size_t(ranks) * std::size_t(ranks), 0);
    for (std::size_t& b : bytes) {
      if (rng() % 100 < density) b = 1 + rng() % (trial % 2 ? 4 : 1000000);  // many equal sizes, or all distinct
    }
    check(bytes, ranks, "trial " + std::to_string(trial) + ", " + std::to_string(ranks) + " ranks");
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
