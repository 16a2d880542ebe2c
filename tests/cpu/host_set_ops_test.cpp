// corank::host set operations (set_union, set_intersection, set_difference,
// set_symmetric_difference, their _by_key and _count forms, and
// set_intersection_by_key_paired) against std::set_*: every key type, shapes with many
// and with no matches, sizes around 2048 on one thread and on seven, large inputs where
// seven threads really run, a key repeated 100k / 70k times, m:n from 1:1 to 1:10^6, and
// the argument checks.

#include <corank/error.hpp>
#include <corank/host/check_sorted.hpp>
#include <corank/host/set_operations.hpp>

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/set_inputs.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

// The named runner objects of corank::host, chosen by `op`.
template <class... Args>
auto host_keys(set_op op, Args... args) {
  switch (op) {
    case set_op::set_union: return corank::host::set_union(args...);
    case set_op::set_intersection: return corank::host::set_intersection(args...);
    case set_op::set_difference: return corank::host::set_difference(args...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::host::set_symmetric_difference(args...);
}

template <class... Args>
auto host_by_key(set_op op, Args... args) {
  switch (op) {
    case set_op::set_union: return corank::host::set_union_by_key(args...);
    case set_op::set_intersection: return corank::host::set_intersection_by_key(args...);
    case set_op::set_difference: return corank::host::set_difference_by_key(args...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::host::set_symmetric_difference_by_key(args...);
}

template <class... Args>
index_t host_count(set_op op, Args... args) {
  switch (op) {
    case set_op::set_union: return corank::host::set_union_count(args...);
    case set_op::set_intersection: return corank::host::set_intersection_count(args...);
    case set_op::set_difference: return corank::host::set_difference_count(args...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::host::set_symmetric_difference_count(args...);
}

// Sizes around 2048 (like the merge tests), plus a random one.
std::vector<size_pair> host_sizes(std::mt19937_64& rng) {
  const std::size_t edges[] = {0, 1, 2047, 2048, 2049, std::size_t(rng() % 10000)};
  std::vector<size_pair> out;
  for (std::size_t m : edges)
    for (std::size_t n : edges) out.push_back({m, n});
  return out;
}

// host_thread_count gives a thread per 32768 path positions: 7 threads from 229376 on.
std::vector<size_pair> threaded_sizes(std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> size(150000, 450000);
  return {{150000, 150000}, {size(rng), size(rng)}, {300000, 1}, {0, 250000}};
}

constexpr std::size_t long_run_tile = 2048;
constexpr unsigned thread_counts[] = {1, 7};

// Keys and count of `op` (vector iterators); the output has room for m + n, and all of
// it past the expected outputs must still be poison.
template <class K>
void check_keys(set_op op, const sorted_inputs<K>& in, unsigned threads) {
  using compare = typename key_traits<K>::compare;
  SCOPED_TRACE(to_string(op));
  const std::vector<K> expected = std_set_op(op, in.a, in.b, compare{});
  std::vector<K> out(in.a.size() + in.b.size() + 2 * guard_elements, poison_value<K>());
  const auto first = out.begin() + guard_elements;
  const auto end = host_keys(op, in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), first, compare{}, threads);
  EXPECT_EQ(end - first, std::ptrdiff_t(expected.size()));
  EXPECT_TRUE(exact_output(expected, out, guard_elements));
  EXPECT_EQ(host_count(op, in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), compare{}, threads),
            index_t(expected.size()));
}

// Keys and (source << 32 | index) payloads (raw pointers): which copies are written is
// checked exactly.
template <class K>
void check_by_key(set_op op, const sorted_inputs<K>& in, unsigned threads) {
  using compare = typename key_traits<K>::compare;
  SCOPED_TRACE(std::string(to_string(op)) + "_by_key");
  const std::size_t m = in.a.size(), n = in.b.size();
  const std::vector<std::uint64_t> va = payloads(0, m), vb = payloads(1, n);
  const auto expected = reference_set_op_by_key(op, in.a, va, in.b, vb, compare{});
  std::vector<K> keys(m + n + 2 * guard_elements, poison_value<K>());
  std::vector<std::uint64_t> values(m + n + 2 * guard_elements, poison_value<std::uint64_t>());
  const auto ends = host_by_key(op, in.a.data(), in.a.data() + m, in.b.data(), in.b.data() + n, va.data(),
                                vb.data(), keys.data() + guard_elements, values.data() + guard_elements,
                                compare{}, threads);
  EXPECT_EQ(ends.first, keys.data() + guard_elements + expected.keys.size());
  EXPECT_EQ(ends.second, values.data() + guard_elements + expected.keys.size());
  EXPECT_TRUE(exact_output(expected.keys, keys, guard_elements));
  EXPECT_TRUE(exact_output(expected.values, values, guard_elements)) << "the wrong copies were written";
}

template <class K>
void check_paired(const sorted_inputs<K>& in, unsigned threads) {
  using compare = typename key_traits<K>::compare;
  SCOPED_TRACE("set_intersection_by_key_paired");
  const std::size_t m = in.a.size(), n = in.b.size();
  const std::vector<std::uint64_t> va = payloads(0, m), vb = payloads(1, n);
  const auto expected = reference_intersection_paired(in.a, va, in.b, vb, compare{});
  // The reference is written by hand: cross-check it against std::set_intersection.
  const auto by_key = reference_set_op_by_key(set_op::set_intersection, in.a, va, in.b, vb, compare{});
  ASSERT_TRUE(equal_bits(by_key.values, expected.values));
  std::vector<K> keys(m + n + 2 * guard_elements, poison_value<K>());
  std::vector<std::uint64_t> values(m + n + 2 * guard_elements, poison_value<std::uint64_t>());
  std::vector<std::uint64_t> b_values(m + n + 2 * guard_elements, poison_value<std::uint64_t>());
  const auto ends = corank::host::set_intersection_by_key_paired(
      in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), va.begin(), vb.begin(), keys.begin() + guard_elements,
      values.begin() + guard_elements, b_values.begin() + guard_elements, compare{}, threads);
  const std::ptrdiff_t count = std::ptrdiff_t(expected.keys.size());
  EXPECT_EQ(std::get<0>(ends) - (keys.begin() + guard_elements), count);
  EXPECT_EQ(std::get<1>(ends) - (values.begin() + guard_elements), count);
  EXPECT_EQ(std::get<2>(ends) - (b_values.begin() + guard_elements), count);
  EXPECT_TRUE(exact_output(expected.keys, keys, guard_elements));
  EXPECT_TRUE(exact_output(expected.values, values, guard_elements));
  EXPECT_TRUE(exact_output(expected.b_values, b_values, guard_elements)) << "not the matched copy of B";
}

template <class K>
void check_all_forms(const sorted_inputs<K>& in, unsigned threads) {
  for (set_op op : all_set_ops) {
    check_keys(op, in, threads);
    check_by_key(op, in, threads);
  }
  check_paired(in, threads);
}

template <class K>
class HostSetOps : public ::testing::Test {};
TYPED_TEST_SUITE(HostSetOps, all_key_types);

TYPED_TEST(HostSetOps, KeysAndCountsMatchStd) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (set_distribution d : all_set_distributions) {
    for (const size_pair& s : host_sizes(rng)) {
      if (!applies(d, s.m, s.n)) continue;
      const sorted_inputs<K> in = make_set_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      for (unsigned threads : thread_counts) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) +
                     " threads=" + std::to_string(threads));
        for (set_op op : all_set_ops) check_keys(op, in, threads);
        if (this->HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(HostSetOps, ByKeyAndPairedPickTheRightCopies) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (set_distribution d : all_set_distributions) {
    for (const size_pair& s : host_sizes(rng)) {
      if (!applies(d, s.m, s.n)) continue;
      const sorted_inputs<K> in = make_set_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      for (unsigned threads : thread_counts) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) +
                     " threads=" + std::to_string(threads));
        for (set_op op : all_set_ops) check_by_key(op, in, threads);
        check_paired(in, threads);
        if (this->HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(HostSetOps, KeysOnManyThreads) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (set_distribution d : all_set_distributions) {
    for (const size_pair& s : threaded_sizes(rng)) {
      if (!applies(d, s.m, s.n)) continue;
      const sorted_inputs<K> in = make_set_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      for (unsigned threads : {7u, 0u}) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) +
                     " threads=" + std::to_string(threads));
        for (set_op op : all_set_ops) check_keys(op, in, threads);
        if (this->HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(HostSetOps, ByKeyAndPairedOnManyThreads) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  for (set_distribution d : all_set_distributions) {
    for (const size_pair& s : threaded_sizes(rng)) {
      if (!applies(d, s.m, s.n)) continue;
      const sorted_inputs<K> in = make_set_inputs<K>(d, s.m, s.n, long_run_tile, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " threads=7");
      for (set_op op : all_set_ops) check_by_key(op, in, 7);
      check_paired(in, 7);
      if (this->HasFailure()) return;
    }
  }
}

// One key 100000 times in A and 70000 times in B, between 30000 other keys on each side:
// the pairs of that key cross every thread boundary.
TYPED_TEST(HostSetOps, OneKeyRepeatedAcrossThreads) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  sorted_inputs<K> in;
  in.a = with_one_key_run<K>(20000, 100000, 10000, rng);
  in.b = with_one_key_run<K>(5000, 70000, 25000, rng);
  for (unsigned threads : {1u, 7u}) {
    SCOPED_TRACE(key_name<K>() + " 100000 and 70000 copies, threads=" + std::to_string(threads));
    check_all_forms(in, threads);
  }
  // Nothing but the key: only its copies decide.
  in.a.assign(100000, key_traits<K>::from_index(7));
  in.b.assign(70000, key_traits<K>::from_index(7));
  for (unsigned threads : {1u, 7u}) {
    SCOPED_TRACE(key_name<K>() + " all equal 100000 : 70000, threads=" + std::to_string(threads));
    check_all_forms(in, threads);
    std::swap(in.a, in.b);
    check_all_forms(in, threads);
    std::swap(in.a, in.b);
  }
}

// m:n from 1:1 to 1:10^6 both ways, with few matches (uniform) and many (few_keys).
TYPED_TEST(HostSetOps, SizeRatios) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  constexpr std::size_t big = 1000000;
  for (std::size_t ratio : {1, 10, 100, 1000, 10000, 100000, 1000000}) {
    for (set_distribution d : {set_distribution::uniform, set_distribution::few_keys}) {
      for (bool a_small : {true, false}) {
        const std::size_t small = big / ratio;
        const sorted_inputs<K> in =
            make_set_inputs<K>(d, a_small ? small : big, a_small ? big : small, long_run_tile, rng);
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " threads=7");
        for (set_op op : all_set_ops) check_keys(op, in, 7);
        if (ratio == 1000 || ratio == 1000000) {
          for (set_op op : all_set_ops) check_by_key(op, in, 7);
          check_paired(in, 7);
        }
        if (this->HasFailure()) return;
      }
    }
  }
}

TEST(HostSetOpsExtra, DescendingComparator) {
  std::mt19937_64 rng = make_rng();
  std::vector<int> a(260000), b(190000);
  for (int& x : a) x = int(rng() % 20000);
  for (int& x : b) x = int(rng() % 20000);
  std::sort(a.begin(), a.end(), greater_op{});
  std::sort(b.begin(), b.end(), greater_op{});
  const std::vector<std::uint64_t> va = payloads(0, a.size()), vb = payloads(1, b.size());
  for (set_op op : all_set_ops) {
    SCOPED_TRACE(to_string(op));
    const std::vector<int> expected = std_set_op(op, a, b, greater_op{});
    std::vector<int> out(a.size() + b.size(), poison_value<int>());
    const auto end = host_keys(op, a.begin(), a.end(), b.begin(), b.end(), out.begin(), greater_op{}, 7u);
    EXPECT_EQ(end - out.begin(), std::ptrdiff_t(expected.size()));
    EXPECT_TRUE(exact_output(expected, out, 0));
    EXPECT_EQ(host_count(op, a.begin(), a.end(), b.begin(), b.end(), greater_op{}, 7u), index_t(expected.size()));

    const auto pairs = reference_set_op_by_key(op, a, va, b, vb, greater_op{});
    std::vector<int> keys(a.size() + b.size(), poison_value<int>());
    std::vector<std::uint64_t> values(a.size() + b.size(), poison_value<std::uint64_t>());
    host_by_key(op, a.begin(), a.end(), b.begin(), b.end(), va.begin(), vb.begin(), keys.begin(), values.begin(),
                greater_op{}, 7u);
    EXPECT_TRUE(exact_output(pairs.keys, keys, 0));
    EXPECT_TRUE(exact_output(pairs.values, values, 0));
  }
}

// ---------------------------------------------------------------------------------------
// Arguments: a null pointer with a nonzero size, or a negative size, throws
// std::invalid_argument before anything is written.

struct small_set_inputs {
  std::vector<int> a{1, 2, 2, 3}, b{2, 3, 4};
  std::vector<std::uint64_t> va = payloads(0, 4), vb = payloads(1, 3);
  std::vector<int> keys = std::vector<int>(7, poison_value<int>());
  std::vector<std::uint64_t> values = std::vector<std::uint64_t>(7, poison_value<std::uint64_t>());
  std::vector<std::uint64_t> b_values = std::vector<std::uint64_t>(7, poison_value<std::uint64_t>());

  ::testing::AssertionResult untouched() const {
    if (auto r = all_poison(keys); !r) return r << " (keys)";
    if (auto r = all_poison(values); !r) return r << " (values)";
    if (auto r = all_poison(b_values); !r) return r << " (B values)";
    return ::testing::AssertionSuccess();
  }
};

template <class Call>
void expect_invalid_argument(Call call, const small_set_inputs& s, const std::string& which) {
  SCOPED_TRACE(which);
  try {
    call();
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("corank::host::"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(s.untouched());
}

TEST(HostSetOpsArguments, NullPointerWithNonzeroSizeThrowsAndWritesNothing) {
  small_set_inputs s;
  const int* null = nullptr;
  const std::uint64_t* null_values = nullptr;
  const int* a = s.a.data();
  const int* b = s.b.data();
  const std::uint64_t* va = s.va.data();
  const std::uint64_t* vb = s.vb.data();
  int* keys = s.keys.data();
  std::uint64_t* values = s.values.data();
  for (set_op op : all_set_ops) {
    const std::string name = to_string(op);
    expect_invalid_argument([&] { host_keys(op, null, null + 4, b, b + 3, keys); }, s, name + " null A");
    expect_invalid_argument([&] { host_keys(op, a, a + 4, null, null + 3, keys); }, s, name + " null B");
    expect_invalid_argument([&] { host_keys(op, a, a + 4, b, b + 3, static_cast<int*>(nullptr)); }, s,
                            name + " null output");
    expect_invalid_argument([&] { host_count(op, null, null + 4, b, b + 3); }, s, name + "_count null A");
    expect_invalid_argument([&] { host_count(op, a, a + 4, null, null + 3); }, s, name + "_count null B");
    expect_invalid_argument([&] { host_by_key(op, null, null + 4, b, b + 3, va, vb, keys, values); }, s,
                            name + "_by_key null A");
    expect_invalid_argument([&] { host_by_key(op, a, a + 4, b, b + 3, null_values, vb, keys, values); }, s,
                            name + "_by_key null A values");
    expect_invalid_argument([&] { host_by_key(op, a, a + 4, b, b + 3, va, null_values, keys, values); }, s,
                            name + "_by_key null B values");
    expect_invalid_argument(
        [&] { host_by_key(op, a, a + 4, b, b + 3, va, vb, static_cast<int*>(nullptr), values); }, s,
        name + "_by_key null key output");
    expect_invalid_argument(
        [&] { host_by_key(op, a, a + 4, b, b + 3, va, vb, keys, static_cast<std::uint64_t*>(nullptr)); }, s,
        name + "_by_key null value output");
    // Negative sizes.
    expect_invalid_argument([&] { host_keys(op, a + 4, a, b, b + 3, keys); }, s, name + " negative size");
    expect_invalid_argument([&] { host_count(op, a, a + 4, b + 3, b); }, s, name + "_count negative size");
  }
  auto paired = [&](const int* a_keys, const std::uint64_t* a_values, const std::uint64_t* b_values_in,
                    std::uint64_t* values_out, std::uint64_t* b_values_out) {
    corank::host::set_intersection_by_key_paired(a_keys, a_keys + 4, b, b + 3, a_values, b_values_in, keys,
                                                 values_out, b_values_out);
  };
  expect_invalid_argument([&] { paired(null, va, vb, values, s.b_values.data()); }, s, "paired null A");
  expect_invalid_argument([&] { paired(a, null_values, vb, values, s.b_values.data()); }, s, "paired null A values");
  expect_invalid_argument([&] { paired(a, va, null_values, values, s.b_values.data()); }, s, "paired null B values");
  expect_invalid_argument([&] { paired(a, va, vb, nullptr, s.b_values.data()); }, s, "paired null value output");
  expect_invalid_argument([&] { paired(a, va, vb, values, nullptr); }, s, "paired null B value output");
}

TEST(HostSetOpsArguments, NullPointersWithZeroSizesAreEmpty) {
  const int* null = nullptr;
  int* null_out = nullptr;
  const std::vector<int> b{1, 2, 2};
  for (set_op op : all_set_ops) {
    SCOPED_TRACE(to_string(op));
    EXPECT_EQ(host_keys(op, null, null, null, null, null_out), null_out);
    EXPECT_EQ(host_count(op, null, null, null, null), 0);
    std::vector<int> out(3, poison_value<int>());
    const int* end = host_keys(op, null, null, b.data(), b.data() + 3, out.data());
    const std::vector<int> expected = std_set_op(op, std::vector<int>{}, b, corank::less{});
    EXPECT_EQ(end, out.data() + expected.size());
    EXPECT_TRUE(exact_output(expected, out, 0));
  }
  const std::uint64_t* null_values = nullptr;
  std::uint64_t* null_values_out = nullptr;
  const auto ends = corank::host::set_intersection_by_key_paired(null, null, null, null, null_values, null_values,
                                                                 null_out, null_values_out, null_values_out);
  EXPECT_EQ(std::get<0>(ends), null_out);
  EXPECT_EQ(std::get<2>(ends), null_values_out);
}

// check_sorted on a set operation's inputs: runs of duplicates are sorted, a descent is not.
TEST(HostSetOpsArguments, CheckSortedNamesTheUnsortedInputAndIndex) {
  std::mt19937_64 rng = make_rng();
  auto sorted_with_duplicates = [&](std::size_t n) {
    std::vector<int> v(n);
    for (int& x : v) x = 1000 + int(rng() % (n / 4 + 1));
    std::sort(v.begin(), v.end());
    return v;
  };
  const std::vector<int> a = sorted_with_duplicates(100000), b = sorted_with_duplicates(50003);
  EXPECT_NO_THROW(corank::host::check_sorted(a.begin(), a.end(), b.begin(), b.end()));
  for (std::size_t at : {std::size_t(1), std::size_t(2048), std::size_t(33333), std::size_t(50000)}) {
    SCOPED_TRACE("descent at " + std::to_string(at));
    std::vector<int> broken_a = a, broken_b = b;
    broken_a[at] = broken_a[at - 1] - 1;
    broken_b[at] = broken_b[at - 1] - 1;
    using input_pair = std::tuple<const std::vector<int>*, const std::vector<int>*, char>;
    for (const auto& [x, y, input] : {input_pair{&broken_a, &b, 'A'}, input_pair{&a, &broken_b, 'B'},
                                      input_pair{&broken_a, &broken_b, 'A'}}) {
      try {
        corank::host::check_sorted(x->begin(), x->end(), y->begin(), y->end());
        ADD_FAILURE() << "expected corank::unsorted_input";
      } catch (const corank::unsorted_input& e) {
        EXPECT_EQ(e.input(), input);
        EXPECT_EQ(e.index(), index_t(at));
      }
    }
  }
}

}  // namespace
