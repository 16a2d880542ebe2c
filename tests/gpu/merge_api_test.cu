// The GPU API around the kernels: the two-phase protocol and its argument errors, the
// convenience forms' exceptions, iterator kinds (Thrust containers, device_ptr, counting,
// transform, transform_output), custom comparators, NaN keys, check_sorted (and its
// two-phase form's refusal of less temporary storage than queried, issue #28), more than
// 2^31 elements, user streams and CUDA graph capture.
//
// check_sorted.cuh is included by this file only: included by two .cu files of one
// program it breaks the link (see the report on detail/forms/check_sorted.inl).

#include <corank/check_sorted.cuh>
#include <corank/detail/forms/temporary_pool.hpp>
#include <corank/memory.hpp>
#include <corank/merge.cuh>
#include <corank/operation.cuh>
#include <corank/ops/merge.hpp>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/test_env.hpp"

#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::strategy;

constexpr strategy all_strategies[] = {strategy::automatic, strategy::naive, strategy::tiled, strategy::circular,
                                        strategy::partitioned};
constexpr std::size_t int_tile = corank::merge_keys_policy<int>::items_per_tile;

std::vector<int> sorted_ints(std::mt19937_64& rng, std::size_t n, int range = 1 << 20) {
  std::vector<int> v(n);
  for (int& x : v) x = int(rng() % unsigned(range)) - range / 2;
  std::sort(v.begin(), v.end());
  return v;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------------------
// Two-phase protocol (corank::device)

class GpuTwoPhase : public gpu_test {};

// Inputs and a poisoned output shared by the argument-error tests.
struct small_merge {
  std::vector<int> ha{1, 3, 5, 7, 9}, hb{2, 4, 6};
  std::vector<std::uint64_t> hva = payloads(0, 5), hvb = payloads(1, 3);
  device_buffer<int> a{ha}, b{hb};
  device_buffer<std::uint64_t> va{hva}, vb{hvb};
  guarded_output<int> keys{8};
  guarded_output<std::uint64_t> values{8};
  device_buffer<unsigned char> temp{256};
};

TEST_F(GpuTwoPhase, QueryReturnsBytesAndLaunchesNothing) {
  small_merge s;
  std::size_t bytes = 0;
  EXPECT_EQ(cudaSuccess, corank::device::merge(nullptr, bytes, s.a.data(), 5, s.b.data(), 3, s.keys.first()));
  EXPECT_GT(bytes, 0u);
  std::size_t pair_bytes = 0;
  EXPECT_EQ(cudaSuccess, corank::device::merge_by_key(nullptr, pair_bytes, s.a.data(), s.va.data(), 5, s.b.data(),
                                                      s.vb.data(), 3, s.keys.first(), s.values.first()));
  EXPECT_GT(pair_bytes, 0u);
  // The default strategy's answer covers every strategy (this merge is small enough that
  // automatic runs naive, which needs less than partitioned).
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    std::size_t kind_bytes = 0;
    EXPECT_EQ(cudaSuccess, corank::device::merge(nullptr, kind_bytes, s.a.data(), 5, s.b.data(), 3, s.keys.first(),
                                                 corank::less{}, nullptr, kind));
    EXPECT_LE(kind_bytes, bytes);
    if (kind == strategy::partitioned) EXPECT_EQ(kind_bytes, bytes);
  }
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(s.keys.untouched());
  EXPECT_TRUE(s.values.untouched());
}

TEST_F(GpuTwoPhase, RunsWithQueriedTemp) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> ha = sorted_ints(rng, 10 * int_tile + 3), hb = sorted_ints(rng, 4 * int_tile + 1);
  const std::vector<int> expected = reference_merge(ha, hb, corank::less{});
  const device_buffer<int> a(ha), b(hb);
  guarded_output<int> out(expected.size());
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, corank::device::merge(nullptr, bytes, a.data(), index_t(ha.size()), b.data(),
                                                 index_t(hb.size()), out.first(), corank::less{}, nullptr, kind));
    const device_buffer<unsigned char> temp(bytes);
    out.buffer.fill_poison();
    EXPECT_EQ(cudaSuccess, corank::device::merge(temp.data(), bytes, a.data(), index_t(ha.size()), b.data(),
                                                 index_t(hb.size()), out.first(), corank::less{}, nullptr, kind));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(out.check(expected));
  }
}

// The op runners report an output size for every op: for the merge op (of known size), m + n,
// from the convenience form's end, the two-phase count and the count-only runner.
TEST_F(GpuTwoPhase, RunnersOfAKnownSizeOpReportItsSize) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> ha = sorted_ints(rng, 3 * int_tile + 7), hb = sorted_ints(rng, 2 * int_tile + 1);
  const index_t m = index_t(ha.size()), n = index_t(hb.size());
  const std::vector<int> expected = reference_merge(ha, hb, corank::less{});
  const device_buffer<int> a(ha), b(hb);
  guarded_output<int> out(expected.size());
  device_buffer<index_t> count(1);
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    const corank::device::keys_operation<corank::ops::merge_op> keys;
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, keys(nullptr, bytes, a.data(), m, b.data(), n, out.first(), count.data(), corank::less{},
                                nullptr, kind));
    const device_buffer<unsigned char> temp(bytes);
    out.buffer.fill_poison();
    count.fill_poison();
    EXPECT_EQ(cudaSuccess, keys(temp.data(), bytes, a.data(), m, b.data(), n, out.first(), count.data(),
                                corank::less{}, nullptr, kind));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(out.check(expected));
    EXPECT_EQ(m + n, count.to_host()[0]);

    const corank::device::count_operation<corank::ops::merge_op> counts;
    ASSERT_EQ(cudaSuccess, counts(nullptr, bytes, a.data(), m, b.data(), n, count.data(), corank::less{}, nullptr, kind));
    const device_buffer<unsigned char> count_temp(bytes);
    count.fill_poison();
    EXPECT_EQ(cudaSuccess, counts(count_temp.data(), bytes, a.data(), m, b.data(), n, count.data(), corank::less{},
                                  nullptr, kind));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_EQ(m + n, count.to_host()[0]);

    out.buffer.fill_poison();
    const corank::keys_operation<corank::ops::merge_op> convenience;
    int* end = convenience(a.data(), a.data() + m, b.data(), b.data() + n, out.first(), corank::less{}, nullptr, kind);
    EXPECT_EQ(m + n, end - out.first());
    EXPECT_TRUE(out.check(expected));
  }
}

TEST_F(GpuTwoPhase, ByKeyRunsWithQueriedTemp) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> ha = sorted_ints(rng, 6 * int_tile + 5, 50), hb = sorted_ints(rng, 7 * int_tile, 50);
  const std::vector<std::uint64_t> va = payloads(0, ha.size()), vb = payloads(1, hb.size());
  const auto expected = reference_merge_by_key(ha, va, hb, vb, corank::less{});
  const device_buffer<int> a(ha), b(hb);
  const device_buffer<std::uint64_t> dva(va), dvb(vb);
  guarded_output<int> keys(expected.keys.size());
  guarded_output<std::uint64_t> values(expected.keys.size());
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::merge_by_key(nullptr, bytes, a.data(), dva.data(), index_t(ha.size()),
                                                      b.data(), dvb.data(), index_t(hb.size()), keys.first(),
                                                      values.first()));
  const device_buffer<unsigned char> temp(bytes);
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    keys.buffer.fill_poison();
    values.buffer.fill_poison();
    EXPECT_EQ(cudaSuccess, corank::device::merge_by_key(temp.data(), bytes, a.data(), dva.data(),
                                                        index_t(ha.size()), b.data(), dvb.data(),
                                                        index_t(hb.size()), keys.first(), values.first(),
                                                        corank::less{}, nullptr, kind));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(keys.check(expected.keys));
    EXPECT_TRUE(values.check(expected.values));
  }
}

TEST_F(GpuTwoPhase, TempTooSmallIsInvalidValueAndWritesNothing) {
  small_merge s;
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    std::size_t zero = 0;
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge(s.temp.data(), zero, s.a.data(), 5, s.b.data(), 3,
                                                           s.keys.first(), corank::less{}, nullptr, kind));
    zero = 0;
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::merge_by_key(s.temp.data(), zero, s.a.data(), s.va.data(), 5, s.b.data(), s.vb.data(),
                                           3, s.keys.first(), s.values.first(), corank::less{}, nullptr, kind));
  }
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_TRUE(s.keys.untouched());
  EXPECT_TRUE(s.values.untouched());
}

TEST_F(GpuTwoPhase, NullPointerWithNonzeroSizeIsInvalidValueAndWritesNothing) {
  small_merge s;
  std::size_t bytes = s.temp.size();
  const int* null_keys = nullptr;
  const std::uint64_t* null_values = nullptr;
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge(s.temp.data(), bytes, null_keys, 5, s.b.data(), 3,
                                                           s.keys.first(), corank::less{}, nullptr, kind));
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge(s.temp.data(), bytes, s.a.data(), 5, null_keys, 3,
                                                           s.keys.first(), corank::less{}, nullptr, kind));
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge(s.temp.data(), bytes, s.a.data(), 5, s.b.data(), 3,
                                                           static_cast<int*>(nullptr), corank::less{}, nullptr, kind));
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::merge_by_key(s.temp.data(), bytes, s.a.data(), null_values, 5, s.b.data(), s.vb.data(),
                                           3, s.keys.first(), s.values.first(), corank::less{}, nullptr, kind));
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::merge_by_key(s.temp.data(), bytes, s.a.data(), s.va.data(), 5, s.b.data(), null_values,
                                           3, s.keys.first(), s.values.first(), corank::less{}, nullptr, kind));
    EXPECT_EQ(cudaErrorInvalidValue,
              corank::device::merge_by_key(s.temp.data(), bytes, s.a.data(), s.va.data(), 5, s.b.data(), s.vb.data(),
                                           3, s.keys.first(), static_cast<std::uint64_t*>(nullptr), corank::less{},
                                           nullptr, kind));
    // Negative sizes too.
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge(s.temp.data(), bytes, s.a.data(), -1, s.b.data(), 3,
                                                           s.keys.first(), corank::less{}, nullptr, kind));
  }
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_TRUE(s.keys.untouched());
  EXPECT_TRUE(s.values.untouched());
}

TEST_F(GpuTwoPhase, EmptyInputsSucceedWithNullPointers) {
  small_merge s;
  std::size_t bytes = s.temp.size();
  for (strategy kind : all_strategies) {
    EXPECT_EQ(cudaSuccess, corank::device::merge(s.temp.data(), bytes, static_cast<const int*>(nullptr), 0,
                                                 static_cast<const int*>(nullptr), 0, static_cast<int*>(nullptr),
                                                 corank::less{}, nullptr, kind));
  }
  CORANK_ASSERT_DEVICE_OK();
}

// ---------------------------------------------------------------------------------------
// Convenience forms: exceptions

class GpuConvenience : public gpu_test {};

TEST_F(GpuConvenience, NullInputThrowsCudaErrorAndWritesNothing) {
  small_merge s;
  const int* null = nullptr;
  try {
    corank::merge(null, null + 5, s.b.begin(), s.b.end(), s.keys.first());
    ADD_FAILURE() << "expected corank::cuda_error";
  } catch (const corank::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_TRUE(contains(e.what(), "corank::merge")) << e.what();
    EXPECT_TRUE(contains(e.what(), "null pointer")) << e.what();
    EXPECT_TRUE(contains(e.what(), "input A")) << e.what();
  }
  try {
    corank::merge_by_key(s.a.begin(), s.a.end(), s.b.begin(), s.b.end(), s.va.begin(), s.vb.begin(), s.keys.first(),
                         static_cast<std::uint64_t*>(nullptr));
    ADD_FAILURE() << "expected corank::cuda_error";
  } catch (const corank::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_TRUE(contains(e.what(), "corank::merge_by_key")) << e.what();
    EXPECT_TRUE(contains(e.what(), "null pointer")) << e.what();
  }
  // cuda_error is a std::runtime_error.
  EXPECT_THROW(corank::merge(s.a.begin(), s.a.end(), null, null + 3, s.keys.first()), std::runtime_error);
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(s.keys.untouched());
  EXPECT_TRUE(s.values.untouched());
}

// The temporary storage of the convenience forms stays in corank's pool between calls (no
// new mapping per call), and release_temporary_memory gives it back.
TEST_F(GpuConvenience, TemporaryStorageIsKeptBetweenCallsAndReleasedOnRequest) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> ha = sorted_ints(rng, 100000), hb = sorted_ints(rng, 90000);
  std::vector<int> expected(ha.size() + hb.size());
  std::merge(ha.begin(), ha.end(), hb.begin(), hb.end(), expected.begin());
  const device_buffer<int> a(ha), b(hb);
  device_buffer<int> out(expected.size());
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaSuccess, corank::detail::temporary_pool(pool));
  const auto reserved = [&] {
    std::uint64_t bytes = 0;
    EXPECT_EQ(cudaSuccess, cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &bytes));
    return bytes;
  };
  const auto merge_all = [&] {
    corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), corank::less{}, nullptr, strategy::partitioned);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  };

  merge_all();
  const std::uint64_t kept = reserved();
  EXPECT_GT(kept, 0u) << "the storage of a finished call stays in the pool";
  for (int call = 0; call < 10; ++call) merge_all();
  EXPECT_EQ(reserved(), kept) << "later calls reuse it";
  ASSERT_EQ(cudaSuccess, corank::release_temporary_memory());
  EXPECT_EQ(reserved(), 0u);
  merge_all();
  EXPECT_EQ(out.to_host(), expected);
  EXPECT_EQ(corank::find_unsorted(a.begin(), a.end()), index_t(ha.size()));
  CORANK_ASSERT_DEVICE_OK();
}

// ---------------------------------------------------------------------------------------
// Iterators

class GpuIterators : public gpu_test {};

TEST_F(GpuIterators, DeviceVectorConstIteratorsDevicePtrAndRawPointersMix) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> ha = sorted_ints(rng, 3 * int_tile + 7), hb = sorted_ints(rng, 2 * int_tile);
  const std::vector<int> expected = reference_merge(ha, hb, corank::less{});
  const thrust::device_vector<int> a(ha.begin(), ha.end()), b(hb.begin(), hb.end());
  const std::vector<int> poison(expected.size(), poison_value<int>());
  std::vector<int> host(expected.size());

  thrust::device_vector<int> out(poison.begin(), poison.end());
  const auto end = corank::merge(a.cbegin(), a.cend(), b.cbegin(), b.cend(), out.begin());
  EXPECT_TRUE(end == out.end());
  thrust::copy(out.begin(), out.end(), host.begin());
  EXPECT_TRUE(equal_bits(expected, host));

  // A as thrust::device_ptr, B as a raw pointer, output as device_ptr.
  thrust::copy(poison.begin(), poison.end(), out.begin());
  const thrust::device_ptr<const int> a_ptr = a.data();
  const int* b_raw = thrust::raw_pointer_cast(b.data());
  const thrust::device_ptr<int> out_ptr = out.data();
  const auto end2 = corank::merge(a_ptr, a_ptr + a.size(), b_raw, b_raw + b.size(), out_ptr);
  EXPECT_TRUE(end2 == out_ptr + expected.size());
  thrust::copy(out.begin(), out.end(), host.begin());
  EXPECT_TRUE(equal_bits(expected, host));
}

// Inputs that start 0-3 elements past a 16-byte boundary, each ending at its allocation's
// end: aligned arrays are staged by bulk copies of whole lines (partial lines at both
// ends), others element by element.
TEST_F(GpuIterators, InputsAtEveryAlignment) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> ha = sorted_ints(rng, 5 * int_tile + 13, 1000), hb = sorted_ints(rng, 3 * int_tile + 6, 1000);
  const std::vector<std::uint64_t> va = payloads(0, ha.size()), vb = payloads(1, hb.size());
  const auto expected = reference_merge_by_key(ha, va, hb, vb, corank::less{});
  guarded_output<int> keys(expected.keys.size());
  guarded_output<std::uint64_t> values(expected.keys.size());
  for (std::size_t a_offset : {0, 1, 2, 3}) {
    for (std::size_t b_offset : {0, 3}) {
      std::vector<int> padded_a(a_offset, 0), padded_b(b_offset, 0);
      padded_a.insert(padded_a.end(), ha.begin(), ha.end());
      padded_b.insert(padded_b.end(), hb.begin(), hb.end());
      std::vector<std::uint64_t> padded_va(a_offset, 0), padded_vb(b_offset, 0);
      padded_va.insert(padded_va.end(), va.begin(), va.end());
      padded_vb.insert(padded_vb.end(), vb.begin(), vb.end());
      const device_buffer<int> a(padded_a), b(padded_b);
      const device_buffer<std::uint64_t> dva(padded_va), dvb(padded_vb);
      const int *a_first = a.begin() + a_offset, *a_last = a.end();
      const int *b_first = b.begin() + b_offset, *b_last = b.end();
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(corank::to_string(kind) + std::string(", A at +") + std::to_string(a_offset) + ", B at +" +
                     std::to_string(b_offset));
        keys.buffer.fill_poison();
        corank::merge(a_first, a_last, b_first, b_last, keys.first(), corank::less{}, nullptr, kind);
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(keys.check(expected.keys));
        keys.buffer.fill_poison();
        values.buffer.fill_poison();
        corank::merge_by_key(a_first, a_last, b_first, b_last, dva.begin() + a_offset, dvb.begin() + b_offset,
                             keys.first(), values.first(), corank::less{}, nullptr, kind);
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(keys.check(expected.keys));
        EXPECT_TRUE(values.check(expected.values));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Outputs that start 0-3 elements past a 16-byte boundary (8-byte values 0 or 1), with every
// strategy: tiles are stored 16 bytes at a time where their place in the output is aligned,
// element by element elsewhere.
TEST_F(GpuIterators, OutputsAtEveryAlignment) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int> ha = sorted_ints(rng, 5 * int_tile + 13, 1000), hb = sorted_ints(rng, 3 * int_tile + 6, 1000);
  const std::vector<std::uint64_t> va = payloads(0, ha.size()), vb = payloads(1, hb.size());
  const auto expected = reference_merge_by_key(ha, va, hb, vb, corank::less{});
  const device_buffer<int> a(ha), b(hb);
  const device_buffer<std::uint64_t> dva(va), dvb(vb);
  for (std::size_t shift = 0; shift <= 3; ++shift) {
    const std::size_t value_shift = shift % 2;
    // Guards right after the outputs: a store past the end fails the check.
    guarded_output<int> keys(shift + expected.keys.size());
    guarded_output<std::uint64_t> values(value_shift + expected.keys.size());
    for (strategy kind : all_strategies) {
      SCOPED_TRACE(corank::to_string(kind) + std::string(", outputs at +") + std::to_string(shift));
      keys.buffer.fill_poison();
      corank::merge(a.begin(), a.end(), b.begin(), b.end(), keys.first() + shift, corank::less{}, nullptr, kind);
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(keys.check(shifted(expected.keys, shift)));
      keys.buffer.fill_poison();
      values.buffer.fill_poison();
      corank::merge_by_key(a.begin(), a.end(), b.begin(), b.end(), dva.begin(), dvb.begin(), keys.first() + shift,
                           values.first() + value_shift, corank::less{}, nullptr, kind);
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(keys.check(shifted(expected.keys, shift)));
      EXPECT_TRUE(values.check(shifted(expected.values, value_shift)));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

struct times_three {
  __host__ __device__ int operator()(int x) const { return 3 * x; }
};

TEST_F(GpuIterators, CountingAndTransformInputs) {
  // A = -5, -4, -3, ...   B = 0, 3, 6, ...
  for (const size_pair s : {size_pair{0, 1}, size_pair{int_tile, int_tile - 1}, size_pair{10 * int_tile + 3, 3 * int_tile + 1},
                            size_pair{1, 20 * int_tile}}) {
    std::vector<int> ha(s.m), hb(s.n);
    for (std::size_t i = 0; i < s.m; ++i) ha[i] = int(i) - 5;
    for (std::size_t j = 0; j < s.n; ++j) hb[j] = 3 * int(j);
    const std::vector<int> expected = reference_merge(ha, hb, corank::less{});
    const thrust::counting_iterator<int> a(-5);
    const auto b = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), times_three{});
    guarded_output<int> out(expected.size());
    for (strategy kind : all_strategies) {
      SCOPED_TRACE(corank::to_string(kind) + std::string(" m=") + std::to_string(s.m) + " n=" + std::to_string(s.n));
      out.buffer.fill_poison();
      int* const end = corank::merge(a, a + s.m, b, b + s.n, out.first(), corank::less{}, nullptr, kind);
      EXPECT_EQ(end, out.last());
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(out.check(expected));
    }
  }
}

// Evens and odds as formulas, and an output that keeps only the low byte: the same
// iterator types as the > 2^31 test below, at a size that can be checked on the host.
struct evens_op {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return 2 * i; }
};
struct odds_op {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return 2 * i + 1; }
};
struct low_byte_op {
  __host__ __device__ std::uint8_t operator()(std::int64_t k) const { return std::uint8_t(k & 0xFF); }
};
struct byte_is_wrong {
  const std::uint8_t* out;
  __device__ bool operator()(std::int64_t k) const { return out[k] != std::uint8_t(k & 0xFF); }
};

// Merges evens [0, 2m) and odds [1, 2n) (m == n + 1, so the result is 0, 1, 2, ...) into
// bytes, then counts on the device the positions k where out[k] != uint8(k).
index_t merge_evens_odds_into_bytes(index_t m, index_t n, strategy kind, device_buffer<std::uint8_t>& bytes) {
  const auto a = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), evens_op{});
  const auto b = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), odds_op{});
  const auto out = thrust::make_transform_output_iterator(bytes.data(), low_byte_op{});
  bytes.fill_poison();
  const auto end = corank::merge(a, a + m, b, b + n, out, corank::less{}, nullptr, kind);
  EXPECT_TRUE(end == out + (m + n));
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  return thrust::count_if(thrust::device, thrust::counting_iterator<std::int64_t>(0),
                          thrust::counting_iterator<std::int64_t>(m + n), byte_is_wrong{bytes.data()});
}

TEST_F(GpuIterators, TransformInputsIntoTransformOutput) {
  const index_t n = 10 * int_tile + 3, m = n + 1;
  device_buffer<std::uint8_t> bytes(std::size_t(m + n) + 1);
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    EXPECT_EQ(merge_evens_odds_into_bytes(m, n, kind, bytes), 0);
    const std::vector<std::uint8_t> host = bytes.to_host();
    for (index_t k = 0; k < m + n; ++k) ASSERT_EQ(host[std::size_t(k)], std::uint8_t(k & 0xFF)) << "k = " << k;
    EXPECT_EQ(host.back(), poison_byte) << "wrote past the end";
  }
}

// ---------------------------------------------------------------------------------------
// More than 2^31 elements per input, without input memory (64-bit sizes and offsets).

class GpuHuge : public gpu_test {};

TEST_F(GpuHuge, MoreThan2Pow31ElementsPerInput) {
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: > 2^31 elements skipped";
  const index_t n = (index_t(1) << 31) + 4, m = n + 1;  // 2^32 + 9 outputs
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaSuccess, cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < std::size_t(m + n) + (std::size_t(1) << 30)) {
    GTEST_SKIP() << "needs " << (m + n) / (1 << 20) << " MiB of free device memory, has " << free_bytes / (1 << 20);
  }
  device_buffer<std::uint8_t> bytes(std::size_t(m + n));
  for (strategy kind : {strategy::partitioned, strategy::circular, strategy::tiled}) {
    SCOPED_TRACE(corank::to_string(kind));
    EXPECT_EQ(merge_evens_odds_into_bytes(m, n, kind, bytes), 0);
    // Spot checks at the 32-bit boundaries, on the host.
    for (index_t k : {index_t(0), (index_t(1) << 31) - 1, index_t(1) << 31, (index_t(1) << 32) - 1, index_t(1) << 32,
                      m + n - 1}) {
      std::uint8_t value = 0;
      ASSERT_EQ(cudaSuccess, cudaMemcpy(&value, bytes.data() + k, 1, cudaMemcpyDeviceToHost));
      EXPECT_EQ(value, std::uint8_t(k & 0xFF)) << "k = " << k;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Comparators

class GpuComparators : public gpu_test {};

template <class K>
void check_descending(std::mt19937_64& rng) {
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  for (distribution d : {distribution::uniform, distribution::long_runs, distribution::all_equal,
                         distribution::interleaved}) {
    for (const size_pair s : {size_pair{tile - 1, tile + 1}, size_pair{10 * tile + 3, 7 * tile}, size_pair{1, 5 * tile}}) {
      sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, tile, rng);
      std::reverse(in.a.begin(), in.a.end());
      std::reverse(in.b.begin(), in.b.end());
      const std::vector<K> expected = reference_merge(in.a, in.b, greater_op{});
      const device_buffer<K> a(in.a), b(in.b);
      guarded_output<K> out(expected.size());
      for (strategy kind : all_strategies) {
        SCOPED_TRACE(describe(key_name<K>().c_str(), d, s.m, s.n) + " descending " + corank::to_string(kind));
        out.buffer.fill_poison();
        corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.first(), greater_op{}, nullptr, kind);
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(out.check(expected));
      }
    }
  }
}

TEST_F(GpuComparators, DescendingOrder) {
  std::mt19937_64 rng = make_rng();
  check_descending<std::int32_t>(rng);
  check_descending<double>(rng);
}

TEST_F(GpuComparators, DescendingOrderByKeyIsStable) {
  constexpr std::size_t tile = corank::merge_pairs_policy<std::int32_t, std::uint64_t>::items_per_tile;
  std::mt19937_64 rng = make_rng();
  for (distribution d : {distribution::uniform, distribution::long_runs, distribution::all_equal}) {
    sorted_inputs<std::int32_t> in = make_inputs<std::int32_t>(d, 9 * tile + 1, 11 * tile + 5, tile, rng);
    std::reverse(in.a.begin(), in.a.end());
    std::reverse(in.b.begin(), in.b.end());
    const std::vector<std::uint64_t> hva = payloads(0, in.a.size()), hvb = payloads(1, in.b.size());
    const auto expected = reference_merge_by_key(in.a, hva, in.b, hvb, greater_op{});
    const device_buffer<std::int32_t> a(in.a), b(in.b);
    const device_buffer<std::uint64_t> va(hva), vb(hvb);
    guarded_output<std::int32_t> keys(expected.keys.size());
    guarded_output<std::uint64_t> values(expected.keys.size());
    for (strategy kind : all_strategies) {
      SCOPED_TRACE(std::string(to_string(d)) + " " + corank::to_string(kind));
      keys.buffer.fill_poison();
      values.buffer.fill_poison();
      corank::merge_by_key(a.begin(), a.end(), b.begin(), b.end(), va.begin(), vb.begin(), keys.first(),
                           values.first(), greater_op{}, nullptr, kind);
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(keys.check(expected.keys));
      EXPECT_TRUE(values.check(expected.values));
    }
  }
}

// Sorted by nan_last_less: numbers, infinities, both zeros, then NaNs of several payloads.
template <class K>
std::vector<K> nan_keys(std::mt19937_64& rng, std::size_t n) {
  using L = std::numeric_limits<K>;
  const K specials[] = {-L::infinity(), K(-1.5), K(-0.0), K(0.0), K(2.25), L::infinity(), L::quiet_NaN(),
                        -L::quiet_NaN()};
  std::vector<K> v(n);
  for (K& x : v) x = rng() % 2 ? specials[rng() % 8] : key_traits<K>::from_u64(rng());
  std::stable_sort(v.begin(), v.end(), corank::nan_last_less{});
  return v;
}

template <class K>
void check_nan_last(std::mt19937_64& rng) {
  constexpr std::size_t tile = corank::merge_keys_policy<K>::items_per_tile;
  for (const size_pair s : {size_pair{1, 1}, size_pair{tile, tile + 1}, size_pair{10 * tile + 3, 4 * tile + 2},
                            size_pair{0, tile}}) {
    const std::vector<K> ha = nan_keys<K>(rng, s.m), hb = nan_keys<K>(rng, s.n);
    // std::merge is stable, so the comparison is bitwise: which NaN, which zero, from where.
    const std::vector<K> expected = reference_merge(ha, hb, corank::nan_last_less{});
    const device_buffer<K> a(ha), b(hb);
    guarded_output<K> out(expected.size());
    for (strategy kind : all_strategies) {
      SCOPED_TRACE(key_name<K>() + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " " +
                   corank::to_string(kind));
      out.buffer.fill_poison();
      corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.first(), corank::nan_last_less{}, nullptr, kind);
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(out.check(expected));
    }
  }
}

TEST_F(GpuComparators, NanLastLess) {
  std::mt19937_64 rng = make_rng();
  check_nan_last<float>(rng);
  check_nan_last<double>(rng);
}

// ---------------------------------------------------------------------------------------
// check_sorted / find_unsorted on the GPU

class GpuCheckSorted : public gpu_test {};

// Makes v[i] < v[i - 1] while v stays sorted elsewhere.
void break_at(std::vector<int>& v, std::size_t i) { v[i] = v[i - 1] - 1; }

TEST_F(GpuCheckSorted, SortedInputsPass) {
  std::mt19937_64 rng = make_rng();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), quick_or(1000003, 20011)}) {
    const device_buffer<int> v(sorted_ints(rng, n, 1000));
    EXPECT_EQ(corank::find_unsorted(v.begin(), v.end()), index_t(n));
  }
  const device_buffer<int> a(sorted_ints(rng, quick_or(300000, 5000), 10)), b(std::vector<int>(quick_or(70000, 3000), 3));
  EXPECT_NO_THROW(corank::check_sorted(a.begin(), a.end(), b.begin(), b.end()));
}

void expect_unsorted(const std::vector<int>& ha, const std::vector<int>& hb, char input, index_t index) {
  const device_buffer<int> a(ha), b(hb);
  try {
    corank::check_sorted(a.begin(), a.end(), b.begin(), b.end());
    ADD_FAILURE() << "expected corank::unsorted_input";
  } catch (const corank::unsorted_input& e) {
    EXPECT_EQ(e.input(), input);
    EXPECT_EQ(e.index(), index);
    EXPECT_TRUE(contains(e.what(), std::to_string(index))) << e.what();
  }
}

TEST_F(GpuCheckSorted, NamesTheUnsortedInputAndTheFirstIndex) {
  std::mt19937_64 rng = make_rng();
  const std::size_t size = quick_or(std::size_t(1) << 21, std::size_t(1) << 14);  // many blocks, several grid strides
  const std::vector<int> a = sorted_ints(rng, size), b = sorted_ints(rng, size / 2);
  for (std::size_t first : {std::size_t(1), std::size_t(255), std::size_t(256), size / 3, size - 1,
                            1 + std::size_t(rng() % (size - 1))}) {
    SCOPED_TRACE("first break at " + std::to_string(first));
    std::vector<int> broken = a;
    break_at(broken, first);
    if (first + 1000 < size) break_at(broken, first + 1000);  // a later break is not the answer
    if (first + 300000 < size) break_at(broken, first + 300000);
    expect_unsorted(broken, b, 'A', index_t(first));
    std::vector<int> broken_b = b;
    const std::size_t in_b = 1 + first % (b.size() - 1);
    break_at(broken_b, in_b);
    expect_unsorted(a, broken_b, 'B', index_t(in_b));
    expect_unsorted(broken, broken_b, 'A', index_t(first));  // A is checked first
  }
}

TEST_F(GpuCheckSorted, UsesTheComparator) {
  std::vector<int> descending(5000);
  for (std::size_t i = 0; i < descending.size(); ++i) descending[i] = 10000 - int(i / 3);
  const device_buffer<int> d(descending);
  EXPECT_EQ(corank::find_unsorted(d.begin(), d.end(), greater_op{}), index_t(descending.size()));
  EXPECT_EQ(corank::find_unsorted(d.begin(), d.end()), 3);

  const float nan = std::numeric_limits<float>::quiet_NaN();
  const device_buffer<float> nans_last(std::vector<float>{-1.0f, 0.0f, 2.5f, nan, nan, -nan});
  EXPECT_EQ(corank::find_unsorted(nans_last.begin(), nans_last.end(), corank::nan_last_less{}), 6);
  const device_buffer<float> nan_inside(std::vector<float>{-1.0f, nan, 2.5f});
  EXPECT_EQ(corank::find_unsorted(nan_inside.begin(), nan_inside.end(), corank::nan_last_less{}), 2);
}

TEST_F(GpuCheckSorted, TwoPhaseFindUnsorted) {
  std::vector<int> h(100000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = int(i);
  h[77777] = -1;
  const device_buffer<int> keys(h);
  device_buffer<index_t> result(1);
  std::size_t bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::find_unsorted(nullptr, bytes, keys.data(), index_t(h.size()), result.data()));
  EXPECT_GT(bytes, 0u);
  const device_buffer<unsigned char> temp(bytes);
  ASSERT_EQ(cudaSuccess, corank::device::find_unsorted(temp.data(), bytes, keys.data(), index_t(h.size()), result.data()));
  EXPECT_EQ(result.to_host()[0], 77777);

  result.fill_poison();
  std::size_t zero = 0;
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::find_unsorted(temp.data(), zero, keys.data(), index_t(h.size()), result.data()));
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::find_unsorted(temp.data(), bytes, static_cast<const int*>(nullptr),
                                                                 index_t(5), result.data()));
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::find_unsorted(temp.data(), bytes, keys.data(), index_t(h.size()), static_cast<index_t*>(nullptr)));
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(all_poison(result.to_host()));
}

// Issue #28 (the other forms are in temp_storage_test.cu): less temporary storage than the
// query asked for is refused before any CUDA call, so host memory can stand in for device
// memory and no GPU is needed (CI).
TEST(HostTempStorage, FindUnsortedLessThanQueriedIsInvalidValueBeforeAnyCudaCall) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(100000)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<int> keys(n, 7);
    std::vector<index_t> result(1, poison_value<index_t>());
    std::size_t queried = 0;
    ASSERT_EQ(cudaSuccess, corank::device::find_unsorted(nullptr, queried, keys.data(), index_t(n), result.data()));
    ASSERT_GT(queried, 0u);
    std::vector<unsigned char> temp(queried, poison_byte);
    for (std::size_t given : {queried - 1, queried / 2, std::size_t(0)}) {
      std::size_t bytes = given;
      EXPECT_EQ(cudaErrorInvalidValue,
                corank::device::find_unsorted(temp.data(), bytes, keys.data(), index_t(n), result.data()))
          << given << " of " << queried;
    }
    EXPECT_TRUE(all_poison(result)) << "the result was written";
    EXPECT_TRUE(all_poison(temp)) << "the temporary storage was written";
  }
}

// Storage not aligned to corank::temporary_storage_alignment (memory.hpp's one rule) is refused
// the same way.
TEST(HostTempStorage, FindUnsortedMisalignedIsInvalidValueBeforeAnyCudaCall) {
  constexpr std::size_t alignment = corank::temporary_storage_alignment;
  const std::vector<int> keys(1000, 7);
  std::vector<index_t> result(1, poison_value<index_t>());
  std::size_t queried = 0;
  ASSERT_EQ(cudaSuccess,
            corank::device::find_unsorted(nullptr, queried, keys.data(), index_t(keys.size()), result.data()));
  std::vector<unsigned char> temp(queried + 2 * alignment, poison_byte);
  auto* aligned = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(temp.data()) + alignment - 1) / alignment * alignment);
  for (const std::size_t offset : {std::size_t(1), std::size_t(8), alignment / 2}) {
    std::size_t bytes = queried + alignment;
    EXPECT_EQ(cudaErrorInvalidValue, corank::device::find_unsorted(aligned + offset, bytes, keys.data(),
                                                                   index_t(keys.size()), result.data()))
        << "offset " << offset;
  }
  EXPECT_TRUE(all_poison(result)) << "the result was written";
  EXPECT_TRUE(all_poison(temp)) << "the temporary storage was written";
}

class GpuTempStorage : public gpu_test {};

TEST_F(GpuTempStorage, FindUnsortedLessThanQueriedIsInvalidValueExactlyQueriedRuns) {
  std::mt19937_64 rng = make_rng();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(5), quick_or(100000, 5000)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<int> h = sorted_ints(rng, n);
    const index_t first_break = n > 1 ? index_t(1 + rng() % (n - 1)) : index_t(n);
    if (first_break < index_t(n)) break_at(h, std::size_t(first_break));
    const device_buffer<int> keys(h);
    device_buffer<index_t> result(1);
    std::size_t queried = 0;
    ASSERT_EQ(cudaSuccess, corank::device::find_unsorted(nullptr, queried, keys.data(), index_t(n), result.data()));
    ASSERT_GT(queried, 0u);
    device_buffer<unsigned char> temp(queried);
    temp.fill_poison();
    result.fill_poison();
    for (std::size_t given : {queried - 1, queried / 2, std::size_t(0)}) {
      std::size_t bytes = given;
      EXPECT_EQ(cudaErrorInvalidValue,
                corank::device::find_unsorted(temp.data(), bytes, keys.data(), index_t(n), result.data()))
          << given << " of " << queried;
    }
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(all_poison(result.to_host())) << "the result was written";
    EXPECT_TRUE(all_poison(temp.to_host())) << "the temporary storage was written";
    std::size_t bytes = queried;
    ASSERT_EQ(cudaSuccess, corank::device::find_unsorted(temp.data(), bytes, keys.data(), index_t(n), result.data()));
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_EQ(result.to_host()[0], first_break);
  }
}

// ---------------------------------------------------------------------------------------
// Streams and CUDA graphs

class GpuStreams : public gpu_stream_test {};

TEST_F(GpuStreams, MergeOnAUserStream) {
  std::mt19937_64 rng = make_rng();
  const std::size_t size = quick_or(std::size_t(1) << 20, 3 * int_tile + 1);
  const std::vector<int> ha = sorted_ints(rng, size), hb = sorted_ints(rng, size + 77);
  const std::vector<int> expected = reference_merge(ha, hb, corank::less{});
  const std::vector<std::uint64_t> hva = payloads(0, ha.size()), hvb = payloads(1, hb.size());
  const auto expected_pairs = reference_merge_by_key(ha, hva, hb, hvb, corank::less{});
  const device_buffer<int> a(ha), b(hb);
  const device_buffer<std::uint64_t> va(hva), vb(hvb);
  guarded_output<int> out(expected.size());
  guarded_output<std::uint64_t> values(expected.size());
  for (strategy kind : all_strategies) {
    SCOPED_TRACE(corank::to_string(kind));
    out.buffer.fill_poison();
    values.buffer.fill_poison();
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());  // the poison is on the legacy stream
    corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.first(), corank::less{}, stream, kind);
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    EXPECT_TRUE(out.check(expected));

    out.buffer.fill_poison();
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    corank::merge_by_key(a.begin(), a.end(), b.begin(), b.end(), va.begin(), vb.begin(), out.first(), values.first(),
                         corank::less{}, stream, kind);
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    EXPECT_TRUE(out.check(expected_pairs.keys));
    EXPECT_TRUE(values.check(expected_pairs.values));
  }
}

// The two-phase form captured into a graph with preallocated temp storage, launched twice
// with new data in the same buffers. Captured in global mode, so any synchronizing or
// allocating call inside corank::device would invalidate the capture.
TEST_F(GpuStreams, GraphCaptureOfTwoPhaseMerge) {
  std::mt19937_64 rng = make_rng();
  const std::size_t m = 10 * int_tile + 3, n = 6 * int_tile + 1;
  device_buffer<int> a(m), b(n);
  device_buffer<std::int32_t> va(m), vb(n);
  guarded_output<int> keys(m + n);
  guarded_output<std::int32_t> values(m + n);
  std::size_t key_bytes = 0, pair_bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::merge(nullptr, key_bytes, a.data(), index_t(m), b.data(), index_t(n), keys.first()));
  ASSERT_EQ(cudaSuccess, corank::device::merge_by_key(nullptr, pair_bytes, a.data(), va.data(), index_t(m), b.data(),
                                                      vb.data(), index_t(n), keys.first(), values.first()));
  const device_buffer<unsigned char> temp(std::max(key_bytes, pair_bytes));

  for (strategy kind : all_strategies) {
    for (bool by_key : {false, true}) {
      // int32 keys with int32 values use more than 48 KiB of shared memory in the tiled
      // strategies: the opt-in attribute is set during capture.
      SCOPED_TRACE(std::string(corank::to_string(kind)) + (by_key ? " merge_by_key" : " merge"));
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      std::size_t bytes = by_key ? pair_bytes : key_bytes;
      const cudaError_t status =
          by_key ? corank::device::merge_by_key(temp.data(), bytes, a.data(), va.data(), index_t(m), b.data(), vb.data(),
                                                index_t(n), keys.first(), values.first(), corank::less{}, stream, kind)
                 : corank::device::merge(temp.data(), bytes, a.data(), index_t(m), b.data(), index_t(n), keys.first(),
                                         corank::less{}, stream, kind);
      const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
      ASSERT_EQ(cudaSuccess, status) << cudaGetErrorString(status);
      ASSERT_EQ(cudaSuccess, ended) << cudaGetErrorString(ended);
      ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));

      for (int launch = 0; launch < 2; ++launch) {
        SCOPED_TRACE("launch " + std::to_string(launch));
        const std::vector<int> ha = sorted_ints(rng, m, launch == 0 ? 1 << 20 : 40);
        const std::vector<int> hb = sorted_ints(rng, n, launch == 0 ? 1 << 20 : 40);
        std::vector<std::int32_t> pa(m), pb(n);
        for (std::size_t i = 0; i < m; ++i) pa[i] = std::int32_t(i);
        for (std::size_t j = 0; j < n; ++j) pb[j] = -1 - std::int32_t(j);
        a.upload(ha);
        b.upload(hb);
        va.upload(pa);
        vb.upload(pb);
        keys.buffer.fill_poison();
        values.buffer.fill_poison();
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
        ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
        const auto expected = reference_merge_by_key(ha, pa, hb, pb, corank::less{});
        EXPECT_TRUE(keys.check(expected.keys));
        if (by_key) {
          EXPECT_TRUE(values.check(expected.values));
        } else {
          EXPECT_TRUE(values.untouched());
        }
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
  }
}

}  // namespace
