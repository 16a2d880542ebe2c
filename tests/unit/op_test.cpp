// The op concept and merge_op's step rule, relate(), which inputs an op writes nothing for
// alone (the persistent driver skips such tiles), and the comparators (nan_last_less is a
// strict weak order with every NaN last).

#include <corank/comparators.hpp>
#include <corank/detail/thread/action_bits.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/op.hpp>
#include <corank/ops/merge.hpp>
#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

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

// An op whose answers are chosen at run time: [new_key][relation] (plain: [0] only).
template <bool SeesRunStarts>
struct chosen_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  action answers[2][3];
  action operator()(relation r) const { return answers[0][int(r)]; }
  template <bool S = SeesRunStarts, class = std::enable_if_t<S>>
  action operator()(relation r, bool new_key) const {
    return answers[new_key ? 1 : 0][int(r)];
  }
};

// The serial walk's output count over `size` elements of one input (keys 0, 0, 1, 1, ...:
// run starts and repeats), the other empty; -1 where an answer would not consume the element
// (no walk ends).
template <class Op>
int outputs_alone(const Op& op, bool from_b, int size) {
  for (const auto& by_new_key : op.answers) {
    const action act = by_new_key[int(from_b ? relation::b_first : relation::a_first)];
    if (act.step == (from_b ? advance::a : advance::b)) return -1;
  }
  std::vector<int> keys(size), values(size), out(size), out_values(size);
  for (int i = 0; i < size; ++i) keys[i] = i / 2;
  const std::vector<int> none(size + 1, -1);  // the empty side: read only past its end
  using corank::index_t;
  using corank::detail::walk_partition;
  return int(from_b ? walk_partition(op, corank::less{}, none.data(), index_t(0), index_t(0), keys.data(), index_t(0),
                                     index_t(size), none.data(), values.data(), out.data(), out_values.data())
                    : walk_partition(op, corank::less{}, keys.data(), index_t(0), index_t(size), none.data(),
                                     index_t(0), index_t(0), values.data(), none.data(), out.data(),
                                     out_values.data()));
}

// writes_nothing_alone against the walk, for every answer an op may give where one input's
// front is always first (and, run-aware, every pair of answers at run starts and repeats).
template <bool SeesRunStarts>
void expect_writes_nothing_alone_is_the_walk() {
  std::vector<action> all;
  for (auto write : {emit::nothing, emit::a, emit::b, emit::combined}) {
    for (auto step : {advance::a, advance::b, advance::both}) all.push_back({write, step});
  }
  int silent = 0, writing = 0;
  for (bool from_b : {false, true}) {
    const relation front_first = from_b ? relation::b_first : relation::a_first;
    for (action first : all) {
      for (action at_run_start : SeesRunStarts ? all : std::vector<action>{first}) {
        chosen_op<SeesRunStarts> op{};
        op.answers[0][int(front_first)] = first;
        op.answers[1][int(front_first)] = at_run_start;
        for (int size : {1, 2, 5}) {
          const int written = outputs_alone(op, from_b, size);
          if (corank::detail::writes_nothing_alone(op, from_b)) {
            ++silent;
            EXPECT_EQ(written, 0) << from_b << " " << int(first.write) << int(first.step) << " size " << size;
          } else if (written >= 0) {
            // A run-aware op may write only at run starts: then every walk of 2 or more writes.
            ++writing;
            if (!SeesRunStarts || size > 1) {
              EXPECT_NE(written, 0) << from_b << " " << int(first.write) << int(first.step) << " size " << size;
            }
          }
        }
      }
    }
  }
  // Writing nothing and consuming: 2 answers of 12 (run-aware: 2 x 2 pairs), 2 inputs, 3 sizes.
  EXPECT_EQ(silent, (SeesRunStarts ? 4 : 2) * 2 * 3);
  EXPECT_GT(writing, 0);
}

TEST(SilentInputs, WritesNothingAloneWhereTheWalkWritesNothing) {
  expect_writes_nothing_alone_is_the_walk<false>();
  expect_writes_nothing_alone_is_the_walk<true>();
}

// An op like intersection, but whose answers are not constant expressions.
struct runtime_intersection_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  action operator()(relation r) const {
    static const corank::ops::set_intersection_op op;
    return op(r);
  }
};

// An op with state: its answers may change at run time.
struct stateful_intersection_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;
  bool writes_a = false;
  constexpr action operator()(relation r) const {
    return r == relation::a_first && writes_a ? corank::take_a() : corank::ops::set_intersection_op{}(r);
  }
};

TEST(SilentInputs, KnownAtCompileTimeForTheLibrarysOps) {
  using corank::detail::silent_inputs;
  using corank::detail::silent_inputs_v;
  auto expect = [](silent_inputs s, bool a, bool b, const char* op) {
    EXPECT_EQ(s.a, a) << op;
    EXPECT_EQ(s.b, b) << op;
  };
  constexpr silent_inputs intersection = silent_inputs_v<corank::ops::set_intersection_op>;
  constexpr silent_inputs difference = silent_inputs_v<corank::ops::set_difference_op>;
  expect(intersection, true, true, "intersection");
  expect(difference, false, true, "difference");
  expect(silent_inputs_v<corank::ops::set_union_op>, false, false, "union");
  expect(silent_inputs_v<corank::ops::set_symmetric_difference_op>, false, false, "symmetric difference");
  expect(silent_inputs_v<merge_op>, false, false, "merge");
  // Not known at compile time: never skipped, whatever the answers.
  expect(silent_inputs_v<runtime_intersection_op>, false, false, "answers not constant");
  expect(silent_inputs_v<stateful_intersection_op>, false, false, "op with state");
  EXPECT_TRUE(corank::detail::writes_nothing_alone(runtime_intersection_op{}, false));
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
