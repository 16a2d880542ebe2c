// The search operations on the GPU (search.cuh: sorted_lower_bound, sorted_upper_bound,
// sorted_equal_count, sorted_contains, sorted_not_contains) against std::lower_bound and
// std::upper_bound per query (support/search_cases.hpp): every key type and distribution,
// sizes around the tile and over several tiles and blocks, every strategy, a key repeated
// over many tiles, inputs at every offset from a 16-byte line (so that bulk and per-element
// staging both meet the element after the haystack's window), NaNs, output types, counting
// iterators beyond 2^31 queries, the two-phase forms, unsorted inputs and argument errors.
//
// Kernels compile here per (key type, comparator, output type, pass): lower bounds, upper
// bounds, the counts' second pass and the flags (sorted_not_contains shares the flags'). To
// keep the build light, the typed matrix runs three key types (4-byte integers, doubles under
// nan_last_less, which the NaN test reuses, and the comparator-only key) that cover what the
// kernels depend on (4- and 8-byte staging, a comparator without operator<), and each key type
// has one output type per pass.

#include <corank/comparators.hpp>
#include <corank/error.hpp>
#include <corank/search.cuh>
#include <corank/strategy.hpp>
#include <corank/tuning.hpp>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/search_cases.hpp"
#include "support/set_inputs.hpp"
#include "support/strategies.hpp"
#include "support/test_env.hpp"

#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::strategy;

const std::vector<strategy> all_strategies = every_strategy();

template <class... Args>
auto gpu_search(search_form f, Args&&... args) {
  switch (f) {
    case search_form::lower_bound: return corank::sorted_lower_bound(std::forward<Args>(args)...);
    case search_form::upper_bound: return corank::sorted_upper_bound(std::forward<Args>(args)...);
    case search_form::equal_count: return corank::sorted_equal_count(std::forward<Args>(args)...);
    case search_form::contains: return corank::sorted_contains(std::forward<Args>(args)...);
    case search_form::not_contains: break;
  }
  return corank::sorted_not_contains(std::forward<Args>(args)...);
}

template <class... Args>
cudaError_t device_search(search_form f, Args&&... args) {
  switch (f) {
    case search_form::lower_bound: return corank::device::sorted_lower_bound(std::forward<Args>(args)...);
    case search_form::upper_bound: return corank::device::sorted_upper_bound(std::forward<Args>(args)...);
    case search_form::equal_count: return corank::device::sorted_equal_count(std::forward<Args>(args)...);
    case search_form::contains: return corank::device::sorted_contains(std::forward<Args>(args)...);
    case search_form::not_contains: break;
  }
  return corank::device::sorted_not_contains(std::forward<Args>(args)...);
}

// The comparator of the typed matrix: nan_last_less for floats (the NaN test shares it).
template <class K>
using search_compare = std::conditional_t<std::is_floating_point_v<K>, corank::nan_last_less,
                                          typename key_traits<K>::compare>;

// Positions and counts as int32 for int32 keys (converted element by element) and int64
// otherwise (16-byte stores), flags as bytes: one output type per key type and pass.
template <class K, class Check>
void with_output_of(search_form f, Check check) {
  if (writes_flags(f)) {
    check(std::uint8_t{});
  } else if constexpr (std::is_same_v<K, std::int32_t>) {
    check(std::int32_t{});
  } else {
    check(std::int64_t{});
  }
}

// Every form and strategy on (haystack, queries), the queries' copies `shift` elements from
// the start of their device buffers, the haystack's `shift + 1` (mod 4): windows that start
// and end at every place in a 16-byte line.
template <class K, class Compare>
void check_forms(const std::vector<K>& haystack, const std::vector<K>& queries, Compare comp,
                 const std::vector<strategy>& strategies = all_strategies, std::size_t shift = 0) {
  std::vector<K> padded_h(haystack), padded_q(queries);
  const std::size_t h_shift = (shift + 1) % 4;
  padded_h.insert(padded_h.begin(), h_shift, haystack.empty() ? K{} : haystack.front());
  padded_q.insert(padded_q.begin(), shift, queries.empty() ? K{} : queries.front());
  const device_buffer<K> h(padded_h), q(padded_q);
  const K* h_first = h.data() + h_shift;
  const K* q_first = q.data() + shift;
  const K* h_last = h_first + haystack.size();
  const K* q_last = q_first + queries.size();
  for (search_form f : all_search_forms) {
    const std::vector<index_t> expected = reference_search(f, haystack, queries, comp);
    with_output_of<K>(f, [&](auto type) {
      using T = decltype(type);
      guarded_output<T> out(queries.size());
      for (strategy kind : strategies) {
        SCOPED_TRACE(std::string(to_string(f)) + " " + corank::to_string(kind));
        out.buffer.fill_poison();
        T* const end = gpu_search(f, h_first, h_last, q_first, q_last, out.first(), comp, nullptr, kind);
        EXPECT_EQ(end, out.last());
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(search_output_is(expected, out.buffer.to_host()));
        if (::testing::Test::HasFailure()) return;
      }
    });
    if (::testing::Test::HasFailure()) return;
  }
}

std::vector<distribution> gpu_distributions() {
  if (quick_mode()) return {distribution::uniform, distribution::all_equal, distribution::long_runs};
  return {std::begin(all_distributions), std::end(all_distributions)};
}

std::vector<size_pair> edge_sizes(std::size_t tile) {
  if (quick_mode()) return {{0, 0}, {1, 1}, {tile - 1, tile + 1}, {tile, tile}, {tile + 1, 0}, {1, tile}};
  return tile_edge_sizes(tile);
}

// The search's tiles (tile_kind::sorted_search).
template <class K>
constexpr std::size_t search_tile = corank::sorted_search_policy<K>::items_per_tile;

using search_key_types = ::testing::Types<std::int32_t, double, opaque_key>;

template <class K>
class GpuSearch : public gpu_test {};
TYPED_TEST_SUITE(GpuSearch, search_key_types);

template <class K>
void over_matrix(const std::vector<size_pair>& sizes, std::mt19937_64& rng) {
  using compare = search_compare<K>;
  for (distribution d : gpu_distributions()) {
    for (const size_pair& s : sizes) {
      const sorted_inputs<K> in = make_inputs<K>(d, s.m, s.n, search_tile<K>, rng);
      SCOPED_TRACE(describe(key_name<K>().c_str(), d, in.a.size(), in.b.size()) + " (m queries, n haystack)");
      check_forms(in.b, in.a, compare{});
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TYPED_TEST(GpuSearch, TileEdgeSizes) {
  std::mt19937_64 rng = make_rng();
  over_matrix<TypeParam>(edge_sizes(search_tile<TypeParam>), rng);
}

TYPED_TEST(GpuSearch, SeveralTilesAndBlocks) {
  std::mt19937_64 rng = make_rng();
  over_matrix<TypeParam>(multi_tile_sizes(search_tile<TypeParam>, rng), rng);
}

// One key 50 tiles long in the haystack and 30 among the queries, amid others and alone:
// queries whose bounds lie many tiles away, and flags whose element lies past every window.
TYPED_TEST(GpuSearch, KeyRepeatedOverManyTiles) {
  using K = TypeParam;
  using compare = search_compare<K>;
  constexpr std::size_t tile = search_tile<K>;
  std::mt19937_64 rng = make_rng();
  const std::size_t many = quick_or(50, 6) * tile, fewer = quick_or(30, 4) * tile;
  const std::vector<K> h = with_one_key_run<K>(tile / 2 + 3, many, 2 * tile + 1, rng);
  const std::vector<K> q = with_one_key_run<K>(tile + 7, fewer, tile / 3, rng);
  const std::vector<strategy> two = {strategy::automatic, strategy::naive};
  {
    SCOPED_TRACE("one key amid others");
    check_forms(h, q, compare{}, two);
    check_forms(q, h, compare{}, two);
  }
  const std::vector<K> h_equal(many, key_traits<K>::from_index(5)), q_equal(fewer, key_traits<K>::from_index(5));
  SCOPED_TRACE("all equal");
  check_forms(h_equal, q_equal, compare{}, two);
  check_forms(q_equal, h_equal, compare{}, two);
}

// Windows at every offset from a 16-byte line: the element after the haystack's window comes
// with a bulk copy's last line, or by its own load, or not at all (the haystack's end).
TEST(GpuSearchShapes, EveryOffsetFromALine) {
  CORANK_REQUIRE_GPU();
  using K = std::int32_t;
  constexpr std::size_t tile = search_tile<K>;
  std::mt19937_64 rng = make_rng();
  for (std::size_t shift = 0; shift < 4; ++shift) {
    for (distribution d : {distribution::uniform, distribution::interleaved, distribution::long_runs}) {
      const sorted_inputs<K> in = make_inputs<K>(d, 7 * tile + shift, 5 * tile + 3 * shift, tile, rng);
      SCOPED_TRACE(std::string(to_string(d)) + " shift " + std::to_string(shift));
      check_forms(in.b, in.a, corank::less{}, {strategy::automatic, strategy::naive}, shift);
      // Every query present (the flags' element is past the window at each tile end).
      check_forms(in.a, in.a, corank::less{}, {strategy::automatic}, shift);
      if (HasFailure()) return;
    }
  }
}

TEST(GpuSearchShapes, NaNsUnderNanLastLess) {
  CORANK_REQUIRE_GPU();
  std::mt19937_64 rng = make_rng();
  for (std::size_t nans_h : {0, 1, 5000}) {
    for (std::size_t nans_q : {0, 1, 7000}) {
      const sorted_inputs<double> in = inputs_with_nans(quick_or(100000, 9000), quick_or(150000, 7000), nans_h, nans_q,
                                                        rng);
      SCOPED_TRACE("NaNs: " + std::to_string(nans_h) + " in the haystack, " + std::to_string(nans_q) + " queries");
      check_forms(in.b, in.a, corank::nan_last_less{}, {strategy::automatic});
      if (HasFailure()) return;
    }
  }
}

// Flags into bool (16-byte stores of the type the tile stages).
TEST(GpuSearchShapes, FlagsIntoBool) {
  CORANK_REQUIRE_GPU();
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<std::int32_t> in =
      make_inputs<std::int32_t>(distribution::long_runs, 300001, 200003, search_tile<std::int32_t>, rng);
  const device_buffer<std::int32_t> q(in.a), h(in.b);
  const std::vector<index_t> found = reference_search(search_form::contains, in.b, in.a, corank::less{});
  device_buffer<bool> flags(in.a.size());
  corank::sorted_contains(h.begin(), h.end(), q.begin(), q.end(), flags.data());
  std::vector<std::uint8_t> bytes(in.a.size());
  cuda_check(cudaMemcpy(bytes.data(), flags.data(), bytes.size(), cudaMemcpyDeviceToHost), "download");
  for (std::size_t i = 0; i < found.size(); ++i) ASSERT_EQ(bytes[i], found[i]) << "query " << i;
}

// ---------------------------------------------------------------------------------------
// More than 2^31 queries (0, 1, 2, ...) in a haystack of evens (0, 2, 4, ...) half as long:
// formulas, so nothing but a byte per query needs memory. Each answer is checked where it is
// written, by an output that records 1 for a right answer and 2 for a wrong one.

constexpr index_t huge_m = (index_t(1) << 31) + 5;
constexpr index_t huge_n = (index_t(1) << 30) + 3;

struct times_two {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return 2 * i; }
};

// What query q (an integer) gets in the evens 0, 2, ..., 2(n - 1).
__host__ __device__ inline index_t expected_answer(search_form f, index_t q) {
  const index_t lower = (q + 1) / 2 < huge_n ? (q + 1) / 2 : huge_n;
  const index_t upper = q / 2 + 1 < huge_n ? q / 2 + 1 : huge_n;
  switch (f) {
    case search_form::lower_bound: return lower;
    case search_form::upper_bound: return upper;
    case search_form::equal_count: return upper - lower;
    case search_form::contains: return upper > lower;
    case search_form::not_contains: break;
  }
  return upper == lower;
}

struct verdict_output {
  std::uint8_t* verdicts;
  search_form form;
  index_t offset = 0;

  struct element {
    std::uint8_t* verdict;
    search_form form;
    index_t query;
    template <class T>
    __device__ void operator=(const T& answer) const {
      *verdict = index_t(answer) == expected_answer(form, query) ? 1 : 2;
    }
  };
  __host__ __device__ element operator[](index_t k) const { return {verdicts + offset + k, form, offset + k}; }
  __host__ __device__ verdict_output operator+(index_t k) const { return {verdicts, form, offset + k}; }
};

struct is_not_one {
  __host__ __device__ bool operator()(std::uint8_t v) const { return v != 1; }
};

// Lower bounds and flags (upper bounds differ in the comparator only, and the counts'
// second pass subtracts from the first's answers, which a verdict cannot).
template <class Haystack, class Queries>
verdict_output huge_search(search_form f, Haystack h, Haystack h_end, Queries q, Queries q_end, verdict_output out,
                           strategy kind) {
  const corank::less comp;
  if (f == search_form::lower_bound) return corank::sorted_lower_bound(h, h_end, q, q_end, out, comp, nullptr, kind);
  if (f == search_form::contains) return corank::sorted_contains(h, h_end, q, q_end, out, comp, nullptr, kind);
  return corank::sorted_not_contains(h, h_end, q, q_end, out, comp, nullptr, kind);
}

TEST(GpuSearchHuge, CountingQueriesAbove2Pow31) {
  CORANK_REQUIRE_GPU();
  if (quick_mode()) GTEST_SKIP() << "CORANK_TEST_QUICK: > 2^31 elements skipped";
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaSuccess, cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < std::size_t(huge_m) + (std::size_t(1) << 30)) {
    GTEST_SKIP() << "needs " << (huge_m >> 20) << " MiB of free device memory plus 1 GiB, has " << (free_bytes >> 20);
  }
  device_buffer<std::uint8_t> verdicts(static_cast<std::size_t>(huge_m));
  const thrust::counting_iterator<std::int64_t> queries(0);
  const auto haystack = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), times_two{});
  for (search_form f : {search_form::lower_bound, search_form::contains, search_form::not_contains}) {
    for (strategy kind : {strategy::automatic, strategy::naive}) {
      SCOPED_TRACE(std::string(to_string(f)) + " " + corank::to_string(kind));
      verdicts.fill_poison();
      const verdict_output out{verdicts.data(), f};
      const verdict_output end = huge_search(f, haystack, haystack + huge_n, queries, queries + huge_m, out, kind);
      EXPECT_EQ(end.offset, huge_m);
      CORANK_ASSERT_DEVICE_OK();
      const index_t wrong = thrust::count_if(thrust::device, verdicts.begin(), verdicts.end(), is_not_one{});
      EXPECT_EQ(wrong, 0) << "answers missing or wrong";
    }
  }
}

// ---------------------------------------------------------------------------------------
// Two-phase forms, on int32 keys: the typed matrix's kernels.

class GpuSearchTwoPhase : public gpu_stream_test {};

TEST_F(GpuSearchTwoPhase, QueryRunAndCountOnAStream) {
  using K = std::int32_t;
  std::mt19937_64 rng = make_rng();
  const sorted_inputs<K> in = make_inputs<K>(distribution::long_runs, 100003, 77777, search_tile<K>, rng);
  const device_buffer<K> q(in.a), h(in.b);
  const index_t m = index_t(in.a.size()), n = index_t(in.b.size());
  device_buffer<index_t> count(1);
  for (search_form f : all_search_forms) {
    const std::vector<index_t> expected = reference_search(f, in.b, in.a, corank::less{});
    with_output_of<std::int32_t>(f, [&](auto type) {
      using T = decltype(type);
      SCOPED_TRACE(to_string(f));
      guarded_output<T> out(in.a.size());
      std::size_t bytes = 0;
      ASSERT_EQ(cudaSuccess, device_search(f, nullptr, bytes, h.data(), n, q.data(), m, out.first(), count.data(),
                                           corank::less{}, stream));
      ASSERT_GT(bytes, 0u);
      device_buffer<unsigned char> temp(bytes);
      // Too little storage, or no count word: refused, nothing launched.
      std::size_t fewer = bytes - 1;
      EXPECT_EQ(cudaErrorInvalidValue, device_search(f, temp.data(), fewer, h.data(), n, q.data(), m, out.first(),
                                                     count.data(), corank::less{}, stream));
      EXPECT_EQ(cudaErrorInvalidValue, device_search(f, temp.data(), bytes, h.data(), n, q.data(), m, out.first(),
                                                     nullptr, corank::less{}, stream));
      EXPECT_EQ(cudaErrorInvalidValue, device_search(f, temp.data(), bytes, h.data(), n, q.data(), m,
                                                     static_cast<T*>(nullptr), count.data(), corank::less{}, stream));
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
      EXPECT_TRUE(out.untouched()) << "a refused call wrote";
      count.fill_poison();
      ASSERT_EQ(cudaSuccess, device_search(f, temp.data(), bytes, h.data(), n, q.data(), m, out.first(), count.data(),
                                           corank::less{}, stream));
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
      EXPECT_EQ(count.to_host()[0], m) << "the count in device memory";
      EXPECT_TRUE(search_output_is(expected, out.buffer.to_host()));
    });
  }
}

TEST_F(GpuSearchTwoPhase, NoQueriesWritesACountOfZero) {
  const std::vector<std::int32_t> hay = {1, 2, 3};
  const device_buffer<std::int32_t> h(hay);
  device_buffer<index_t> count(1);
  for (search_form f : all_search_forms) {
    with_output_of<std::int32_t>(f, [&](auto type) {
      using T = decltype(type);
      SCOPED_TRACE(to_string(f));
      std::size_t bytes = 0;
      ASSERT_EQ(cudaSuccess, device_search(f, nullptr, bytes, h.data(), 3, static_cast<const std::int32_t*>(nullptr),
                                           0, static_cast<T*>(nullptr), count.data(), corank::less{}, stream));
      device_buffer<unsigned char> temp(bytes);
      count.fill_poison();
      ASSERT_EQ(cudaSuccess, device_search(f, temp.data(), bytes, h.data(), 3, static_cast<const std::int32_t*>(nullptr),
                                           0, static_cast<T*>(nullptr), count.data(), corank::less{}, stream));
      ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
      EXPECT_EQ(count.to_host()[0], 0);
    });
  }
}

TEST(GpuSearchErrors, BadArgumentsThrowASentence) {
  CORANK_REQUIRE_GPU();
  const std::vector<std::int32_t> values = {1, 2, 3};
  const device_buffer<std::int32_t> h(values), q(values);
  try {
    corank::sorted_lower_bound(h.begin(), h.end(), q.begin(), q.end(), static_cast<index_t*>(nullptr));
    ADD_FAILURE() << "a null output was taken";
  } catch (const corank::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_NE(std::string(e.what()).find("corank::sorted_lower_bound: the output is a null pointer with a nonzero size"),
              std::string::npos)
        << e.what();
  }
  guarded_output<std::uint8_t> out(3);
  EXPECT_THROW(corank::sorted_contains(h.end(), h.begin(), q.begin(), q.end(), out.first()), corank::cuda_error);
  EXPECT_TRUE(out.untouched());
}

// Unsorted inputs: nothing is written outside the output; some are found so (the count
// negative, the convenience forms throw corank::unsorted_input).
TEST(GpuSearchErrors, UnsortedInputsStayInTheOutput) {
  CORANK_REQUIRE_GPU();
  std::mt19937_64 rng = make_rng();
  int thrown = 0;
  const int trials = int(quick_or(30, 6));
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<std::int32_t> hay(50000 + rng() % 200000), queries(50000 + rng() % 200000);
    for (auto& x : hay) x = std::int32_t(rng() % 1000);
    for (auto& x : queries) x = std::int32_t(rng() % 1000);
    if (trial % 3 != 0) std::sort(hay.begin(), hay.end());
    if (trial % 3 != 1) std::sort(queries.begin(), queries.end());
    if (trial % 3 == 2) std::reverse(hay.begin(), hay.end());
    const device_buffer<std::int32_t> h(hay), q(queries);
    for (search_form f : all_search_forms) {
      with_output_of<std::int32_t>(f, [&](auto type) {
        using T = decltype(type);
        guarded_output<T> out(queries.size());
        try {
          gpu_search(f, h.begin(), h.end(), q.begin(), q.end(), out.first());
        } catch (const corank::unsorted_input&) {
          ++thrown;
        }
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(guards_intact(out.buffer.to_host(), guard_elements, out.count)) << to_string(f);
      });
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(thrown, 0) << "no unsorted input was found so";
}

}  // namespace
