// walk_partition (the thread-level serial walk), walk_output_range (co-rank both ends,
// walk between), the argument checks, and the CPU backend's output partitioning.

#include <corank/co_rank.hpp>
#include <corank/comparators.hpp>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/host/host_partitions.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/op.hpp>
#include <corank/ops/merge.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace {

using corank::index_t;
using corank::detail::unused;
using corank::detail::walk_partition;

std::vector<int> sorted_random(std::mt19937_64& rng, std::size_t n, int values) {
  std::vector<int> v(n);
  for (int& x : v) x = int(rng() % values);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(WalkPartition, WholeRangeIsStdMerge) {
  std::mt19937_64 rng = corank::test::make_rng();
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int> a = sorted_random(rng, rng() % 40, 8), b = sorted_random(rng, rng() % 40, 8);
    std::vector<int> expected(a.size() + b.size()), out(a.size() + b.size() + 1, -7);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), expected.begin());
    const index_t written = walk_partition(corank::ops::merge_op{}, corank::less{}, a.data(), index_t(0),
                                           index_t(a.size()), b.data(), index_t(0), index_t(b.size()),
                                           unused{}, unused{}, out.data(), unused{});
    ASSERT_EQ(written, index_t(a.size() + b.size()));
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()));
    ASSERT_EQ(out.back(), -7) << "wrote past the end";
  }
}

TEST(WalkPartition, ValuesFollowTheirKeysStably) {
  std::mt19937_64 rng = corank::test::make_rng();
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int> a = sorted_random(rng, rng() % 30, 4), b = sorted_random(rng, rng() % 30, 4);
    std::vector<int> va(a.size()), vb(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) va[i] = int(i);
    for (std::size_t j = 0; j < b.size(); ++j) vb[j] = 1000 + int(j);
    std::vector<std::pair<int, int>> pa, pb, expected(a.size() + b.size());
    for (std::size_t i = 0; i < a.size(); ++i) pa.push_back({a[i], va[i]});
    for (std::size_t j = 0; j < b.size(); ++j) pb.push_back({b[j], vb[j]});
    std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), expected.begin(),
               [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<int> keys(expected.size()), values(expected.size());
    walk_partition(corank::ops::merge_op{}, corank::less{}, a.data(), index_t(0), index_t(a.size()), b.data(),
                   index_t(0), index_t(b.size()), va.data(), vb.data(), keys.data(), values.data());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      ASSERT_EQ(keys[k], expected[k].first) << "k = " << k;
      ASSERT_EQ(values[k], expected[k].second) << "k = " << k;
    }
  }
}

TEST(WalkPartition, PiecesFromCoRankConcatenateToTheMerge) {
  // Any cut of the output range into pieces, each walked from its own co-ranks, writes
  // the merge: the invariant behind every level of the framework.
  std::mt19937_64 rng = corank::test::make_rng();
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<int> a = sorted_random(rng, rng() % 60, 5), b = sorted_random(rng, rng() % 60, 5);
    const index_t m = index_t(a.size()), n = index_t(b.size()), total = m + n;
    std::vector<int> expected(a.size() + b.size()), out(a.size() + b.size(), -1);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), expected.begin());
    index_t begin = 0;
    while (begin < total) {
      const index_t end = std::min(total, begin + 1 + index_t(rng() % 9));
      const index_t i = corank::co_rank(begin, a.data(), m, b.data(), n, corank::less{});
      const index_t i_end = corank::co_rank(end, a.data(), m, b.data(), n, corank::less{});
      const index_t written =
          walk_partition(corank::ops::merge_op{}, corank::less{}, a.data(), i, i_end, b.data(), begin - i,
                         end - i_end, unused{}, unused{}, out.data() + begin, unused{});
      ASSERT_EQ(written, end - begin);
      begin = end;
    }
    ASSERT_EQ(out, expected);
  }
}

TEST(WalkOutputRange, WritesExactlyItsRange) {
  const std::vector<int> a{1, 7, 8, 9, 10}, b{7, 10, 10, 12};
  const std::vector<int> expected{1, 7, 7, 8, 9, 10, 10, 10, 12};
  for (index_t begin = 0; begin <= 9; ++begin) {
    for (index_t end = begin; end <= 9; ++end) {
      std::vector<int> out(9, -1);
      const corank::detail::merge_args<const int*, const int*, unused, unused, int*, unused> args{
          a.data(), 5, b.data(), 4, {}, {}, out.data(), {}};
      corank::detail::walk_output_range(corank::ops::merge_op{}, args, corank::less{}, begin, end);
      for (index_t k = 0; k < 9; ++k) {
        if (k >= begin && k < end) {
          ASSERT_EQ(out[k], expected[k]) << begin << ".." << end << " k = " << k;
        } else {
          ASSERT_EQ(out[k], -1) << begin << ".." << end << " wrote k = " << k;
        }
      }
    }
  }
}

// Sparse-vector addition: union by key with +, on the balanced path.
struct add_union_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  constexpr corank::action operator()(corank::relation r) const {
    if (r == corank::relation::equal) return {corank::emit::combined, corank::advance::both};
    return r == corank::relation::b_first ? corank::take_b() : corank::take_a();
  }
  template <class V>
  V combine(const V& a, const V& b) const {
    return a + b;
  }
};

// Matched keys only, A's value (no combine): emit::nothing steps write nothing.
struct intersect_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  constexpr corank::action operator()(corank::relation r) const {
    if (r == corank::relation::equal) return {corank::emit::combined, corank::advance::both};
    return r == corank::relation::b_first ? corank::skip_b() : corank::skip_a();
  }
};

TEST(WalkPartition, UserOpsCombineAndSkip) {
  const std::vector<int> a{1, 3, 5, 9}, va{10, 30, 50, 90};
  const std::vector<int> b{3, 4, 5, 5}, vb{300, 400, 500, 501};
  std::vector<int> keys(8, -1), values(8, -1);
  index_t written = walk_partition(add_union_op{}, corank::less{}, a.data(), index_t(0), index_t(4), b.data(),
                                   index_t(0), index_t(4), va.data(), vb.data(), keys.data(), values.data());
  ASSERT_EQ(written, 6);
  EXPECT_EQ(keys, (std::vector<int>{1, 3, 4, 5, 5, 9, -1, -1}));
  EXPECT_EQ(values, (std::vector<int>{10, 330, 400, 550, 501, 90, -1, -1}));

  std::fill(keys.begin(), keys.end(), -1);
  std::fill(values.begin(), values.end(), -1);
  written = walk_partition(intersect_op{}, corank::less{}, a.data(), index_t(0), index_t(4), b.data(), index_t(0),
                           index_t(4), va.data(), vb.data(), keys.data(), values.data());
  ASSERT_EQ(written, 2);
  EXPECT_EQ(keys, (std::vector<int>{3, 5, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(values, (std::vector<int>{30, 50, -1, -1, -1, -1, -1, -1}));
}

// A limit (the CPU backend's cap on a writing walk) stops the walk before a write past it.
TEST(WalkPartition, StopsBeforeWritingPastItsLimit) {
  const std::vector<int> a{1, 3, 5, 7}, b{2, 4, 6, 8};
  for (index_t limit : {0, 1, 5, 8}) {
    std::vector<int> out(8, -1), expected{1, 2, 3, 4, 5, 6, 7, 8};
    std::fill(expected.begin() + limit, expected.end(), -1);
    const index_t written =
        walk_partition(corank::ops::merge_op{}, corank::less{}, a.data(), index_t(0), index_t(4), b.data(),
                       index_t(0), index_t(4), unused{}, unused{}, out.data(), unused{}, unused{}, limit);
    EXPECT_EQ(written, limit);
    EXPECT_EQ(out, expected);
  }
}

TEST(MergeArguments, Checks) {
  using args_t = corank::detail::merge_args<const int*, const int*, unused, unused, int*, unused>;
  int x[4] = {};
  EXPECT_EQ(corank::detail::merge_argument_error(args_t{x, 2, x, 2, {}, {}, x, {}}), nullptr);
  EXPECT_EQ(corank::detail::merge_argument_error(args_t{nullptr, 0, nullptr, 0, {}, {}, nullptr, {}}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(args_t{nullptr, 1, x, 2, {}, {}, x, {}}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(args_t{x, 1, nullptr, 2, {}, {}, x, {}}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(args_t{x, 1, x, 2, {}, {}, nullptr, {}}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(args_t{x, -1, x, 2, {}, {}, x, {}}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(
                args_t{x, std::numeric_limits<index_t>::max(), x, 2, {}, {}, x, {}}),
            nullptr);
  using pairs_t = corank::detail::merge_args<const int*, const int*, const int*, const int*, int*, int*>;
  EXPECT_EQ(corank::detail::merge_argument_error(pairs_t{x, 1, x, 1, x, x, x, x}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(pairs_t{x, 1, x, 1, nullptr, x, x, x}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(pairs_t{x, 1, x, 1, x, nullptr, x, x}), nullptr);
  EXPECT_NE(corank::detail::merge_argument_error(pairs_t{x, 1, x, 1, x, x, x, nullptr}), nullptr);
  EXPECT_EQ(corank::detail::merge_argument_error(pairs_t{x, 0, x, 1, nullptr, x, x, x}), nullptr);
}

TEST(HostPartitions, ThreadCount) {
  using corank::detail::host_min_items_per_thread;
  using corank::detail::host_thread_count;
  EXPECT_EQ(host_thread_count(0, 7), 1u);
  EXPECT_EQ(host_thread_count(1000, 7), 1u);  // too little work to start threads
  EXPECT_EQ(host_thread_count(3 * host_min_items_per_thread, 7), 3u);
  EXPECT_EQ(host_thread_count(100 * host_min_items_per_thread, 7), 7u);
  EXPECT_EQ(host_thread_count(100 * host_min_items_per_thread, 1), 1u);
  EXPECT_GE(host_thread_count(index_t(1) << 40, 0), 1u);  // 0: every hardware thread
}

TEST(HostPartitions, PiecesCoverTheOutputExactlyOnce) {
  for (index_t total : {index_t(0), index_t(1), index_t(6), index_t(7), index_t(100), index_t(1000003)}) {
    for (unsigned pieces : {1u, 2u, 3u, 7u}) {
      std::mutex lock;
      std::vector<std::pair<index_t, index_t>> ranges(pieces, {-1, -1});
      corank::detail::for_each_output_piece(total, pieces, [&](unsigned p, index_t begin, index_t end) {
        std::lock_guard<std::mutex> guard(lock);
        ranges[p] = {begin, end};
      });
      index_t expected_begin = 0;
      for (unsigned p = 0; p < pieces; ++p) {
        EXPECT_EQ(ranges[p].first, expected_begin) << "total " << total << " piece " << p;
        const index_t length = ranges[p].second - ranges[p].first;
        EXPECT_TRUE(length == total / pieces || length == total / pieces + 1) << "unequal piece " << length;
        expected_begin = ranges[p].second;
      }
      EXPECT_EQ(expected_begin, total);
    }
  }
}

}  // namespace
