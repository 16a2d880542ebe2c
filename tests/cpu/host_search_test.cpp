// corank::host search operations (sorted_lower_bound, sorted_upper_bound, sorted_equal_count,
// sorted_contains, sorted_not_contains) against std::lower_bound and std::upper_bound per
// query: every key type and distribution, sizes around 2048 on one thread and on seven,
// inputs large enough that seven threads run (pieces of 2^15 path positions) with runs of
// equal keys across the pieces, NaNs under nan_last_less, a descending comparator, output
// types other than index_t, unsorted inputs, and the argument checks.

#include <corank/comparators.hpp>
#include <corank/error.hpp>
#include <corank/host/search.hpp>

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/search_cases.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

// The named runner of `f`, called with args.
template <class... Args>
auto host_search(search_form f, Args... args) {
  switch (f) {
    case search_form::lower_bound: return corank::host::sorted_lower_bound(args...);
    case search_form::upper_bound: return corank::host::sorted_upper_bound(args...);
    case search_form::equal_count: return corank::host::sorted_equal_count(args...);
    case search_form::contains: return corank::host::sorted_contains(args...);
    case search_form::not_contains: break;
  }
  return corank::host::sorted_not_contains(args...);
}

// Every form on (haystack, queries) into a guarded output of T; flags into bytes.
template <class T, class K, class Compare>
void check_forms(const std::vector<K>& haystack, const std::vector<K>& queries, Compare comp, unsigned threads) {
  for (search_form f : all_search_forms) {
    SCOPED_TRACE(to_string(f));
    const std::vector<index_t> expected = reference_search(f, haystack, queries, comp);
    std::vector<T> out(queries.size() + 2 * guard_elements, poison_value<T>());
    T* first = out.data() + guard_elements;
    T* end = host_search(f, haystack.begin(), haystack.end(), queries.begin(), queries.end(), first, comp, threads);
    EXPECT_EQ(end, first + queries.size());
    EXPECT_TRUE(search_output_is(expected, out));
  }
}

template <class K>
class HostSearch : public ::testing::Test {};
TYPED_TEST_SUITE(HostSearch, all_key_types);

constexpr unsigned thread_counts[] = {1, 7};

TYPED_TEST(HostSearch, EveryDistributionAndSizeAroundATile) {
  using K = TypeParam;
  using compare = typename key_traits<K>::compare;
  std::mt19937_64 rng = make_rng();
  const std::size_t edges[] = {0, 1, 2047, 2048, 2049, std::size_t(rng() % 10000)};
  for (distribution d : all_distributions) {
    for (std::size_t m : edges) {
      for (std::size_t n : edges) {
        const sorted_inputs<K> in = make_inputs<K>(d, m, n, 2048, rng);
        for (unsigned threads : thread_counts) {
          SCOPED_TRACE(std::string(to_string(d)) + " m=" + std::to_string(in.a.size()) + " n=" +
                       std::to_string(in.b.size()) + " threads=" + std::to_string(threads));
          check_forms<std::int64_t>(in.b, in.a, compare{}, threads);
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
  }
}

// host_thread_count gives a thread per 2^15 path positions: seven threads from 229376 on.
// Runs of equal keys three pieces long make queries whose bounds lie in other pieces.
TYPED_TEST(HostSearch, SevenThreadsAndRunsAcrossPieces) {
  using K = TypeParam;
  using compare = typename key_traits<K>::compare;
  std::mt19937_64 rng = make_rng();
  std::uniform_int_distribution<std::size_t> size(150000, 450000);
  const std::size_t piece = std::size_t(1) << 15;
  for (distribution d : {distribution::uniform, distribution::long_runs, distribution::all_equal,
                         distribution::interleaved, distribution::a_tiny, distribution::b_tiny}) {
    const std::size_t m = size(rng), n = size(rng);
    const sorted_inputs<K> in = make_inputs<K>(d, m, n, piece, rng);
    SCOPED_TRACE(std::string(to_string(d)) + " m=" + std::to_string(in.a.size()) + " n=" + std::to_string(in.b.size()));
    check_forms<std::int64_t>(in.b, in.a, compare{}, 7);
    if (::testing::Test::HasFailure()) return;
  }
}

// Few distinct keys, drawn so that every query key also occurs and does not occur in the
// haystack somewhere: many threads, many equal runs, each query's count varies.
TEST(HostSearchShapes, ManyThreadsFewKeys) {
  std::mt19937_64 rng = make_rng();
  for (int trial = 0; trial < 6; ++trial) {
    const int keys = 1 + int(rng() % 50);
    std::vector<int> haystack(300000 + rng() % 100000), queries(250000 + rng() % 100000);
    for (int& x : haystack) x = 2 * int(rng() % keys);
    for (int& x : queries) x = int(rng() % (2 * keys + 1)) - 1;
    std::sort(haystack.begin(), haystack.end());
    std::sort(queries.begin(), queries.end());
    SCOPED_TRACE("keys=" + std::to_string(keys));
    check_forms<std::int64_t>(haystack, queries, corank::less{}, 1 + unsigned(rng() % 16));
    if (::testing::Test::HasFailure()) return;
  }
}

// NaNs last, all equivalent (nan_last_less): NumPy's searchsorted finds them so.
TEST(HostSearchShapes, NaNsUnderNanLastLess) {
  std::mt19937_64 rng = make_rng();
  for (std::size_t nans_h : {0, 1, 5000}) {
    for (std::size_t nans_q : {0, 1, 70000}) {
      const sorted_inputs<double> in = inputs_with_nans(100000, 150000, nans_h, nans_q, rng);
      SCOPED_TRACE("NaNs: " + std::to_string(nans_h) + " in the haystack, " + std::to_string(nans_q) + " queries");
      check_forms<std::int64_t>(in.b, in.a, corank::nan_last_less{}, 7);
    }
  }
}

TEST(HostSearchShapes, DescendingComparator) {
  std::mt19937_64 rng = make_rng();
  std::vector<std::int64_t> haystack(90000), queries(120000);
  for (auto& x : haystack) x = std::int64_t(rng() % 5000);
  for (auto& x : queries) x = std::int64_t(rng() % 6000) - 500;
  std::sort(haystack.begin(), haystack.end(), greater_op{});
  std::sort(queries.begin(), queries.end(), greater_op{});
  check_forms<std::int64_t>(haystack, queries, greater_op{}, 5);
}

// Positions converted to the output's type; flags into bool.
TEST(HostSearchShapes, OutputTypes) {
  std::mt19937_64 rng = make_rng();
  std::vector<std::uint32_t> haystack(70000), queries(80000);
  for (auto& x : haystack) x = std::uint32_t(rng() % 100000);
  for (auto& x : queries) x = std::uint32_t(rng() % 100000);
  std::sort(haystack.begin(), haystack.end());
  std::sort(queries.begin(), queries.end());
  check_forms<std::int32_t>(haystack, queries, corank::less{}, 3);
  check_forms<double>(haystack, queries, corank::less{}, 3);
  const std::vector<index_t> expected = reference_search(search_form::contains, haystack, queries, corank::less{});
  std::unique_ptr<bool[]> flags(new bool[queries.size()]);
  corank::host::sorted_contains(haystack.begin(), haystack.end(), queries.begin(), queries.end(), flags.get());
  for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_EQ(flags[i], expected[i] != 0) << "query " << i;
}

// Unsorted inputs: the output's bound (m) holds, and where the pieces' splits go backwards
// the call throws corank::unsorted_input before writing.
TEST(HostSearchShapes, UnsortedInputsStayInTheOutput) {
  std::mt19937_64 rng = make_rng();
  int thrown = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<int> haystack(100000 + rng() % 200000), queries(100000 + rng() % 200000);
    for (int& x : haystack) x = int(rng() % 1000);
    for (int& x : queries) x = int(rng() % 1000);
    if (trial % 3 != 0) std::sort(haystack.begin(), haystack.end());
    if (trial % 3 != 1) std::sort(queries.begin(), queries.end());
    if (trial % 3 == 2) std::reverse(haystack.begin(), haystack.end());
    for (search_form f : all_search_forms) {
      std::vector<std::int64_t> out(queries.size() + 2 * guard_elements, poison_value<std::int64_t>());
      try {
        host_search(f, haystack.begin(), haystack.end(), queries.begin(), queries.end(), out.data() + guard_elements,
                    corank::less{}, 7);
      } catch (const corank::unsorted_input&) {
        ++thrown;
      }
      for (std::size_t k = 0; k < guard_elements; ++k) {
        ASSERT_TRUE(same_bits(out[k], poison_value<std::int64_t>())) << to_string(f) << " wrote before the output";
        ASSERT_TRUE(same_bits(out[out.size() - 1 - k], poison_value<std::int64_t>()))
            << to_string(f) << " wrote past the output";
      }
    }
  }
  EXPECT_GT(thrown, 0) << "no unsorted input was found so in 60 trials";
}

TEST(HostSearchErrors, BadArgumentsThrowBeforeWriting) {
  std::vector<int> h{1, 2, 3}, q{2, 3};
  std::int64_t* null = nullptr;
  EXPECT_THROW(corank::host::sorted_lower_bound(h.begin(), h.end(), q.begin(), q.end(), null), std::invalid_argument);
  EXPECT_THROW(corank::host::sorted_contains(h.begin(), h.end(), q.begin(), q.end(), null), std::invalid_argument);
  std::vector<std::int64_t> out(2, -1);
  EXPECT_THROW(corank::host::sorted_upper_bound(h.end(), h.begin(), q.begin(), q.end(), out.begin()),
               std::invalid_argument);
  EXPECT_THROW(corank::host::sorted_equal_count(h.begin(), h.end(), q.end(), q.begin(), out.begin()),
               std::invalid_argument);
  EXPECT_EQ(out, (std::vector<std::int64_t>{-1, -1})) << "a refused call wrote";
  try {
    corank::host::sorted_lower_bound(h.begin(), h.end(), q.begin(), q.end(), null);
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "corank::host::sorted_lower_bound: the output is a null pointer with a nonzero size");
  }
  // No queries: nothing to write, a null output is fine.
  EXPECT_EQ(corank::host::sorted_lower_bound(h.begin(), h.end(), q.begin(), q.begin(), null), null);
}

}  // namespace
