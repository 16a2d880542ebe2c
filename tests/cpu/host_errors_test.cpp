// The CPU backend's checks: host::check_sorted / find_unsorted name the unsorted input and
// index; bad arguments throw std::invalid_argument before anything is written; a comparator's
// exception on a worker thread reaches the caller.

#include <corank/error.hpp>
#include <corank/host/check_sorted.hpp>
#include <corank/host/merge.hpp>
#include <corank/host/set_operations.hpp>

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace corank::test;

std::vector<int> sorted_ints(std::mt19937_64& rng, std::size_t n) {
  std::vector<int> v(n);
  for (int& x : v) x = int(rng() % 1000);
  std::sort(v.begin(), v.end());
  return v;
}

// Makes v[i] < v[i - 1] while v stays sorted elsewhere.
void break_at(std::vector<int>& v, std::size_t i) { v[i] = v[i - 1] - 1; }

TEST(HostFindUnsorted, SortedInputsReturnTheirSize) {
  std::mt19937_64 rng = make_rng();
  for (std::size_t n : {0, 1, 2, 100, 5000}) {
    const std::vector<int> v = sorted_ints(rng, n);
    EXPECT_EQ(corank::host::find_unsorted(v.begin(), v.end()), corank::index_t(n));
  }
  const std::vector<int> equal(1000, 42);
  EXPECT_EQ(corank::host::find_unsorted(equal.begin(), equal.end()), 1000);
}

TEST(HostFindUnsorted, ReturnsTheFirstBreak) {
  std::mt19937_64 rng = make_rng();
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<int> v = sorted_ints(rng, 3000);
    const std::size_t first = 1 + rng() % 2000;
    break_at(v, first);
    break_at(v, first + 1 + rng() % 900);  // a later break must not be reported
    EXPECT_EQ(corank::host::find_unsorted(v.begin(), v.end()), corank::index_t(first));
  }
  const std::vector<int> two{2, 1};
  EXPECT_EQ(corank::host::find_unsorted(two.begin(), two.end()), 1);
}

TEST(HostFindUnsorted, UsesTheComparator) {
  const std::vector<int> descending{9, 7, 7, 3, 1};
  EXPECT_EQ(corank::host::find_unsorted(descending.begin(), descending.end(), greater_op{}), 5);
  EXPECT_EQ(corank::host::find_unsorted(descending.begin(), descending.end()), 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> nans_last{-1.0, 0.0, 2.5, nan, nan};
  EXPECT_EQ(corank::host::find_unsorted(nans_last.begin(), nans_last.end(), corank::nan_last_less{}), 5);
  const std::vector<double> nan_first{nan, 1.0};
  EXPECT_EQ(corank::host::find_unsorted(nan_first.begin(), nan_first.end(), corank::nan_last_less{}), 1);
}

TEST(HostCheckSorted, SortedInputsPass) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> a = sorted_ints(rng, 1000), b = sorted_ints(rng, 700), none;
  EXPECT_NO_THROW(corank::host::check_sorted(a.begin(), a.end(), b.begin(), b.end()));
  EXPECT_NO_THROW(corank::host::check_sorted(none.begin(), none.end(), none.begin(), none.end()));
}

void expect_unsorted(const std::vector<int>& a, const std::vector<int>& b, char input, corank::index_t index) {
  try {
    corank::host::check_sorted(a.begin(), a.end(), b.begin(), b.end());
    ADD_FAILURE() << "expected corank::unsorted_input";
  } catch (const corank::unsorted_input& e) {
    EXPECT_EQ(e.input(), input);
    EXPECT_EQ(e.index(), index);
    const std::string what = e.what();
    EXPECT_NE(what.find(std::string("input ") + input), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(index)), std::string::npos) << what;
  }
}

TEST(HostCheckSorted, NamesTheUnsortedInputAndIndex) {
  std::mt19937_64 rng = make_rng();
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int> a = sorted_ints(rng, 2049), b = sorted_ints(rng, 2048);
    const std::size_t ia = 1 + rng() % 2048, ib = 1 + rng() % 2047;
    std::vector<int> broken_a = a, broken_b = b;
    break_at(broken_a, ia);
    break_at(broken_b, ib);
    expect_unsorted(broken_a, b, 'A', corank::index_t(ia));
    expect_unsorted(a, broken_b, 'B', corank::index_t(ib));
    expect_unsorted(broken_a, broken_b, 'A', corank::index_t(ia));  // A is checked first
  }
}

TEST(HostCheckSorted, UnsortedInputIsAnInvalidArgument) {
  const std::vector<int> a{3, 1}, b{1};
  EXPECT_THROW(corank::host::check_sorted(a.begin(), a.end(), b.begin(), b.end()), std::invalid_argument);
}

TEST(HostCheckSorted, ComparatorOnlyKeys) {
  const std::vector<opaque_key> a{{1, 2}, {1, 3}, {2, 0}}, b{{0, 9}, {1, 0}, {0, 10}};
  try {
    corank::host::check_sorted(a.begin(), a.end(), b.begin(), b.end(), opaque_less{});
    ADD_FAILURE() << "expected corank::unsorted_input";
  } catch (const corank::unsorted_input& e) {
    EXPECT_EQ(e.input(), 'B');
    EXPECT_EQ(e.index(), 2);
  }
}

// Null pointers with nonzero sizes are rejected before any output is written.
TEST(HostArguments, NullPointerWithNonzeroSizeThrows) {
  const std::vector<int> a{1, 2, 3}, b{2, 3};
  std::vector<int> out(5, poison_value<int>());
  const int* null = nullptr;
  auto expect_rejected = [&](auto&& call, const char* which) {
    try {
      call();
      ADD_FAILURE() << which << ": expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("null"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(all_poison(out)) << which;
  };
  expect_rejected([&] { corank::host::merge(null, null + 3, b.data(), b.data() + 2, out.data()); }, "A");
  expect_rejected([&] { corank::host::merge(a.data(), a.data() + 3, null, null + 2, out.data()); }, "B");
  expect_rejected([&] { corank::host::merge(a.data(), a.data() + 3, b.data(), b.data() + 2, static_cast<int*>(nullptr)); },
                  "output");

  const std::vector<int> va{10, 20, 30}, vb{40, 50};
  std::vector<int> values(5, poison_value<int>());
  auto by_key = [&](const int* a_values, const int* b_values, int* values_out) {
    corank::host::merge_by_key(a.data(), a.data() + 3, b.data(), b.data() + 2, a_values, b_values, out.data(),
                               values_out);
  };
  expect_rejected([&] { by_key(nullptr, vb.data(), values.data()); }, "values of A");
  expect_rejected([&] { by_key(va.data(), nullptr, values.data()); }, "values of B");
  expect_rejected([&] { by_key(va.data(), vb.data(), nullptr); }, "value output");
  EXPECT_TRUE(all_poison(values));
}

TEST(HostArguments, NullPointersWithZeroSizesAreEmpty) {
  const int* null = nullptr;
  int* null_out = nullptr;
  EXPECT_EQ(corank::host::merge(null, null, null, null, null_out), null_out);
  const std::vector<int> b{1, 2};
  std::vector<int> out(2, poison_value<int>());
  EXPECT_EQ(corank::host::merge(null, null, b.data(), b.data() + 2, out.data()), out.data() + 2);
  EXPECT_EQ(out, b);
}

TEST(HostArguments, NegativeSizeThrows) {
  const std::vector<int> a{1, 2, 3}, b{2, 3};
  std::vector<int> out(5, poison_value<int>());
  EXPECT_THROW(corank::host::merge(a.data() + 3, a.data(), b.data(), b.data() + 2, out.data()),
               std::invalid_argument);
  EXPECT_TRUE(all_poison(out));
}

// A comparator that throws when it meets `poison`: on whichever thread walks past it.
struct throwing_less {
  int poison;
  bool operator()(int x, int y) const {
    if (x == poison || y == poison) throw std::runtime_error("comparator met the poison key");
    return x < y;
  }
};

TEST(HostThreads, AComparatorsExceptionOnAnyThreadReachesTheCaller) {
  // 8 pieces of 2^15 outputs or more each; the poison key sits in one piece at a time.
  const int n = 1 << 18;
  std::vector<int> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = b[i] = 2 * i;
  std::vector<int> out(2 * n);
  for (int piece = 0; piece < 8; ++piece) {
    SCOPED_TRACE(piece);
    const throwing_less comp{a[std::size_t(piece) * n / 8 + 5]};
    EXPECT_THROW(corank::host::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp, 8),
                 std::runtime_error);
    EXPECT_THROW(corank::host::set_union(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp, 8),
                 std::runtime_error);
  }
}

}  // namespace
