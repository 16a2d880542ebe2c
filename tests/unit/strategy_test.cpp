// strategy::automatic: which strategy a merge of each size runs, at and around the
// thresholds, and that an explicit strategy is always kept.

#include <corank/strategy.hpp>

#include <gtest/gtest.h>

#include <limits>

namespace {

using corank::index_t;
using corank::merge_strategy_for;
using corank::strategy;

constexpr index_t keys_max = corank::automatic_naive_merge_max_keys;
constexpr index_t pairs_max = corank::automatic_naive_merge_max_pairs;

TEST(AutomaticStrategy, SmallMergesRunNaive) {
  for (const bool with_values : {false, true}) {
    const index_t most = with_values ? pairs_max : keys_max;
    EXPECT_EQ(merge_strategy_for(strategy::automatic, 0, 0, with_values), strategy::naive);
    EXPECT_EQ(merge_strategy_for(strategy::automatic, 1, 0, with_values), strategy::naive);
    EXPECT_EQ(merge_strategy_for(strategy::automatic, most / 2, most / 2, with_values), strategy::naive);
    EXPECT_EQ(merge_strategy_for(strategy::automatic, most, 0, with_values), strategy::naive);
    EXPECT_EQ(merge_strategy_for(strategy::automatic, 0, most, with_values), strategy::naive);
  }
}

TEST(AutomaticStrategy, LargerMergesRunPartitioned) {
  for (const bool with_values : {false, true}) {
    const index_t most = with_values ? pairs_max : keys_max;
    EXPECT_EQ(merge_strategy_for(strategy::automatic, most / 2 + 1, most / 2, with_values), strategy::partitioned);
    EXPECT_EQ(merge_strategy_for(strategy::automatic, 0, most + 1, with_values), strategy::partitioned);
    EXPECT_EQ(merge_strategy_for(strategy::automatic, index_t(1) << 40, 1, with_values), strategy::partitioned);
    // Sizes whose sum overflows, or negative ones, are not small (the dispatch rejects them).
    constexpr index_t max = std::numeric_limits<index_t>::max();
    EXPECT_EQ(merge_strategy_for(strategy::automatic, max, max, with_values), strategy::partitioned);
    EXPECT_EQ(merge_strategy_for(strategy::automatic, -1, 1, with_values), strategy::partitioned);
  }
  // Pairs switch earlier than keys (measured: naive's value gathers cost more).
  EXPECT_LT(pairs_max, keys_max);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, pairs_max, pairs_max, false), strategy::naive);
  EXPECT_EQ(merge_strategy_for(strategy::automatic, pairs_max, pairs_max, true), strategy::partitioned);
}

TEST(AutomaticStrategy, ExplicitStrategiesAreKept) {
  for (const strategy kind : {strategy::naive, strategy::tiled, strategy::circular, strategy::partitioned}) {
    for (const bool with_values : {false, true}) {
      EXPECT_EQ(merge_strategy_for(kind, 1, 1, with_values), kind);
      EXPECT_EQ(merge_strategy_for(kind, index_t(1) << 40, index_t(1) << 40, with_values), kind);
    }
  }
}

TEST(AutomaticStrategy, IsTheDefault) {
  EXPECT_EQ(corank::default_strategy, strategy::automatic);
  EXPECT_STREQ(corank::to_string(strategy::automatic), "automatic");
}

}  // namespace
