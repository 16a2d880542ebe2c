// strategy::automatic: which strategy a merge of each size runs, at and around the
// threshold, and that an explicit strategy is always kept.

#include <corank/policy.hpp>

#include <gtest/gtest.h>

#include <limits>

namespace {

using corank::index_t;
using corank::merge_strategy_for;
using corank::strategy;

constexpr index_t threshold = corank::automatic_naive_merge_max;

TEST(AutomaticStrategy, SmallMergesRunNaive) {
  EXPECT_EQ(merge_strategy_for(strategy::automatic, 0, 0), strategy::naive);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, 1, 0), strategy::naive);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, threshold / 2, threshold / 2), strategy::naive);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, threshold, 0), strategy::naive);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, 0, threshold), strategy::naive);
}

TEST(AutomaticStrategy, LargerMergesRunPartitioned) {
  EXPECT_EQ(merge_strategy_for(strategy::automatic, threshold / 2 + 1, threshold / 2), strategy::partitioned);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, 0, threshold + 1), strategy::partitioned);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, index_t(1) << 40, 1), strategy::partitioned);
  // Sizes whose sum overflows are not small (the dispatch then rejects them).
  constexpr index_t max = std::numeric_limits<index_t>::max();
  EXPECT_EQ(merge_strategy_for(strategy::automatic, max, max), strategy::partitioned);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, -1, 1), strategy::partitioned);
}

TEST(AutomaticStrategy, ExplicitStrategiesAreKept) {
  for (const strategy kind : {strategy::naive, strategy::tiled, strategy::circular, strategy::partitioned}) {
    EXPECT_EQ(merge_strategy_for(kind, 1, 1), kind);
    EXPECT_EQ(merge_strategy_for(kind, index_t(1) << 40, index_t(1) << 40), kind);
  }
}

TEST(AutomaticStrategy, IsTheDefault) {
  EXPECT_EQ(corank::default_strategy, strategy::automatic);
  EXPECT_STREQ(corank::to_string(strategy::automatic), "automatic");
}

}  // namespace
