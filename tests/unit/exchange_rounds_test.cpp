// The windows' moves in rounds (detail/forms/exchange_rounds.hpp): every pair that moves
// bytes gets one round, in no round does a rank send to two peers or receive from two, and
// there are as few rounds as the most pairs one rank sends or receives in.

#include <corank/detail/forms/distributed_windows.hpp>
#include <corank/detail/forms/exchange_rounds.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using corank::index_t;
using corank::detail::exchange_rounds;
using corank::detail::rounds_of;

// Checks rounds `r` of one transfer matrix; `what` names the case in failures.
void check_rounds(const exchange_rounds& r, const std::vector<std::size_t>& bytes, int ranks, const std::string& what) {
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

void check(const std::vector<std::size_t>& bytes, int ranks, const std::string& what) {
  check_rounds(rounds_of(bytes, ranks), bytes, ranks, what);
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
  check_rounds(r, expected, 4, "the plan's rounds");
  plan.stages = {0, 1, 0, 1};  // two stages: each its own rounds
  const std::vector<exchange_rounds> staged = corank::detail::rounds_of_stages(plan, 12);
  ASSERT_EQ(staged.size(), 2u);
  EXPECT_EQ(staged[0].round(1, 0), 0);
  EXPECT_EQ(staged[0].round(2, 1), -1);  // piece 1 moves in stage 1
  EXPECT_GE(staged[1].round(2, 1), 0);
}

// What run_distributed sends and receives, simulated on every rank of random plans: in each
// round a rank sends to one peer and hears from one at most, and every send is received by
// its peer in the same round, in the same order and size (what NCCL needs to match them).
TEST(ExchangeRounds, EveryRankListsTheSameTransfersInTheSameRounds) {
  auto rng = corank::test::make_rng();
  using corank::detail::piece_side;
  for (int trial = 0; trial < 2000; ++trial) {
    const int ranks = 1 + int(rng() % 7), stages = 1 + int(rng() % 4), pieces = 1 + int(rng() % 9);
    corank::distributed_plan plan;
    for (int q = 0; q < ranks; ++q) {
      plan.a_sizes.push_back(index_t(rng() % 3 == 0 ? 0 : rng() % 50));
      plan.b_sizes.push_back(index_t(rng() % 3 == 0 ? 0 : rng() % 50));
    }
    index_t m = 0, n = 0;
    for (int q = 0; q < ranks; ++q) m += plan.a_sizes[std::size_t(q)], n += plan.b_sizes[std::size_t(q)];
    std::vector<index_t> cuts_a{0, m}, cuts_b{0, n};  // monotone splits from (0, 0) to (m, n)
    for (int k = 1; k < pieces; ++k) {
      cuts_a.push_back(index_t(rng() % std::uint64_t(m + 1)));
      cuts_b.push_back(index_t(rng() % std::uint64_t(n + 1)));
    }
    std::sort(cuts_a.begin(), cuts_a.end());
    std::sort(cuts_b.begin(), cuts_b.end());
    for (int k = 0; k <= pieces; ++k) {
      plan.splits.push_back({cuts_a[std::size_t(k)], cuts_b[std::size_t(k)]});
      plan.diagonals.push_back(cuts_a[std::size_t(k)] + cuts_b[std::size_t(k)]);
    }
    for (int k = 0; k < pieces; ++k) {
      plan.owners.push_back(int(rng() % std::uint64_t(ranks)));
      plan.stages.push_back(int(rng() % std::uint64_t(stages)));
    }
    const auto rounds = corank::detail::rounds_of_stages(plan, 8 + 4 * (trial % 2));
    ASSERT_EQ(int(rounds.size()), plan.stage_count());
    const std::vector<index_t> starts[2] = {corank::detail::starts_of(plan.a_sizes), corank::detail::starts_of(plan.b_sizes)};
    index_t must_move = 0, moved = 0;  // elements sent, in all and in the rounds
    for (int q = 0; q < ranks; ++q) {
      for (int piece = 0; piece < pieces; ++piece) {
        must_move += corank::detail::piece_side_of(starts[0], plan.splits[std::size_t(piece)].a,
                                                   plan.splits[std::size_t(piece) + 1].a, plan.owners[std::size_t(piece)], q)
                         .send.size() +
                     corank::detail::piece_side_of(starts[1], plan.splits[std::size_t(piece)].b,
                                                   plan.splits[std::size_t(piece) + 1].b, plan.owners[std::size_t(piece)], q)
                         .send.size();
      }
    }
    for (int s = 0; s < plan.stage_count(); ++s) {
      for (int k = 0; k < std::max(1, rounds[std::size_t(s)].rounds); ++k) {
        // sent[q][peer], heard[q][peer]: sizes in list order, as run_distributed lists them.
        using lists = std::vector<std::vector<std::vector<index_t>>>;
        lists sent(static_cast<std::size_t>(ranks), std::vector<std::vector<index_t>>(static_cast<std::size_t>(ranks)));
        lists heard = sent;
        for (int q = 0; q < ranks; ++q) {
          for (int piece = 0; piece < pieces; ++piece) {
            if (plan.stages[std::size_t(piece)] != s) continue;
            for (int side = 0; side < 2; ++side) {
              const index_t begin = side == 0 ? plan.splits[std::size_t(piece)].a : plan.splits[std::size_t(piece)].b;
              const index_t end = side == 0 ? plan.splits[std::size_t(piece) + 1].a : plan.splits[std::size_t(piece) + 1].b;
              const piece_side ps = corank::detail::piece_side_of(starts[side], begin, end, plan.owners[std::size_t(piece)], q);
              if (ps.send.peer >= 0 && rounds[std::size_t(s)].round(q, ps.send.peer) == k) {
                sent[std::size_t(q)][std::size_t(ps.send.peer)].push_back(ps.send.size());
                moved += ps.send.size();
              }
              for (const auto& w : ps.receives) {
                if (rounds[std::size_t(s)].round(w.peer, q) == k) heard[std::size_t(q)][std::size_t(w.peer)].push_back(w.size());
              }
            }
          }
        }
        for (int q = 0; q < ranks; ++q) {
          int to = 0, from = 0;
          for (int peer = 0; peer < ranks; ++peer) {
            to += !sent[std::size_t(q)][std::size_t(peer)].empty();
            from += !heard[std::size_t(q)][std::size_t(peer)].empty();
            EXPECT_EQ(sent[std::size_t(q)][std::size_t(peer)], heard[std::size_t(peer)][std::size_t(q)])
                << "trial " << trial << ", stage " << s << ", round " << k << ": " << q << " -> " << peer;
          }
          EXPECT_LE(to, 1) << "trial " << trial << ": rank " << q << " sends to " << to << " peers in round " << k;
          EXPECT_LE(from, 1) << "trial " << trial << ": rank " << q << " hears from " << from << " peers in round " << k;
        }
        if (::testing::Test::HasFailure()) return;
      }
    }
    ASSERT_EQ(moved, must_move) << "trial " << trial << ": every window's part moves in one round of its stage";
  }
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
