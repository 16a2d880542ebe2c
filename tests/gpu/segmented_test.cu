// The segmented operations on the GPU (ops/corank/segmented.cuh): segmented_merge,
// segmented_merge_by_key, the four set operations' segmented keys, _by_key and _count forms
// and segmented_set_intersection_by_key_paired, against std::merge / std::set_* applied per
// segment (support/segmented_inputs.hpp), on every segment shape (random, 16 each, power law,
// half empty in A, B or both, S = 1, one segment holding half, equal-key segments longer
// than a tile, all empty, S = 0), small and large; int32 in every form, float with NaNs
// (nan_last_less) and a 16-byte key whose tag shows which copy was written in the keys-only
// forms; the two-phase forms with 32-bit offsets; S = 1 equal to the two-input operation;
// more than 2^31 elements through iterators; segment boundaries at and around the merge
// tiles' edges with equal keys across them; and the argument errors.

#include <corank/merge.cuh>
#include <corank/segmented.cuh>
#include <corank/set_operations.cuh>
#include <corank/tuning.hpp>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/segmented_inputs.hpp"
#include "support/set_inputs.hpp"
#include "support/shared_kernels.hpp"
#include "support/test_env.hpp"

#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

std::vector<std::size_t> totals() {
  if (quick_mode()) return {3000, 40000};
  return {3000, 70000, std::size_t(1) << 20};
}

template <class T>
std::vector<T> narrowed(const std::vector<index_t>& x) {
  return {x.begin(), x.end()};
}

// A case on the device: keys and 64-bit offsets.
template <class K>
struct device_case {
  explicit device_case(const segmented_case<K>& c)
      : a(c.a), b(c.b), a_offsets(c.a_offsets), b_offsets(c.b_offsets), segments(c.segments) {}
  const K* a_first() const { return a.data(); }
  const K* a_last() const { return a.data() + a.size(); }
  const K* b_first() const { return b.data(); }
  const K* b_last() const { return b.data() + b.size(); }
  device_buffer<K> a, b;
  device_buffer<index_t> a_offsets, b_offsets;
  index_t segments;
};

template <class K, class Compare>
void check_merges(const segmented_case<K>& c, const device_case<K>& d, Compare comp) {
  const std::size_t total = c.a.size() + c.b.size(), slots = std::size_t(c.segments) + 1;
  {
    SCOPED_TRACE("segmented_merge");
    const auto expected = reference_segmented_merge(c, comp);
    guarded_output<K> keys(total);
    guarded_output<index_t> offsets(slots);
    K* end = corank::segmented_merge(d.a_first(), d.a_last(), d.a_offsets.data(), d.b_first(), d.b_last(),
                                     d.b_offsets.data(), d.segments, keys.first(), offsets.first(), comp);
    EXPECT_EQ(end, keys.last());
    EXPECT_TRUE(keys.check(expected.keys));
    EXPECT_TRUE(offsets.check(expected.offsets));
  }
  {
    SCOPED_TRACE("segmented_merge_by_key");
    const std::vector<std::uint64_t> va = payloads(0, c.a.size()), vb = payloads(1, c.b.size());
    const auto expected = reference_segmented_merge_by_key(c, va, vb, comp);
    device_buffer<std::uint64_t> dva(va), dvb(vb);
    guarded_output<K> keys(total);
    guarded_output<std::uint64_t> values(total);
    guarded_output<index_t> offsets(slots);
    const auto ends = corank::segmented_merge_by_key(d.a_first(), d.a_last(), d.a_offsets.data(), d.b_first(),
                                                     d.b_last(), d.b_offsets.data(), d.segments, dva.data(),
                                                     dvb.data(), keys.first(), values.first(), offsets.first(), comp);
    EXPECT_EQ(ends.first, keys.last());
    EXPECT_TRUE(keys.check(expected.keys));
    EXPECT_TRUE(values.check(expected.values));
    EXPECT_TRUE(offsets.check(expected.offsets));
  }
}

// The keys-only forms of every set operation (and the count, where `counts`).
template <class K, class Compare>
void check_set_keys(const segmented_case<K>& c, const device_case<K>& d, Compare comp, bool counts) {
  const std::size_t total = c.a.size() + c.b.size(), slots = std::size_t(c.segments) + 1;
  for (const set_op op : all_set_ops) {
    SCOPED_TRACE(to_string(op));
    const auto expected = reference_segmented_set_op(op, c, comp);
    guarded_output<K> keys(total);
    guarded_output<index_t> offsets(slots);
    auto run = [&](auto runner) {
      return runner(d.a_first(), d.a_last(), d.a_offsets.data(), d.b_first(), d.b_last(), d.b_offsets.data(),
                    d.segments, keys.first(), offsets.first(), comp);
    };
    K* end = nullptr;
    switch (op) {
      case set_op::set_union: end = run(corank::segmented_set_union); break;
      case set_op::set_intersection: end = run(corank::segmented_set_intersection); break;
      case set_op::set_difference: end = run(corank::segmented_set_difference); break;
      case set_op::set_symmetric_difference: end = run(corank::segmented_set_symmetric_difference); break;
    }
    EXPECT_EQ(end - keys.first(), std::ptrdiff_t(expected.keys.size()));
    std::vector<K> written = keys.buffer.to_host();
    written.resize(guard_elements + expected.keys.size());
    EXPECT_TRUE(equal_bits(expected.keys, written, guard_elements));
    EXPECT_TRUE(offsets.check(expected.offsets));
    if (!counts) continue;
    SCOPED_TRACE("count");
    guarded_output<std::int32_t> per_segment(std::size_t(c.segments));
    auto count = [&](auto runner) {
      return runner(d.a_first(), d.a_last(), d.a_offsets.data(), d.b_first(), d.b_last(), d.b_offsets.data(),
                    d.segments, per_segment.first(), comp);
    };
    index_t size = -1;
    switch (op) {
      case set_op::set_union: size = count(corank::segmented_set_union_count); break;
      case set_op::set_intersection: size = count(corank::segmented_set_intersection_count); break;
      case set_op::set_difference: size = count(corank::segmented_set_difference_count); break;
      case set_op::set_symmetric_difference: size = count(corank::segmented_set_symmetric_difference_count); break;
    }
    EXPECT_EQ(size, expected.total());
    EXPECT_TRUE(per_segment.check(narrowed<std::int32_t>(expected.counts)));
  }
}

// The by-key forms of every set operation and the paired intersection (int32 keys).
template <class K, class Compare>
void check_set_by_key(const segmented_case<K>& c, const device_case<K>& d, Compare comp) {
  const std::size_t total = c.a.size() + c.b.size(), slots = std::size_t(c.segments) + 1;
  const std::vector<std::uint64_t> va = payloads(0, c.a.size()), vb = payloads(1, c.b.size());
  device_buffer<std::uint64_t> dva(va), dvb(vb);
  for (const set_op op : all_set_ops) {
    SCOPED_TRACE(std::string(to_string(op)) + "_by_key");
    const auto expected = reference_segmented_set_op_by_key(op, c, va, vb, comp);
    device_buffer<K> keys(total);
    device_buffer<std::uint64_t> values(total);
    keys.fill_poison();  // read back whole: initialized (compute-sanitizer initcheck)
    values.fill_poison();
    guarded_output<index_t> offsets(slots);
    auto run = [&](auto runner) {
      return runner(d.a_first(), d.a_last(), d.a_offsets.data(), d.b_first(), d.b_last(), d.b_offsets.data(),
                    d.segments, dva.data(), dvb.data(), keys.data(), values.data(), offsets.first(), comp);
    };
    std::pair<K*, std::uint64_t*> ends;
    switch (op) {
      case set_op::set_union: ends = run(corank::segmented_set_union_by_key); break;
      case set_op::set_intersection: ends = run(corank::segmented_set_intersection_by_key); break;
      case set_op::set_difference: ends = run(corank::segmented_set_difference_by_key); break;
      case set_op::set_symmetric_difference: ends = run(corank::segmented_set_symmetric_difference_by_key); break;
    }
    ASSERT_EQ(ends.first - keys.data(), std::ptrdiff_t(expected.keys.size()));
    EXPECT_EQ(ends.second - values.data(), std::ptrdiff_t(expected.keys.size()));
    std::vector<K> got_keys = keys.to_host();
    std::vector<std::uint64_t> got_values = values.to_host();
    got_keys.resize(expected.keys.size());
    got_values.resize(expected.keys.size());
    EXPECT_TRUE(equal_bits(expected.keys, got_keys, 0));
    EXPECT_TRUE(equal_bits(expected.values, got_values, 0));
    EXPECT_TRUE(offsets.check(expected.offsets));
  }
  SCOPED_TRACE("segmented_set_intersection_by_key_paired");
  const auto expected = reference_segmented_intersection_paired(c, va, vb, comp);
  device_buffer<K> keys(total);
  device_buffer<std::uint64_t> values(total), b_values(total);
  keys.fill_poison();
  values.fill_poison();
  b_values.fill_poison();
  guarded_output<index_t> offsets(slots);
  const auto ends = corank::segmented_set_intersection_by_key_paired(
      d.a_first(), d.a_last(), d.a_offsets.data(), d.b_first(), d.b_last(), d.b_offsets.data(), d.segments,
      dva.data(), dvb.data(), keys.data(), values.data(), b_values.data(), offsets.first(), comp);
  ASSERT_EQ(std::get<0>(ends) - keys.data(), std::ptrdiff_t(expected.keys.size()));
  std::vector<K> got_keys = keys.to_host();
  std::vector<std::uint64_t> got_values = values.to_host(), got_b = b_values.to_host();
  got_keys.resize(expected.keys.size());
  got_values.resize(expected.keys.size());
  got_b.resize(expected.keys.size());
  EXPECT_TRUE(equal_bits(expected.keys, got_keys, 0));
  EXPECT_TRUE(equal_bits(expected.values, got_values, 0));
  EXPECT_TRUE(equal_bits(expected.b_values, got_b, 0));
  EXPECT_TRUE(offsets.check(expected.offsets));
}

class Segmented : public gpu_test {};

TEST_F(Segmented, Int32EveryFormOnEveryShapeMatchesStdPerSegment) {
  auto rng = make_rng();
  for (const std::size_t total : totals()) {
    for (const segment_shape shape : all_segment_shapes) {
      const auto c = make_segmented_case<std::int32_t>(shape, total, rng);
      SCOPED_TRACE(c.describe());
      const device_case<std::int32_t> d(c);
      check_merges(c, d, corank::less{});
      check_set_keys(c, d, corank::less{}, true);
      check_set_by_key(c, d, corank::less{});
      CORANK_ASSERT_DEVICE_OK();
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(Segmented, FloatWithNaNsAndTaggedKeysMatchStdPerSegment) {
  auto rng = make_rng();
  for (const std::size_t total : totals()) {
    for (const segment_shape shape : all_segment_shapes) {
      auto f = make_segmented_case<float>(shape, total, rng);
      add_nan_tails(f, rng);
      SCOPED_TRACE("float " + f.describe());
      const device_case<float> df(f);
      check_merges(f, df, corank::nan_last_less{});
      check_set_keys(f, df, corank::nan_last_less{}, false);
      const auto t = make_segmented_case<tagged_key>(shape, total, rng);
      SCOPED_TRACE("tagged_key " + t.describe());
      const device_case<tagged_key> dt(t);
      check_merges(t, dt, tagged_order{});
      check_set_keys(t, dt, tagged_order{}, false);
      CORANK_ASSERT_DEVICE_OK();
      if (HasFatalFailure()) return;
    }
  }
}

// The two-phase forms, with 32-bit offsets: a query, then a run that writes the total to
// device memory; too little storage is refused with nothing written.
TEST_F(Segmented, TwoPhaseFormsWith32BitOffsets) {
  auto rng = make_rng();
  for (const segment_shape shape : all_segment_shapes) {
    const auto c = make_segmented_case<std::int32_t>(shape, 50000, rng);
    SCOPED_TRACE(c.describe());
    const device_buffer<std::int32_t> a(c.a), b(c.b);
    const device_buffer<std::int32_t> ao(narrowed<std::int32_t>(c.a_offsets)), bo(narrowed<std::int32_t>(c.b_offsets));
    const std::size_t total = c.a.size() + c.b.size();
    const auto expected = reference_segmented_set_op(set_op::set_difference, c, corank::less{});
    device_buffer<std::int32_t> keys(total);
    keys.fill_poison();
    guarded_output<std::int32_t> offsets(std::size_t(c.segments) + 1);
    device_buffer<index_t> count(1);
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, corank::device::segmented_set_difference(nullptr, bytes, a.data(), index_t(c.a.size()),
                                                                    ao.data(), b.data(), index_t(c.b.size()), bo.data(),
                                                                    c.segments, keys.data(), offsets.first(),
                                                                    count.data()));
    device_buffer<char> temp(bytes);
    std::size_t too_few = bytes - 1;
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::segmented_set_difference(temp.data(), too_few, a.data(), index_t(c.a.size()), ao.data(),
                                                       b.data(), index_t(c.b.size()), bo.data(), c.segments,
                                                       keys.data(), offsets.first(), count.data()));
    EXPECT_TRUE(offsets.untouched());
    ASSERT_EQ(cudaSuccess, corank::device::segmented_set_difference(temp.data(), bytes, a.data(), index_t(c.a.size()),
                                                                    ao.data(), b.data(), index_t(c.b.size()), bo.data(),
                                                                    c.segments, keys.data(), offsets.first(),
                                                                    count.data()));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_EQ(count.to_host()[0], expected.total());
    EXPECT_TRUE(offsets.check(narrowed<std::int32_t>(expected.offsets)));
    std::vector<std::int32_t> got = keys.to_host();
    got.resize(expected.keys.size());
    EXPECT_TRUE(equal_bits(expected.keys, got, 0));
  }
}

// Segment pairs whose boundaries fall at, just before and just after the merge tiles' edges
// (pairs of one tile, one off, two tiles one off, half a tile, 1 and 16) and the set
// operations' (one and two off), empty pairs between them, and one pair several tiles long;
// keys as drawn, and one key throughout, so that equal keys meet across every tile and
// segment boundary (the payloads and tags show which copy went where). Every merge form, and
// for int32 every set operation's keys and by-key forms; the 16-byte key's merges.
template <class K>
std::vector<segmented_case<K>> tile_edge_cases(std::mt19937_64& rng) {
  auto tile_of = [](corank::tile_kind kind, int value_size) {  // a tile's elements, for K and values of value_size bytes
    const corank::tile_shape shape = corank::tuned_tile(kind, int(sizeof(K)), value_size);
    return std::size_t(shape.threads) * std::size_t(shape.items);
  };
  // Merge tiles (keys; keys with the 8-byte payloads), and the set operations' (a balanced
  // split may step back one element: +-2 too).
  const std::size_t tile = tile_of(corank::tile_kind::partitioned_merge, 0);
  const std::size_t pair_tile = tile_of(corank::tile_kind::partitioned_merge, 8);
  const std::size_t set_tile = tile_of(corank::tile_kind::balanced_path, 0);
  std::vector<std::size_t> lengths = {tile,      tile - 1,      tile + 1,      2 * tile - 1, 2 * tile + 1,
                                      tile / 2,  1,             16,            pair_tile,    pair_tile + 1,
                                      pair_tile - 1, set_tile - 2, set_tile - 1, set_tile + 1, set_tile + 2};
  std::vector<int> empty_counts = {0, 1, 3};
  if (quick_mode()) {
    lengths = {tile + 1, 16, pair_tile - 1, set_tile + 1};
    empty_counts = {0, 3};
  }
  std::vector<segmented_case<K>> cases;
  for (const std::size_t length : lengths) {
    for (const int empties : empty_counts) {
      std::vector<std::size_t> la, lb;
      std::size_t total = 0;
      while (total < 4 * tile + 5 * length && la.size() < 100000) {
        const std::size_t a = rng() % 4 == 0 ? (rng() % 2) * length : std::size_t(rng() % (length + 1));
        la.push_back(a);
        lb.push_back(length - a);
        total += length;
        for (int e = 0; e < empties; ++e) {
          la.push_back(0);
          lb.push_back(0);
        }
      }
      if (empties == 3) {  // one pair several tiles long among them
        la.insert(la.begin() + std::ptrdiff_t(la.size() / 2), 3 * tile + 7);
        lb.insert(lb.begin() + std::ptrdiff_t(lb.size() / 2), 2 * tile + 1);
      }
      const std::string shape = "tile edge, pairs of " + std::to_string(length) + ", " + std::to_string(empties) +
                                " empty between";
      cases.push_back(make_segmented_case_of_lengths<K>(la, lb, rng, shape));
      segmented_case<K> equal = cases.back();
      equal.shape += ", one key";
      for (K& k : equal.a) k = segment_key<K>(5);
      for (K& k : equal.b) k = segment_key<K>(5);
      tag_keys(equal);
      cases.push_back(std::move(equal));
    }
  }
  return cases;
}

TEST_F(Segmented, EveryLengthMixAtTileEdgesWithEqualKeysAcrossBoundaries) {
  auto rng = make_rng();
  for (const auto& c : tile_edge_cases<std::int32_t>(rng)) {
    SCOPED_TRACE(c.describe());
    const device_case<std::int32_t> d(c);
    check_merges(c, d, corank::less{});
    check_set_keys(c, d, corank::less{}, true);
    check_set_by_key(c, d, corank::less{});
    CORANK_ASSERT_DEVICE_OK();
    if (HasFatalFailure()) return;
  }
  for (const auto& c : tile_edge_cases<tagged_key>(rng)) {
    SCOPED_TRACE("tagged_key " + c.describe());
    const device_case<tagged_key> d(c);
    check_merges(c, d, tagged_order{});
    CORANK_ASSERT_DEVICE_OK();
    if (HasFatalFailure()) return;
  }
}

// One segment is the two-input operation.
TEST_F(Segmented, OneSegmentIsTheTwoInputOperation) {
  auto rng = make_rng();
  const auto c = make_segmented_case<std::int32_t>(segment_shape::single, 300000, rng);
  const device_case<std::int32_t> d(c);
  const std::size_t total = c.a.size() + c.b.size();
  device_buffer<std::int32_t> segmented(total), plain(total);
  segmented.fill_poison();
  plain.fill_poison();
  device_buffer<index_t> offsets(2);
  auto* s_end = corank::segmented_set_symmetric_difference(d.a_first(), d.a_last(), d.a_offsets.data(), d.b_first(),
                                                           d.b_last(), d.b_offsets.data(), 1, segmented.data(),
                                                           offsets.data());
  auto* p_end = corank::set_symmetric_difference(d.a_first(), d.a_last(), d.b_first(), d.b_last(), plain.data());
  ASSERT_EQ(s_end - segmented.data(), p_end - plain.data());
  std::vector<std::int32_t> x = segmented.to_host(), y = plain.to_host();
  x.resize(std::size_t(s_end - segmented.data()));
  y.resize(x.size());
  EXPECT_EQ(x, y);
}

// Keys through iterators, m + n > 2^31: A's key i is i / 2, B's j is j / 3, in three segment
// pairs. Each output segment must be sorted, hold its pair's elements (their sum) and start
// at a_offsets[s] + b_offsets[s].
struct halve {
  __host__ __device__ std::int32_t operator()(index_t i) const { return std::int32_t(i / 2); }
};
struct third {
  __host__ __device__ std::int32_t operator()(index_t i) const { return std::int32_t(i / 3); }
};

TEST_F(Segmented, MergeOfMoreThanTwoToThe31ElementsThroughIterators) {
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: skipped";
  const index_t m = (index_t(1) << 30) + 12345, n = (index_t(1) << 30) + (index_t(1) << 20);
  const std::vector<index_t> ao = {0, m / 3, m / 2, m}, bo = {0, n / 5, n / 5, n};
  const auto a = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), halve{});
  const auto b = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), third{});
  thrust::device_vector<std::int32_t> out(std::size_t(m + n));
  thrust::device_vector<index_t> d_ao(ao), d_bo(bo), d_out_offsets(4);
  const auto end = corank::segmented_merge(a, a + m, d_ao.begin(), b, b + n, d_bo.begin(), 3, out.begin(),
                                           d_out_offsets.begin());
  EXPECT_EQ(end, out.end());
  const std::vector<index_t> out_offsets(d_out_offsets.begin(), d_out_offsets.end());
  for (index_t s = 0; s < 3; ++s) {
    SCOPED_TRACE("segment " + std::to_string(s));
    EXPECT_EQ(out_offsets[s], ao[s] + bo[s]);
    const auto first = out.begin() + out_offsets[s], last = out.begin() + (ao[s + 1] + bo[s + 1]);
    EXPECT_TRUE(thrust::is_sorted(first, last));
    auto sum = [](auto from, index_t count) {
      return thrust::reduce(from, from + count, index_t(0), thrust::plus<index_t>());
    };
    EXPECT_EQ(thrust::reduce(first, last, index_t(0), thrust::plus<index_t>()),
              sum(a + ao[s], ao[s + 1] - ao[s]) + sum(b + bo[s], bo[s + 1] - bo[s]));
  }
  EXPECT_EQ(out_offsets[3], m + n);
}

// No segments: the offsets may be null, and the one output offset is 0.
TEST_F(Segmented, NoSegmentsWithNullOffsetsWriteOneOffset) {
  guarded_output<index_t> offsets(1);
  const std::int32_t* none = nullptr;
  const index_t* no_offsets = nullptr;
  EXPECT_EQ(corank::segmented_set_union(none, none, no_offsets, none, none, no_offsets, 0,
                                        static_cast<std::int32_t*>(nullptr), offsets.first()),
            nullptr);
  EXPECT_TRUE(offsets.check({0}));
}

TEST_F(Segmented, BadArgumentsGetASentenceAndNothingIsWritten) {
  const device_buffer<std::int32_t> a(std::vector<std::int32_t>{1, 2, 3}), b(std::vector<std::int32_t>{2, 3});
  const device_buffer<index_t> ao(std::vector<index_t>{0, 3}), bo(std::vector<index_t>{0, 2});
  guarded_output<std::int32_t> out(5);
  guarded_output<index_t> offsets(2);
  auto message_of = [&](auto call) -> std::string {
    try {
      call();
    } catch (const corank::cuda_error& e) {
      EXPECT_EQ(e.code(), cudaErrorInvalidValue);
      return e.what();
    }
    return "no error";
  };
  const std::string negative = message_of([&] {
    corank::segmented_merge(a.data(), a.data() + 3, ao.data(), b.data(), b.data() + 2, bo.data(), -1, out.first(),
                            offsets.first());
  });
  EXPECT_NE(negative.find("corank::segmented_merge: the segment count is negative"), std::string::npos) << negative;
  const std::string null_offsets = message_of([&] {
    corank::segmented_set_union(a.data(), a.data() + 3, static_cast<const index_t*>(nullptr), b.data(), b.data() + 2,
                                bo.data(), 1, out.first(), offsets.first());
  });
  EXPECT_NE(null_offsets.find("the segment offsets are a null pointer"), std::string::npos) << null_offsets;
  const std::string null_out = message_of([&] {
    corank::segmented_set_union(a.data(), a.data() + 3, ao.data(), b.data(), b.data() + 2, bo.data(), 1, out.first(),
                                static_cast<index_t*>(nullptr));
  });
  EXPECT_NE(null_out.find("the output offsets are a null pointer"), std::string::npos) << null_out;
  EXPECT_TRUE(out.untouched());
  EXPECT_TRUE(offsets.untouched());
  std::size_t bytes = 0;
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_set_union_count(nullptr, bytes, a.data(), index_t(-1), ao.data(), b.data(),
                                                      index_t(2), bo.data(), 1, static_cast<int*>(nullptr),
                                                      static_cast<index_t*>(nullptr)));

  // The two-phase runs refuse null offsets (S > 0), a null offsets_out and null counts_out,
  // and write nothing.
  const device_buffer<index_t> total(1);
  std::size_t union_bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::segmented_set_union(nullptr, union_bytes, a.data(), index_t(3), ao.data(),
                                                             b.data(), index_t(2), bo.data(), 1, out.first(),
                                                             offsets.first(), total.data()));
  const device_buffer<unsigned char> temp(union_bytes);
  auto run_union = [&](const index_t* a_offsets, index_t* offsets_out) {
    return corank::device::segmented_set_union(temp.data(), union_bytes, a.data(), index_t(3), a_offsets, b.data(),
                                               index_t(2), bo.data(), 1, out.first(), offsets_out, total.data());
  };
  EXPECT_EQ(cudaErrorInvalidValue, run_union(nullptr, offsets.first()));
  EXPECT_EQ(cudaErrorInvalidValue, run_union(ao.data(), nullptr));
  guarded_output<int> counts(1);
  std::size_t count_bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::segmented_set_union_count(nullptr, count_bytes, a.data(), index_t(3),
                                                                   ao.data(), b.data(), index_t(2), bo.data(), 1,
                                                                   counts.first(), total.data()));
  const device_buffer<unsigned char> count_temp(count_bytes);
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_set_union_count(count_temp.data(), count_bytes, a.data(), index_t(3), ao.data(),
                                                      b.data(), index_t(2), bo.data(), 1, static_cast<int*>(nullptr),
                                                      total.data()));
  CORANK_EXPECT_DEVICE_OK();
  EXPECT_TRUE(out.untouched());
  EXPECT_TRUE(offsets.untouched());
  EXPECT_TRUE(counts.untouched());
}

}  // namespace
