#pragma once
// The streamed forms' differential cases, shared by the CPU test (host_streamed_test.cpp)
// and the GPU test (streamed_test.cu): every operation, keys, key-value pairs and counts,
// into arrays and into sinks, against the std algorithms, on the set-operation shapes (runs
// of equal keys across chunks, one side exhausted early, empty sides) with chunks from 1
// step up. A Backend names its runners (streamed_merge, streamed_set_union, ...):
//   Backend::keys(op, args...), Backend::by_key(op, args...), Backend::count(op, args...)
// Plain C++.

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/set_inputs.hpp"

#include <corank/config.hpp>
#include <corank/streamed_chunks.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace corank::test {

// The merge and the four set operations.
enum class streamed_op : unsigned char { merge, set_union, set_intersection, set_difference, set_symmetric_difference };

inline constexpr streamed_op all_streamed_ops[] = {streamed_op::merge, streamed_op::set_union,
                                                   streamed_op::set_intersection, streamed_op::set_difference,
                                                   streamed_op::set_symmetric_difference};

inline set_op as_set_op(streamed_op op) { return static_cast<set_op>(static_cast<int>(op) - 1); }

inline const char* to_string(streamed_op op) { return op == streamed_op::merge ? "merge" : to_string(as_set_op(op)); }

template <class K, class Compare>
std::vector<K> reference_keys(streamed_op op, const std::vector<K>& a, const std::vector<K>& b, Compare comp) {
  return op == streamed_op::merge ? reference_merge(a, b, comp) : std_set_op(as_set_op(op), a, b, comp);
}

template <class K, class V, class Compare>
keys_and_values<K, V> reference_by_key(streamed_op op, const std::vector<K>& a, const std::vector<V>& va,
                                       const std::vector<K>& b, const std::vector<V>& vb, Compare comp) {
  return op == streamed_op::merge ? reference_merge_by_key(a, va, b, vb, comp)
                                  : reference_set_op_by_key(as_set_op(op), a, va, b, vb, comp);
}

// One case: a shape, its sizes, and the chunk.
struct streamed_case {
  set_distribution shape;
  std::size_t m, n;
  index_t chunk;
  std::size_t gpu_memory = 0;  // the GPU backend's budget (0: its default)
};

inline std::string describe(const streamed_case& c) {
  return std::string(to_string(c.shape)) + " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
         " chunk=" + std::to_string(c.chunk) + (c.gpu_memory != 0 ? " gpu_memory=" + std::to_string(c.gpu_memory) : "");
}

// Every shape at sizes that make from one to thousands of chunks, empty sides included; the
// chunk sizes put boundaries everywhere (1: every step) and inside runs of equal keys.
inline std::vector<streamed_case> streamed_cases(std::size_t scale, std::mt19937_64& rng) {
  const std::size_t sizes[][2] = {{0, 0}, {0, 37}, {45, 0}, {1, 1}, {scale, scale}, {scale, scale / 3 + 1},
                                  {rng() % scale, rng() % (2 * scale)}};
  const index_t chunks[] = {1, 2, 7, 64, index_t(scale / 3 + 5), 0};
  std::vector<streamed_case> out;
  for (set_distribution shape : all_set_distributions) {
    for (const auto& size : sizes) {
      if (!applies(shape, size[0], size[1])) continue;
      for (index_t chunk : chunks) {
        // chunk 1 walks a call per step: only at the small sizes.
        if (chunk <= 2 && size[0] + size[1] > 2 * scale / 3) continue;
        out.push_back({shape, size[0], size[1], chunk});
      }
    }
  }
  return out;
}

// The same elements, bit for bit.
template <class T>
::testing::AssertionResult equal_outputs(const std::vector<T>& expected, const std::vector<T>& actual) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << actual.size() << " outputs, expected " << expected.size();
  }
  return equal_bits(expected, actual);
}

// Collects what a sink is handed, and checks each chunk's size.
template <class K, class V = char>
struct collecting_sink {
  keys_and_values<K, V>* out;
  index_t chunk;  // 0: the default
  int* calls;
  void take(index_t count) {
    ++*calls;
    EXPECT_GT(count, 0) << "a sink is called only with outputs";
    const index_t most = (chunk != 0 ? chunk : streamed_options::default_chunk) + 1;
    EXPECT_LE(count, most) << "a chunk delivered more than its window";
  }
  void operator()(const K* keys, index_t count) {
    take(count);
    out->keys.insert(out->keys.end(), keys, keys + count);
  }
  void operator()(const K* keys, const V* values, index_t count) {
    take(count);
    out->keys.insert(out->keys.end(), keys, keys + count);
    out->values.insert(out->values.end(), values, values + count);
  }
};

// Checks every form of every operation on one case.
template <class Backend, class K>
void check_streamed_case(const streamed_case& c, std::mt19937_64& rng) {
  const sorted_inputs<K> in = make_set_inputs<K>(c.shape, c.m, c.n, 40, rng);
  const std::vector<std::uint64_t> va = payloads(0, in.a.size()), vb = payloads(1, in.b.size());
  const corank::less comp;
  streamed_options options;
  options.chunk = c.chunk;
  options.gpu_memory = c.gpu_memory;
  index_t last_done = 0;
  options.progress = [&](index_t done, index_t total) {
    EXPECT_EQ(total, index_t(in.a.size() + in.b.size()));
    EXPECT_GT(done, last_done) << "progress moves forward";
    last_done = done;
  };
  const K* a = in.a.data();
  const K* b = in.b.data();
  const K* a_end = a + in.a.size();
  const K* b_end = b + in.b.size();
  for (streamed_op op : all_streamed_ops) {
    SCOPED_TRACE(std::string(to_string(op)) + " " + describe(c));
    const std::vector<K> expected = reference_keys(op, in.a, in.b, comp);
    const keys_and_values<K, std::uint64_t> expected_pairs = reference_by_key(op, in.a, va, in.b, vb, comp);

    std::vector<K> keys(in.a.size() + in.b.size() + 1);
    last_done = 0;
    K* end = Backend::keys(op, a, a_end, b, b_end, keys.data(), comp, options);
    EXPECT_EQ(last_done, index_t(in.a.size() + in.b.size()));
    keys.resize(static_cast<std::size_t>(end - keys.data()));
    EXPECT_TRUE(equal_outputs(expected, keys)) << "keys into an array";

    keys_and_values<K, char> sunk;
    int calls = 0;
    last_done = 0;
    const index_t count = Backend::keys(op, a, a_end, b, b_end, collecting_sink<K>{&sunk, c.chunk, &calls}, comp,
                                        options);
    EXPECT_EQ(count, index_t(expected.size()));
    EXPECT_TRUE(equal_outputs(expected, sunk.keys)) << "keys into a sink";

    last_done = 0;
    keys_and_values<K, std::uint64_t> pairs;
    pairs.keys.resize(in.a.size() + in.b.size() + 1);
    pairs.values.resize(pairs.keys.size());
    const auto ends = Backend::by_key(op, a, a_end, b, b_end, va.data(), vb.data(), pairs.keys.data(),
                                      pairs.values.data(), comp, options);
    pairs.keys.resize(static_cast<std::size_t>(ends.first - pairs.keys.data()));
    pairs.values.resize(static_cast<std::size_t>(ends.second - pairs.values.data()));
    EXPECT_TRUE(equal_outputs(expected_pairs.keys, pairs.keys)) << "by-key keys into arrays";
    EXPECT_EQ(pairs.values, expected_pairs.values) << "by-key values into arrays";

    last_done = 0;
    keys_and_values<K, std::uint64_t> sunk_pairs;
    Backend::by_key(op, a, a_end, b, b_end, va.data(), vb.data(),
                    collecting_sink<K, std::uint64_t>{&sunk_pairs, c.chunk, &calls}, comp, options);
    EXPECT_TRUE(equal_outputs(expected_pairs.keys, sunk_pairs.keys)) << "by-key keys into a sink";
    EXPECT_EQ(sunk_pairs.values, expected_pairs.values) << "by-key values into a sink";

    if (op != streamed_op::merge) {
      last_done = 0;
      EXPECT_EQ(Backend::count(op, a, a_end, b, b_end, comp, options), index_t(expected.size())) << "count";
    }
  }
}

}  // namespace corank::test
