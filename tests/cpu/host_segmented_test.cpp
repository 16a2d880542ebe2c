// corank::host segmented runners (host/segmented_operation.hpp, named in
// ops/corank/host/segmented.hpp): segmented_merge, segmented_merge_by_key, the four set
// operations' segmented keys, _by_key and _count forms and
// segmented_set_intersection_by_key_paired against std::merge / std::set_* per segment
// (support/segmented_inputs.hpp), on every segment shape (random, equal lengths, power law,
// half empty in A, B or both, S = 1, one segment holding half, equal-key segments longer than
// 10000, all empty, S = 0), for int32, int64, float with NaNs (nan_last_less) and a 16-byte
// key, small on one thread and large (> 2^16 elements) on one and seven; piece boundaries on,
// next to and inside segments; S = 1 equal to the two-input operations; a custom op (sparse
// addition of CSR rows); and every argument check.

#include <corank/host/merge.hpp>
#include <corank/host/operation.hpp>
#include <corank/host/segmented.hpp>
#include <corank/host/set_operations.hpp>

#include "sparse_add.hpp"

#include "support/example_inputs.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/segmented_inputs.hpp"
#include "support/set_inputs.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
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
auto segmented_keys(set_op op, Args... args) {
  switch (op) {
    case set_op::set_union: return corank::host::segmented_set_union(args...);
    case set_op::set_intersection: return corank::host::segmented_set_intersection(args...);
    case set_op::set_difference: return corank::host::segmented_set_difference(args...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::host::segmented_set_symmetric_difference(args...);
}

template <class... Args>
auto segmented_by_key(set_op op, Args... args) {
  switch (op) {
    case set_op::set_union: return corank::host::segmented_set_union_by_key(args...);
    case set_op::set_intersection: return corank::host::segmented_set_intersection_by_key(args...);
    case set_op::set_difference: return corank::host::segmented_set_difference_by_key(args...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::host::segmented_set_symmetric_difference_by_key(args...);
}

template <class... Args>
index_t segmented_count(set_op op, Args... args) {
  switch (op) {
    case set_op::set_union: return corank::host::segmented_set_union_count(args...);
    case set_op::set_intersection: return corank::host::segmented_set_intersection_count(args...);
    case set_op::set_difference: return corank::host::segmented_set_difference_count(args...);
    case set_op::set_symmetric_difference: break;
  }
  return corank::host::segmented_set_symmetric_difference_count(args...);
}

template <class T>
std::vector<T> poisoned(std::size_t n) {
  return std::vector<T>(n + 2 * guard_elements, poison_value<T>());
}

// The offsets in 32 bits (every case here fits), for iterators of another integer type.
std::vector<std::int32_t> narrow(const std::vector<index_t>& x) { return {x.begin(), x.end()}; }

// Offsets and counts of the segments, as written: the output buffer (offsets: S + 1, counts: S)
// holds exactly the expected ones between intact guards.
template <class T>
::testing::AssertionResult exact_segments(const std::vector<index_t>& expected, const std::vector<T>& buffer) {
  return exact_output(std::vector<T>(expected.begin(), expected.end()), buffer, guard_elements);
}

// ---------------------------------------------------------------------------------------
// The checks of one case, one form each. Iterators vary between forms: raw pointers (null
// where a side is empty), vector iterators, 64- and 32-bit offsets, outputs of either.

template <class K, class Compare>
void check_merge(const segmented_case<K>& c, Compare comp, unsigned threads) {
  SCOPED_TRACE("segmented_merge");
  const auto expected = reference_segmented_merge(c, comp);
  const std::size_t total = c.a.size() + c.b.size(), slots = std::size_t(c.segments) + 1;
  std::vector<K> keys = poisoned<K>(total);
  std::vector<index_t> offsets = poisoned<index_t>(slots);
  K* const out = keys.data() + guard_elements;
  const K* end = corank::host::segmented_merge(c.a.data(), c.a.data() + c.a.size(), c.a_offsets.data(), c.b.data(),
                                               c.b.data() + c.b.size(), c.b_offsets.data(), c.segments, out,
                                               offsets.data() + guard_elements, comp, threads);
  EXPECT_EQ(end - out, std::ptrdiff_t(expected.keys.size()));
  EXPECT_TRUE(exact_output(expected.keys, keys, guard_elements));
  EXPECT_TRUE(exact_segments(expected.offsets, offsets));
}

template <class K, class Compare>
void check_merge_by_key(const segmented_case<K>& c, Compare comp, unsigned threads) {
  SCOPED_TRACE("segmented_merge_by_key");
  const std::vector<std::uint64_t> va = payloads(0, c.a.size()), vb = payloads(1, c.b.size());
  const auto expected = reference_segmented_merge_by_key(c, va, vb, comp);
  const std::size_t total = c.a.size() + c.b.size(), slots = std::size_t(c.segments) + 1;
  const std::vector<std::int32_t> a_offsets = narrow(c.a_offsets), b_offsets = narrow(c.b_offsets);
  std::vector<K> keys = poisoned<K>(total);
  std::vector<std::uint64_t> values = poisoned<std::uint64_t>(total);
  std::vector<std::int32_t> offsets = poisoned<std::int32_t>(slots);
  const auto ends = corank::host::segmented_merge_by_key(
      c.a.begin(), c.a.end(), a_offsets.begin(), c.b.begin(), c.b.end(), b_offsets.begin(), c.segments, va.begin(),
      vb.begin(), keys.begin() + guard_elements, values.begin() + guard_elements, offsets.begin() + guard_elements,
      comp, threads);
  EXPECT_EQ(ends.first - (keys.begin() + guard_elements), std::ptrdiff_t(expected.keys.size()));
  EXPECT_EQ(ends.second - (values.begin() + guard_elements), std::ptrdiff_t(expected.keys.size()));
  EXPECT_TRUE(exact_output(expected.keys, keys, guard_elements));
  EXPECT_TRUE(exact_output(expected.values, values, guard_elements)) << "not a stable merge of each segment";
  EXPECT_TRUE(exact_segments(expected.offsets, offsets));
}

// Keys (pointers, 64-bit offsets in, 32-bit out) and counts (32-bit pointer, 64-bit iterator).
template <class K, class Compare>
void check_set_keys(set_op op, const segmented_case<K>& c, Compare comp, unsigned threads) {
  SCOPED_TRACE(std::string("segmented_") + to_string(op));
  const auto expected = reference_segmented_set_op(op, c, comp);
  const std::size_t total = c.a.size() + c.b.size(), segments = std::size_t(c.segments);
  std::vector<K> keys = poisoned<K>(total);
  std::vector<std::int32_t> offsets = poisoned<std::int32_t>(segments + 1);
  K* const out = keys.data() + guard_elements;
  const K* end = segmented_keys(op, c.a.data(), c.a.data() + c.a.size(), c.a_offsets.data(), c.b.data(),
                                c.b.data() + c.b.size(), c.b_offsets.data(), c.segments, out,
                                offsets.data() + guard_elements, comp, threads);
  EXPECT_EQ(end - out, std::ptrdiff_t(expected.keys.size()));
  EXPECT_TRUE(exact_output(expected.keys, keys, guard_elements));
  EXPECT_TRUE(exact_segments(expected.offsets, offsets));

  SCOPED_TRACE("_count");
  std::vector<std::int32_t> counts32 = poisoned<std::int32_t>(segments);
  EXPECT_EQ(segmented_count(op, c.a.data(), c.a.data() + c.a.size(), c.a_offsets.data(), c.b.data(),
                            c.b.data() + c.b.size(), c.b_offsets.data(), c.segments,
                            counts32.data() + guard_elements, comp, threads),
            expected.total());
  EXPECT_TRUE(exact_segments(expected.counts, counts32));
  const std::vector<std::int32_t> a_offsets = narrow(c.a_offsets), b_offsets = narrow(c.b_offsets);
  std::vector<std::int64_t> counts64 = poisoned<std::int64_t>(segments);
  EXPECT_EQ(segmented_count(op, c.a.begin(), c.a.end(), a_offsets.begin(), c.b.begin(), c.b.end(), b_offsets.begin(),
                            c.segments, counts64.begin() + guard_elements, comp, threads),
            expected.total());
  EXPECT_TRUE(exact_segments(expected.counts, counts64));
}

template <class K, class Compare>
void check_set_by_key(set_op op, const segmented_case<K>& c, Compare comp, unsigned threads) {
  SCOPED_TRACE(std::string("segmented_") + to_string(op) + "_by_key");
  const std::vector<std::uint64_t> va = payloads(0, c.a.size()), vb = payloads(1, c.b.size());
  const auto expected = reference_segmented_set_op_by_key(op, c, va, vb, comp);
  const std::size_t total = c.a.size() + c.b.size(), slots = std::size_t(c.segments) + 1;
  const std::vector<std::int32_t> a_offsets = narrow(c.a_offsets);
  std::vector<K> keys = poisoned<K>(total);
  std::vector<std::uint64_t> values = poisoned<std::uint64_t>(total);
  std::vector<index_t> offsets = poisoned<index_t>(slots);
  const auto ends = segmented_by_key(op, c.a.begin(), c.a.end(), a_offsets.cbegin(), c.b.data(),
                                     c.b.data() + c.b.size(), c.b_offsets.data(), c.segments, va.data(), vb.begin(),
                                     keys.begin() + guard_elements, values.data() + guard_elements,
                                     offsets.begin() + guard_elements, comp, threads);
  EXPECT_EQ(ends.first - (keys.begin() + guard_elements), std::ptrdiff_t(expected.keys.size()));
  EXPECT_EQ(ends.second - (values.data() + guard_elements), std::ptrdiff_t(expected.keys.size()));
  EXPECT_TRUE(exact_output(expected.keys, keys, guard_elements));
  EXPECT_TRUE(exact_output(expected.values, values, guard_elements)) << "the wrong copies were written";
  EXPECT_TRUE(exact_segments(expected.offsets, offsets));
}

// 32-bit values this time.
template <class K, class Compare>
void check_paired(const segmented_case<K>& c, Compare comp, unsigned threads) {
  SCOPED_TRACE("segmented_set_intersection_by_key_paired");
  const std::vector<std::int32_t> va = int32_payloads(0, c.a.size()), vb = int32_payloads(1, c.b.size());
  const auto expected = reference_segmented_intersection_paired(c, va, vb, comp);
  // The paired reference is written by hand: cross-check it against std::set_intersection.
  ASSERT_TRUE(equal_bits(reference_segmented_set_op_by_key(set_op::set_intersection, c, va, vb, comp).values,
                         expected.values));
  const std::size_t total = c.a.size() + c.b.size(), slots = std::size_t(c.segments) + 1;
  std::vector<K> keys = poisoned<K>(total);
  std::vector<std::int32_t> values = poisoned<std::int32_t>(total), b_values = poisoned<std::int32_t>(total);
  std::vector<index_t> offsets = poisoned<index_t>(slots);
  const auto ends = corank::host::segmented_set_intersection_by_key_paired(
      c.a.data(), c.a.data() + c.a.size(), c.a_offsets.begin(), c.b.data(), c.b.data() + c.b.size(),
      c.b_offsets.begin(), c.segments, va.data(), vb.data(), keys.data() + guard_elements,
      values.data() + guard_elements, b_values.begin() + guard_elements, offsets.data() + guard_elements, comp,
      threads);
  const std::ptrdiff_t count = std::ptrdiff_t(expected.keys.size());
  EXPECT_EQ(std::get<0>(ends) - (keys.data() + guard_elements), count);
  EXPECT_EQ(std::get<1>(ends) - (values.data() + guard_elements), count);
  EXPECT_EQ(std::get<2>(ends) - (b_values.begin() + guard_elements), count);
  EXPECT_TRUE(exact_output(expected.keys, keys, guard_elements));
  EXPECT_TRUE(exact_output(expected.values, values, guard_elements));
  EXPECT_TRUE(exact_output(expected.b_values, b_values, guard_elements)) << "not the matched copy of B";
  EXPECT_TRUE(exact_segments(expected.offsets, offsets));
}

template <class K, class Compare>
void check_all_forms(const segmented_case<K>& c, Compare comp, unsigned threads) {
  check_merge(c, comp, threads);
  check_merge_by_key(c, comp, threads);
  for (set_op op : all_set_ops) {
    check_set_keys(op, c, comp, threads);
    check_set_by_key(op, c, comp, threads);
  }
  check_paired(c, comp, threads);
}

// ---------------------------------------------------------------------------------------
// Every form on every shape, per key type.

template <class K, class Compare, bool Nans = false>
struct key_config {
  using key = K;
  using compare = Compare;
  static constexpr bool nans = Nans;
};

using key_configs = ::testing::Types<key_config<std::int32_t, corank::less>, key_config<std::int64_t, corank::less>,
                                     key_config<float, corank::nan_last_less, true>,
                                     key_config<tagged_key, tagged_order>>;

template <class Config>
class HostSegmented : public ::testing::Test {};
TYPED_TEST_SUITE(HostSegmented, key_configs);

// Small (one thread runs whatever is asked) and large: 300000 elements, where seven threads run.
constexpr std::size_t small_total = 3000;
constexpr std::size_t large_total = 300000;

template <class Config, class Check>
void for_each_case(Check check) {
  using K = typename Config::key;
  std::mt19937_64 rng = make_rng();
  for (segment_shape shape : all_segment_shapes) {
    for (std::size_t total : {small_total, large_total}) {
      segmented_case<K> c = make_segmented_case<K>(shape, total, rng);
      if constexpr (Config::nans) add_nan_tails(c, rng);
      const std::vector<unsigned> thread_counts =
          c.a.size() + c.b.size() > 2 * corank::detail::host_min_items_per_thread ? std::vector<unsigned>{1, 7}
                                                                                  : std::vector<unsigned>{1};
      for (unsigned threads : thread_counts) {
        SCOPED_TRACE(key_name<K>() + " " + c.describe() + " threads=" + std::to_string(threads));
        check(c, typename Config::compare{}, threads);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(HostSegmented, MergesMatchStdMergePerSegment) {
  for_each_case<TypeParam>([](const auto& c, auto comp, unsigned threads) {
    check_merge(c, comp, threads);
    check_merge_by_key(c, comp, threads);
  });
}

TYPED_TEST(HostSegmented, SetOperationKeysAndCountsMatchStdPerSegment) {
  for_each_case<TypeParam>([](const auto& c, auto comp, unsigned threads) {
    for (set_op op : all_set_ops) check_set_keys(op, c, comp, threads);
  });
}

TYPED_TEST(HostSegmented, SetOperationsByKeyAndPairedPickTheRightCopies) {
  for_each_case<TypeParam>([](const auto& c, auto comp, unsigned threads) {
    for (set_op op : all_set_ops) check_set_by_key(op, c, comp, threads);
    check_paired(c, comp, threads);
  });
}

// ---------------------------------------------------------------------------------------
// Where the threads' pieces meet: 229376 = 7 * 2^15 elements, so seven threads cut at every
// multiple of 2^15. Segments end exactly on a cut (with empty segments there too), one element
// before and after one, a segment crosses two cuts (a whole piece inside it), one is A only and
// one B only, and empty segments close the path. Other thread counts cut elsewhere.
TEST(HostSegmentedPieces, BoundariesOnNextToAndInsideSegments) {
  std::mt19937_64 rng = make_rng();
  const std::vector<std::size_t> a_lengths = {10000, 0, 0, 0, 16384, 1, 0, 40000, 0, 9000, 0, 0, 32768, 0, 1, 0, 0};
  const std::vector<std::size_t> b_lengths = {22768, 0, 0, 0, 16383, 0, 1, 40000, 0, 9303, 0, 0, 0, 32767, 0, 0, 0};
  for (int trial = 0; trial < 4; ++trial) {
    const segmented_case<std::int32_t> c =
        make_segmented_case_of_lengths<std::int32_t>(a_lengths, b_lengths, rng, "cut_edges");
    ASSERT_EQ(c.a.size() + c.b.size(), 7 * std::size_t(corank::detail::host_min_items_per_thread));
    for (unsigned threads : {7u, 2u, 3u, 5u}) {
      SCOPED_TRACE(c.describe() + " trial " + std::to_string(trial) + " threads=" + std::to_string(threads));
      check_all_forms(c, corank::less{}, threads);
      if (HasFailure()) return;
    }
  }
  // One key everywhere: every cut falls in a run of equal keys, and every segment matches the
  // same key as its neighbours.
  segmented_case<std::int32_t> same = make_segmented_case_of_lengths<std::int32_t>(a_lengths, b_lengths, rng, "one_key");
  std::fill(same.a.begin(), same.a.end(), 5);
  std::fill(same.b.begin(), same.b.end(), 5);
  for (unsigned threads : {7u, 3u}) {
    SCOPED_TRACE(same.describe() + " threads=" + std::to_string(threads));
    check_all_forms(same, corank::less{}, threads);
  }
}

// Many segments, so that pieces start and end among thousands of tiny ones (2^17 segments of
// 0 to 4 elements on each side).
TEST(HostSegmentedPieces, ManyTinySegments) {
  std::mt19937_64 rng = make_rng();
  std::vector<std::size_t> la(1 << 17), lb(1 << 17);
  for (std::size_t s = 0; s < la.size(); ++s) {
    la[s] = rng() % 5;
    lb[s] = rng() % 5;
  }
  const segmented_case<std::int32_t> c = make_segmented_case_of_lengths<std::int32_t>(la, lb, rng, "tiny");
  SCOPED_TRACE(c.describe() + " threads=7");
  check_all_forms(c, corank::less{}, 7);
}

// ---------------------------------------------------------------------------------------
// S = 1 is the two-input operation: the same outputs, bit for bit, as host/merge.hpp's and
// host/set_operations.hpp's runners, and offsets {0, size}.
TEST(HostSegmentedSingle, OneSegmentEqualsTheTwoInputOperation) {
  std::mt19937_64 rng = make_rng();
  for (set_distribution d : {set_distribution::uniform, set_distribution::few_keys, set_distribution::one_key_run}) {
    const sorted_inputs<std::int64_t> in = make_set_inputs<std::int64_t>(d, 150000, 120000, 2048, rng);
    const std::size_t m = in.a.size(), n = in.b.size();
    SCOPED_TRACE(describe("int64", d, m, n));
    const std::vector<index_t> a_offsets{0, index_t(m)}, b_offsets{0, index_t(n)};
    const std::vector<std::uint64_t> va = payloads(0, m), vb = payloads(1, n);
    std::vector<std::int64_t> expected_keys(m + n), keys(m + n);
    std::vector<std::uint64_t> expected_values(m + n), values(m + n), expected_b(m + n), b_values(m + n);
    index_t offsets[2] = {-1, -1};
    auto expect_offsets = [&](index_t total) {
      EXPECT_EQ(offsets[0], 0);
      EXPECT_EQ(offsets[1], total);
      offsets[0] = offsets[1] = -1;
    };

    corank::host::merge(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), expected_keys.begin(), corank::less{}, 7);
    corank::host::segmented_merge(in.a.begin(), in.a.end(), a_offsets.begin(), in.b.begin(), in.b.end(),
                                  b_offsets.begin(), 1, keys.begin(), offsets, corank::less{}, 7u);
    EXPECT_TRUE(equal_bits(expected_keys, keys)) << "merge";
    expect_offsets(index_t(m + n));
    corank::host::merge_by_key(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), va.begin(), vb.begin(),
                               expected_keys.begin(), expected_values.begin(), corank::less{}, 7);
    corank::host::segmented_merge_by_key(in.a.begin(), in.a.end(), a_offsets.begin(), in.b.begin(), in.b.end(),
                                         b_offsets.begin(), 1, va.begin(), vb.begin(), keys.begin(), values.begin(),
                                         offsets, corank::less{}, 7u);
    EXPECT_TRUE(equal_bits(expected_keys, keys)) << "merge_by_key";
    EXPECT_TRUE(equal_bits(expected_values, values)) << "merge_by_key";
    expect_offsets(index_t(m + n));

    for (set_op op : all_set_ops) {
      SCOPED_TRACE(to_string(op));
      // The two-input runners of host/set_operations.hpp.
      std::vector<std::int64_t> two_keys(m + n);
      std::vector<std::uint64_t> two_values(m + n);
      index_t two_count = 0, two_by_key_count = 0;
      switch (op) {
        case set_op::set_union:
          two_count = corank::host::set_union(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), two_keys.begin(),
                                              corank::less{}, 7u) - two_keys.begin();
          two_by_key_count = corank::host::set_union_by_key(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(),
                                                            va.begin(), vb.begin(), expected_keys.begin(),
                                                            two_values.begin(), corank::less{}, 7u)
                                 .first - expected_keys.begin();
          break;
        case set_op::set_intersection:
          two_count = corank::host::set_intersection(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(),
                                                     two_keys.begin(), corank::less{}, 7u) - two_keys.begin();
          two_by_key_count = corank::host::set_intersection_by_key(in.a.begin(), in.a.end(), in.b.begin(),
                                                                   in.b.end(), va.begin(), vb.begin(),
                                                                   expected_keys.begin(), two_values.begin(),
                                                                   corank::less{}, 7u)
                                 .first - expected_keys.begin();
          break;
        case set_op::set_difference:
          two_count = corank::host::set_difference(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(),
                                                   two_keys.begin(), corank::less{}, 7u) - two_keys.begin();
          two_by_key_count = corank::host::set_difference_by_key(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(),
                                                                 va.begin(), vb.begin(), expected_keys.begin(),
                                                                 two_values.begin(), corank::less{}, 7u)
                                 .first - expected_keys.begin();
          break;
        case set_op::set_symmetric_difference:
          two_count = corank::host::set_symmetric_difference(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(),
                                                             two_keys.begin(), corank::less{}, 7u) - two_keys.begin();
          two_by_key_count = corank::host::set_symmetric_difference_by_key(
                                 in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), va.begin(), vb.begin(),
                                 expected_keys.begin(), two_values.begin(), corank::less{}, 7u)
                                 .first - expected_keys.begin();
          break;
      }
      ASSERT_EQ(two_count, two_by_key_count);
      two_keys.resize(std::size_t(two_count));
      two_values.resize(std::size_t(two_count));

      std::fill(keys.begin(), keys.end(), 0);
      const auto end = segmented_keys(op, in.a.begin(), in.a.end(), a_offsets.data(), in.b.begin(), in.b.end(),
                                      b_offsets.data(), index_t(1), keys.begin(), offsets, corank::less{}, 7u);
      EXPECT_EQ(end - keys.begin(), two_count);
      EXPECT_TRUE(equal_bits(two_keys, keys));
      expect_offsets(two_count);
      std::int32_t count = -1;
      EXPECT_EQ(segmented_count(op, in.a.begin(), in.a.end(), a_offsets.data(), in.b.begin(), in.b.end(),
                                b_offsets.data(), index_t(1), &count, corank::less{}, 7u),
                two_count);
      EXPECT_EQ(count, two_count);
      const auto ends = segmented_by_key(op, in.a.begin(), in.a.end(), a_offsets.data(), in.b.begin(), in.b.end(),
                                         b_offsets.data(), index_t(1), va.begin(), vb.begin(), keys.begin(),
                                         values.begin(), offsets, corank::less{}, 7u);
      EXPECT_EQ(ends.first - keys.begin(), two_count);
      EXPECT_TRUE(equal_bits(two_keys, keys));
      EXPECT_TRUE(equal_bits(two_values, values));
      expect_offsets(two_count);
    }

    const auto paired_ends = corank::host::set_intersection_by_key_paired(
        in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), va.begin(), vb.begin(), expected_keys.begin(),
        expected_values.begin(), expected_b.begin(), corank::less{}, 7u);
    const index_t paired = std::get<0>(paired_ends) - expected_keys.begin();
    expected_keys.resize(std::size_t(paired));
    expected_values.resize(std::size_t(paired));
    expected_b.resize(std::size_t(paired));
    const auto ends = corank::host::segmented_set_intersection_by_key_paired(
        in.a.begin(), in.a.end(), a_offsets.begin(), in.b.begin(), in.b.end(), b_offsets.begin(), 1, va.begin(),
        vb.begin(), keys.begin(), values.begin(), b_values.begin(), offsets, corank::less{}, 7u);
    EXPECT_EQ(std::get<0>(ends) - keys.begin(), paired);
    EXPECT_TRUE(equal_bits(expected_keys, keys)) << "paired";
    EXPECT_TRUE(equal_bits(expected_values, values)) << "paired";
    EXPECT_TRUE(equal_bits(expected_b, b_values)) << "paired";
    expect_offsets(paired);
    if (HasFailure()) return;
  }
}

// ---------------------------------------------------------------------------------------
// A custom op with emit::combined: C = A + B on CSR rows (examples/sparse_add.hpp), against
// the two-input runner row by row; the runner made by its deduction guide.
TEST(HostSegmentedCustomOp, SparseAddOfCsrRows) {
  std::mt19937_64 rng = make_rng();
  constexpr std::size_t rows = 4000;
  std::vector<int> a_columns, b_columns;
  std::vector<double> a_values, b_values;
  std::vector<index_t> a_rows{0}, b_rows{0};
  for (std::size_t r = 0; r < rows; ++r) {
    // Some rows empty, some long, gaps that overlap much or little.
    const std::size_t na = rng() % 4 == 0 ? 0 : rng() % 120, nb = rng() % 5 == 0 ? 0 : rng() % 120;
    const auto a = random_sparse_vector<int, double>(na, 1 + rng() % 3, rng);
    const auto b = random_sparse_vector<int, double>(nb, 1 + rng() % 3, rng);
    a_columns.insert(a_columns.end(), a.index.begin(), a.index.end());
    a_values.insert(a_values.end(), a.value.begin(), a.value.end());
    b_columns.insert(b_columns.end(), b.index.begin(), b.index.end());
    b_values.insert(b_values.end(), b.value.begin(), b.value.end());
    a_rows.push_back(index_t(a_columns.size()));
    b_rows.push_back(index_t(b_columns.size()));
  }
  // The reference: each row through host::by_key_operation<sparse_add_op> on one thread.
  std::vector<int> expected_columns;
  std::vector<double> expected_values;
  std::vector<index_t> expected_rows{0};
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<int> columns(std::size_t(a_rows[r + 1] - a_rows[r] + b_rows[r + 1] - b_rows[r]));
    std::vector<double> values(columns.size());
    const auto ends = corank::host::by_key_operation<sparse_add_op>{}(
        a_columns.begin() + a_rows[r], a_columns.begin() + a_rows[r + 1], b_columns.begin() + b_rows[r],
        b_columns.begin() + b_rows[r + 1], a_values.begin() + a_rows[r], b_values.begin() + b_rows[r],
        columns.begin(), values.begin(), corank::less{}, 1);
    expected_columns.insert(expected_columns.end(), columns.begin(), ends.first);
    expected_values.insert(expected_values.end(), values.begin(), ends.second);
    expected_rows.push_back(index_t(expected_columns.size()));
  }
  ASSERT_GT(a_columns.size() + b_columns.size(), std::size_t(1) << 16);
  const corank::host::segmented_by_key_operation sparse_add{sparse_add_op{}};
  for (unsigned threads : {1u, 7u}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    const std::size_t total = a_columns.size() + b_columns.size();
    std::vector<int> columns = poisoned<int>(total);
    std::vector<double> values = poisoned<double>(total);
    std::vector<index_t> out_rows = poisoned<index_t>(rows + 1);
    const auto ends = sparse_add(a_columns.data(), a_columns.data() + a_columns.size(), a_rows.data(),
                                 b_columns.data(), b_columns.data() + b_columns.size(), b_rows.data(), index_t(rows),
                                 a_values.data(), b_values.data(), columns.data() + guard_elements,
                                 values.data() + guard_elements, out_rows.data() + guard_elements, corank::less{},
                                 threads);
    EXPECT_EQ(ends.first - (columns.data() + guard_elements), std::ptrdiff_t(expected_columns.size()));
    EXPECT_TRUE(exact_output(expected_columns, columns, guard_elements));
    EXPECT_TRUE(exact_output(expected_values, values, guard_elements));
    EXPECT_TRUE(exact_output(expected_rows, out_rows, guard_elements));
  }
}

// ---------------------------------------------------------------------------------------
// No elements: S = 0 writes offsets_out[0] = 0 and reads no input offsets (null here); S > 0
// empty segments take null keys and write S + 1 zero offsets and S zero counts.
TEST(HostSegmentedEmpty, NoSegmentsAndEmptySegments) {
  const int* null = nullptr;
  int* null_out = nullptr;
  const index_t* no_offsets = nullptr;
  index_t offset = -1;
  EXPECT_EQ(corank::host::segmented_merge(null, null, no_offsets, null, null, no_offsets, 0, null_out, &offset),
            null_out);
  EXPECT_EQ(offset, 0);
  offset = -1;
  EXPECT_EQ(corank::host::segmented_set_union(null, null, no_offsets, null, null, no_offsets, 0, null_out, &offset),
            null_out);
  EXPECT_EQ(offset, 0);
  EXPECT_EQ(corank::host::segmented_set_intersection_count(null, null, no_offsets, null, null, no_offsets, 0,
                                                           static_cast<int*>(nullptr)),
            0);

  const std::vector<index_t> zeros(4, 0);
  std::vector<index_t> offsets(4, -1);
  EXPECT_EQ(corank::host::segmented_set_difference(null, null, zeros.data(), null, null, zeros.data(), 3, null_out,
                                                   offsets.data()),
            null_out);
  EXPECT_EQ(offsets, zeros);
  std::vector<int> counts(3, -1);
  EXPECT_EQ(corank::host::segmented_set_symmetric_difference_count(null, null, zeros.data(), null, null, zeros.data(),
                                                                   3, counts.data()),
            0);
  EXPECT_EQ(counts, std::vector<int>(3, 0));
}

// ---------------------------------------------------------------------------------------
// Arguments: each problem throws std::invalid_argument("<name>: <problem>") before anything
// is written.

struct small_segmented_inputs {
  // Segments: A {1, 2 | 2, 3 | 5}, B {2 | 3 | 4, 5}.
  std::vector<int> a{1, 2, 2, 3, 5}, b{2, 3, 4, 5};
  std::vector<index_t> a_offsets{0, 2, 4, 5}, b_offsets{0, 1, 2, 4};
  std::vector<std::uint64_t> va = payloads(0, 5), vb = payloads(1, 4);
  std::vector<int> keys = std::vector<int>(9, poison_value<int>());
  std::vector<std::uint64_t> values = std::vector<std::uint64_t>(9, poison_value<std::uint64_t>());
  std::vector<std::uint64_t> b_values = std::vector<std::uint64_t>(9, poison_value<std::uint64_t>());
  std::vector<index_t> offsets = std::vector<index_t>(4, poison_value<index_t>());
  std::vector<index_t> counts = std::vector<index_t>(3, poison_value<index_t>());

  ::testing::AssertionResult untouched() const {
    if (auto r = all_poison(keys); !r) return r << " (keys)";
    if (auto r = all_poison(values); !r) return r << " (values)";
    if (auto r = all_poison(b_values); !r) return r << " (B values)";
    if (auto r = all_poison(offsets); !r) return r << " (offsets)";
    if (auto r = all_poison(counts); !r) return r << " (counts)";
    return ::testing::AssertionSuccess();
  }
};

template <class Call>
void expect_rejected(Call call, const small_segmented_inputs& s, const std::string& name, const std::string& problem) {
  SCOPED_TRACE(name + ": " + problem);
  try {
    call();
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "corank::host::" + name + ": " + problem);
  }
  EXPECT_TRUE(s.untouched());
}

TEST(HostSegmentedArguments, EachProblemHasItsSentenceAndWritesNothing) {
  small_segmented_inputs s;
  const int* a = s.a.data();
  const int* b = s.b.data();
  const int* null = nullptr;
  const index_t* ao = s.a_offsets.data();
  const index_t* bo = s.b_offsets.data();
  const index_t* no_offsets = nullptr;
  const std::uint64_t* null_values = nullptr;
  int* keys = s.keys.data();
  std::uint64_t* values = s.values.data();
  index_t* offsets = s.offsets.data();
  index_t* counts = s.counts.data();
  auto merge = [&](const int* a0, const int* a1, const index_t* a_off, const int* b0, const int* b1,
                   const index_t* b_off, index_t segments, int* out, index_t* out_offsets) {
    corank::host::segmented_merge(a0, a1, a_off, b0, b1, b_off, segments, out, out_offsets);
  };
  auto union_count = [&](const index_t* a_off, const index_t* b_off, index_t segments, index_t* counts_out) {
    corank::host::segmented_set_union_count(a, a + 5, a_off, b, b + 4, b_off, segments, counts_out);
  };

  // The two-input problems.
  expect_rejected([&] { merge(a + 5, a, ao, b, b + 4, bo, 3, keys, offsets); }, s, "segmented_merge",
                  "a size is negative");
  expect_rejected([&] { merge(null, null + 5, ao, b, b + 4, bo, 3, keys, offsets); }, s, "segmented_merge",
                  "input A is a null pointer with a nonzero size");
  expect_rejected([&] { merge(a, a + 5, ao, null, null + 4, bo, 3, keys, offsets); }, s, "segmented_merge",
                  "input B is a null pointer with a nonzero size");
  expect_rejected([&] { merge(a, a + 5, ao, b, b + 4, bo, 3, nullptr, offsets); }, s, "segmented_merge",
                  "the output is a null pointer with a nonzero size");
  expect_rejected(
      [&] {
        corank::host::segmented_set_union_by_key(a, a + 5, ao, b, b + 4, bo, 3, null_values, s.vb.data(), keys,
                                                 values, offsets);
      },
      s, "segmented_set_union_by_key", "values of A are a null pointer with a nonzero size");
  expect_rejected(
      [&] {
        corank::host::segmented_merge_by_key(a, a + 5, ao, b, b + 4, bo, 3, s.va.data(), s.vb.data(), keys,
                                             static_cast<std::uint64_t*>(nullptr), offsets);
      },
      s, "segmented_merge_by_key", "the value output is a null pointer with a nonzero size");
  expect_rejected(
      [&] {
        corank::host::segmented_set_intersection_by_key_paired(a, a + 5, ao, b, b + 4, bo, 3, s.va.data(),
                                                               s.vb.data(), keys, values,
                                                               static_cast<std::uint64_t*>(nullptr), offsets);
      },
      s, "segmented_set_intersection_by_key_paired", "the B value output is a null pointer with a nonzero size");

  // The segments' problems.
  expect_rejected([&] { merge(a, a + 5, ao, b, b + 4, bo, -1, keys, offsets); }, s, "segmented_merge",
                  "the segment count is negative");
  expect_rejected([&] { union_count(ao, bo, -2, counts); }, s, "segmented_set_union_count",
                  "the segment count is negative");
  expect_rejected([&] { merge(a, a + 5, no_offsets, b, b + 4, bo, 3, keys, offsets); }, s, "segmented_merge",
                  "the segment offsets are a null pointer with a nonzero segment count");
  expect_rejected([&] { union_count(ao, no_offsets, 3, counts); }, s, "segmented_set_union_count",
                  "the segment offsets are a null pointer with a nonzero segment count");
  expect_rejected([&] { merge(a, a + 5, ao, b, b + 4, bo, 3, keys, nullptr); }, s, "segmented_merge",
                  "the output offsets are a null pointer");
  expect_rejected([&] { merge(null, null, no_offsets, null, null, no_offsets, 0, keys, nullptr); }, s,
                  "segmented_merge", "the output offsets are a null pointer");
  expect_rejected([&] { union_count(ao, bo, 3, nullptr); }, s, "segmented_set_union_count",
                  "the segment counts are a null pointer with a nonzero segment count");
  expect_rejected([&] { merge(a, a + 5, ao, b, b + 4, bo, 0, keys, offsets); }, s, "segmented_merge",
                  "there are no segments but A or B is not empty");

  // Offsets that do not start at 0, decrease, or do not end at the sizes.
  const std::vector<index_t> starts_at_1{1, 2, 4, 5}, decreasing{0, 3, 2, 4}, short_end{0, 2, 4, 4},
      long_end{0, 1, 2, 5};
  expect_rejected([&] { merge(a, a + 5, starts_at_1.data(), b, b + 4, bo, 3, keys, offsets); }, s, "segmented_merge",
                  "the offsets of A do not start at 0 (they start at 1)");
  expect_rejected([&] { merge(a, a + 5, ao, b, b + 4, decreasing.data(), 3, keys, offsets); }, s, "segmented_merge",
                  "the offsets of B decrease: segment 1 starts at 3 and ends at 2");
  expect_rejected([&] { merge(a, a + 5, short_end.data(), b, b + 4, bo, 3, keys, offsets); }, s, "segmented_merge",
                  "the offsets of A end at 4, not at A's size 5");
  expect_rejected([&] { union_count(ao, long_end.data(), 3, counts); }, s, "segmented_set_union_count",
                  "the offsets of B end at 5, not at B's size 4");
  expect_rejected(
      [&] {
        corank::host::segmented_set_difference_by_key(a, a + 5, decreasing.begin(), b, b + 4, bo, 3, s.va.data(),
                                                      s.vb.data(), keys, values, offsets);
      },
      s, "segmented_set_difference_by_key", "the offsets of A decrease: segment 1 starts at 3 and ends at 2");

  // And the inputs are fine: the same call writes.
  EXPECT_EQ(corank::host::segmented_merge(a, a + 5, ao, b, b + 4, bo, 3, keys, offsets), keys + 9);
  EXPECT_EQ(s.keys, (std::vector<int>{1, 2, 2, 2, 3, 3, 4, 5, 5}));
  EXPECT_EQ(s.offsets, (std::vector<index_t>{0, 3, 6, 9}));
}

// Sizes whose sum does not fit in 64 bits (an iterator that only pretends to be that long).
struct long_iterator {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = int;
  using difference_type = std::ptrdiff_t;
  using pointer = const int*;
  using reference = int;
  index_t at = 0;
  int operator[](index_t) const { return 0; }
  int operator*() const { return 0; }
  long_iterator operator+(index_t k) const { return {at + k}; }
  friend index_t operator-(long_iterator x, long_iterator y) { return x.at - y.at; }
};

TEST(HostSegmentedArguments, SizesBeyond64BitsAreRejected) {
  small_segmented_inputs s;
  const long_iterator first{0}, last{std::numeric_limits<index_t>::max()};
  const index_t offsets_a[] = {0, std::numeric_limits<index_t>::max()}, offsets_b[] = {0, 2};
  expect_rejected(
      [&] {
        corank::host::segmented_set_union(first, last, offsets_a, first, first + 2, offsets_b, 1, s.keys.data(),
                                          s.offsets.data());
      },
      s, "segmented_set_union", "the output size does not fit in 64 bits");
}

}  // namespace
