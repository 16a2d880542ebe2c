// corank::stable_sort and its forms on the GPU against std::stable_sort: key types (int32,
// int64, float with NaN, a 16-byte key with a custom comparator), every input shape, sizes
// around the block sort's tile and across the passes, stability (values are input
// positions), in place and into an output, the two-phase protocol and its errors.

#include <corank/memory.hpp>
#include <corank/sort.cuh>

#include "support/gpu.hpp"
#include "support/multiway_inputs.hpp"
#include "support/test_env.hpp"

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

template <class K>
struct comparator_of {
  using type = typename key_traits<K>::compare;
};
template <>
struct comparator_of<wide_key> {
  using type = wide_less;
};
template <>
struct comparator_of<float> {
  using type = corank::nan_last_less;
};

template <class K>
constexpr std::size_t tile_of = corank::block_sort_policy<K>::items_per_tile;

// Sizes around the block sort's tile and the passes' boundaries (64 tiles per pass at most).
template <class K>
std::vector<std::size_t> sort_sizes() {
  const std::size_t t = tile_of<K>;
  std::vector<std::size_t> sizes = {0, 1, 2, 17, t - 1, t, t + 1, 3 * t + 5};
  if (!quick_mode()) {
    for (std::size_t s : {64 * t - 1, 64 * t + 1, 65 * t + 3, std::size_t(1) << 20, (std::size_t(1) << 22) + 7})
      sizes.push_back(s);
  }
  return sizes;
}

template <class K>
class SortTyped : public gpu_test {};

using sort_keys = ::testing::Types<std::int32_t, std::int64_t, float, wide_key>;
TYPED_TEST_SUITE(SortTyped, sort_keys);

// Keys with their input positions as values: the result must be exactly the stable order.
TYPED_TEST(SortTyped, ByKeyIsTheStableOrder) {
  using K = TypeParam;
  using C = typename comparator_of<K>::type;
  auto rng = make_rng();
  for (std::size_t n : sort_sizes<K>()) {
    for (shape s : all_shapes) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", " + shape_name(s));
      std::vector<K> keys = make_keys<K>(n, s, rng);
      if constexpr (std::is_same_v<K, float>) {
        for (std::size_t i = 0; i < n; i += 97) keys[i] = std::numeric_limits<float>::quiet_NaN();
      }
      std::vector<std::int32_t> positions(n);
      for (std::size_t i = 0; i < n; ++i) positions[i] = std::int32_t(i);
      device_buffer<K> d_keys(keys);
      device_buffer<std::int32_t> d_values(positions);
      corank::stable_sort_by_key(d_keys.begin(), d_keys.end(), d_values.begin(), C{});
      CORANK_ASSERT_DEVICE_OK();
      const std::vector<std::int64_t> order = stable_order(keys, C{});
      const std::vector<K> got_keys = d_keys.to_host();
      const std::vector<std::int32_t> got_values = d_values.to_host();
      std::size_t wrong = 0, first_wrong = n;
      for (std::size_t i = 0; i < n; ++i) {
        if (got_values[i] != order[i] || !same_bits(got_keys[i], keys[std::size_t(order[i])])) {
          if (wrong++ == 0) first_wrong = i;
        }
      }
      ASSERT_EQ(wrong, 0u) << "first at " << first_wrong << ": position " << got_values[first_wrong]
                           << ", expected " << order[first_wrong];
    }
  }
}

TYPED_TEST(SortTyped, KeysInPlaceAndCopy) {
  using K = TypeParam;
  using C = typename comparator_of<K>::type;
  auto rng = make_rng();
  for (std::size_t n : sort_sizes<K>()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<K> keys = make_keys<K>(n, shape::random, rng);
    std::vector<K> expected(keys);
    std::stable_sort(expected.begin(), expected.end(), C{});
    device_buffer<K> in(keys);
    guarded_output<K> out(n);
    EXPECT_EQ(corank::stable_sort_copy(in.begin(), in.end(), out.first(), C{}), out.last());
    EXPECT_TRUE(out.check(expected));
    const std::vector<K> untouched = in.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(untouched[i], keys[i])) << "input changed at " << i;
    corank::stable_sort(in.begin(), in.end(), C{});
    const std::vector<K> sorted = in.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(sorted[i], expected[i])) << "in place, at " << i;
  }
}

TEST(Sort, ByKeyCopyLeavesInputsAndFillsOutputs) {
  CORANK_REQUIRE_GPU();
  auto rng = make_rng();
  const std::size_t n = quick_or(100000, 5000);
  const std::vector<std::int64_t> keys = make_keys<std::int64_t>(n, shape::few_distinct, rng);
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = double(i) * 0.5;
  device_buffer<std::int64_t> d_keys(keys);
  device_buffer<double> d_values(values);
  guarded_output<std::int64_t> keys_out(n);
  guarded_output<double> values_out(n);
  const auto ends = corank::stable_sort_by_key_copy(d_keys.begin(), d_keys.end(), d_values.begin(), keys_out.first(),
                                                    values_out.first());
  EXPECT_EQ(ends.first, keys_out.last());
  EXPECT_EQ(ends.second, values_out.last());
  const std::vector<std::int64_t> order = stable_order(keys, corank::less{});
  std::vector<std::int64_t> expected_keys(n);
  std::vector<double> expected_values(n);
  for (std::size_t i = 0; i < n; ++i) {
    expected_keys[i] = keys[std::size_t(order[i])];
    expected_values[i] = values[std::size_t(order[i])];
  }
  EXPECT_TRUE(keys_out.check(expected_keys));
  EXPECT_TRUE(values_out.check(expected_values));
  EXPECT_EQ(d_keys.to_host(), keys);
}

// Unsorted input read through an iterator that is not a pointer, into a device_vector.
TEST(Sort, CountingIteratorInputDescending) {
  CORANK_REQUIRE_GPU();
  const std::size_t n = quick_or(300000, 9000);
  thrust::device_vector<std::int64_t> out(n);
  corank::stable_sort_copy(thrust::counting_iterator<std::int64_t>(0),
                           thrust::counting_iterator<std::int64_t>(std::int64_t(n)), out.begin(), greater_op{});
  std::vector<std::int64_t> host(n);
  thrust::copy(out.begin(), out.end(), host.begin());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(host[i], std::int64_t(n - 1 - i)) << "at " << i;
}

// The temporary storage's one alignment rule (memory.hpp): storage not aligned to
// corank::temporary_storage_alignment, like too little, is refused before any CUDA call. Host
// memory stands in for the device's (no GPU needed): nothing may touch it.
TEST(SortHost, MisalignedOrShortStorageIsInvalidValueBeforeAnyCudaCall) {
  constexpr std::size_t alignment = corank::temporary_storage_alignment;
  const std::size_t n = 100000;  // more than a tile: the passes' buffer and samples
  std::vector<std::int32_t> keys(n, 7);
  std::vector<std::int64_t> values(n, 9);
  const std::vector<std::int32_t> keys_before = keys;
  const std::vector<std::int64_t> values_before = values;
  for (const bool by_key : {false, true}) {
    SCOPED_TRACE(by_key ? "stable_sort_by_key" : "stable_sort");
    auto sort = [&](void* temp, std::size_t& bytes) {
      return by_key ? corank::device::stable_sort_by_key(temp, bytes, keys.data(), values.data(), index_t(n))
                    : corank::device::stable_sort(temp, bytes, keys.data(), index_t(n));
    };
    std::size_t queried = 0;
    ASSERT_EQ(cudaSuccess, sort(nullptr, queried));
    ASSERT_GE(queried, n * sizeof(std::int32_t));
    std::vector<unsigned char> temp(queried + 2 * alignment, poison_byte);
    auto* aligned = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(temp.data()) + alignment - 1) / alignment * alignment);
    for (const std::size_t offset : {std::size_t(8), std::size_t(16), alignment / 2}) {
      std::size_t bytes = queried + alignment;
      EXPECT_EQ(cudaErrorInvalidValue, sort(aligned + offset, bytes)) << "offset " << offset;
      EXPECT_EQ(bytes, queried + alignment) << "a run changed temp_storage_bytes";
    }
    std::size_t short_bytes = queried - 1;
    EXPECT_EQ(cudaErrorInvalidValue, sort(aligned, short_bytes));
    EXPECT_TRUE(all_poison(temp)) << "the temporary storage was written";
  }
  EXPECT_EQ(keys, keys_before);
  EXPECT_EQ(values, values_before);
}

TEST(Sort, TwoPhaseProtocolAndErrors) {
  CORANK_REQUIRE_GPU();
  auto rng = make_rng();
  const std::size_t n = quick_or(200000, 20000);
  const std::vector<std::int32_t> keys = make_keys<std::int32_t>(n, shape::random, rng);
  device_buffer<std::int32_t> d_keys(keys);
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::stable_sort(nullptr, bytes, d_keys.data(), index_t(n)));
  ASSERT_GT(bytes, 0u);
  std::size_t again = 0;
  ASSERT_EQ(cudaSuccess, corank::device::stable_sort(nullptr, again, static_cast<std::int32_t*>(nullptr), index_t(n)));
  EXPECT_EQ(again, bytes) << "a query looks at no pointer";
  device_buffer<unsigned char> temp(bytes);
  temp.fill_poison();
  std::size_t short_bytes = bytes - 1;
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::stable_sort(temp.data(), short_bytes, d_keys.data(), index_t(n)));
  EXPECT_EQ(d_keys.to_host(), keys) << "nothing runs with too little storage";
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::stable_sort(temp.data(), bytes, d_keys.data(), index_t(-1)));
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::stable_sort(temp.data(), bytes, static_cast<std::int32_t*>(nullptr), index_t(n)));
  std::size_t zero_bytes = 0;
  EXPECT_EQ(cudaSuccess, corank::device::stable_sort(nullptr, zero_bytes, d_keys.data(), index_t(0)));
  EXPECT_GE(zero_bytes, 1u);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaSuccess, cudaStreamCreate(&stream));
  ASSERT_EQ(cudaSuccess, corank::device::stable_sort(temp.data(), bytes, d_keys.data(), index_t(n), corank::less{},
                                                     stream));
  ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
  cudaStreamDestroy(stream);
  std::vector<std::int32_t> expected(keys);
  std::stable_sort(expected.begin(), expected.end());
  EXPECT_EQ(d_keys.to_host(), expected);
  try {
    corank::stable_sort(static_cast<std::int32_t*>(nullptr), static_cast<std::int32_t*>(nullptr) + 5);
    ADD_FAILURE() << "a null pointer with a size was accepted";
  } catch (const corank::cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("corank::stable_sort: the keys are a null pointer"), std::string::npos)
        << e.what();
  }
}

}  // namespace

namespace {

// 2^24 and 2^24 + 4097 int32 keys: 4,370 and 4,371 block-sorted runs, three passes (groups of
// 18, 16 and 16 runs: pass_plan.hpp).
TEST(Sort, TwoToThe24InThreePasses) {
  CORANK_REQUIRE_GPU();
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: the 2^24 case is skipped";
  auto rng = make_rng();
  for (std::size_t n : {std::size_t(1) << 24, (std::size_t(1) << 24) + 4097}) {
    const std::vector<std::int32_t> keys = make_keys<std::int32_t>(n, shape::random, rng);
    std::vector<std::int32_t> expected(keys);
    std::sort(expected.begin(), expected.end());
    device_buffer<std::int32_t> d_keys(keys);
    corank::stable_sort(d_keys.begin(), d_keys.end());
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_EQ(d_keys.to_host(), expected) << "n = " << n;
  }
}

}  // namespace
