// The k-way merge's pass plan: the fewest rounds of pairwise merges in the fewest passes, every
// group within max_group, and the groups' product enough to merge all the runs.
#include <corank/detail/dispatch/pass_plan.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using corank::index_t;
using corank::detail::plan_passes;

int rounds_for(index_t runs) {  // ceil(log2 runs)
  int rounds = 0;
  while (rounds < 63 && (index_t(1) << rounds) < runs) ++rounds;
  return rounds;
}

void expect_plan_is_minimal(index_t runs) {
  SCOPED_TRACE("runs = " + std::to_string(runs));
  const auto plan = plan_passes(runs);
  constexpr int per_pass = 6;  // log2(multiway_max_group)
  static_assert(corank::multiway_max_group == 1 << per_pass);
  const int rounds = rounds_for(runs);
  EXPECT_EQ(plan.passes, (rounds + per_pass - 1) / per_pass);
  int spent = 0;
  index_t left = runs;
  for (int p = 0; p < plan.passes; ++p) {
    EXPECT_GE(plan.group[p], 2);
    EXPECT_LE(plan.group[p], corank::multiway_max_group);
    spent += rounds_for(plan.group[p]);
    left = left / plan.group[p] + (left % plan.group[p] != 0 ? 1 : 0);
  }
  EXPECT_EQ(left, 1) << "the passes leave more than one run";
  EXPECT_EQ(spent, rounds) << "more rounds than ceil(log2 runs)";
}

TEST(PassPlan, NoPassForOneRun) {
  EXPECT_EQ(plan_passes(0).passes, 0);
  EXPECT_EQ(plan_passes(1).passes, 0);
}

TEST(PassPlan, OnePassUpToMaxGroupTakesTheRunsAsOneGroup) {
  for (index_t runs = 2; runs <= corank::multiway_max_group; ++runs) {
    const auto plan = plan_passes(runs);
    ASSERT_EQ(plan.passes, 1);
    EXPECT_EQ(plan.group[0], runs);
  }
}

TEST(PassPlan, FewestRoundsAndPassesAroundPowersAndAtRandom) {
  for (int e = 1; e < 63; ++e) {
    const index_t power = index_t(1) << e;
    for (index_t runs : {power - 1, power, power + 1}) expect_plan_is_minimal(runs);
  }
  for (index_t runs : {index_t(4370), index_t(9363), index_t(69906), index_t(4097), index_t(65537),
                       std::numeric_limits<index_t>::max()})
    expect_plan_is_minimal(runs);
  auto rng = corank::test::make_rng();  // the seed is logged (CORANK_TEST_SEED repeats it)
  for (int i = 0; i < 2000; ++i) expect_plan_is_minimal(index_t(rng() >> (1 + rng() % 62)) + 2);
}

TEST(PassPlan, GroupsAreEvenWhereTheRoundsAllow) {
  // 2^24 and 2^28 int32 keys in tiles of 3,840: the groups measured on an H200.
  const auto groups = [](index_t runs) {
    const auto plan = plan_passes(runs);
    return std::vector<int>(plan.group, plan.group + plan.passes);
  };
  EXPECT_EQ(groups(4370), (std::vector<int>{18, 16, 16}));
  EXPECT_EQ(groups(69906), (std::vector<int>{42, 53, 32}));
  EXPECT_EQ(groups(1024), (std::vector<int>{32, 32}));
}

}  // namespace
