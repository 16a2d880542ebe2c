// corank::host::stable_sort and its three other forms against std::stable_sort: every key
// type, the orders that stress a merge sort, sizes around the 2^15 keys that make a piece (and
// so a thread), 1 to 8 threads and 0, NaN floats, a 16-byte key compared on part of it, and
// the argument checks.

#include <corank/host/sort.hpp>

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

constexpr index_t piece = index_t(1) << 15;  // host_min_items_per_thread

enum class order { uniform, all_equal, long_runs, few_keys, sorted, reversed };

constexpr order all_orders[] = {order::uniform,  order::all_equal, order::long_runs,
                                order::few_keys, order::sorted,    order::reversed};

const char* to_string(order o) {
  switch (o) {
    case order::uniform: return "uniform";
    case order::all_equal: return "all_equal";
    case order::long_runs: return "long_runs";
    case order::few_keys: return "few_keys";
    case order::sorted: return "sorted";
    case order::reversed: return "reversed";
  }
  return "?";
}

// n keys of K in the given order. long_runs: stretches of 1000 to 9000 equal keys, the
// stretches' keys random; few_keys: four distinct keys, so nearly every key has equals far away.
template <class K>
std::vector<K> make_keys(order o, std::size_t n, std::mt19937_64& rng) {
  using compare = typename key_traits<K>::compare;
  std::vector<K> keys(n);
  switch (o) {
    case order::uniform:
    case order::sorted:
    case order::reversed:
      for (K& k : keys) k = key_traits<K>::from_u64(rng());
      if (o == order::sorted) std::sort(keys.begin(), keys.end(), compare{});
      if (o == order::reversed) std::sort(keys.rbegin(), keys.rend(), compare{});
      break;
    case order::all_equal: {
      const K x = key_traits<K>::from_u64(rng());
      std::fill(keys.begin(), keys.end(), x);
      break;
    }
    case order::long_runs:
      for (std::size_t i = 0; i < n;) {
        const std::size_t run = std::min<std::size_t>(n - i, 1000 + rng() % 8000);
        std::fill_n(keys.begin() + std::ptrdiff_t(i), run, key_traits<K>::from_index(rng() % 50));
        i += run;
      }
      break;
    case order::few_keys:
      for (K& k : keys) k = key_traits<K>::from_index(rng() % 4);
      break;
  }
  return keys;
}

// std::stable_sort of the keys, and of their input indices by key: the one correct result.
template <class K, class Compare>
keys_and_values<K, std::uint64_t> reference_sort(const std::vector<K>& keys, Compare comp) {
  std::vector<std::uint64_t> index(keys.size());
  std::iota(index.begin(), index.end(), std::uint64_t(0));
  std::stable_sort(index.begin(), index.end(),
                   [&](std::uint64_t x, std::uint64_t y) { return comp(keys[x], keys[y]); });
  keys_and_values<K, std::uint64_t> out;
  out.values = index;
  out.keys.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) out.keys[i] = keys[index[i]];
  return out;
}

// Which forms a check runs: the matrix runs all four; the long sweeps the by-key ones, which
// show the key order and stability both.
enum forms { keys_only = 1, by_key = 2, all_forms = 3 };

// Runs the forms on `keys` (values: the input index) and compares them with the reference.
template <class K, class Compare>
void check_sort(const std::vector<K>& keys, Compare comp, unsigned threads, forms which = all_forms) {
  const auto expected = reference_sort(keys, comp);
  const std::size_t n = keys.size();
  std::vector<std::uint64_t> index(n);
  std::iota(index.begin(), index.end(), std::uint64_t(0));

  if (which & keys_only) {
    std::vector<K> in_place = keys;
    corank::host::stable_sort(in_place.begin(), in_place.end(), comp, threads);
    EXPECT_TRUE(equal_bits(expected.keys, in_place)) << "stable_sort";

    std::vector<K> out(n + 2 * guard_elements, poison_value<K>());
    K* const end = corank::host::stable_sort_copy(keys.data(), keys.data() + n, out.data() + guard_elements, comp,
                                                  threads);
    EXPECT_EQ(end, out.data() + guard_elements + n);
    EXPECT_TRUE(guards_intact(out, guard_elements, n)) << "stable_sort_copy";
    EXPECT_TRUE(equal_bits(expected.keys, out, guard_elements)) << "stable_sort_copy";
  }
  if (which & by_key) {
    std::vector<K> in_place = keys;
    std::vector<std::uint64_t> values = index;
    corank::host::stable_sort_by_key(in_place.begin(), in_place.end(), values.begin(), comp, threads);
    EXPECT_TRUE(equal_bits(expected.keys, in_place)) << "stable_sort_by_key";
    EXPECT_TRUE(equal_bits(expected.values, values)) << "stable_sort_by_key: not stable";

    std::vector<K> keys_out(n + 2 * guard_elements, poison_value<K>());
    std::vector<std::uint64_t> values_out(n + 2 * guard_elements, poison_value<std::uint64_t>());
    const auto ends = corank::host::stable_sort_by_key_copy(keys.data(), keys.data() + n, index.data(),
                                                            keys_out.data() + guard_elements,
                                                            values_out.data() + guard_elements, comp, threads);
    EXPECT_EQ(ends.first, keys_out.data() + guard_elements + n);
    EXPECT_EQ(ends.second, values_out.data() + guard_elements + n);
    EXPECT_TRUE(guards_intact(keys_out, guard_elements, n)) << "stable_sort_by_key_copy";
    EXPECT_TRUE(guards_intact(values_out, guard_elements, n)) << "stable_sort_by_key_copy";
    EXPECT_TRUE(equal_bits(expected.keys, keys_out, guard_elements)) << "stable_sort_by_key_copy";
    EXPECT_TRUE(equal_bits(expected.values, values_out, guard_elements)) << "stable_sort_by_key_copy: not stable";
  }
}

std::string describe(const char* key, order o, std::size_t n, unsigned threads) {
  return std::string(key) + " " + to_string(o) + " n=" + std::to_string(n) + " threads=" + std::to_string(threads);
}

template <class K>
class HostSort : public ::testing::Test {};
TYPED_TEST_SUITE(HostSort, all_key_types);

// Every key type and order: small sizes (one piece), then three and five pieces.
TYPED_TEST(HostSort, MatchesStdStableSort) {
  using K = TypeParam;
  using compare = typename key_traits<K>::compare;
  std::mt19937_64 rng = make_rng();
  for (order o : all_orders) {
    struct run {
      std::size_t n;
      unsigned threads;
    };
    const run runs[] = {{0, 1}, {1, 2}, {2, 1}, {3, 0}, {1000, 1}, {1 + rng() % 5000, 3},
                        {std::size_t(3 * piece) + rng() % 2000, 3}, {std::size_t(5 * piece) + rng() % 2000, 5}};
    for (const run& r : runs) {
      const std::vector<K> keys = make_keys<K>(o, r.n, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), o, r.n, r.threads));
      check_sort(keys, compare{}, r.threads);
      if (this->HasFailure()) return;
    }
  }
}

// Sizes at t pieces of 2^15 keys, one below (t - 1 pieces) and one above, for t = 1..8,
// with `threads` t, one more than t, and 0 (every hardware thread).
TEST(HostSortPieces, SizesAroundPieceBoundaries) {
  std::mt19937_64 rng = make_rng();
  for (unsigned t = 1; t <= 8; ++t) {
    for (index_t n : {t * piece - 1, t * piece, t * piece + 1}) {
      const std::vector<std::int32_t> keys = make_keys<std::int32_t>(order::few_keys, std::size_t(n), rng);
      for (unsigned threads : {t, t + 1, 0u}) {
        SCOPED_TRACE(describe("int32", order::few_keys, std::size_t(n), threads));
        check_sort(keys, corank::less{}, threads, by_key);
        if (HasFailure()) return;
      }
    }
  }
}

TEST(HostSortPieces, EveryThreadCountOnLongRuns) {
  std::mt19937_64 rng = make_rng();
  const std::vector<std::int64_t> keys = make_keys<std::int64_t>(order::long_runs, 8 * piece + 12345, rng);
  for (unsigned threads = 0; threads <= 8; ++threads) {
    SCOPED_TRACE(describe("int64", order::long_runs, keys.size(), threads));
    check_sort(keys, corank::less{}, threads);
    if (HasFailure()) return;
  }
}

// Equal keys keep the order of their input indices, checked without a reference.
TEST(HostSortPieces, EqualKeysKeepInputOrder) {
  std::mt19937_64 rng = make_rng();
  const std::size_t n = std::size_t(6 * piece) + rng() % 1000;
  std::vector<std::int32_t> keys = make_keys<std::int32_t>(order::few_keys, n, rng);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  corank::host::stable_sort_by_key(keys.begin(), keys.end(), values.begin(), corank::less{}, 6);
  ASSERT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  for (std::size_t i = 1; i < n; ++i) {
    if (keys[i] == keys[i - 1]) {
      ASSERT_LT(values[i - 1], values[i]) << "at " << i;
    }
  }
}

// NaN last: NaNs are equivalent to each other and above every number, -0.0 and 0.0 are
// equivalent; all keep their input order, which the bitwise comparison sees.
TEST(HostSortExtra, FloatsWithNanLast) {
  std::mt19937_64 rng = make_rng();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {nan, -nan, 0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  for (std::size_t n : {std::size_t(0), std::size_t(7), std::size_t(4 * piece) + 99}) {
    std::vector<float> keys(n);
    for (float& k : keys) k = rng() % 4 == 0 ? specials[rng() % 6] : float(int(rng() % 200) - 100) / 4.0f;
    for (unsigned threads : {1u, 4u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(threads));
      check_sort(keys, corank::nan_last_less{}, threads);
    }
  }
}

TEST(HostSortExtra, SixteenByteKeysWithCustomComparator) {
  std::mt19937_64 rng = make_rng();
  const std::size_t n = std::size_t(5 * piece) + rng() % 5000;
  std::vector<tagged_key> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = {std::int64_t(rng() % 64) - 32 + (std::int64_t(rng() % 3) << 40), std::uint32_t(rng() % 3),
               std::uint32_t(i)};
  }
  for (unsigned threads : {1u, 2u, 3u, 5u, 8u, 0u}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    check_sort(keys, tagged_order{}, threads);
    if (HasFailure()) return;
  }
}

TEST(HostSortExtra, DescendingComparatorAndIteratorInputs) {
  std::mt19937_64 rng = make_rng();
  std::vector<std::int16_t> keys = make_keys<std::int16_t>(order::uniform, std::size_t(3 * piece) + 5, rng);
  std::vector<std::int16_t> expected = keys;
  std::stable_sort(expected.begin(), expected.end(), greater_op{});
  std::vector<std::int16_t> out(keys.size());
  EXPECT_TRUE(corank::host::stable_sort_copy(keys.cbegin(), keys.cend(), out.begin(), greater_op{}, 3) == out.end());
  EXPECT_TRUE(equal_bits(expected, out));
}

// Bad arguments throw std::invalid_argument naming the function, before anything is written.
TEST(HostSortArguments, RejectedBeforeAnythingIsWritten) {
  std::vector<int> keys{3, 1, 2};
  const std::vector<int> original = keys;
  std::vector<int> values{7, 8, 9};
  std::vector<int> out(3, poison_value<int>()), values_out(3, poison_value<int>());
  int* null = nullptr;
  auto expect_rejected = [&](auto&& call, const char* name, const char* problem) {
    try {
      call();
      ADD_FAILURE() << name << ": expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(std::string("corank::host::") + name + ": ", 0), 0u) << what;
      EXPECT_NE(what.find(problem), std::string::npos) << what;
    }
    EXPECT_EQ(keys, original) << name;
    EXPECT_EQ(values, (std::vector<int>{7, 8, 9})) << name;
    EXPECT_TRUE(all_poison(out)) << name;
    EXPECT_TRUE(all_poison(values_out)) << name;
  };
  int* k = keys.data();
  int* v = values.data();
  expect_rejected([&] { corank::host::stable_sort(k + 3, k); }, "stable_sort", "negative");
  expect_rejected([&] { corank::host::stable_sort(null, null + 3); }, "stable_sort", "null");
  expect_rejected([&] { corank::host::stable_sort_copy(k + 3, k, out.data()); }, "stable_sort_copy", "negative");
  expect_rejected([&] { corank::host::stable_sort_copy(null, null + 3, out.data()); }, "stable_sort_copy", "input");
  expect_rejected([&] { corank::host::stable_sort_copy(k, k + 3, null); }, "stable_sort_copy", "output");
  expect_rejected([&] { corank::host::stable_sort_by_key(k + 3, k, v); }, "stable_sort_by_key", "negative");
  expect_rejected([&] { corank::host::stable_sort_by_key(k, k + 3, null); }, "stable_sort_by_key", "values");
  expect_rejected([&] { corank::host::stable_sort_by_key(null, null + 3, v); }, "stable_sort_by_key", "input");
  expect_rejected([&] { corank::host::stable_sort_by_key_copy(k + 3, k, v, out.data(), values_out.data()); },
                  "stable_sort_by_key_copy", "negative");
  expect_rejected([&] { corank::host::stable_sort_by_key_copy(k, k + 3, null, out.data(), values_out.data()); },
                  "stable_sort_by_key_copy", "values");
  expect_rejected([&] { corank::host::stable_sort_by_key_copy(k, k + 3, v, null, values_out.data()); },
                  "stable_sort_by_key_copy", "output");
  expect_rejected([&] { corank::host::stable_sort_by_key_copy(k, k + 3, v, out.data(), null); },
                  "stable_sort_by_key_copy", "value output");
}

TEST(HostSortArguments, NullPointersWithZeroSizeAreEmpty) {
  int* null = nullptr;
  EXPECT_NO_THROW(corank::host::stable_sort(null, null));
  EXPECT_NO_THROW(corank::host::stable_sort_by_key(null, null, null));
  EXPECT_EQ(corank::host::stable_sort_copy(null, null, null), null);
  const auto ends = corank::host::stable_sort_by_key_copy(null, null, null, null, null);
  EXPECT_EQ(ends.first, null);
  EXPECT_EQ(ends.second, null);
}

// A comparator that throws when it meets `poison`, on whichever thread sorts or merges it.
struct throwing_less {
  int poison;
  bool operator()(int x, int y) const {
    if (x == poison || y == poison) throw std::runtime_error("comparator met the poison key");
    return x < y;
  }
};

TEST(HostSortThreads, AComparatorsExceptionOnAnyThreadReachesTheCaller) {
  const std::size_t n = std::size_t(4 * piece);
  std::vector<int> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = int(n - i);
  for (int p = 0; p < 4; ++p) {
    SCOPED_TRACE(p);
    const throwing_less comp{keys[std::size_t(p) * n / 4 + 17]};
    std::vector<int> copy = keys;
    EXPECT_THROW(corank::host::stable_sort(copy.begin(), copy.end(), comp, 4), std::runtime_error);
  }
}

}  // namespace
