// The warp's balanced-path split (detail/block/warp_balanced_split.cuh) against the serial
// balanced_co_rank (balanced_path.hpp): lanes with consecutive diagonals (the split pass's
// pattern, where lanes meeting one run of equal keys search it together), a warp's lanes all
// on one diagonal (one group of 32), and sorted random diagonals that mix groups of
// every size in a warp; over inputs of few distinct keys (runs across many tiles), every
// diagonal of small inputs, and counting inputs above 2^31 elements with runs of 2^20.

#include <corank/balanced_path.hpp>
#include <corank/comparators.hpp>
#include <corank/detail/block/warp_balanced_split.cuh>

#include "support/gpu.hpp"
#include "support/test_env.hpp"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::split;

// Lane l of warp w takes diagonals[32 w + l]; each lane finds its co-rank alone, then the
// warp the balanced splits.
template <class SequenceA, class SequenceB>
__global__ void warp_balanced_split_kernel(SequenceA a, index_t m, SequenceB b, index_t n, const index_t* diagonals,
                                           int warps, split<index_t>* out) {
  const int w = int((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (w >= warps) return;  // whole warps
  corank::less comp;
  const int at = int(blockIdx.x * blockDim.x + threadIdx.x);
  const index_t k = diagonals[at];
  const index_t i = corank::co_rank(k, a, m, b, n, comp);
  out[at] = corank::detail::warp_balanced_split_from(i, k, a, m, b, n, comp);
}

// The splits of `diagonals` (nondecreasing within each 32, padded with the last) against
// balanced_co_rank's on the host sequences ha and hb.
template <class SequenceA, class SequenceB, class HostA, class HostB>
void expect_balanced_splits(SequenceA a, index_t m, SequenceB b, index_t n, HostA ha, HostB hb,
                            std::vector<index_t> diagonals, const std::string& what) {
  while (diagonals.size() % 32 != 0) diagonals.push_back(diagonals.back());
  const device_buffer<index_t> d_diagonals(diagonals);
  device_buffer<split<index_t>> out(diagonals.size());
  const int warps = int(diagonals.size() / 32);
  warp_balanced_split_kernel<<<(warps + 3) / 4, 128>>>(a, m, b, n, d_diagonals.data(), warps, out.data());
  cuda_check(cudaDeviceSynchronize(), "warp_balanced_split_kernel");
  const std::vector<split<index_t>> got = out.to_host();
  for (std::size_t d = 0; d < diagonals.size(); ++d) {
    const split<index_t> want = corank::balanced_co_rank(diagonals[d], ha, m, hb, n, corank::less{});
    ASSERT_EQ(want.a, got[d].a) << what << ": m " << m << " n " << n << " k " << diagonals[d] << " lane " << d % 32;
    ASSERT_EQ(want.b, got[d].b) << what << ": m " << m << " n " << n << " k " << diagonals[d] << " lane " << d % 32;
  }
}

std::vector<int> sorted_keys(std::mt19937_64& rng, std::size_t n, int range) {
  std::vector<int> v(n);
  for (int& x : v) x = int(rng() % unsigned(range));
  std::sort(v.begin(), v.end());
  return v;
}

// Each of `diagonals` 32 times: a warp on one diagonal.
std::vector<index_t> each_32_times(const std::vector<index_t>& diagonals) {
  std::vector<index_t> out;
  for (index_t k : diagonals) out.insert(out.end(), 32, k);
  return out;
}

// `count` diagonals in [0, total], sorted: groups of every size within a warp.
std::vector<index_t> sorted_random_diagonals(std::mt19937_64& rng, index_t total, int count) {
  std::vector<index_t> out(std::size_t(count), 0);
  for (index_t& k : out) k = index_t(rng() % std::uint64_t(total + 1));
  std::sort(out.begin(), out.end());
  return out;
}

class GpuWarpBalancedSplit : public gpu_test {};

TEST_F(GpuWarpBalancedSplit, EveryDiagonalOfSmallInputs) {
  auto rng = make_rng();
  const std::size_t sizes[] = {0, 1, 2, 31, 33, 100, 1000};
  for (std::size_t m : sizes) {
    for (std::size_t n : sizes) {
      if (m + n == 0) continue;
      for (int range : {1, 2, 5, 50, 1 << 20}) {  // one key, long runs, some, almost no ties
        const std::vector<int> ha = sorted_keys(rng, m, range), hb = sorted_keys(rng, n, range);
        const device_buffer<int> a(ha), b(hb);
        std::vector<index_t> diagonals(m + n + 1);
        for (std::size_t k = 0; k <= m + n; ++k) diagonals[k] = index_t(k);
        const std::string what = "range " + std::to_string(range);
        expect_balanced_splits(a.data(), index_t(m), b.data(), index_t(n), ha.data(), hb.data(), diagonals,
                               what + ", consecutive diagonals");
        expect_balanced_splits(a.data(), index_t(m), b.data(), index_t(n), ha.data(), hb.data(),
                               each_32_times(diagonals), what + ", a warp a diagonal");
      }
    }
  }
}

TEST_F(GpuWarpBalancedSplit, LongRunsAcrossManyTiles) {
  auto rng = make_rng();
  const std::size_t m = quick_or(3 << 20, 40000), n = quick_or(1 << 20, 30000);
  for (int range : {1, 4, 64, 1000}) {
    const std::vector<int> ha = sorted_keys(rng, m, range), hb = sorted_keys(rng, n, range);
    const device_buffer<int> a(ha), b(hb);
    const index_t total = index_t(m + n);
    const std::string what = "range " + std::to_string(range);
    for (index_t step : {index_t(1), index_t(29), index_t(3712)}) {  // a tile's diagonals apart, as the pass
      std::vector<index_t> diagonals;
      for (index_t k = index_t(rng() % std::uint64_t(step)); k <= total && diagonals.size() < 4096; k += step) {
        diagonals.push_back(k);
      }
      diagonals.push_back(total);
      expect_balanced_splits(a.data(), index_t(m), b.data(), index_t(n), ha.data(), hb.data(), diagonals,
                             what + ", diagonals " + std::to_string(step) + " apart");
    }
    expect_balanced_splits(a.data(), index_t(m), b.data(), index_t(n), ha.data(), hb.data(),
                           sorted_random_diagonals(rng, total, 4096), what + ", sorted random diagonals");
    const std::vector<index_t> each = each_32_times(sorted_random_diagonals(rng, total, 200));
    expect_balanced_splits(a.data(), index_t(m), b.data(), index_t(n), ha.data(), hb.data(), each,
                           what + ", a warp a diagonal");
  }
}

// Key p >> shift of position p: runs of 2^shift equal keys.
struct run_key {
  int shift;
  __host__ __device__ index_t operator()(index_t p) const { return p >> shift; }
};

TEST_F(GpuWarpBalancedSplit, CountingInputsAbove2Pow31) {
  // A's runs of 2^21 and B's of 2^20 (shifted by 2^19): every split past the first cuts runs
  // in both.
  const index_t m = (index_t(3) << 30) + 7, n = (index_t(1) << 31) + 5;
  const auto a = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), run_key{21});
  const auto b = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(index_t(1) << 19), run_key{20});
  std::mt19937_64 rng = make_rng();
  std::vector<index_t> diagonals = sorted_random_diagonals(rng, m + n, 512);
  for (index_t k : {index_t(0), index_t(1), m - 1, m, m + 1, n, m + n - 1, m + n}) diagonals.push_back(k);
  std::sort(diagonals.begin(), diagonals.end());
  expect_balanced_splits(a, m, b, n, a, b, diagonals, "counting, sorted random diagonals");
  std::vector<index_t> apart;
  for (index_t k = m; apart.size() < 256; k += 3712) apart.push_back(k);
  expect_balanced_splits(a, m, b, n, a, b, apart, "counting, diagonals a tile apart");
  expect_balanced_splits(a, m, b, n, a, b, each_32_times({m - 1, m + 12345, m + n}), "counting, a warp a diagonal");
}

}  // namespace
