// corank::host::merge_runs, merge_runs_by_key, merge_run_list and merge_run_list_by_key
// against a stable sort of the runs' concatenation (which puts equal keys lower run first,
// each run in its order): k from 0 to 2^20, empty runs, one huge run among tiny ones, equal
// keys across runs, offsets not starting at 0, 1 to 8 threads and 0, and the argument checks.

#include <corank/host/merge_runs.hpp>

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

// The runs, one after another in `keys`, from `base` on: run j is keys[offsets[j],
// offsets[j + 1]). keys[0, base) is filler that no form may read into its output.
template <class K>
struct run_set {
  std::vector<K> keys;
  std::vector<index_t> offsets;
  index_t runs() const { return index_t(offsets.size()) - 1; }
  index_t total() const { return offsets.back() - offsets.front(); }
};

// How a run's keys are drawn before the run is sorted.
enum class keys_from { uniform, few };  // few: four distinct keys, equal keys in many runs

template <class K>
K draw(keys_from from, std::mt19937_64& rng) {
  return from == keys_from::uniform ? key_traits<K>::from_u64(rng()) : key_traits<K>::from_index(rng() % 4);
}

template <class K, class Compare = typename key_traits<K>::compare>
run_set<K> make_runs(const std::vector<index_t>& sizes, keys_from from, std::mt19937_64& rng, index_t base = 0,
                     Compare comp = {}) {
  run_set<K> set;
  set.keys.assign(std::size_t(base), key_traits<K>::from_u64(rng()));
  set.offsets.push_back(base);
  for (index_t size : sizes) {
    const std::size_t begin = set.keys.size();
    for (index_t i = 0; i < size; ++i) set.keys.push_back(draw<K>(from, rng));
    std::sort(set.keys.begin() + std::ptrdiff_t(begin), set.keys.end(), comp);
    set.offsets.push_back(index_t(set.keys.size()));
  }
  return set;
}

// Values: the key's position in `keys`, so that a stable result is the one permutation.
template <class K, class Compare>
keys_and_values<K, std::uint64_t> reference_runs(const run_set<K>& set, Compare comp) {
  std::vector<std::uint64_t> index(std::size_t(set.total()));
  std::iota(index.begin(), index.end(), std::uint64_t(set.offsets.front()));
  std::stable_sort(index.begin(), index.end(),
                   [&](std::uint64_t x, std::uint64_t y) { return comp(set.keys[x], set.keys[y]); });
  keys_and_values<K, std::uint64_t> out;
  out.values = index;
  for (std::uint64_t i : index) out.keys.push_back(set.keys[i]);
  return out;
}

// The listed forms' arguments for a run set; empty runs get null pointers now and then,
// which they may have.
template <class K>
struct run_list {
  std::vector<const K*> keys;
  std::vector<const std::uint64_t*> values;
  std::vector<index_t> sizes;
};

template <class K>
run_list<K> list_runs(const run_set<K>& set, const std::vector<std::uint64_t>& values) {
  run_list<K> list;
  for (index_t j = 0; j < set.runs(); ++j) {
    const index_t begin = set.offsets[std::size_t(j)], size = set.offsets[std::size_t(j) + 1] - begin;
    const bool null = size == 0 && j % 2 == 1;
    list.keys.push_back(null ? nullptr : set.keys.data() + begin);
    list.values.push_back(null ? nullptr : values.data() + begin);
    list.sizes.push_back(size);
  }
  return list;
}

// Runs the four forms and compares each with the reference, guards included.
template <class K, class Compare = typename key_traits<K>::compare>
void check_runs(const run_set<K>& set, unsigned threads, Compare comp = {}) {
  const auto expected = reference_runs(set, comp);
  const std::size_t n = std::size_t(set.total());
  const index_t runs = set.runs();
  std::vector<std::uint64_t> values(set.keys.size());
  std::iota(values.begin(), values.end(), std::uint64_t(0));
  auto fresh_keys = [&] { return std::vector<K>(n + 2 * guard_elements, poison_value<K>()); };
  auto fresh_values = [&] { return std::vector<std::uint64_t>(n + 2 * guard_elements, poison_value<std::uint64_t>()); };
  auto check_keys = [&](const std::vector<K>& out, const char* form) {
    EXPECT_TRUE(guards_intact(out, guard_elements, n)) << form;
    EXPECT_TRUE(equal_bits(expected.keys, out, guard_elements)) << form;
  };
  auto check_values = [&](const std::vector<std::uint64_t>& out, const char* form) {
    EXPECT_TRUE(guards_intact(out, guard_elements, n)) << form;
    EXPECT_TRUE(equal_bits(expected.values, out, guard_elements)) << form << ": not stable";
  };

  {  // raw pointers
    std::vector<K> out = fresh_keys();
    K* const end = corank::host::merge_runs(set.keys.data(), set.offsets.data(), runs, out.data() + guard_elements,
                                            comp, threads);
    EXPECT_EQ(end, out.data() + guard_elements + n);
    check_keys(out, "merge_runs");
  }
  {  // iterators
    std::vector<K> out = fresh_keys();
    std::vector<std::uint64_t> values_out = fresh_values();
    const auto ends = corank::host::merge_runs_by_key(set.keys.cbegin(), values.cbegin(), set.offsets.cbegin(), runs,
                                                      out.begin() + guard_elements,
                                                      values_out.begin() + guard_elements, comp, threads);
    EXPECT_TRUE(ends.first == out.begin() + std::ptrdiff_t(guard_elements + n));
    EXPECT_TRUE(ends.second == values_out.begin() + std::ptrdiff_t(guard_elements + n));
    check_keys(out, "merge_runs_by_key");
    check_values(values_out, "merge_runs_by_key");
  }
  const run_list<K> list = list_runs(set, values);
  {
    std::vector<K> out = fresh_keys();
    K* const end = corank::host::merge_run_list(list.keys.data(), list.sizes.data(), runs,
                                                out.data() + guard_elements, comp, threads);
    EXPECT_EQ(end, out.data() + guard_elements + n);
    check_keys(out, "merge_run_list");
  }
  {
    std::vector<K> out = fresh_keys();
    std::vector<std::uint64_t> values_out = fresh_values();
    const auto ends = corank::host::merge_run_list_by_key(list.keys.data(), list.values.data(), list.sizes.data(),
                                                          runs, out.data() + guard_elements,
                                                          values_out.data() + guard_elements, comp, threads);
    EXPECT_EQ(ends.first, out.data() + guard_elements + n);
    EXPECT_EQ(ends.second, values_out.data() + guard_elements + n);
    check_keys(out, "merge_run_list_by_key");
    check_values(values_out, "merge_run_list_by_key");
  }
}

std::vector<index_t> random_sizes(index_t runs, index_t max_size, std::mt19937_64& rng) {
  std::vector<index_t> sizes(static_cast<std::size_t>(runs));
  for (index_t& s : sizes) s = index_t(rng() % std::uint64_t(max_size + 1));
  return sizes;
}

std::string describe(const std::string& what, index_t runs, index_t total, unsigned threads) {
  return what + " runs=" + std::to_string(runs) + " total=" + std::to_string(total) +
         " threads=" + std::to_string(threads);
}

template <class K>
class HostMergeRuns : public ::testing::Test {};
TYPED_TEST_SUITE(HostMergeRuns, all_key_types);

// Every key type: a few run shapes, each with uniform keys and with keys equal across runs.
TYPED_TEST(HostMergeRuns, MatchesStableSortOfTheRuns) {
  using K = TypeParam;
  std::mt19937_64 rng = make_rng();
  struct shape {
    const char* name;
    std::vector<index_t> sizes;
    unsigned threads;
  };
  const shape shapes[] = {
      {"one", {1 + index_t(rng() % 3000)}, 1},
      {"two", {2 * piece + 7, piece + 3}, 3},
      {"random", random_sizes(1 + index_t(rng() % 300), 600, rng), 2},
      {"equal", std::vector<index_t>(5, piece + 1), 5},
      {"huge among tiny", [&] {
         std::vector<index_t> s = random_sizes(300, 3, rng);
         s[rng() % s.size()] = 3 * piece;
         return s;
       }(), 4},
  };
  for (const shape& s : shapes) {
    for (keys_from from : {keys_from::uniform, keys_from::few}) {
      const run_set<K> set = make_runs<K>(s.sizes, from, rng);
      SCOPED_TRACE(describe(s.name, set.runs(), set.total(), s.threads) + (from == keys_from::few ? " few keys" : ""));
      check_runs(set, s.threads);
      if (this->HasFailure()) return;
    }
  }
}

TEST(HostMergeRunsShapes, NoRunsWriteNothing) {
  const int* null = nullptr;
  int* null_out = nullptr;
  std::uint64_t* null_values = nullptr;
  const index_t* no_offsets = nullptr;
  EXPECT_EQ(corank::host::merge_runs(null, no_offsets, 0, null_out), null_out);
  EXPECT_EQ(corank::host::merge_runs_by_key(null, null, no_offsets, 0, null_out, null_values).first, null_out);
  const int* const* no_list = nullptr;
  EXPECT_EQ(corank::host::merge_run_list(no_list, no_offsets, 0, null_out), null_out);
  EXPECT_EQ(corank::host::merge_run_list_by_key(no_list, no_list, no_offsets, 0, null_out, null_values).second,
            null_values);
  std::mt19937_64 rng = make_rng();
  check_runs(make_runs<int>({}, keys_from::uniform, rng, 5), 1);
}

TEST(HostMergeRunsShapes, AllRunsEmpty) {
  std::mt19937_64 rng = make_rng();
  for (index_t runs : {1, 2, 3, 1000}) {
    const run_set<int> set = make_runs<int>(std::vector<index_t>(std::size_t(runs), 0), keys_from::uniform, rng, 3);
    SCOPED_TRACE(runs);
    check_runs(set, 4);
    const int* null = nullptr;
    int* null_out = nullptr;
    EXPECT_EQ(corank::host::merge_runs(null, set.offsets.data(), runs, null_out), null_out);
  }
}

TEST(HostMergeRunsShapes, OneRun) {
  std::mt19937_64 rng = make_rng();
  for (index_t size : {index_t(1), index_t(1000), 4 * piece + 3}) {
    for (unsigned threads : {1u, 4u, 0u}) {
      const run_set<std::int64_t> set = make_runs<std::int64_t>({size}, keys_from::uniform, rng, 11);
      SCOPED_TRACE(describe("one", 1, size, threads));
      check_runs(set, threads);
    }
  }
}

// k equal runs, k = 2..9, each of 2^15 + 1 keys: the tree's halves on threads of their own.
TEST(HostMergeRunsShapes, EqualRunsOnEveryThreadCount) {
  std::mt19937_64 rng = make_rng();
  for (index_t runs = 2; runs <= 9; ++runs) {
    const run_set<std::int32_t> set =
        make_runs<std::int32_t>(std::vector<index_t>(std::size_t(runs), piece + 1), keys_from::uniform, rng);
    for (unsigned threads : {1u, 2u, 3u, 8u, 0u}) {
      SCOPED_TRACE(describe("equal", runs, set.total(), threads));
      check_runs(set, threads);
      if (HasFailure()) return;
    }
  }
}

// One run of 2^18 keys, at the front, in the middle and at the end of 4000 runs of 0 to 3.
TEST(HostMergeRunsShapes, OneHugeRunAmongManyTinyOnes) {
  std::mt19937_64 rng = make_rng();
  for (std::size_t at : {std::size_t(0), std::size_t(1234), std::size_t(3999)}) {
    std::vector<index_t> sizes = random_sizes(4000, 3, rng);
    sizes[at] = 8 * piece;
    for (keys_from from : {keys_from::uniform, keys_from::few}) {
      const run_set<std::int32_t> set = make_runs<std::int32_t>(sizes, from, rng);
      for (unsigned threads : {1u, 4u, 0u}) {
        SCOPED_TRACE(describe("huge at " + std::to_string(at), set.runs(), set.total(), threads));
        check_runs(set, threads);
        if (HasFailure()) return;
      }
    }
  }
}

TEST(HostMergeRunsShapes, TwoToTheSixteenTinyRuns) {
  std::mt19937_64 rng = make_rng();
  for (keys_from from : {keys_from::uniform, keys_from::few}) {
    const run_set<std::uint32_t> set = make_runs<std::uint32_t>(random_sizes(65536, 3, rng), from, rng, 2);
    for (unsigned threads : {1u, 3u, 0u}) {
      SCOPED_TRACE(describe("2^16 tiny", set.runs(), set.total(), threads));
      check_runs(set, threads);
      if (HasFailure()) return;
    }
  }
}

// A million runs of 0 to 2 keys: planning and merging stay O(N log k).
TEST(HostMergeRunsShapes, AMillionRuns) {
  std::mt19937_64 rng = make_rng();
  const run_set<std::int32_t> set = make_runs<std::int32_t>(random_sizes(index_t(1) << 20, 2, rng), keys_from::few, rng);
  SCOPED_TRACE(describe("2^20 tiny", set.runs(), set.total(), 0));
  check_runs(set, 0);
}

// Equal keys spanning whole runs and several runs: each run's stretch of a key comes whole,
// lower run first, on every thread count.
TEST(HostMergeRunsShapes, LongEqualKeyRunsAcrossRuns) {
  std::mt19937_64 rng = make_rng();
  std::vector<index_t> sizes = random_sizes(16, 3 * piece, rng);
  sizes[3] = 0;
  const run_set<std::int64_t> set = make_runs<std::int64_t>(sizes, keys_from::few, rng, 1);
  for (unsigned threads = 0; threads <= 8; ++threads) {
    SCOPED_TRACE(describe("few keys", set.runs(), set.total(), threads));
    check_runs(set, threads);
    if (HasFailure()) return;
  }
}

// merge_runs reads keys_in + offsets[j] only: offsets may start anywhere, and be of any
// integer type.
TEST(HostMergeRunsShapes, OffsetsNotStartingAtZero) {
  std::mt19937_64 rng = make_rng();
  const run_set<std::int32_t> set = make_runs<std::int32_t>(random_sizes(40, 5000, rng), keys_from::uniform, rng, 777);
  check_runs(set, 3);
  const auto expected = reference_runs(set, corank::less{});
  std::vector<std::int32_t> out(expected.keys.size(), poison_value<std::int32_t>());
  const std::vector<std::uint32_t> narrow(set.offsets.begin(), set.offsets.end());
  corank::host::merge_runs(set.keys.data(), narrow.data(), set.runs(), out.begin(), corank::less{}, 2);
  EXPECT_TRUE(equal_bits(expected.keys, out)) << "uint32 offsets";
  // The same runs seen from keys_in = &keys[777]: offsets from 0.
  std::vector<int> shifted(set.offsets.size());
  for (std::size_t j = 0; j < shifted.size(); ++j) shifted[j] = int(set.offsets[j] - 777);
  std::fill(out.begin(), out.end(), poison_value<std::int32_t>());
  corank::host::merge_runs(set.keys.data() + 777, shifted.data(), set.runs(), out.data(), corank::less{}, 2);
  EXPECT_TRUE(equal_bits(expected.keys, out)) << "int offsets from 0";
  // And from keys_in = &keys[1000], offsets from -223.
  for (std::size_t j = 0; j < shifted.size(); ++j) shifted[j] = int(set.offsets[j] - 1000);
  std::fill(out.begin(), out.end(), poison_value<std::int32_t>());
  corank::host::merge_runs(set.keys.data() + 1000, shifted.data(), set.runs(), out.data(), corank::less{}, 2);
  EXPECT_TRUE(equal_bits(expected.keys, out)) << "negative offsets";
}

// The listed form takes `T**` (from a std::vector<T*>) as well as `const T* const*`.
TEST(HostMergeRunsShapes, ListedFormFromMutablePointers) {
  std::vector<int> a{1, 3, 5, 7}, b{2, 3, 4}, c{0, 3, 9};
  std::vector<int*> pointers{a.data(), b.data(), c.data()};
  const std::vector<index_t> sizes{4, 3, 3};
  std::vector<int> values_a{10, 11, 12, 13}, values_b{20, 21, 22}, values_c{30, 31, 32};
  std::vector<int*> value_pointers{values_a.data(), values_b.data(), values_c.data()};
  std::vector<int> out(10), values_out(10);
  corank::host::merge_run_list_by_key(pointers.data(), value_pointers.data(), sizes.data(), 3, out.begin(),
                                      values_out.begin());
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 3, 3, 4, 5, 7, 9}));
  EXPECT_EQ(values_out, (std::vector<int>{30, 10, 20, 11, 21, 31, 22, 12, 13, 32}));
  std::fill(out.begin(), out.end(), -1);
  EXPECT_TRUE(corank::host::merge_run_list(pointers.data(), sizes.data(), 3, out.begin()) == out.end());
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 3, 3, 4, 5, 7, 9}));
}

TEST(HostMergeRunsKeys, FloatsWithNanLast) {
  std::mt19937_64 rng = make_rng();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {nan, -nan, 0.0f, -0.0f, std::numeric_limits<float>::infinity()};
  const std::vector<index_t> sizes = random_sizes(50, 4000, rng);
  run_set<float> set;
  set.offsets.push_back(0);
  for (index_t size : sizes) {
    const std::size_t begin = set.keys.size();
    for (index_t i = 0; i < size; ++i) {
      set.keys.push_back(rng() % 5 == 0 ? specials[rng() % 5] : float(int(rng() % 100) - 50) / 2.0f);
    }
    std::stable_sort(set.keys.begin() + std::ptrdiff_t(begin), set.keys.end(), corank::nan_last_less{});
    set.offsets.push_back(index_t(set.keys.size()));
  }
  for (unsigned threads : {1u, 3u}) {
    SCOPED_TRACE(threads);
    check_runs(set, threads, corank::nan_last_less{});
  }
}

TEST(HostMergeRunsKeys, SixteenByteKeysWithCustomComparator) {
  std::mt19937_64 rng = make_rng();
  const std::vector<index_t> sizes = random_sizes(30, 20000, rng);
  run_set<tagged_key> set;
  set.offsets.push_back(0);
  for (index_t size : sizes) {
    const std::size_t begin = set.keys.size();
    for (index_t i = 0; i < size; ++i) {
      set.keys.push_back({std::int64_t(rng() % 16) - (std::int64_t(rng() % 2) << 50), std::uint32_t(rng() % 2),
                          std::uint32_t(set.keys.size())});
    }
    std::stable_sort(set.keys.begin() + std::ptrdiff_t(begin), set.keys.end(), tagged_order{});
    set.offsets.push_back(index_t(set.keys.size()));
  }
  for (unsigned threads : {1u, 4u, 0u}) {
    SCOPED_TRACE(threads);
    check_runs(set, threads, tagged_order{});
    if (HasFailure()) return;
  }
}

// Every bad argument throws std::invalid_argument naming the function and the problem,
// before anything is written.
TEST(HostMergeRunsArguments, RejectedBeforeAnythingIsWritten) {
  const std::vector<int> keys{1, 4, 2, 3, 0};
  const std::vector<int> values{10, 11, 12, 13, 14};
  const std::vector<index_t> offsets{0, 2, 4, 5};
  std::vector<int> out(5, poison_value<int>()), values_out(5, poison_value<int>());
  const int* k = keys.data();
  const int* v = values.data();
  const index_t* o = offsets.data();
  int* null_out = nullptr;
  const int* null_in = nullptr;
  auto expect_rejected = [&](auto&& call, const char* name, const char* problem) {
    try {
      call();
      ADD_FAILURE() << name << " (" << problem << "): expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(std::string("corank::host::") + name + ": ", 0), 0u) << what;
      EXPECT_NE(what.find(problem), std::string::npos) << what;
    }
    EXPECT_TRUE(all_poison(out)) << name << ": " << problem;
    EXPECT_TRUE(all_poison(values_out)) << name << ": " << problem;
  };
  int* ko = out.data();
  int* vo = values_out.data();

  // merge_runs and merge_runs_by_key.
  const std::vector<index_t> decreasing{0, 3, 2, 5};
  const index_t max = std::numeric_limits<index_t>::max();
  const std::vector<index_t> too_far{-2, max - 1};  // total 2^63 + 1
  const std::vector<std::uint64_t> unsigned_too_far{0, std::uint64_t(1) << 63};
  expect_rejected([&] { corank::host::merge_runs(k, o, -1, ko); }, "merge_runs", "run count is negative");
  expect_rejected([&] { corank::host::merge_runs(k, decreasing.data(), 3, ko); }, "merge_runs", "decrease");
  expect_rejected([&] { corank::host::merge_runs(k, too_far.data(), 1, ko); }, "merge_runs", "64 bits");
  expect_rejected([&] { corank::host::merge_runs(k, unsigned_too_far.data(), 1, ko); }, "merge_runs", "64-bit");
  expect_rejected([&] { corank::host::merge_runs(k, static_cast<const index_t*>(nullptr), 3, ko); }, "merge_runs",
                  "offsets are a null pointer");
  expect_rejected([&] { corank::host::merge_runs(null_in, o, 3, ko); }, "merge_runs", "input is a null pointer");
  expect_rejected([&] { corank::host::merge_runs(k, o, 3, null_out); }, "merge_runs", "output is a null pointer");
  expect_rejected([&] { corank::host::merge_runs_by_key(k, v, o, -2, ko, vo); }, "merge_runs_by_key", "negative");
  expect_rejected([&] { corank::host::merge_runs_by_key(k, v, decreasing.data(), 3, ko, vo); }, "merge_runs_by_key",
                  "run 1 ends before it begins");
  expect_rejected([&] { corank::host::merge_runs_by_key(null_in, v, o, 3, ko, vo); }, "merge_runs_by_key",
                  "input is a null pointer");
  expect_rejected([&] { corank::host::merge_runs_by_key(k, null_in, o, 3, ko, vo); }, "merge_runs_by_key",
                  "input values are a null pointer");
  expect_rejected([&] { corank::host::merge_runs_by_key(k, v, o, 3, null_out, vo); }, "merge_runs_by_key",
                  "output is a null pointer");
  expect_rejected([&] { corank::host::merge_runs_by_key(k, v, o, 3, ko, null_out); }, "merge_runs_by_key",
                  "value output is a null pointer");

  // merge_run_list and merge_run_list_by_key.
  const int* run_keys[] = {k, k + 2, k + 4};
  const int* run_values[] = {v, v + 2, v + 4};
  const index_t sizes[] = {2, 2, 1};
  const index_t negative[] = {2, -1, 1};
  const index_t overflowing[] = {max, 1, 0};
  const int* const* no_list = nullptr;
  const int* with_null_run[] = {k, nullptr, k + 4};
  const index_t* no_sizes = nullptr;
  expect_rejected([&] { corank::host::merge_run_list(run_keys, sizes, -1, ko); }, "merge_run_list",
                  "run count is negative");
  expect_rejected([&] { corank::host::merge_run_list(no_list, sizes, 3, ko); }, "merge_run_list",
                  "run key list is a null pointer");
  expect_rejected([&] { corank::host::merge_run_list(run_keys, no_sizes, 3, ko); }, "merge_run_list",
                  "run sizes are a null pointer");
  expect_rejected([&] { corank::host::merge_run_list(run_keys, negative, 3, ko); }, "merge_run_list",
                  "run 1 has a negative size");
  expect_rejected([&] { corank::host::merge_run_list(with_null_run, sizes, 3, ko); }, "merge_run_list",
                  "run 1 is a null pointer with a nonzero size");
  expect_rejected([&] { corank::host::merge_run_list(run_keys, overflowing, 3, ko); }, "merge_run_list", "64 bits");
  expect_rejected([&] { corank::host::merge_run_list(run_keys, sizes, 3, null_out); }, "merge_run_list",
                  "output is a null pointer");
  expect_rejected([&] { corank::host::merge_run_list_by_key(run_keys, run_values, sizes, -1, ko, vo); },
                  "merge_run_list_by_key", "negative");
  expect_rejected([&] { corank::host::merge_run_list_by_key(no_list, run_values, sizes, 3, ko, vo); },
                  "merge_run_list_by_key", "run key list is a null pointer");
  expect_rejected([&] { corank::host::merge_run_list_by_key(run_keys, no_list, sizes, 3, ko, vo); },
                  "merge_run_list_by_key", "run value list is a null pointer");
  expect_rejected([&] { corank::host::merge_run_list_by_key(run_keys, run_values, no_sizes, 3, ko, vo); },
                  "merge_run_list_by_key", "run sizes are a null pointer");
  expect_rejected([&] { corank::host::merge_run_list_by_key(with_null_run, run_values, sizes, 3, ko, vo); },
                  "merge_run_list_by_key", "run 1 is a null pointer");
  expect_rejected([&] { corank::host::merge_run_list_by_key(run_keys, with_null_run, sizes, 3, ko, vo); },
                  "merge_run_list_by_key", "values of run 1 are a null pointer");
  expect_rejected([&] { corank::host::merge_run_list_by_key(run_keys, run_values, overflowing, 3, ko, vo); },
                  "merge_run_list_by_key", "64 bits");
  expect_rejected([&] { corank::host::merge_run_list_by_key(run_keys, run_values, sizes, 3, null_out, vo); },
                  "merge_run_list_by_key", "output is a null pointer");
  expect_rejected([&] { corank::host::merge_run_list_by_key(run_keys, run_values, sizes, 3, ko, null_out); },
                  "merge_run_list_by_key", "value output is a null pointer");

  // A null run with size 0, and null outputs where the total is 0, are fine.
  const index_t empty_middle[] = {2, 0, 1};
  EXPECT_NO_THROW(corank::host::merge_run_list(with_null_run, empty_middle, 3, ko));
  const index_t all_empty[] = {0, 0, 0};
  const int* all_null[] = {nullptr, nullptr, nullptr};
  EXPECT_EQ(corank::host::merge_run_list(all_null, all_empty, 3, null_out), null_out);
}

// A comparator that throws when it meets `poison`, on whichever thread merges it.
struct throwing_less {
  int poison;
  bool operator()(int x, int y) const {
    if (x == poison || y == poison) throw std::runtime_error("comparator met the poison key");
    return x < y;
  }
};

TEST(HostMergeRunsThreads, AComparatorsExceptionOnAnyThreadReachesTheCaller) {
  // Four runs of 2^16 keys on four threads; the poison key in one run at a time.
  const index_t size = 2 * piece;
  std::vector<int> keys(std::size_t(4 * size));
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = int(i % std::size_t(size)) * 4 + int(i / std::size_t(size));
  const std::vector<index_t> offsets{0, size, 2 * size, 3 * size, 4 * size};
  std::vector<int> out(keys.size());
  for (int run = 0; run < 4; ++run) {
    SCOPED_TRACE(run);
    const throwing_less comp{keys[std::size_t(run * size + size / 2)]};
    EXPECT_THROW(corank::host::merge_runs(keys.data(), offsets.data(), 4, out.data(), comp, 4), std::runtime_error);
  }
}

}  // namespace
