// corank::merge_runs (k-way merge) and its forms on the GPU against the stable sort of the
// concatenated runs (equal keys: lower run first, then input order): k from 1 to 2^16 and
// beyond a pass's 64, run lengths equal, skewed (one run holds half) and random with empty
// runs, long runs of equal keys across runs and tiles, the listed (pointer, size) form,
// offsets of another integer type not starting at 0, more than 2^31 elements, errors.

#include <corank/memory.hpp>
#include <corank/merge_runs.cuh>

#include "support/gpu.hpp"
#include "support/multiway_inputs.hpp"
#include "support/test_env.hpp"

#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

struct kway_case {
  std::size_t n;
  std::size_t k;
};

std::vector<kway_case> kway_cases() {
  std::vector<kway_case> cases = {{0, 0}, {0, 5}, {1, 1}, {100, 1}, {5000, 2}, {5000, 3}, {20000, 64}, {20000, 65},
                                  {3000, 1000}, {70000, 7}};
  if (!quick_mode()) {
    for (kway_case c : std::vector<kway_case>{{1 << 20, 4}, {1 << 20, 16}, {1 << 20, 64}, {1 << 20, 256},
                                              {1 << 20, 1024}, {1 << 20, 4097}, {1 << 18, 65536}, {100000, 65536},
                                              {(1 << 22) + 3, 33}})
      cases.push_back(c);
  }
  return cases;
}

template <class K>
class MergeRunsTyped : public gpu_test {};
using kway_keys = ::testing::Types<std::int32_t, std::int64_t, wide_key>;
TYPED_TEST_SUITE(MergeRunsTyped, kway_keys);

template <class K>
using less_of = std::conditional_t<std::is_same_v<K, wide_key>, wide_less, corank::less>;

TYPED_TEST(MergeRunsTyped, ByKeyIsTheStableMergeOfTheRuns) {
  using K = TypeParam;
  using C = less_of<K>;
  auto rng = make_rng();
  for (const kway_case c : kway_cases()) {
    for (lengths how : {lengths::equal, lengths::skewed, lengths::random_with_empty}) {
      for (shape s : {shape::random, shape::few_distinct, shape::all_equal}) {
        SCOPED_TRACE("n = " + std::to_string(c.n) + ", k = " + std::to_string(c.k) + ", " + lengths_name(how) + ", " +
                     shape_name(s));
        std::vector<K> keys = make_keys<K>(c.n, s, rng);
        const std::vector<std::int64_t> offsets = make_offsets(c.n, c.k, how, rng);
        sort_runs(keys, offsets, C{});
        std::vector<std::int64_t> positions(c.n);
        for (std::size_t i = 0; i < c.n; ++i) positions[i] = std::int64_t(i);
        device_buffer<K> d_keys(keys);
        device_buffer<std::int64_t> d_positions(positions), d_offsets(offsets);
        guarded_output<K> keys_out(c.n);
        guarded_output<std::int64_t> values_out(c.n);
        const auto ends = corank::merge_runs_by_key(d_keys.data(), d_positions.data(), d_offsets.data(),
                                                    index_t(c.k), index_t(c.n), keys_out.first(), values_out.first(),
                                                    C{});
        EXPECT_EQ(ends.first, keys_out.last());
        const std::vector<std::int64_t> order = stable_order(keys, C{});
        std::vector<K> expected_keys(c.n);
        for (std::size_t i = 0; i < c.n; ++i) expected_keys[i] = keys[std::size_t(order[i])];
        ASSERT_TRUE(values_out.check(order));
        ASSERT_TRUE(keys_out.check(expected_keys));
      }
    }
  }
}

TEST(MergeRuns, ListedRunsKeysOnlyAndByKey) {
  CORANK_REQUIRE_GPU();
  auto rng = make_rng();
  for (std::size_t k : {std::size_t(1), std::size_t(9), std::size_t(64), std::size_t(300)}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    const std::size_t n = quick_or(200000, 20000);
    std::vector<std::int32_t> keys = make_keys<std::int32_t>(n, shape::few_distinct, rng);
    const std::vector<std::int64_t> offsets = make_offsets(n, k, lengths::random_with_empty, rng);
    sort_runs(keys, offsets, corank::less{});
    // Each run in its own allocation.
    std::vector<device_buffer<std::int32_t>> runs, run_values;
    std::vector<const std::int32_t*> pointers, value_pointers;
    std::vector<index_t> sizes;
    for (std::size_t j = 0; j < k; ++j) {
      std::vector<std::int32_t> run(keys.begin() + offsets[j], keys.begin() + offsets[j + 1]);
      std::vector<std::int32_t> vals(run.size());
      for (std::size_t i = 0; i < run.size(); ++i) vals[i] = std::int32_t(offsets[j] + std::int64_t(i));
      runs.emplace_back(run);
      run_values.emplace_back(vals);
      pointers.push_back(runs.back().data());
      value_pointers.push_back(run_values.back().data());
      sizes.push_back(index_t(run.size()));
    }
    const std::vector<std::int64_t> order = stable_order(keys, corank::less{});
    std::vector<std::int32_t> expected_keys(n), expected_values(n);
    for (std::size_t i = 0; i < n; ++i) {
      expected_keys[i] = keys[std::size_t(order[i])];
      expected_values[i] = std::int32_t(order[i]);
    }
    guarded_output<std::int32_t> out(n);
    EXPECT_EQ(corank::merge_run_list(pointers.data(), sizes.data(), index_t(k), out.first()), out.last());
    EXPECT_TRUE(out.check(expected_keys));
    guarded_output<std::int32_t> keys_out(n), values_out(n);
    corank::merge_run_list_by_key(pointers.data(), value_pointers.data(), sizes.data(), index_t(k), keys_out.first(),
                                  values_out.first());
    EXPECT_TRUE(keys_out.check(expected_keys));
    EXPECT_TRUE(values_out.check(expected_values));
    // The two-phase form, with the lists in device memory.
    device_buffer<const std::int32_t*> d_pointers(pointers);
    device_buffer<index_t> d_sizes(sizes);
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, corank::device::merge_run_list(nullptr, bytes, d_pointers.data(), d_sizes.data(),
                                                          index_t(k), index_t(n), out.first()));
    device_buffer<unsigned char> temp(bytes);
    guarded_output<std::int32_t> two_phase(n);
    ASSERT_EQ(cudaSuccess, corank::device::merge_run_list(temp.data(), bytes, d_pointers.data(), d_sizes.data(),
                                                          index_t(k), index_t(n), two_phase.first()));
    EXPECT_TRUE(two_phase.check(expected_keys));
  }
}

// int32 offsets that start past 0: run j is keys[offsets[j], offsets[j + 1]).
TEST(MergeRuns, OffsetsOfAnotherTypeNotFromZero) {
  CORANK_REQUIRE_GPU();
  auto rng = make_rng();
  const std::size_t n = quick_or(100000, 10000), skip = 123, k = 40;
  std::vector<std::int64_t> keys = make_keys<std::int64_t>(n + skip, shape::random, rng);
  std::vector<std::int64_t> offsets = make_offsets(n, k, lengths::equal, rng);
  std::vector<std::int32_t> offsets32(k + 1);
  for (std::size_t j = 0; j <= k; ++j) offsets32[j] = std::int32_t(offsets[j] + std::int64_t(skip));
  std::vector<std::int64_t> shifted(offsets);
  for (auto& o : shifted) o += std::int64_t(skip);
  sort_runs(keys, shifted, corank::less{});
  device_buffer<std::int64_t> d_keys(keys);
  device_buffer<std::int32_t> d_offsets(offsets32);
  guarded_output<std::int64_t> out(n);
  corank::merge_runs(d_keys.data(), d_offsets.data(), index_t(k), index_t(n), out.first());
  std::vector<std::int64_t> expected(keys.begin() + std::ptrdiff_t(skip), keys.end());
  std::stable_sort(expected.begin(), expected.end());
  EXPECT_TRUE(out.check(expected));
}

struct quarter {
  __host__ __device__ std::int32_t operator()(std::int64_t i) const { return std::int32_t(i >> 2); }
};
struct stride_offset {
  std::int64_t every, total;
  __host__ __device__ std::int64_t operator()(std::int64_t j) const { return j * every < total ? j * every : total; }
};
struct wrong_place {
  std::int32_t* out;
  __host__ __device__ bool operator()(std::int64_t i) const { return out[i] != std::int32_t(i >> 2); }
};

// 2^31 + 2^20 keys in 48 runs, read through iterators: positions past 2^31 everywhere.
TEST(MergeRuns, MoreThanTwoToThe31Elements) {
  CORANK_REQUIRE_GPU();
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: the > 2^31 case is skipped";
  const std::int64_t n = (std::int64_t(1) << 31) + (std::int64_t(1) << 20);
  const std::int64_t k = 48;
  thrust::device_vector<std::int32_t> out(std::size_t(n), -1);
  const auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), quarter{});
  const auto offsets =
      thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), stride_offset{(n + k - 1) / k, n});
  corank::merge_runs(keys, offsets, k, n, out.begin());
  const auto wrong = thrust::count_if(thrust::counting_iterator<std::int64_t>(0),
                                      thrust::counting_iterator<std::int64_t>(n),
                                      wrong_place{thrust::raw_pointer_cast(out.data())});
  EXPECT_EQ(wrong, 0);
}

// The temporary storage's one alignment rule (memory.hpp), as sort_test.cu's SortHost test:
// misaligned or short storage is refused before any CUDA call; host memory, untouched.
TEST(MergeRunsHost, MisalignedOrShortStorageIsInvalidValueBeforeAnyCudaCall) {
  constexpr std::size_t alignment = corank::temporary_storage_alignment;
  const index_t runs = 100;  // more than 64: two passes, so a buffer of the size
  const index_t size = 100000;
  std::vector<std::int32_t> keys(size, 7), out(size, 0);
  std::vector<std::int64_t> offsets(runs + 1);
  for (index_t j = 0; j <= runs; ++j) offsets[j] = j * size / runs;
  std::vector<const std::int32_t*> pointers(runs, keys.data());
  std::vector<index_t> sizes(runs, size / runs);
  for (const bool listed : {false, true}) {
    SCOPED_TRACE(listed ? "merge_run_list" : "merge_runs");
    auto merge = [&](void* temp, std::size_t& bytes) {
      return listed ? corank::device::merge_run_list(temp, bytes, pointers.data(), sizes.data(), runs, size, out.data())
                    : corank::device::merge_runs(temp, bytes, keys.data(), offsets.data(), runs, size, out.data());
    };
    std::size_t queried = 0;
    ASSERT_EQ(cudaSuccess, merge(nullptr, queried));
    ASSERT_GE(queried, std::size_t(size) * sizeof(std::int32_t));
    std::vector<unsigned char> temp(queried + 2 * alignment, poison_byte);
    auto* aligned = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(temp.data()) + alignment - 1) / alignment * alignment);
    for (const std::size_t offset : {std::size_t(8), std::size_t(16), alignment / 2}) {
      std::size_t bytes = queried + alignment;
      EXPECT_EQ(cudaErrorInvalidValue, merge(aligned + offset, bytes)) << "offset " << offset;
      EXPECT_EQ(bytes, queried + alignment) << "a run changed temp_storage_bytes";
    }
    std::size_t short_bytes = queried - 1;
    EXPECT_EQ(cudaErrorInvalidValue, merge(aligned, short_bytes));
    EXPECT_TRUE(all_poison(temp)) << "the temporary storage was written";
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](std::int32_t x) { return x == 0; })) << "the output was written";
  }
}

TEST(MergeRuns, Errors) {
  CORANK_REQUIRE_GPU();
  device_buffer<std::int32_t> keys(std::vector<std::int32_t>{1, 2, 3});
  device_buffer<std::int64_t> offsets(std::vector<std::int64_t>{0, 3});
  std::size_t bytes = 0;
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::merge_runs(nullptr, bytes, keys.data(), offsets.data(), index_t(-1), index_t(3), keys.data()));
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::merge_runs(nullptr, bytes, keys.data(), offsets.data(), index_t(1), index_t(-3), keys.data()));
  ASSERT_EQ(cudaSuccess,
            corank::device::merge_runs(nullptr, bytes, keys.data(), offsets.data(), index_t(1), index_t(3), keys.data()));
  device_buffer<unsigned char> temp(bytes);
  device_buffer<std::int32_t> out(3);
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge_runs(temp.data(), bytes, keys.data(),
                                                              static_cast<std::int64_t*>(nullptr), index_t(1),
                                                              index_t(3), out.data()));
  std::size_t short_bytes = bytes - 1;
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge_runs(temp.data(), short_bytes, keys.data(), offsets.data(),
                                                              index_t(1), index_t(3), out.data()));
  auto message = [](auto call) -> std::string {
    try {
      call();
    } catch (const corank::cuda_error& e) {
      return e.what();
    }
    return "no exception";
  };
  EXPECT_NE(message([&] { corank::merge_runs(keys.data(), offsets.data(), index_t(-2), index_t(3), out.data()); })
                .find("corank::merge_runs: the number of runs is negative"),
            std::string::npos);
  const std::int32_t* pointers[] = {keys.data(), nullptr};
  const index_t sizes[] = {3, 2};
  EXPECT_NE(message([&] { corank::merge_run_list(pointers, sizes, index_t(2), out.data()); })
                .find("corank::merge_run_list: a run is a null pointer with a nonzero size"),
            std::string::npos);
  const index_t negative[] = {3, -1};
  EXPECT_NE(message([&] { corank::merge_run_list(pointers, negative, index_t(2), out.data()); })
                .find("a run's size is negative"),
            std::string::npos);
}

}  // namespace
