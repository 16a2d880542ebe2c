// Out of device memory: the convenience forms throw corank::out_of_memory (a
// std::bad_alloc), write nothing, leave no sticky error and leak nothing.
//
// Its own executable, run serially by ctest: it occupies nearly all device memory, which
// would fail any test running beside it.

#include <corank/check_sorted.cuh>
#include <corank/memory.hpp>
#include <corank/merge.cuh>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

namespace {

using namespace corank::test;

// cudaMalloc chunks, halving the chunk size on failure, until not even 64 KiB is left.
// The stream-ordered allocator then cannot map a new 2 MiB granule either.
class memory_hog {
 public:
  memory_hog() {
    for (std::size_t chunk = std::size_t(1) << 30; chunk >= (std::size_t(1) << 16);) {
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) == cudaSuccess) {
        blocks_.push_back(p);
      } else {
        cudaGetLastError();
        chunk /= 2;
      }
    }
  }
  memory_hog(const memory_hog&) = delete;
  memory_hog& operator=(const memory_hog&) = delete;
  ~memory_hog() {
    for (void* p : blocks_) cudaFree(p);
  }

 private:
  std::vector<void*> blocks_;
};

// Releases what the stream-ordered pools keep cached (the default one, and corank's own for
// the convenience forms), so that free memory is comparable and the hog leaves none.
void trim_pools() {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  ASSERT_EQ(cudaSuccess, cudaGetDevice(&device));
  ASSERT_EQ(cudaSuccess, cudaDeviceGetDefaultMemPool(&pool, device));
  ASSERT_EQ(cudaSuccess, cudaMemPoolTrimTo(pool, 0));
  ASSERT_EQ(cudaSuccess, corank::release_temporary_memory());
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
}

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(cudaSuccess, cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

class GpuOutOfMemory : public gpu_test {};

TEST_F(GpuOutOfMemory, ConvenienceFormsThrowBadAllocAndLeakNothing) {
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: out-of-memory test skipped";
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<int> in = make_inputs<int>(distribution::uniform, 5000, 7000, 2048, rng);
  const std::vector<int> expected = reference_merge(in.a, in.b, corank::less{});
  const device_buffer<int> a(in.a), b(in.b);
  guarded_output<int> out(expected.size());

  // Warm up: kernels loaded, allocator and device limits initialized, outside the measurement.
  ASSERT_EQ(corank::find_unsorted(a.begin(), a.end()), corank::index_t(in.a.size()));
  corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.first());
  trim_pools();
  out.buffer.fill_poison();
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  const std::size_t free_before = free_device_memory();

  {
    const memory_hog hog;
    std::printf("free device memory: %zu MiB before, %zu KiB with the hog\n", free_before >> 20,
                free_device_memory() >> 10);
    try {
      corank::find_unsorted(a.begin(), a.end());
      ADD_FAILURE() << "expected corank::out_of_memory from find_unsorted";
    } catch (const corank::out_of_memory& e) {
      EXPECT_TRUE(std::string(e.what()).find("corank::find_unsorted") != std::string::npos) << e.what();
    }
    try {
      corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.first());
      ADD_FAILURE() << "expected std::bad_alloc from merge";
    } catch (const std::bad_alloc& e) {  // out_of_memory is a std::bad_alloc
      EXPECT_NE(dynamic_cast<const corank::out_of_memory*>(&e), nullptr) << e.what();
      EXPECT_TRUE(std::string(e.what()).find("corank::merge") != std::string::npos) << e.what();
    }
    EXPECT_THROW(corank::check_sorted(a.begin(), a.end(), b.begin(), b.end()), corank::out_of_memory);
    // Allocation failures are not sticky.
    EXPECT_EQ(cudaSuccess, cudaGetLastError());
  }

  trim_pools();
  const std::size_t free_after = free_device_memory();
  EXPECT_LE(free_before - std::min(free_before, free_after), std::size_t(1) << 20)
      << "free device memory " << free_before << " before, " << free_after << " after: leaked";
  EXPECT_TRUE(out.untouched());

  // And everything works again.
  EXPECT_EQ(corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.first()), out.last());
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(out.check(expected));
}

}  // namespace
