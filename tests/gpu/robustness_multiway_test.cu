// Issue #44 beyond the two-input tiles (robustness_test.cu): unsorted or malformed inputs to
// the k-way merge (merge_runs, merge_run_list), the sort, and the streamed, distributed and
// segmented forms. Whatever the inputs, no call reads outside its inputs, writes outside its
// outputs' bounds, loses the CUDA context or hangs, and where a form can say "not sorted" it
// says so as its header states (a negative count, corank::unsorted_input with input() 0 and
// index() -1). Patterns: random, descending, sorted but for one element on a tile or chunk
// boundary, few distinct keys shuffled (heavy duplicates), a comparator that is not a strict
// weak order (`<=`), NaN under plain operator<, and run or segment offsets that decrease,
// overrun or hold garbage, and device run sizes that are negative or add up past the size.
//
// How the bounds are seen without a sanitizer: every device output lies between poisoned
// guards (guarded_output) that must stay poisoned; inputs lie between fences holding a
// sentinel that no input holds, so an element read outside an input and written out shows
// as the sentinel in an output (and a write into an input's fence shows too). Every test ends
// with a sorted call whose result is checked: the context survived. Also the two-phase forms'
// documented errors that no other test covered (segment counts, run lists, the sort's values).
// CORANK_TEST_QUICK: a few tiles per case, for compute-sanitizer.

#include <corank/distributed_operation.cuh>
#include <corank/error.hpp>
#include <corank/merge.cuh>
#include <corank/merge_runs.cuh>
#include <corank/ops/merge.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>
#include <corank/segmented.cuh>
#include <corank/set_operations.cuh>
#include <corank/sort.cuh>
#include <corank/streamed.cuh>

#include "support/gpu.hpp"
#include "support/in_process_transport.hpp"
#include "support/multiway_inputs.hpp"
#include "support/shared_kernels.hpp"
#include "support/test_env.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

// Not a strict weak order: x "before" y also where they are equal.
struct less_equal {
  __host__ __device__ bool operator()(int x, int y) const { return x <= y; }
};

// Keys lie in [-2^20, 2^20] (floats in [-1, 1], or NaN), values are positions (never
// negative): the fences' sentinels and the guards' poison (0xA5A5A5A5) lie outside. Each
// fenced input gets a sentinel of its own, so that device memory freed by earlier inputs
// (which the passes' uninitialized buffers may reuse, and copy where a tile wrote nothing)
// never holds the sentinel of a live input: only a read outside that input can show it.
constexpr int key_range = 1 << 20;
constexpr std::size_t fence = 64;

std::atomic<int> sentinels_taken{0};

template <class T>
T fresh_sentinel() {
  const int taken = sentinels_taken++;
  if constexpr (std::is_same_v<T, float>) {
    return 1234567.0f + float(taken);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return -7 - std::int64_t(taken);
  } else {
    static_assert(std::is_same_v<T, int>, "sentinels for int, int64 and float");
    return std::numeric_limits<int>::min() + 7 + taken;
  }
}

// `n` int keys: random, descending, sorted but for the element at `boundary` (made the
// largest), few distinct keys shuffled (heavy duplicates), or sorted.
enum class pattern { random, descending, misplaced, few_distinct, sorted };

const char* to_string(pattern p) {
  switch (p) {
    case pattern::random: return "random";
    case pattern::descending: return "descending";
    case pattern::misplaced: return "sorted but one element on a boundary";
    case pattern::few_distinct: return "few distinct, shuffled";
    case pattern::sorted: return "sorted";
  }
  return "?";
}

constexpr pattern unsorted_patterns[] = {pattern::random, pattern::descending, pattern::misplaced,
                                         pattern::few_distinct};

std::vector<int> int_keys(pattern p, std::size_t n, std::size_t boundary, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> any(-key_range, key_range);
  std::vector<int> keys(n);
  for (int& k : keys) k = any(rng);
  switch (p) {
    case pattern::random: break;
    case pattern::descending: std::sort(keys.begin(), keys.end(), [](int x, int y) { return x > y; }); break;
    case pattern::misplaced:
      std::sort(keys.begin(), keys.end());
      if (boundary < n) keys[boundary] = key_range;
      break;
    case pattern::few_distinct:
      for (int& k : keys) k %= 5;
      break;
    case pattern::sorted: std::sort(keys.begin(), keys.end()); break;
  }
  return keys;
}

// Sorted floats in [-1, 1], about one in `every` then replaced by NaN: what "sorted" means to
// plain operator<, which no adjacent pair breaks, and which is no strict weak order. (Not
// std::sort with NaN: the host's sort may itself read outside the range then.)
std::vector<float> nan_keys(std::size_t n, int every, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> any(-1, 1);
  std::vector<float> keys(n);
  for (float& k : keys) k = any(rng);
  std::sort(keys.begin(), keys.end());
  for (float& k : keys) {
    if (rng() % std::uint64_t(every) == 0) k = std::nanf("");
  }
  return keys;
}

template <class T>
bool holds(const std::vector<T>& values, const T& x) {
  return std::any_of(values.begin(), values.end(), [&](const T& v) { return same_bits(v, x); });
}

// A device input between fences of `fence` sentinels (its own): data() is the input.
template <class T>
struct fenced {
  explicit fenced(const std::vector<T>& host)
      : buffer(host.size() + 2 * fence), size(host.size()), sentinel(fresh_sentinel<T>()) {
    std::vector<T> all(fence, sentinel);
    all.insert(all.end(), host.begin(), host.end());
    all.insert(all.end(), fence, sentinel);
    buffer.upload(all);
  }
  T* data() const { return buffer.data() + fence; }
  std::vector<T> contents() const {
    const std::vector<T> all = buffer.to_host();
    return std::vector<T>(all.begin() + std::ptrdiff_t(fence), all.begin() + std::ptrdiff_t(fence + size));
  }
  // Nothing written into the fences.
  ::testing::AssertionResult fences_intact() const {
    const std::vector<T> all = buffer.to_host();
    for (std::size_t i = 0; i < fence; ++i) {
      if (!same_bits(all[i], sentinel) || !same_bits(all[fence + size + i], sentinel))
        return ::testing::AssertionFailure() << "an input's fence was written";
    }
    return ::testing::AssertionSuccess();
  }
  device_buffer<T> buffer;
  std::size_t size;
  T sentinel;
};

// The guards of an output of `count` between guards, and no element of it read from outside
// the inputs whose sentinels are given.
template <class T, class... Sentinels>
::testing::AssertionResult guarded_and_read_inside(const std::vector<T>& with_guards, std::size_t count,
                                                   Sentinels... sentinels) {
  if (auto guards = guards_intact(with_guards, guard_elements, count); !guards) return guards;
  if ((holds(with_guards, T(sentinels)) || ...))
    return ::testing::AssertionFailure() << "an output holds an element read outside its input";
  return ::testing::AssertionSuccess();
}

template <class T, class... Sentinels>
::testing::AssertionResult in_bounds(const guarded_output<T>& out, Sentinels... sentinels) {
  return guarded_and_read_inside(out.buffer.to_host(), out.count, sentinels...);
}

// The size a call returned: within its bound.
::testing::AssertionResult within(index_t size, index_t bound) {
  if (0 <= size && size <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "returned " << size << ", bound " << bound;
}

// corank::unsorted_input as an operation (not check_sorted) throws it.
void expect_unnamed(const corank::unsorted_input& e) {
  EXPECT_EQ(0, e.input()) << e.what();
  EXPECT_EQ(-1, e.index()) << e.what();
}

// How many calls on unsorted inputs said so.
struct findings {
  int calls = 0, found = 0;
  void note(bool said) {
    ++calls;
    found += said ? 1 : 0;
  }
};

class RobustnessMultiway : public gpu_test {};

// ---------------------------------------------------------------------------------------
// The k-way merge.

struct kway_shape {
  std::size_t n, k;
};

// One pass with several tiles per group (sampled), two passes, three passes of small runs;
// more without CORANK_TEST_QUICK.
std::vector<kway_shape> kway_shapes() {
  std::vector<kway_shape> shapes = {{20000, 3}, {12000, 100}, {6000, 4097}};
  if (!quick_mode()) {
    shapes.push_back({std::size_t(1) << 20, 64});
    shapes.push_back({std::size_t(1) << 20, 300});
  }
  return shapes;
}

// The k-way tile of int keys: where a misplaced element sits on a tile boundary.
constexpr std::size_t kway_tile = corank::multiway_merge_policy<int>::items_per_tile;

// merge_runs of `keys` (size elements from keys_in; the fence follows keys.size()) with
// `offsets`: stays in bounds; the same with values (positions) where `with_values`.
template <class Compare>
void merge_runs_in_bounds(const std::vector<int>& keys, const std::vector<std::int64_t>& offsets, index_t size,
                          Compare comp, bool with_values) {
  const index_t k = index_t(offsets.size()) - 1;
  const fenced<int> in(keys);
  const device_buffer<std::int64_t> d_offsets(offsets);
  guarded_output<int> out{std::size_t(size)};
  EXPECT_EQ(corank::merge_runs(in.data(), d_offsets.data(), k, size, out.first(), comp), out.last());
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(in_bounds(out, in.sentinel));
  EXPECT_TRUE(in.fences_intact());
  if (!with_values) return;
  std::vector<std::int64_t> positions(keys.size());
  std::iota(positions.begin(), positions.end(), std::int64_t(0));
  const fenced<std::int64_t> values(positions);
  guarded_output<int> keys_out{std::size_t(size)};
  guarded_output<std::int64_t> values_out{std::size_t(size)};
  corank::merge_runs_by_key(in.data(), values.data(), d_offsets.data(), k, size, keys_out.first(), values_out.first(),
                            corank::less{});
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(in_bounds(keys_out, in.sentinel));
  EXPECT_TRUE(in_bounds(values_out, values.sentinel));
  EXPECT_TRUE(values.fences_intact());
}

TEST_F(RobustnessMultiway, MergeRunsOfUnsortedRunsStaysInBounds) {
  std::mt19937_64 rng = make_rng();
  for (const kway_shape s : kway_shapes()) {
    for (const pattern p : unsorted_patterns) {
      SCOPED_TRACE(std::string(to_string(p)) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
      const std::vector<std::int64_t> offsets = make_offsets(s.n, s.k, lengths::random_with_empty, rng);
      // Runs of the pattern one after the other; `misplaced` breaks one run on a tile boundary.
      std::vector<int> keys;
      for (std::size_t j = 0; j < s.k; ++j) {
        const std::size_t length = std::size_t(offsets[j + 1] - offsets[j]);
        const std::vector<int> run = int_keys(p, length, length > kway_tile ? kway_tile : length / 2, rng);
        keys.insert(keys.end(), run.begin(), run.end());
      }
      merge_runs_in_bounds(keys, offsets, index_t(s.n), corank::less{}, true);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(RobustnessMultiway, MergeRunsWithComparatorThatIsNotAStrictWeakOrderOrNaN) {
  std::mt19937_64 rng = make_rng();
  for (const kway_shape s : kway_shapes()) {
    SCOPED_TRACE("n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
    const std::vector<std::int64_t> offsets = make_offsets(s.n, s.k, lengths::equal, rng);
    {
      SCOPED_TRACE("comp <=, runs sorted, few distinct keys");
      std::vector<int> keys = int_keys(pattern::few_distinct, s.n, 0, rng);
      sort_runs(keys, offsets, corank::less{});
      merge_runs_in_bounds(keys, offsets, index_t(s.n), less_equal{}, false);
    }
    {
      SCOPED_TRACE("float runs with NaN, operator<");
      std::vector<float> keys;
      for (std::size_t j = 0; j < s.k; ++j) {
        const std::vector<float> run = nan_keys(std::size_t(offsets[j + 1] - offsets[j]), 5, rng);
        keys.insert(keys.end(), run.begin(), run.end());
      }
      const fenced<float> in(keys);
      const device_buffer<std::int64_t> d_offsets(offsets);
      guarded_output<float> out(s.n);
      corank::merge_runs(in.data(), d_offsets.data(), index_t(s.k), index_t(s.n), out.first(), corank::less{});
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(in_bounds(out, in.sentinel));
    }
    if (HasFatalFailure()) return;
  }
}

// Offsets that break the preconditions (device memory, not checked): read as runs inside
// keys_in[offsets[0], offsets[0] + size) all the same.
TEST_F(RobustnessMultiway, MergeRunsWithOffsetsThatDecreaseOrOverrun) {
  std::mt19937_64 rng = make_rng();
  const std::size_t n = quick_or(60000, 20000), k = 40;
  std::vector<int> keys = int_keys(pattern::random, n, 0, rng);
  const std::vector<std::int64_t> good = make_offsets(n, k, lengths::equal, rng);
  sort_runs(keys, good, corank::less{});
  struct bad_offsets {
    std::string what;
    std::vector<std::int64_t> offsets;
    index_t size;  // at most n: the fence follows the n keys
  };
  std::vector<bad_offsets> cases;
  auto edited = [&](auto edit) {
    std::vector<std::int64_t> o = good;
    edit(o);
    return o;
  };
  cases.push_back({"two offsets swapped", edited([](auto& o) { std::swap(o[10], o[11]); }), index_t(n)});
  cases.push_back({"the last past the input", edited([&](auto& o) { o[k] = std::int64_t(n) + 5000; }), index_t(n)});
  cases.push_back({"a middle one past the input", edited([&](auto& o) { o[k / 2] = std::int64_t(n) * 3; }), index_t(n)});
  cases.push_back({"size below the offsets' span", good, index_t(n / 3)});
  cases.push_back({"the last before the first", edited([](auto& o) { o[o.size() - 1] = -1000; }), index_t(n)});
  cases.push_back({"reversed", edited([](auto& o) { std::reverse(o.begin(), o.end()); }), index_t(n)});
  cases.push_back({"garbage", edited([](auto& o) {
                     o[3] = std::int64_t(1) << 62;
                     o[4] = -(std::int64_t(1) << 62);
                     o[5] = std::numeric_limits<std::int64_t>::max();
                   }),
                   index_t(n)});
  for (const bad_offsets& c : cases) {
    SCOPED_TRACE(c.what);
    merge_runs_in_bounds(keys, c.offsets, c.size, corank::less{}, true);
    if (HasFatalFailure()) return;
  }
}

// Device run sizes that are negative or add up past `size`, each run its own allocation
// holding what its stated size says (so reading all of it would be allowed): runs cut at
// `size` in all.
TEST_F(RobustnessMultiway, MergeRunListWithSizesThatAreNegativeOrOverrun) {
  std::mt19937_64 rng = make_rng();
  const std::vector<index_t> stated = {3000, -7, 5000, 0, 1200, -(index_t(1) << 40), 9000};
  std::vector<fenced<int>> runs;
  std::vector<const int*> pointers;
  for (const index_t s : stated) {
    runs.emplace_back(int_keys(pattern::sorted, std::size_t(std::max<index_t>(s, 1)), 0, rng));
    pointers.push_back(runs.back().data());
  }
  const device_buffer<const int*> d_pointers(pointers);
  const device_buffer<index_t> d_sizes(stated);
  for (const index_t size : {index_t(4000), index_t(18200), index_t(30000)}) {
    SCOPED_TRACE("size " + std::to_string(size));
    guarded_output<int> out{std::size_t(size)};
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, corank::device::merge_run_list(nullptr, bytes, d_pointers.data(), d_sizes.data(),
                                                          index_t(stated.size()), size, out.first()));
    device_buffer<unsigned char> temp(bytes);
    ASSERT_EQ(cudaSuccess, corank::device::merge_run_list(temp.data(), bytes, d_pointers.data(), d_sizes.data(),
                                                          index_t(stated.size()), size, out.first()));
    CORANK_ASSERT_DEVICE_OK();
    const std::vector<int> host = out.buffer.to_host();
    EXPECT_TRUE(guards_intact(host, guard_elements, out.count));
    for (const fenced<int>& r : runs) EXPECT_FALSE(holds(host, r.sentinel)) << "read outside a run";
  }
  for (const fenced<int>& r : runs) EXPECT_TRUE(r.fences_intact());
  // The convenience form, unsorted runs: in bounds, and then a sorted merge is right.
  std::vector<fenced<int>> unsorted;
  std::vector<const int*> unsorted_pointers;
  const std::vector<index_t> sizes = {4000, 0, 2500, 7001};
  for (const index_t s : sizes) {
    unsorted.emplace_back(int_keys(pattern::random, std::size_t(s), 0, rng));
    unsorted_pointers.push_back(unsorted.back().data());
  }
  guarded_output<int> out(13501);
  EXPECT_EQ(corank::merge_run_list(unsorted_pointers.data(), sizes.data(), index_t(sizes.size()), out.first()),
            out.last());
  CORANK_ASSERT_DEVICE_OK();
  const std::vector<int> host = out.buffer.to_host();
  EXPECT_TRUE(guards_intact(host, guard_elements, out.count));
  for (const fenced<int>& r : unsorted) EXPECT_FALSE(holds(host, r.sentinel)) << "read outside a run";
  std::vector<int> all;
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    std::vector<int> run = int_keys(pattern::sorted, std::size_t(sizes[j]), 0, rng);
    unsorted[j].buffer.upload([&] {
      std::vector<int> with_fences(fence, unsorted[j].sentinel);
      with_fences.insert(with_fences.end(), run.begin(), run.end());
      with_fences.insert(with_fences.end(), fence, unsorted[j].sentinel);
      return with_fences;
    }());
    all.insert(all.end(), run.begin(), run.end());
  }
  std::stable_sort(all.begin(), all.end());
  guarded_output<int> sorted_out(all.size());
  corank::merge_run_list(unsorted_pointers.data(), sizes.data(), index_t(sizes.size()), sorted_out.first());
  EXPECT_TRUE(sorted_out.check(all));
}

// ---------------------------------------------------------------------------------------
// The sort.

std::vector<std::size_t> sort_sizes() {
  if (quick_mode()) return {3841, 20000};
  return {3841, 20000, 300000, std::size_t(1) << 20};
}

TEST_F(RobustnessMultiway, SortWithComparatorThatIsNotAStrictWeakOrder) {
  std::mt19937_64 rng = make_rng();
  for (const std::size_t n : sort_sizes()) {
    for (const pattern p : {pattern::few_distinct, pattern::random, pattern::sorted, pattern::descending}) {
      SCOPED_TRACE(std::string("comp <=, ") + to_string(p) + " n=" + std::to_string(n));
      const std::vector<int> keys = int_keys(p, n, 0, rng);
      {
        fenced<int> in_place(keys);
        corank::stable_sort(in_place.data(), in_place.data() + n, less_equal{});
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(in_place.fences_intact());
        EXPECT_FALSE(holds(in_place.contents(), in_place.sentinel));
      }
      {
        const fenced<int> in(keys);
        guarded_output<int> out(n);
        const int* first = in.data();
        EXPECT_EQ(corank::stable_sort_copy(first, first + n, out.first(), less_equal{}), out.last());
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(in_bounds(out, in.sentinel));
        EXPECT_TRUE(in.fences_intact());
      }
      {
        fenced<int> k(keys);
        std::vector<int> positions(n);
        std::iota(positions.begin(), positions.end(), 0);
        fenced<int> v(positions);
        corank::stable_sort_by_key(k.data(), k.data() + n, v.data(), less_equal{});
        CORANK_ASSERT_DEVICE_OK();
        EXPECT_TRUE(k.fences_intact());
        EXPECT_TRUE(v.fences_intact());
        EXPECT_FALSE(holds(k.contents(), k.sentinel));
        EXPECT_FALSE(holds(v.contents(), v.sentinel));
      }
      if (HasFatalFailure()) return;
    }
  }
  // The context survived: a sort with a strict weak order is right.
  const std::vector<int> keys = int_keys(pattern::random, 50000, 0, rng);
  std::vector<int> expected(keys);
  std::stable_sort(expected.begin(), expected.end());
  device_buffer<int> d(keys);
  corank::stable_sort(d.begin(), d.end());
  EXPECT_EQ(d.to_host(), expected);
}

TEST_F(RobustnessMultiway, SortOfFloatsWithNaNUnderPlainLess) {
  std::mt19937_64 rng = make_rng();
  for (const std::size_t n : sort_sizes()) {
    for (const int every : {2, 7}) {
      SCOPED_TRACE("n=" + std::to_string(n) + ", one in " + std::to_string(every) + " NaN");
      std::vector<float> keys = nan_keys(n, every, rng);
      std::shuffle(keys.begin(), keys.end(), rng);
      fenced<float> in_place(keys);
      corank::stable_sort(in_place.data(), in_place.data() + n, corank::less{});
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(in_place.fences_intact());
      EXPECT_FALSE(holds(in_place.contents(), in_place.sentinel));
    }
  }
}

// ---------------------------------------------------------------------------------------
// The streamed forms: host memory through the GPU in chunks.

constexpr index_t stream_chunk = 1000;

corank::streamed_options small_chunks() {
  corank::streamed_options options;
  options.chunk = stream_chunk;
  options.gpu_memory = std::size_t(64) << 20;  // leave the GPU to the other tests
  options.threads = 2;
  return options;
}

// A host array of `count` between poisoned guards, pageable (std::vector) or pinned.
template <class T>
struct host_output {
  host_output(std::size_t count, bool pinned) : count(count), pinned(pinned) {
    const std::size_t all = count + 2 * guard_elements;
    if (pinned) {
      cuda_check(cudaMallocHost(reinterpret_cast<void**>(&base), all * sizeof(T)), "cudaMallocHost");
    } else {
      pageable.resize(all);
      base = pageable.data();
    }
    std::fill(base, base + all, poison_value<T>());
  }
  host_output(const host_output&) = delete;
  host_output& operator=(const host_output&) = delete;
  ~host_output() {
    if (pinned) cudaFreeHost(base);
  }
  T* first() const { return base + guard_elements; }
  template <class... Sentinels>
  ::testing::AssertionResult in_bounds(Sentinels... sentinels) const {
    return guarded_and_read_inside(std::vector<T>(base, base + count + 2 * guard_elements), count, sentinels...);
  }
  std::vector<T> outputs(std::size_t size) const { return std::vector<T>(first(), first() + size); }
  std::size_t count;
  bool pinned;
  std::vector<T> pageable;
  T* base = nullptr;
};

// A host input between fences of its own sentinel, in one vector: [first(), last()).
template <class T>
struct host_input {
  explicit host_input(const std::vector<T>& keys)
      : sentinel(fresh_sentinel<T>()), all(fence, sentinel), size(keys.size()) {
    all.insert(all.end(), keys.begin(), keys.end());
    all.insert(all.end(), fence, sentinel);
  }
  const T* first() const { return all.data() + fence; }
  const T* last() const { return first() + size; }
  T sentinel;
  std::vector<T> all;
  std::size_t size;
};

// Every streamed form on (a, b) with `comp`: each returns within its bound or throws
// unsorted_input, and no output is written outside its bound.
template <class Compare>
void streamed_forms(const std::vector<int>& a, const std::vector<int>& b, Compare comp, findings& seen) {
  const host_input<int> ha(a), hb(b);
  const index_t m = index_t(a.size()), n = index_t(b.size());
  const corank::streamed_options options = small_chunks();
  auto attempt = [&](const char* form, auto call) {
    SCOPED_TRACE(form);
    try {
      call();
      seen.note(false);
    } catch (const corank::unsorted_input& e) {
      expect_unnamed(e);
      seen.note(true);
    }
  };
  for (const bool pinned : {false, true}) {
    host_output<int> out(std::size_t(m + n), pinned);
    attempt(pinned ? "streamed_merge, pinned output" : "streamed_merge", [&] {
      const int* end = corank::streamed_merge(ha.first(), ha.last(), hb.first(), hb.last(), out.first(), comp, options);
      EXPECT_EQ(end - out.first(), m + n);
    });
    EXPECT_TRUE(out.in_bounds(ha.sentinel, hb.sentinel));
  }
  {
    host_output<int> out(std::size_t(m + n), false);
    attempt("streamed_set_union", [&] {
      const int* end =
          corank::streamed_set_union(ha.first(), ha.last(), hb.first(), hb.last(), out.first(), comp, options);
      EXPECT_TRUE(within(end - out.first(), m + n));
    });
    EXPECT_TRUE(out.in_bounds(ha.sentinel, hb.sentinel));
  }
  attempt("streamed_set_intersection_count", [&] {
    EXPECT_TRUE(within(
        corank::streamed_set_intersection_count(ha.first(), ha.last(), hb.first(), hb.last(), comp, options),
        std::min(m, n)));
  });
  {
    std::vector<int> va(a.size()), vb(b.size());
    std::iota(va.begin(), va.end(), 0);
    std::iota(vb.begin(), vb.end(), 1 << 30);
    index_t delivered = 0;
    bool sentinel_seen = false;
    attempt("streamed_set_difference_by_key to a sink", [&] {
      const index_t total = corank::streamed_set_difference_by_key(
          ha.first(), ha.last(), hb.first(), hb.last(), va.data(), vb.data(),
          [&](const int* keys, const int* values, index_t count) {
            EXPECT_GT(count, 0);
            for (index_t i = 0; i < count; ++i) {
              sentinel_seen = sentinel_seen || keys[i] == ha.sentinel || keys[i] == hb.sentinel;
            }
            (void)values;
            delivered += count;
          },
          comp, options);
      EXPECT_EQ(total, delivered);
      EXPECT_TRUE(within(total, m));
    });
    EXPECT_LE(delivered, m) << "the chunks delivered before an exception stay within the bound too";
    EXPECT_FALSE(sentinel_seen);
  }
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
}

TEST_F(RobustnessMultiway, StreamedFormsOnUnsortedInputs) {
  std::mt19937_64 rng = make_rng();
  findings random_found;
  for (const std::size_t m : {std::size_t(5000), quick_or(40000, 12000)}) {
    for (const pattern p : unsorted_patterns) {
      SCOPED_TRACE(std::string(to_string(p)) + " m=" + std::to_string(m));
      // misplaced: A sorted but for its element on a chunk boundary; B sorted.
      const std::vector<int> a = int_keys(p, m, std::size_t(stream_chunk) * 3, rng);
      const std::vector<int> b = int_keys(p == pattern::misplaced ? pattern::sorted : p, m / 2 + 7, 0, rng);
      findings seen;
      streamed_forms(a, b, corank::less{}, seen);
      if (p == pattern::random) random_found.found += seen.found;
      if (HasFatalFailure()) return;
    }
  }
  // Random keys over tens of chunks cannot split monotonically: that must be found.
  EXPECT_GT(random_found.found, 0) << "no streamed call on random inputs said they are unsorted";
}

TEST_F(RobustnessMultiway, StreamedFormsWithComparatorThatIsNotAStrictWeakOrderOrNaN) {
  std::mt19937_64 rng = make_rng();
  const std::size_t m = quick_or(30000, 9000);
  {
    SCOPED_TRACE("comp <=, sorted inputs of few distinct keys");
    std::vector<int> a = int_keys(pattern::few_distinct, m, 0, rng), b = int_keys(pattern::few_distinct, m / 3, 0, rng);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    findings seen;
    streamed_forms(a, b, less_equal{}, seen);
  }
  {
    SCOPED_TRACE("float keys with NaN, operator<");
    const host_input<float> a(nan_keys(m, 3, rng)), b(nan_keys(m / 2, 4, rng));
    host_output<float> out(a.size + b.size, false);
    try {
      const float* end =
          corank::streamed_set_union(a.first(), a.last(), b.first(), b.last(), out.first(), corank::less{}, small_chunks());
      EXPECT_TRUE(within(end - out.first(), index_t(a.size + b.size)));
    } catch (const corank::unsorted_input& e) {
      expect_unnamed(e);
    }
    EXPECT_TRUE(out.in_bounds(a.sentinel, b.sentinel));
  }
  // The context survived: a sorted streamed set_union is right.
  std::vector<int> a = int_keys(pattern::sorted, m, 0, rng), b = int_keys(pattern::sorted, m / 2, 0, rng);
  std::vector<int> expected;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected));
  host_output<int> out(a.size() + b.size(), false);
  const int* end = corank::streamed_set_union(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(),
                                              out.first(), corank::less{}, small_chunks());
  ASSERT_EQ(std::size_t(end - out.first()), expected.size());
  EXPECT_EQ(out.outputs(expected.size()), expected);
}

// ---------------------------------------------------------------------------------------
// The distributed forms, ranks as threads on one GPU (support/in_process_transport.hpp).

struct stream_guard {
  cudaStream_t stream = nullptr;
  stream_guard() { cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~stream_guard() { cudaStreamDestroy(stream); }
};

constexpr int distributed_ranks = 3;

// Rank r's keys lie in its own band, so the order between ranks holds (the one thing
// plan() checks); inside a rank they follow the pattern.
std::vector<int> rank_keys(pattern p, std::size_t n, int rank, std::mt19937_64& rng) {
  std::vector<int> keys = int_keys(p, n, n / 2, rng);
  for (int& k : keys) k = (k + key_range) / 4 + rank * key_range;  // [rank 2^20, rank 2^20 + 2^19]
  return keys;
}

// What one rank saw in one call; compared across ranks once they are joined.
struct rank_log {
  std::vector<std::string> plans;  // "unsorted" or "planned", per call
  std::vector<std::string> problems;
};

// The runners on one rank's partitions: every call returns or throws unsorted_input (caught
// here, so that the hub is not aborted and every rank goes on to the next collective), and
// no output is written outside plan.output_bound().
void distributed_calls(const std::vector<int>& a, const std::vector<int>& b, in_process_transport& t,
                       rank_log& log) {
  stream_guard st;
  const fenced<int> da(a), db(b);
  std::vector<int> va(a.size()), vb(b.size());
  std::iota(va.begin(), va.end(), 0);
  std::iota(vb.begin(), vb.end(), 1 << 30);
  const fenced<int> dva(va), dvb(vb);
  // Their uploads ran on the legacy stream, which the rank's non-blocking stream does not follow.
  cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "uploads");
  const index_t m = index_t(a.size()), n = index_t(b.size());
  auto problem = [&](const std::string& what) { log.problems.push_back(what); };
  auto planned = [&](const auto& runner, corank::distributed_plan& plan) {
    try {
      plan = runner.plan(da.data(), m, db.data(), n, t, corank::less{}, st.stream);
      log.plans.push_back("planned");
      return true;
    } catch (const corank::unsorted_input& e) {
      if (e.input() != 0 || e.index() != -1) problem(std::string("plan: ") + e.what());
      log.plans.push_back("unsorted");
      return false;
    }
  };
  auto local = [&](const char* form, auto call) {
    try {
      call();
    } catch (const corank::unsorted_input& e) {
      if (e.input() != 0 || e.index() != -1) problem(std::string(form) + ": " + e.what());
    }
    if (cudaStreamSynchronize(st.stream) != cudaSuccess) problem(std::string(form) + ": the stream failed");
  };
  // A guarded output's poison (cudaMemset on the legacy stream) in place before the rank's
  // stream writes it.
  auto poisoned = [] { cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "poison"); };
  auto check = [&](const char* form, const guarded_output<int>& out) {
    if (!in_bounds(out, da.sentinel, db.sentinel, dva.sentinel, dvb.sentinel))
      problem(std::string(form) + ": wrote outside its output or read outside its inputs");
  };
  corank::distributed_plan plan;
  {
    const corank::distributed_keys_operation<corank::ops::merge_op> merge{};
    if (planned(merge, plan)) {
      guarded_output<int> out(std::size_t(plan.output_bound()));
      poisoned();
      local("merge", [&] {
        if (merge(plan, da.data(), db.data(), out.first(), t, corank::less{}, st.stream) != plan.output_bound())
          problem("merge: a size other than its bound");
      });
      check("merge", out);
    }
  }
  {
    const corank::distributed_keys_operation<corank::ops::set_union_op> set_union{};
    if (planned(set_union, plan)) {
      guarded_output<int> out(std::size_t(plan.output_bound()));
      poisoned();
      local("set_union", [&] {
        if (!within(set_union(plan, da.data(), db.data(), out.first(), t, corank::less{}, st.stream),
                    plan.output_bound()))
          problem("set_union: a size past its bound");
      });
      check("set_union", out);
    }
  }
  {
    const corank::distributed_by_key_operation<corank::ops::set_intersection_op> intersection{};
    if (planned(intersection, plan)) {
      guarded_output<int> keys(std::size_t(plan.output_bound())), values(std::size_t(plan.output_bound()));
      poisoned();
      local("set_intersection_by_key", [&] {
        if (!within(intersection(plan, da.data(), dva.data(), db.data(), dvb.data(), keys.first(), values.first(), t,
                                 corank::less{}, st.stream),
                    plan.output_bound()))
          problem("set_intersection_by_key: a size past its bound");
      });
      check("set_intersection_by_key keys", keys);
      check("set_intersection_by_key values", values);
    }
  }
  {
    const corank::distributed_count_operation<corank::ops::set_symmetric_difference_op> count{};
    if (planned(count, plan)) {
      local("set_symmetric_difference_count", [&] {
        if (!within(count(plan, da.data(), db.data(), t, corank::less{}, st.stream), plan.output_bound()))
          problem("set_symmetric_difference_count: a size past its bound");
      });
    }
  }
  if (!da.fences_intact() || !db.fences_intact()) problem("an input's fence was written");
}

TEST_F(RobustnessMultiway, DistributedFormsOnInputsUnsortedInsideRanks) {
  std::mt19937_64 rng = make_rng();
  const std::size_t base = quick_or(20000, 3000);
  for (const pattern p : unsorted_patterns) {
    SCOPED_TRACE(to_string(p));
    // Uneven partitions, one rank's B empty.
    std::vector<std::vector<int>> a(distributed_ranks), b(distributed_ranks);
    for (int r = 0; r < distributed_ranks; ++r) {
      a[std::size_t(r)] = rank_keys(p, base + std::size_t(r) * base / 3, r, rng);
      b[std::size_t(r)] = rank_keys(p, r == 1 ? 0 : base / 2 + 11, r, rng);
    }
    std::vector<rank_log> logs(distributed_ranks);
    const auto errors = run_in_process(distributed_ranks, 0, [&](int r, in_process_transport& t) {
      distributed_calls(a[std::size_t(r)], b[std::size_t(r)], t, logs[std::size_t(r)]);
    });
    for (int r = 0; r < distributed_ranks; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r));
      if (errors[std::size_t(r)]) {
        try {
          std::rethrow_exception(errors[std::size_t(r)]);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "left with " << e.what();
        }
      }
      for (const std::string& s : logs[std::size_t(r)].problems) ADD_FAILURE() << s;
      // Every rank got the same plans (or the same unsorted_input from plan()).
      EXPECT_EQ(logs[std::size_t(r)].plans, logs[0].plans);
    }
    if (HasFailure()) return;
  }
}

// A run given a plan that plan() did not make (its splits out of order on one rank): every
// rank throws cuda_error before anything moves, and none waits; then a sorted run is right.
TEST_F(RobustnessMultiway, DistributedRunWithABrokenPlanThrowsOnEveryRank) {
  std::mt19937_64 rng = make_rng();
  const std::size_t size = quick_or(9000, 2000);
  std::vector<std::vector<int>> a(distributed_ranks), b(distributed_ranks);
  std::vector<int> all_a, all_b;
  for (int r = 0; r < distributed_ranks; ++r) {
    a[std::size_t(r)] = rank_keys(pattern::sorted, size, r, rng);
    b[std::size_t(r)] = rank_keys(pattern::sorted, size / 2 + 3, r, rng);
    all_a.insert(all_a.end(), a[std::size_t(r)].begin(), a[std::size_t(r)].end());
    all_b.insert(all_b.end(), b[std::size_t(r)].begin(), b[std::size_t(r)].end());
  }
  std::vector<std::string> said(distributed_ranks);
  std::vector<std::vector<int>> shares(distributed_ranks);
  const auto errors = run_in_process(distributed_ranks, 0, [&](int r, in_process_transport& t) {
    stream_guard st;
    const device_buffer<int> da(a[std::size_t(r)]), db(b[std::size_t(r)]);
    cuda_check(cudaStreamSynchronize(cudaStreamLegacy), "uploads");  // before the rank's stream reads them
    const index_t m = index_t(a[std::size_t(r)].size()), n = index_t(b[std::size_t(r)].size());
    const corank::distributed_keys_operation<corank::ops::merge_op> merge{};
    const corank::distributed_plan plan = merge.plan(da.data(), m, db.data(), n, t, corank::less{}, st.stream);
    corank::distributed_plan broken = plan;
    if (r == 1) std::swap(broken.splits[1], broken.splits[2]);
    guarded_output<int> out(std::size_t(plan.output_bound()));
    try {
      merge(broken, da.data(), db.data(), out.first(), t, corank::less{}, st.stream);
      said[std::size_t(r)] = "no error";
    } catch (const corank::cuda_error& e) {
      said[std::size_t(r)] = e.what();
    }
    if (!out.untouched()) said[std::size_t(r)] += " (and wrote its output)";
    const index_t count = merge(plan, da.data(), db.data(), out.first(), t, corank::less{}, st.stream);
    cuda_check(cudaStreamSynchronize(st.stream), "merge");
    std::vector<int> host = out.buffer.to_host();
    shares[std::size_t(r)].assign(host.begin() + std::ptrdiff_t(guard_elements),
                                  host.begin() + std::ptrdiff_t(guard_elements + std::size_t(count)));
  });
  std::vector<int> merged;
  for (int r = 0; r < distributed_ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r) + ": " + said[std::size_t(r)]);
    EXPECT_FALSE(errors[std::size_t(r)]);
    EXPECT_NE(said[std::size_t(r)].find("rank 1" + std::string(r == 1 ? " (this rank)" : "") + ": its plan's splits"),
              std::string::npos);
    merged.insert(merged.end(), shares[std::size_t(r)].begin(), shares[std::size_t(r)].end());
  }
  std::vector<int> expected;
  std::merge(all_a.begin(), all_a.end(), all_b.begin(), all_b.end(), std::back_inserter(expected));
  EXPECT_EQ(merged, expected);
}

// ---------------------------------------------------------------------------------------
// The segmented forms: segment offsets in device memory, not checked.

struct segmented_input {
  std::vector<int> a, b;
  std::vector<index_t> a_offsets, b_offsets;  // S + 1 each
};

// S segment pairs of random lengths (some empty), each segment's keys of pattern `p`.
segmented_input make_segments(pattern p, index_t segments, std::size_t m, std::size_t n, std::mt19937_64& rng) {
  segmented_input s;
  auto cuts = [&](std::size_t size) {
    std::vector<index_t> o(std::size_t(segments) + 1, 0);
    for (index_t j = 1; j < segments; ++j) o[std::size_t(j)] = index_t(rng() % (size + 1));
    std::sort(o.begin() + 1, o.end() - 1);
    o.back() = index_t(size);
    return o;
  };
  s.a_offsets = cuts(m);
  s.b_offsets = cuts(n);
  auto fill = [&](const std::vector<index_t>& o, std::vector<int>& keys) {
    for (index_t j = 0; j < segments; ++j) {
      const std::size_t length = std::size_t(o[std::size_t(j) + 1] - o[std::size_t(j)]);
      std::vector<int> segment = int_keys(p, length, length / 2, rng);
      keys.insert(keys.end(), segment.begin(), segment.end());
    }
  };
  fill(s.a_offsets, s.a);
  fill(s.b_offsets, s.b);
  return s;
}

// Every segmented form on one input, A's offsets as given: each returns within its bound or
// throws unsorted_input (two-phase: a count within the bound or negative), and nothing is
// written outside the keys' (m + n), offsets' (S + 1) and counts' (S) bounds.
template <class Offset, class Compare>
void segmented_forms(const segmented_input& in, const std::vector<Offset>& a_offsets, Compare comp, findings& seen) {
  const index_t m = index_t(in.a.size()), n = index_t(in.b.size()), segments = index_t(in.b_offsets.size()) - 1;
  const fenced<int> a(in.a), b(in.b);
  const device_buffer<Offset> ao(a_offsets);
  const device_buffer<Offset> bo(std::vector<Offset>(in.b_offsets.begin(), in.b_offsets.end()));
  const std::size_t total = std::size_t(m + n), slots = std::size_t(segments) + 1;
  {
    SCOPED_TRACE("segmented_merge");
    guarded_output<int> keys(total);
    guarded_output<index_t> offsets(slots);
    EXPECT_EQ(corank::segmented_merge(a.data(), a.data() + m, ao.data(), b.data(), b.data() + n, bo.data(), segments,
                                      keys.first(), offsets.first(), comp),
              keys.last());
    EXPECT_TRUE(in_bounds(keys, a.sentinel, b.sentinel));
    EXPECT_TRUE(guards_intact(offsets.buffer.to_host(), guard_elements, slots));  // their values: unspecified
  }
  {
    SCOPED_TRACE("segmented_set_union");
    guarded_output<int> keys(total);
    guarded_output<index_t> offsets(slots);
    try {
      int* end = corank::segmented_set_union(a.data(), a.data() + m, ao.data(), b.data(), b.data() + n, bo.data(),
                                             segments, keys.first(), offsets.first(), comp);
      EXPECT_TRUE(within(end - keys.first(), m + n));
      seen.note(false);
    } catch (const corank::unsorted_input& e) {
      expect_unnamed(e);
      seen.note(true);
    }
    EXPECT_TRUE(in_bounds(keys, a.sentinel, b.sentinel));
    EXPECT_TRUE(guards_intact(offsets.buffer.to_host(), guard_elements, slots));
  }
  {
    SCOPED_TRACE("segmented_set_intersection_count");
    guarded_output<std::int32_t> counts{std::size_t(segments)};
    try {
      EXPECT_TRUE(within(corank::segmented_set_intersection_count(a.data(), a.data() + m, ao.data(), b.data(),
                                                                  b.data() + n, bo.data(), segments, counts.first(),
                                                                  comp),
                         std::min(m, n)));
      seen.note(false);
    } catch (const corank::unsorted_input& e) {
      expect_unnamed(e);
      seen.note(true);
    }
    EXPECT_TRUE(guards_intact(counts.buffer.to_host(), guard_elements, std::size_t(segments)));
  }
  {
    SCOPED_TRACE("device::segmented_set_difference");
    guarded_output<int> keys(total);
    guarded_output<Offset> offsets(slots);
    device_buffer<index_t> count(1);
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, corank::device::segmented_set_difference(nullptr, bytes, a.data(), m, ao.data(), b.data(),
                                                                    n, bo.data(), segments, keys.first(),
                                                                    offsets.first(), count.data(), comp));
    device_buffer<unsigned char> temp(bytes);
    ASSERT_EQ(cudaSuccess, corank::device::segmented_set_difference(temp.data(), bytes, a.data(), m, ao.data(),
                                                                    b.data(), n, bo.data(), segments, keys.first(),
                                                                    offsets.first(), count.data(), comp));
    CORANK_ASSERT_DEVICE_OK();
    const index_t size = count.to_host()[0];
    EXPECT_LE(size, m) << "a count past the bound";
    seen.note(size < 0);
    EXPECT_TRUE(in_bounds(keys, a.sentinel, b.sentinel));
    EXPECT_TRUE(guards_intact(offsets.buffer.to_host(), guard_elements, slots));
  }
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(a.fences_intact());
  EXPECT_TRUE(b.fences_intact());
}

// Segment sizes for the cases: S, m, n.
struct segment_sizes {
  index_t segments;
  std::size_t m, n;
};

std::vector<segment_sizes> segmented_sizes() {
  if (quick_mode()) return {{1, 3000, 2000}, {40, 12000, 9000}};
  return {{1, 3000, 2000}, {40, 12000, 9000}, {3000, 400000, 300000}};
}

TEST_F(RobustnessMultiway, SegmentedFormsOnUnsortedSegments) {
  std::mt19937_64 rng = make_rng();
  findings random_found;
  for (const segment_sizes z : segmented_sizes()) {
    for (const pattern p : unsorted_patterns) {
      SCOPED_TRACE(std::string(to_string(p)) + " S=" + std::to_string(z.segments) + " m=" + std::to_string(z.m));
      const segmented_input in = make_segments(p, z.segments, z.m, z.n, rng);
      findings seen;
      segmented_forms(in, in.a_offsets, corank::less{}, seen);
      if (p == pattern::random) random_found.found += seen.found;
      if (HasFatalFailure()) return;
    }
    SCOPED_TRACE("comp <=, sorted segments of few distinct keys");
    segmented_input sorted = make_segments(pattern::few_distinct, z.segments, z.m, z.n, rng);
    sort_runs(sorted.a, sorted.a_offsets, corank::less{});
    sort_runs(sorted.b, sorted.b_offsets, corank::less{});
    findings ignored;
    segmented_forms(sorted, sorted.a_offsets, less_equal{}, ignored);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(random_found.found, 0) << "no segmented call on random segments said they are unsorted";
}

// Offsets that break the preconditions, on sorted segments: read on the device, they give
// results of unspecified values, but within every bound, and (where a split falls outside the
// segment its offsets give) "not sorted".
TEST_F(RobustnessMultiway, SegmentedFormsWithOffsetsThatDecreaseOrOverrun) {
  std::mt19937_64 rng = make_rng();
  const index_t segments = 40;
  const std::size_t m = quick_or(40000, 12000), n = quick_or(30000, 9000);
  const segmented_input in = make_segments(pattern::sorted, segments, m, n, rng);
  const std::vector<index_t>& good = in.a_offsets;
  struct bad_offsets {
    std::string what;
    std::vector<index_t> offsets;
  };
  auto edited = [&](auto edit) {
    std::vector<index_t> o = good;
    edit(o);
    return o;
  };
  const std::vector<bad_offsets> cases = {
      {"two swapped", edited([](auto& o) { std::swap(o[10], o[30]); })},
      {"the last past A", edited([&](auto& o) { o.back() = index_t(m) + 700; })},
      {"the last before A's end", edited([&](auto& o) { o.back() = index_t(m) - 700; })},
      {"a middle one past A", edited([&](auto& o) { o[20] = index_t(m) * 4; })},
      {"not starting at 0", edited([](auto& o) { o[0] = 300; })},
      {"a negative one", edited([](auto& o) { o[1] = -50; })},
      {"garbage", edited([](auto& o) {
         o[5] = index_t(1) << 62;
         o[6] = -(index_t(1) << 62);
         o[7] = std::numeric_limits<index_t>::max();
       })},
      {"reversed", edited([](auto& o) { std::reverse(o.begin(), o.end()); })},
      {"all zero", std::vector<index_t>(good.size(), 0)},
  };
  findings seen;
  for (const bad_offsets& c : cases) {
    SCOPED_TRACE(c.what);
    segmented_forms(in, c.offsets, corank::less{}, seen);
    if (HasFatalFailure()) return;
  }
  {
    SCOPED_TRACE("32-bit offsets, two swapped");
    std::vector<std::int32_t> narrow(good.begin(), good.end());
    std::swap(narrow[3], narrow[4 + 20]);
    segmented_forms(in, narrow, corank::less{}, seen);
  }
  // Offsets past the inputs put splits outside their segments: found.
  EXPECT_GT(seen.found, 0) << "no call on broken offsets said so";
  // The context survived: a segmented merge of the sorted segments is right.
  std::vector<int> expected;
  std::vector<index_t> expected_offsets;
  for (index_t s = 0; s < segments; ++s) {
    expected_offsets.push_back(index_t(expected.size()));
    std::merge(in.a.begin() + good[std::size_t(s)], in.a.begin() + good[std::size_t(s) + 1],
               in.b.begin() + in.b_offsets[std::size_t(s)], in.b.begin() + in.b_offsets[std::size_t(s) + 1],
               std::back_inserter(expected));
  }
  expected_offsets.push_back(index_t(expected.size()));
  const device_buffer<int> a(in.a), b(in.b);
  const device_buffer<index_t> ao(good), bo(in.b_offsets);
  guarded_output<int> keys(m + n);
  guarded_output<index_t> offsets(std::size_t(segments) + 1);
  corank::segmented_merge(a.data(), a.data() + m, ao.data(), b.data(), b.data() + n, bo.data(), segments, keys.first(),
                          offsets.first());
  EXPECT_TRUE(keys.check(expected));
  EXPECT_TRUE(offsets.check(expected_offsets));
}

// ---------------------------------------------------------------------------------------
// Documented errors of the two-phase forms that no other test covers.

// segmented_operation.cuh: a negative S, and S == 0 with nonempty inputs, are
// cudaErrorInvalidValue in the query as in the run, with nothing written; a null count_out
// for a set operation in the run.
TEST_F(RobustnessMultiway, SegmentedTwoPhaseErrors) {
  const device_buffer<int> a(std::vector<int>{1, 2, 3}), b(std::vector<int>{2, 3});
  const device_buffer<index_t> ao(std::vector<index_t>{0, 3}), bo(std::vector<index_t>{0, 2});
  guarded_output<int> keys(5);
  guarded_output<index_t> offsets(2);
  device_buffer<index_t> count(1);
  std::size_t bytes = 0;
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_set_union(nullptr, bytes, a.data(), 3, ao.data(), b.data(), 2, bo.data(),
                                                index_t(-1), keys.first(), offsets.first(), count.data()))
      << "query, S = -1";
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_merge(nullptr, bytes, a.data(), 3, ao.data(), b.data(), 2, bo.data(), index_t(0),
                                            keys.first(), offsets.first(), count.data()))
      << "query, S = 0 with m + n = 5";
  ASSERT_EQ(cudaSuccess, corank::device::segmented_set_union(nullptr, bytes, a.data(), 3, ao.data(), b.data(), 2,
                                                             bo.data(), 1, keys.first(), offsets.first(),
                                                             count.data()));
  device_buffer<unsigned char> temp(bytes);
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_set_union(temp.data(), bytes, a.data(), 3, ao.data(), b.data(), 2, bo.data(),
                                                index_t(-1), keys.first(), offsets.first(), count.data()))
      << "run, S = -1";
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_set_union(temp.data(), bytes, a.data(), 3, ao.data(), b.data(), 2, bo.data(),
                                                index_t(0), keys.first(), offsets.first(), count.data()))
      << "run, S = 0 with m + n = 5";
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_set_union(temp.data(), bytes, a.data(), 3, ao.data(), b.data(), 2, bo.data(), 1,
                                                keys.first(), offsets.first(), static_cast<index_t*>(nullptr)))
      << "run, null count_out";
  std::size_t count_bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::segmented_set_union_count(nullptr, count_bytes, a.data(), 3, ao.data(),
                                                                   b.data(), 2, bo.data(), 1,
                                                                   static_cast<int*>(nullptr), count.data()));
  device_buffer<unsigned char> count_temp(count_bytes);
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::segmented_set_union_count(count_temp.data(), count_bytes, a.data(), 3, ao.data(), b.data(),
                                                      2, bo.data(), 1, static_cast<int*>(nullptr), count.data()))
      << "run, null counts_out with S = 1";
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(keys.untouched());
  EXPECT_TRUE(offsets.untouched());
  try {
    corank::segmented_set_union(a.data(), a.data() + 3, ao.data(), b.data(), b.data() + 2, bo.data(), 0, keys.first(),
                                offsets.first());
    ADD_FAILURE() << "S = 0 with nonempty inputs was accepted";
  } catch (const corank::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_NE(std::string(e.what()).find("there are no segments but A or B is not empty"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(keys.untouched());
}

// merge_runs.cuh and sort.cuh: too many runs; a negative run count in the query of the run
// list; null lists, null values and too little storage in the runs.
TEST_F(RobustnessMultiway, MergeRunsAndSortTwoPhaseErrors) {
  const device_buffer<int> keys(std::vector<int>{1, 2, 3});
  const device_buffer<std::int64_t> offsets(std::vector<std::int64_t>{0, 3});
  guarded_output<int> out(3);
  std::size_t bytes = 0;
  const index_t too_many = index_t(std::numeric_limits<int>::max()) * 64;
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::merge_runs(nullptr, bytes, keys.data(), offsets.data(), too_many, index_t(3), out.first()))
      << "too many runs";
  const std::vector<const int*> pointers = {keys.data()};
  const device_buffer<const int*> d_pointers(pointers);
  const device_buffer<index_t> d_sizes(std::vector<index_t>{3});
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge_run_list(nullptr, bytes, d_pointers.data(), d_sizes.data(),
                                                                  index_t(-1), index_t(3), out.first()))
      << "query, negative run count";
  ASSERT_EQ(cudaSuccess, corank::device::merge_run_list(nullptr, bytes, d_pointers.data(), d_sizes.data(), index_t(1),
                                                        index_t(3), out.first()));
  device_buffer<unsigned char> temp(bytes);
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::merge_run_list(temp.data(), bytes, static_cast<const int* const*>(nullptr),
                                           d_sizes.data(), index_t(1), index_t(3), out.first()))
      << "null run_keys";
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::merge_run_list(temp.data(), bytes, d_pointers.data(), static_cast<const index_t*>(nullptr),
                                           index_t(1), index_t(3), out.first()))
      << "null run_sizes";
  std::size_t short_bytes = bytes - 1;
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge_run_list(temp.data(), short_bytes, d_pointers.data(),
                                                                  d_sizes.data(), index_t(1), index_t(3), out.first()))
      << "too little storage";
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::merge_run_list(temp.data(), bytes, d_pointers.data(), d_sizes.data(), index_t(1),
                                           index_t(3), static_cast<int*>(nullptr)))
      << "null output";
  guarded_output<int> values_out(3);
  const int* const* no_values = nullptr;
  std::size_t by_key_bytes = 0;
  ASSERT_EQ(cudaSuccess, corank::device::merge_run_list_by_key(nullptr, by_key_bytes, d_pointers.data(), no_values,
                                                               d_sizes.data(), index_t(1), index_t(3), out.first(),
                                                               values_out.first()));
  device_buffer<unsigned char> by_key_temp(by_key_bytes);
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::merge_run_list_by_key(by_key_temp.data(), by_key_bytes, d_pointers.data(), no_values,
                                                  d_sizes.data(), index_t(1), index_t(3), out.first(),
                                                  values_out.first()))
      << "null run_values";
  device_buffer<int> sort_keys(std::vector<int>{3, 1, 2});
  std::size_t sort_bytes = 0;
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::stable_sort_by_key(nullptr, sort_bytes, sort_keys.data(), out.first(), index_t(-3)))
      << "query, negative n";
  ASSERT_EQ(cudaSuccess, corank::device::stable_sort_by_key(nullptr, sort_bytes, sort_keys.data(), out.first(),
                                                            index_t(3)));
  device_buffer<unsigned char> sort_temp(sort_bytes);
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::stable_sort_by_key(sort_temp.data(), sort_bytes, sort_keys.data(),
                                                                      static_cast<int*>(nullptr), index_t(3)))
      << "null values";
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::stable_sort_copy(sort_temp.data(), sort_bytes, sort_keys.data(), static_cast<int*>(nullptr),
                                             index_t(3)))
      << "null output";
  CORANK_ASSERT_DEVICE_OK();
  EXPECT_TRUE(out.untouched());
  EXPECT_TRUE(values_out.untouched());
  EXPECT_EQ(sort_keys.to_host(), (std::vector<int>{3, 1, 2}));
}

// operation.cuh (merge.cuh, set_operations.cuh): the query refuses a negative size, sizes
// whose sum does not fit and a tile count that does not fit an int, before it looks at any
// pointer (so null ones here).
TEST_F(RobustnessMultiway, TwoInputQueriesRefuseSizesThatDoNotFit) {
  const int* none = nullptr;
  int* nowhere = nullptr;
  index_t* no_count = nullptr;
  std::size_t bytes = 0;
  const index_t most = std::numeric_limits<index_t>::max(), huge = index_t(1) << 52;
  EXPECT_EQ(cudaErrorInvalidValue,
            corank::device::set_union(nullptr, bytes, none, index_t(-1), none, index_t(3), nowhere, no_count))
      << "negative size";
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::set_union(nullptr, bytes, none, most, none, index_t(1), nowhere,
                                                             no_count))
      << "sum past 2^63";
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::set_union(nullptr, bytes, none, huge, none, huge, nowhere, no_count))
      << "2^53 elements: more tiles than an int counts";
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge(nullptr, bytes, none, index_t(3), none, index_t(-1), nowhere))
      << "merge, negative size";
  EXPECT_EQ(cudaErrorInvalidValue, corank::device::merge(nullptr, bytes, none, huge, none, huge, nowhere))
      << "merge, 2^53 elements";
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
}

}  // namespace
