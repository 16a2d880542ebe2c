// The streamed forms on the GPU (ops/corank/streamed.cuh): streamed_merge, streamed_merge_by_key
// and the four set operations' keys, _by_key and _count forms, from host memory through the
// GPU in chunks, against the std algorithms (support/streamed_cases.hpp, shared with the CPU
// test) on every shape with chunks from 1 step; pinned and pageable inputs and outputs in
// every combination; budgets that force small chunks, and budgets too small; argument
// errors; a sink that throws (the call stops, the GPU and its memory are left as before);
// docs/guide/cpp.md's sink example, as written there; and 2^32 outputs from two inputs of
// 2^31 keys.

#include <corank/error.hpp>
#include <corank/streamed.cuh>

#include "support/gpu.hpp"
#include "support/shared_kernels.hpp"
#include "support/streamed_cases.hpp"
#include "support/test_env.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

// The named runners of corank::, chosen by `op`.
struct gpu_backend {
  template <class... Args>
  static auto keys(streamed_op op, Args&&... args) {
    switch (op) {
      case streamed_op::merge: return corank::streamed_merge(args...);
      case streamed_op::set_union: return corank::streamed_set_union(args...);
      case streamed_op::set_intersection: return corank::streamed_set_intersection(args...);
      case streamed_op::set_difference: return corank::streamed_set_difference(args...);
      case streamed_op::set_symmetric_difference: break;
    }
    return corank::streamed_set_symmetric_difference(args...);
  }
  template <class... Args>
  static auto by_key(streamed_op op, Args&&... args) {
    switch (op) {
      case streamed_op::merge: return corank::streamed_merge_by_key(args...);
      case streamed_op::set_union: return corank::streamed_set_union_by_key(args...);
      case streamed_op::set_intersection: return corank::streamed_set_intersection_by_key(args...);
      case streamed_op::set_difference: return corank::streamed_set_difference_by_key(args...);
      case streamed_op::set_symmetric_difference: break;
    }
    return corank::streamed_set_symmetric_difference_by_key(args...);
  }
  template <class... Args>
  static index_t count(streamed_op op, Args&&... args) {
    switch (op) {
      case streamed_op::set_union: return corank::streamed_set_union_count(args...);
      case streamed_op::set_intersection: return corank::streamed_set_intersection_count(args...);
      case streamed_op::set_difference: return corank::streamed_set_difference_count(args...);
      default: break;
    }
    return corank::streamed_set_symmetric_difference_count(args...);
  }
};

// Pinned host memory (cudaMallocHost) of n elements, copied from `from` if given.
template <class T>
class pinned_array {
 public:
  explicit pinned_array(std::size_t n) : size_(n) {
    cuda_check(cudaMallocHost(reinterpret_cast<void**>(&data_), std::max<std::size_t>(n, 1) * sizeof(T)),
               "cudaMallocHost");
  }
  explicit pinned_array(const std::vector<T>& from) : pinned_array(from.size()) {
    if (!from.empty()) std::memcpy(data_, from.data(), from.size() * sizeof(T));
  }
  pinned_array(const pinned_array&) = delete;
  pinned_array& operator=(const pinned_array&) = delete;
  ~pinned_array() { cudaFreeHost(data_); }
  T* data() const { return data_; }
  std::vector<T> first(std::size_t count) const { return std::vector<T>(data_, data_ + count); }

 private:
  T* data_ = nullptr;
  std::size_t size_;
};

class Streamed : public gpu_test {};

TEST_F(Streamed, EveryOperationAndFormMatchesStdOnEveryShapeAndChunk) {
  std::mt19937_64 rng = make_rng();
  for (const streamed_case& c : streamed_cases(quick_or(2000, 500), rng)) {
    check_streamed_case<gpu_backend, std::int32_t>(c, rng);
    if (HasFailure()) return;
  }
}

TEST_F(Streamed, SmallBudgetsChooseSmallChunks) {
  std::mt19937_64 rng = make_rng();
  // 64 KiB to 4 MiB of GPU memory for inputs of 2^20: tens to thousands of chunks.
  const std::size_t total = quick_or(1 << 20, 1 << 16);
  for (std::size_t budget : {std::size_t(64) << 10, std::size_t(4) << 20}) {
    for (set_distribution shape : {set_distribution::uniform, set_distribution::long_runs, set_distribution::few_keys}) {
      check_streamed_case<gpu_backend, std::uint64_t>({shape, total / 2, total / 2 - 7, 0, budget}, rng);
      if (HasFailure()) return;
    }
  }
}

TEST_F(Streamed, PinnedAndPageableInputsAndOutputsInEveryCombination) {
  std::mt19937_64 rng = make_rng();
  const std::size_t m = quick_or(3 << 20, 1 << 16), n = quick_or(2 << 20, 1 << 15);
  const sorted_inputs<std::int64_t> in = make_set_inputs<std::int64_t>(set_distribution::few_keys, m, n, 1, rng);
  const std::vector<std::uint64_t> va = payloads(0, m), vb = payloads(1, n);
  const pinned_array<std::int64_t> pa(in.a), pb(in.b);
  const pinned_array<std::uint64_t> pva(va), pvb(vb);
  pinned_array<std::int64_t> pinned_keys(m + n);
  pinned_array<std::uint64_t> pinned_values(m + n);
  std::vector<std::int64_t> pageable_keys(m + n);
  std::vector<std::uint64_t> pageable_values(m + n);
  corank::streamed_options options;
  options.chunk = index_t(1) << 18;  // about 20 chunks
  for (streamed_op op : all_streamed_ops) {
    const keys_and_values<std::int64_t, std::uint64_t> expected = reference_by_key(op, in.a, va, in.b, vb, corank::less{});
    for (bool pinned_in : {false, true}) {
      for (bool pinned_out : {false, true}) {
        SCOPED_TRACE(std::string(to_string(op)) + (pinned_in ? " pinned" : " pageable") + " inputs," +
                     (pinned_out ? " pinned" : " pageable") + " outputs");
        const std::int64_t* a = pinned_in ? pa.data() : in.a.data();
        const std::int64_t* b = pinned_in ? pb.data() : in.b.data();
        std::int64_t* keys = pinned_out ? pinned_keys.data() : pageable_keys.data();
        std::uint64_t* values = pinned_out ? pinned_values.data() : pageable_values.data();
        const auto ends = gpu_backend::by_key(op, a, a + m, b, b + n, pinned_in ? pva.data() : va.data(),
                                              pinned_in ? pvb.data() : vb.data(), keys, values, corank::less{},
                                              options);
        const std::size_t count = static_cast<std::size_t>(ends.first - keys);
        EXPECT_TRUE(equal_outputs(expected.keys, std::vector<std::int64_t>(keys, keys + count)));
        EXPECT_EQ(std::vector<std::uint64_t>(values, values + count), expected.values);
        std::int64_t* keys_end = gpu_backend::keys(op, a, a + m, b, b + n, keys, corank::less{}, options);
        EXPECT_TRUE(equal_outputs(expected.keys, std::vector<std::int64_t>(keys, keys_end))) << "keys only";
      }
    }
  }
}

TEST_F(Streamed, BudgetsTooSmallAndBadArgumentsAreRefusedWithASentence) {
  std::vector<int> a{1, 2, 3}, b{2, 4}, out(5, -1);
  corank::streamed_options tiny;
  tiny.gpu_memory = 1024;
  try {
    corank::streamed_merge(a.data(), a.data() + 3, b.data(), b.data() + 2, out.data(), {}, tiny);
    ADD_FAILURE() << "a budget of 1 KiB was accepted";
  } catch (const corank::out_of_memory& e) {
    EXPECT_NE(std::string(e.what()).find("corank::streamed_merge: chunks of 1 steps need"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the budget is 1024 bytes"), std::string::npos) << e.what();
  }
  corank::streamed_options big_chunk;
  big_chunk.gpu_memory = std::size_t(1) << 20;
  big_chunk.chunk = index_t(1) << 24;
  EXPECT_THROW(corank::streamed_set_union(a.data(), a.data() + 3, b.data(), b.data() + 2, out.data(), {}, big_chunk),
               corank::out_of_memory);
  corank::streamed_options negative;
  negative.chunk = -5;
  try {
    corank::streamed_set_difference(a.data(), a.data() + 3, b.data(), b.data() + 2, out.data(), {}, negative);
    ADD_FAILURE() << "a negative chunk was accepted";
  } catch (const corank::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_NE(std::string(e.what()).find("corank::streamed_set_difference: the chunk size is negative"),
              std::string::npos)
        << e.what();
  }
  try {
    corank::streamed_merge(a.data(), a.data() + 3, static_cast<const int*>(nullptr),
                           static_cast<const int*>(nullptr) + 2, out.data());
    ADD_FAILURE() << "a null input was accepted";
  } catch (const corank::cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("input B is a null pointer with a nonzero size"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out, std::vector<int>(5, -1)) << "a refused call wrote";
  EXPECT_EQ(cudaSuccess, cudaGetLastError()) << "a refusal left an error behind";
}

TEST_F(Streamed, ASinkThatThrowsStopsTheCallAndLeavesTheGpuAsItWas) {
  std::vector<int> a(100000), b(100000);
  for (int i = 0; i < 100000; ++i) a[i] = b[i] = i;
  corank::streamed_options options;
  options.chunk = 10000;
  std::vector<int> out(200000);
  // A first call loads the kernels, whose code takes GPU memory for good.
  corank::streamed_merge(a.data(), a.data() + 100000, b.data(), b.data() + 100000, out.data(), {}, options);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::size_t free_before = 0, free_after = 0, all = 0;
  cuda_check(cudaMemGetInfo(&free_before, &all), "cudaMemGetInfo");
  int calls = 0;
  auto sink = [&](const int*, index_t) {
    if (++calls == 4) throw std::runtime_error("disk full");
  };
  EXPECT_THROW(corank::streamed_merge(a.data(), a.data() + 100000, b.data(), b.data() + 100000, sink, {}, options),
               std::runtime_error);
  EXPECT_EQ(calls, 4) << "no chunk after the failing one";
  cuda_check(cudaMemGetInfo(&free_after, &all), "cudaMemGetInfo");
  EXPECT_EQ(free_after, free_before) << "the call's GPU memory was not all given back";
  std::fill(out.begin(), out.end(), -1);
  EXPECT_EQ(corank::streamed_merge(a.data(), a.data() + 100000, b.data(), b.data() + 100000, out.data(), {}, options),
            out.data() + 200000)
      << "the next call works";
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
}

// docs/guide/cpp.md, "Data larger than the GPU": its code, with a temporary file for `out`.
TEST_F(Streamed, ReadmeSinkExample) {
  std::vector<std::int64_t> av(300000), bv(200000);
  for (std::size_t i = 0; i < av.size(); ++i) av[i] = std::int64_t(3 * i);
  for (std::size_t j = 0; j < bv.size(); ++j) bv[j] = std::int64_t(5 * j);
  const std::int64_t* a = av.data();
  const std::int64_t* b = bv.data();
  const corank::index_t m = corank::index_t(av.size()), n = corank::index_t(bv.size());
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);

  corank::streamed_options options;
  options.gpu_memory = std::size_t(8) << 30;  // at most 8 GiB of the GPU; 0: what is free
  options.progress = [](corank::index_t done, corank::index_t total) {
    std::fprintf(stderr, "\r%.0f%%", 100.0 * double(done) / double(total));
  };
  const corank::index_t written = corank::streamed_merge(
      a, a + m, b, b + n,  // e.g. mmap'ed: const std::int64_t*
      [&](const std::int64_t* keys, corank::index_t count) { std::fwrite(keys, sizeof *keys, count, out); },
      corank::less{}, options);

  std::fprintf(stderr, "\n");
  EXPECT_EQ(written, m + n);
  std::vector<std::int64_t> file(std::size_t(m + n));
  std::rewind(out);
  EXPECT_EQ(std::fread(file.data(), sizeof(std::int64_t), file.size(), out), file.size());
  std::fclose(out);
  EXPECT_EQ(file, reference_merge(av, bv, corank::less{}));
}

TEST_F(Streamed, TwoToThe32OutputsFromHostArrays) {
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: 32 GB of host memory skipped";
  // A the even and B the odd 32-bit keys: the merge is 0, 1, ..., 2^32 - 1.
  const std::size_t half = std::size_t(1) << 31;
  std::vector<std::uint32_t> a(half), b(half);
  for (std::size_t i = 0; i < half; ++i) {
    a[i] = std::uint32_t(2 * i);
    b[i] = std::uint32_t(2 * i + 1);
  }
  std::vector<std::uint32_t> out(2 * half);
  std::uint32_t* end = corank::streamed_merge(a.data(), a.data() + half, b.data(), b.data() + half, out.data());
  ASSERT_EQ(end, out.data() + 2 * half);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < out.size(); ++k) wrong += out[k] != std::uint32_t(k);
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(corank::streamed_set_intersection_count(a.data(), a.data() + half, b.data(), b.data() + half), 0);
}

}  // namespace
