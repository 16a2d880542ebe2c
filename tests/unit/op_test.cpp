// The op concept and merge_op's step rule, relate(), and the comparators (nan_last_less
// is a strict weak order with every NaN last).

#include <corank/comparators.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/op.hpp>
#include <corank/ops/merge.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using corank::action;
using corank::advance;
using corank::emit;
using corank::relation;
using corank::ops::merge_op;

TEST(MergeOp, StepRule) {
  const merge_op op;
  EXPECT_TRUE(op(relation::a_first) == corank::take_a());
  EXPECT_TRUE(op(relation::b_first) == corank::take_b());
  // Merge-path ops never see `equal`, but if shown it they must keep A first.
  EXPECT_TRUE(op(relation::equal) == corank::take_a());
  EXPECT_EQ(op(relation::a_first).write, emit::a);
  EXPECT_EQ(op(relation::a_first).step, advance::a);
  EXPECT_EQ(op(relation::b_first).write, emit::b);
  EXPECT_EQ(op(relation::b_first).step, advance::b);
}

TEST(MergeOp, DeclaresMergePathAndFixedOutputSize) {
  static_assert(merge_op::partition == corank::partitioning::merge_path);
  static_assert(merge_op::output_size_is_input_size);
  static_assert(corank::is_op_v<merge_op>);
  // The rule is usable in constant expressions (it is evaluated in unrolled device loops).
  static_assert(merge_op{}(relation::b_first) == corank::take_b());
  static_assert(merge_op{}(relation::equal) == corank::take_a());
  SUCCEED();
}

TEST(OpConcept, Actions) {
  static_assert(corank::take_a() == action{emit::a, advance::a});
  static_assert(corank::take_b() == action{emit::b, advance::b});
  static_assert(corank::skip_a() == action{emit::nothing, advance::a});
  static_assert(corank::skip_b() == action{emit::nothing, advance::b});
  static_assert(!(corank::take_a() == corank::skip_a()));
  static_assert(!(corank::take_a() == corank::take_b()));
  SUCCEED();
}

// A user's op: union by key, adding the values of matched keys.
struct add_union_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  constexpr action operator()(relation r) const {
    switch (r) {
      case relation::a_first: return corank::take_a();
      case relation::b_first: return corank::take_b();
      case relation::equal: return {emit::combined, advance::both};
    }
    return corank::take_a();
  }
  template <class V>
  V combine(const V& a, const V& b) const {
    return a + b;
  }
};

// Members of the wrong types: not an op.
struct not_an_op {
  static constexpr int partition = 0;
  static constexpr bool output_size_is_input_size = true;
  action operator()(relation) const { return corank::take_a(); }
};

TEST(OpConcept, Recognition) {
  static_assert(corank::is_op_v<add_union_op>);
  static_assert(!corank::is_op_v<not_an_op>);
  static_assert(corank::has_combine<add_union_op, int>::value);
  static_assert(!corank::has_combine<merge_op, int>::value);
  // Without combine, emit::combined writes A's value.
  EXPECT_EQ(corank::combine_values(add_union_op{}, 3, 4), 7);
  EXPECT_EQ(corank::combine_values(merge_op{}, 3, 4), 3);
}

TEST(Relate, MergePathOrdersEquivalentKeysAFirst) {
  corank::less comp;
  using corank::partitioning;
  EXPECT_EQ(corank::detail::relate<partitioning::merge_path>(1, 2, comp), relation::a_first);
  EXPECT_EQ(corank::detail::relate<partitioning::merge_path>(2, 1, comp), relation::b_first);
  EXPECT_EQ(corank::detail::relate<partitioning::merge_path>(2, 2, comp), relation::a_first);
  EXPECT_EQ(corank::detail::relate<partitioning::balanced_path>(1, 2, comp), relation::a_first);
  EXPECT_EQ(corank::detail::relate<partitioning::balanced_path>(2, 1, comp), relation::b_first);
  EXPECT_EQ(corank::detail::relate<partitioning::balanced_path>(2, 2, comp), relation::equal);
}

TEST(Less, MixedTypes) {
  constexpr corank::less less;
  static_assert(less(1, 2) && !less(2, 1) && !less(2, 2));
  static_assert(less(1, 2.5) && !less(2.5, 2));
  EXPECT_TRUE(less(std::int8_t(-1), std::uint8_t(0)) == (std::int8_t(-1) < std::uint8_t(0)));
}

template <class T>
class NanLastLess : public ::testing::Test {};
using float_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NanLastLess, float_types);

template <class T>
std::vector<T> nan_test_values() {
  using L = std::numeric_limits<T>;
  const T neg_nan = -L::quiet_NaN();
  T payload_nan;
  // A NaN with a different payload: every NaN must be equivalent to every other.
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t bits = 0x7fc12345u;
    std::memcpy(&payload_nan, &bits, 4);
  } else {
    const std::uint64_t bits = 0x7ff8000000012345ull;
    std::memcpy(&payload_nan, &bits, 8);
  }
  return {-L::infinity(), L::lowest(), T(-1), -L::denorm_min(), T(-0.0), T(0.0), L::denorm_min(), L::min(),
          T(1), T(1), L::max(), L::infinity(), L::quiet_NaN(), neg_nan, L::signaling_NaN(), payload_nan};
}

TYPED_TEST(NanLastLess, IsAStrictWeakOrder) {
  using T = TypeParam;
  const corank::nan_last_less less;
  const std::vector<T> v = nan_test_values<T>();
  auto equivalent = [&](T x, T y) { return !less(x, y) && !less(y, x); };
  for (T x : v) {
    EXPECT_FALSE(less(x, x)) << "irreflexive: " << x;
    for (T y : v) {
      if (less(x, y)) EXPECT_FALSE(less(y, x)) << "asymmetric: " << x << " " << y;
      for (T z : v) {
        if (less(x, y) && less(y, z)) EXPECT_TRUE(less(x, z)) << "transitive: " << x << " " << y << " " << z;
        if (equivalent(x, y) && equivalent(y, z))
          EXPECT_TRUE(equivalent(x, z)) << "equivalence transitive: " << x << " " << y << " " << z;
      }
    }
  }
}

TYPED_TEST(NanLastLess, NansAreEquivalentAndLast) {
  using T = TypeParam;
  const corank::nan_last_less less;
  const std::vector<T> v = nan_test_values<T>();
  for (T x : v) {
    for (T y : v) {
      const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
      if (x_nan && y_nan) {
        EXPECT_FALSE(less(x, y));
      } else if (x_nan) {
        EXPECT_FALSE(less(x, y)) << "NaN before " << y;
        EXPECT_TRUE(less(y, x)) << y << " not before NaN";
      } else if (!y_nan) {
        EXPECT_EQ(less(x, y), x < y) << x << " " << y;  // numbers keep their order
      }
    }
  }
  // -0.0 and 0.0 are equivalent, as with <.
  EXPECT_FALSE(less(T(-0.0), T(0.0)));
  EXPECT_FALSE(less(T(0.0), T(-0.0)));
}

TYPED_TEST(NanLastLess, SortsNansLast) {
  using T = TypeParam;
  std::vector<T> v = nan_test_values<T>();
  std::reverse(v.begin(), v.end());
  std::stable_sort(v.begin(), v.end(), corank::nan_last_less{});
  std::size_t first_nan = 0;
  while (first_nan < v.size() && !std::isnan(v[first_nan])) ++first_nan;
  EXPECT_EQ(first_nan, v.size() - 4);
  for (std::size_t i = first_nan; i < v.size(); ++i) EXPECT_TRUE(std::isnan(v[i]));
  EXPECT_TRUE(std::is_sorted(v.begin(), v.begin() + first_nan));
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), corank::nan_last_less{}));
}

}  // namespace
