// The warp's 33-way co-rank search (detail/block/warp_co_rank.cuh) against the serial co_rank
// (co_rank.hpp): every diagonal of small inputs (ranges of 0 to a few hundred, around the
// 32 and 33 where its rounds change), random diagonals of large inputs with duplicate
// runs, and counting inputs above 2^31 elements.

#include <corank/co_rank.hpp>
#include <corank/detail/block/warp_co_rank.cuh>
#include <corank/comparators.hpp>

#include "support/gpu.hpp"
#include "support/test_env.hpp"

#include <thrust/iterator/counting_iterator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

// Warp w searches diagonal diagonals[w]; lane 0 writes the answer, every lane checks
// that it holds the same one.
template <class SequenceA, class SequenceB>
__global__ void warp_co_rank_kernel(SequenceA a, index_t m, SequenceB b, index_t n, const index_t* diagonals,
                                    int count, index_t* out, int* lanes_disagree) {
  const int w = int((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (w >= count) return;
  corank::less comp;
  const index_t i = corank::detail::warp_co_rank(diagonals[w], a, m, b, n, comp);
  if (__shfl_sync(0xffffffffu, i, 0) != i) atomicAdd(lanes_disagree, 1);
  if (threadIdx.x % 32 == 0) out[w] = i;
}

template <class SequenceA, class SequenceB>
std::vector<index_t> warp_co_ranks(SequenceA a, index_t m, SequenceB b, index_t n,
                                   const std::vector<index_t>& diagonals) {
  device_buffer<index_t> d_diagonals(diagonals), out(diagonals.size());
  device_buffer<int> disagree(std::vector<int>{0});
  const int count = int(diagonals.size());
  warp_co_rank_kernel<<<(count + 3) / 4, 128>>>(a, m, b, n, d_diagonals.data(), count, out.data(), disagree.data());
  cuda_check(cudaDeviceSynchronize(), "warp_co_rank_kernel");
  EXPECT_EQ(0, disagree.to_host()[0]) << "lanes of a warp returned different co-ranks";
  return out.to_host();
}

std::vector<int> sorted_keys(std::mt19937_64& rng, std::size_t n, int range) {
  std::vector<int> v(n);
  for (int& x : v) x = int(rng() % unsigned(range));
  std::sort(v.begin(), v.end());
  return v;
}

class GpuWarpCoRank : public gpu_test {};

TEST_F(GpuWarpCoRank, EveryDiagonalOfSmallInputs) {
  auto rng = make_rng();
  const std::size_t sizes[] = {0, 1, 2, 31, 32, 33, 34, 65, 66, 100, 1089, 1090};
  for (std::size_t m : sizes) {
    for (std::size_t n : sizes) {
      for (int range : {2, 50, 1 << 20}) {  // mostly ties, some, almost none
        const std::vector<int> ha = sorted_keys(rng, m, range), hb = sorted_keys(rng, n, range);
        const device_buffer<int> a(ha), b(hb);
        std::vector<index_t> diagonals(m + n + 1);
        for (std::size_t k = 0; k <= m + n; ++k) diagonals[k] = index_t(k);
        const std::vector<index_t> got = warp_co_ranks(a.data(), index_t(m), b.data(), index_t(n), diagonals);
        for (std::size_t k = 0; k <= m + n; ++k) {
          const index_t want = corank::co_rank(index_t(k), ha.data(), index_t(m), hb.data(), index_t(n), corank::less{});
          ASSERT_EQ(want, got[k]) << "m " << m << " n " << n << " range " << range << " k " << k;
        }
      }
    }
  }
}

TEST_F(GpuWarpCoRank, RandomDiagonalsOfLargeInputs) {
  auto rng = make_rng();
  const std::size_t m = quick_or(3 << 20, 5000), n = quick_or(1 << 20, 3000);
  for (int range : {1000, 1 << 30}) {  // runs of thousands of copies, and few ties
    const std::vector<int> ha = sorted_keys(rng, m, range), hb = sorted_keys(rng, n, range);
    const device_buffer<int> a(ha), b(hb);
    std::vector<index_t> diagonals{0, index_t(m), index_t(n), index_t(m + n)};
    for (int d = 0; d < 2000; ++d) diagonals.push_back(index_t(rng() % (m + n + 1)));
    const std::vector<index_t> got = warp_co_ranks(a.data(), index_t(m), b.data(), index_t(n), diagonals);
    for (std::size_t d = 0; d < diagonals.size(); ++d) {
      const index_t want = corank::co_rank(diagonals[d], ha.data(), index_t(m), hb.data(), index_t(n), corank::less{});
      ASSERT_EQ(want, got[d]) << "range " << range << " k " << diagonals[d];
    }
  }
}

TEST_F(GpuWarpCoRank, CountingInputsAbove2Pow31) {
  // A = 0, 1, 2, ... and B = 2^30, 2^30 + 1, ...: ties between them over most of the path.
  const index_t m = (index_t(3) << 30) + 7, n = (index_t(1) << 31) + 5;
  const thrust::counting_iterator<index_t> a(0), b(index_t(1) << 30);
  std::mt19937_64 rng = make_rng();
  std::vector<index_t> diagonals{0, 1, m - 1, m, m + 1, n, m + n - 1, m + n};
  for (int d = 0; d < 500; ++d) diagonals.push_back(index_t(rng() % std::uint64_t(m + n + 1)));
  const std::vector<index_t> got = warp_co_ranks(a, m, b, n, diagonals);
  for (std::size_t d = 0; d < diagonals.size(); ++d) {
    ASSERT_EQ(corank::co_rank(diagonals[d], a, m, b, n, corank::less{}), got[d]) << "k " << diagonals[d];
  }
}

}  // namespace
