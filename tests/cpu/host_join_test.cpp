// corank::host::sorted_join and sorted_join_count against a reference (each left element's
// equal range in the right column, by std::equal_range): distributions and sizes around a
// piece on one thread and seven, a key with thousands of copies on both sides (millions of
// pairs, which the expansion spreads over the threads), NaNs under nan_last_less, a
// descending comparator, unsorted inputs and the argument checks.

#include <corank/comparators.hpp>
#include <corank/error.hpp>
#include <corank/host/join.hpp>

#include "support/inputs.hpp"
#include "support/join_cases.hpp"
#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

// The count, and the pairs between poisoned guards.
template <class K, class Compare>
void check_join(const std::vector<K>& left, const std::vector<K>& right, Compare comp, unsigned threads) {
  const join_pairs expected = reference_join(left, right, comp);
  const index_t pairs = index_t(expected.left.size());
  ASSERT_EQ(corank::host::sorted_join_count(left.begin(), left.end(), right.begin(), right.end(), comp, threads),
            pairs);
  std::vector<index_t> l(expected.left.size() + 2 * guard_elements, poison_value<index_t>());
  std::vector<index_t> r(l.size(), poison_value<index_t>());
  const auto ends = corank::host::sorted_join(left.begin(), left.end(), right.begin(), right.end(),
                                              l.data() + guard_elements, r.data() + guard_elements, comp, threads);
  EXPECT_EQ(ends.first, l.data() + guard_elements + pairs);
  EXPECT_EQ(ends.second, r.data() + guard_elements + pairs);
  EXPECT_TRUE(guards_intact(l, guard_elements, expected.left.size()));
  EXPECT_TRUE(guards_intact(r, guard_elements, expected.right.size()));
  EXPECT_TRUE(equal_bits(expected.left, l, guard_elements)) << "left positions";
  EXPECT_TRUE(equal_bits(expected.right, r, guard_elements)) << "right positions";
}

template <class K>
class HostJoin : public ::testing::Test {};
using join_key_types = ::testing::Types<std::int32_t, std::uint64_t, double, opaque_key>;
TYPED_TEST_SUITE(HostJoin, join_key_types);

TYPED_TEST(HostJoin, DistributionsAndSizes) {
  using K = TypeParam;
  using compare = typename key_traits<K>::compare;
  std::mt19937_64 rng = make_rng();
  const std::size_t edges[] = {0, 1, 2047, 2049, std::size_t(rng() % 5000)};
  for (distribution d : all_distributions) {
    if (d == distribution::all_equal) continue;  // below, at sizes whose products stay small
    for (std::size_t m : edges) {
      for (std::size_t n : edges) {
        // Runs of a few keys: long_runs' runs ~3 * 64 long make pairs without a quadratic blowup.
        const sorted_inputs<K> in = make_inputs<K>(d, m, n, 64, rng);
        for (unsigned threads : {1u, 7u}) {
          SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " threads " +
                       std::to_string(threads));
          check_join(in.a, in.b, compare{}, threads);
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
  }
}

// Enough to start seven threads (2^15 path positions each), with matches across pieces.
TYPED_TEST(HostJoin, SevenThreads) {
  using K = TypeParam;
  using compare = typename key_traits<K>::compare;
  std::mt19937_64 rng = make_rng();
  for (distribution d : {distribution::uniform, distribution::interleaved, distribution::long_runs}) {
    const sorted_inputs<K> in = make_inputs<K>(d, 200000 + rng() % 100000, 150000 + rng() % 100000, 16, rng);
    SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()));
    check_join(in.a, in.b, compare{}, 7);
    if (::testing::Test::HasFailure()) return;
  }
}

// One key 3000 times on the left and 2000 on the right amid others: six million pairs of
// one key, spread over the threads by the expansion.
TEST(HostJoinShapes, OneKeyWithMillionsOfPairs) {
  std::mt19937_64 rng = make_rng();
  auto column = [&](std::size_t lead, std::size_t run, std::size_t trail) {
    std::vector<std::int64_t> out;
    for (std::size_t k = 0; k < lead; ++k) out.push_back(std::int64_t(rng() % 1000));
    out.insert(out.end(), run, 5000);
    for (std::size_t k = 0; k < trail; ++k) out.push_back(6000 + std::int64_t(rng() % 1000));
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<std::int64_t> left = column(40000, 3000, 30000), right = column(20000, 2000, 50000);
  for (unsigned threads : {1u, 7u}) check_join(left, right, corank::less{}, threads);
}

TEST(HostJoinShapes, NaNsMatchUnderNanLastLess) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> left = {-1.0, 0.0, 0.0, 2.0, nan, nan}, right = {0.0, 2.0, 2.0, nan, nan, nan};
  check_join(left, right, corank::nan_last_less{}, 2);
  EXPECT_EQ(corank::host::sorted_join_count(left.begin(), left.end(), right.begin(), right.end(),
                                            corank::nan_last_less{}),
            2 + 2 + 6);
}

TEST(HostJoinShapes, DescendingComparator) {
  std::mt19937_64 rng = make_rng();
  std::vector<int> left(50000), right(40000);
  for (int& x : left) x = int(rng() % 3000);
  for (int& x : right) x = int(rng() % 3000);
  std::sort(left.begin(), left.end(), greater_op{});
  std::sort(right.begin(), right.end(), greater_op{});
  check_join(left, right, greater_op{}, 5);
}

TEST(HostJoinErrors, UnsortedAndBadArguments) {
  std::mt19937_64 rng = make_rng();
  int thrown = 0;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int> left(100000), right(100000);
    for (int& x : left) x = int(rng() % 100);
    for (int& x : right) x = int(rng() % 100);
    std::sort(trial % 2 == 0 ? left.begin() : right.begin(), trial % 2 == 0 ? left.end() : right.end());
    try {
      const index_t pairs = corank::host::sorted_join_count(left.begin(), left.end(), right.begin(), right.end(),
                                                            corank::less{}, 7);
      EXPECT_GE(pairs, 0);
    } catch (const corank::unsorted_input&) {
      ++thrown;
    }
  }
  EXPECT_GT(thrown, 0) << "no unsorted input was found so";
  const std::vector<int> a = {1, 2}, b = {2, 3};
  EXPECT_THROW(corank::host::sorted_join_count(a.end(), a.begin(), b.begin(), b.end()), std::invalid_argument);
  index_t* null = nullptr;
  try {
    corank::host::sorted_join(a.begin(), a.end(), b.begin(), b.end(), null, null);
    ADD_FAILURE() << "null outputs were taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "corank::host::sorted_join: an output is a null pointer with a nonzero size");
  }
  // No pairs: nothing to write, null outputs are fine.
  const std::vector<int> c = {7};
  EXPECT_EQ(corank::host::sorted_join(a.begin(), a.end(), c.begin(), c.end(), null, null).first, null);
}

}  // namespace
