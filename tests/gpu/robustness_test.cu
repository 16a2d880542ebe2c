// Unsorted inputs on the GPU's two-input operations: whatever the keys, no call reads outside
// its inputs, writes outside its output's bound, loses the CUDA context or hangs, and a call
// that says the inputs are not sorted says so as its contract states (operation.cuh): a
// negative count from the two-phase forms, corank::unsorted_input from the convenience ones.
// Patterns: random, descending, sorted by another key, sorted but for one element placed on a
// tile boundary, few distinct keys shuffled, a comparator that is not a strict weak order,
// and NaN under plain operator<. Every output lies between poisoned guards; every strategy;
// sizes of a few tiles (the persistent kernel finds its own boundaries) and of more tiles
// than resident blocks (the split pass). After all that, a sorted call still runs right.

#include <corank/merge.cuh>
#include <corank/operation.cuh>
#include <corank/set_operations.cuh>
#include <corank/tuning.hpp>

#include "distinct_union.hpp"
#include "support/gpu.hpp"
#include "support/shared_kernels.hpp"
#include "support/strategies.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;
using corank::strategy;

enum class pattern { random, descending, by_other_key, one_misplaced, few_distinct };

const char* to_string(pattern p) {
  switch (p) {
    case pattern::random: return "random";
    case pattern::descending: return "descending";
    case pattern::by_other_key: return "sorted by another key";
    case pattern::one_misplaced: return "sorted but one element on a tile boundary";
    case pattern::few_distinct: return "few distinct keys, shuffled";
  }
  return "?";
}

// `n` keys in the pattern. one_misplaced: sorted, but the element at a tile boundary
// (`boundary`, one of several tile sizes) is the largest key.
std::vector<int> make_keys(pattern p, std::size_t n, std::size_t boundary, std::mt19937_64& rng) {
  std::vector<int> keys(n);
  std::uniform_int_distribution<int> any(-1000000, 1000000);
  for (int& k : keys) k = any(rng);
  switch (p) {
    case pattern::random: break;
    case pattern::descending: std::sort(keys.begin(), keys.end(), [](int x, int y) { return x > y; }); break;
    case pattern::by_other_key:
      std::sort(keys.begin(), keys.end(), [](int x, int y) { return (x & 1023) < (y & 1023); });
      break;
    case pattern::one_misplaced:
      std::sort(keys.begin(), keys.end());
      if (boundary < n) keys[boundary] = std::numeric_limits<int>::max();
      break;
    case pattern::few_distinct:
      for (int& k : keys) k %= 4;
      std::shuffle(keys.begin(), keys.end(), rng);
      break;
  }
  return keys;
}

// Not a strict weak order: x "before" y also where they are equal.
struct less_equal {
  __host__ __device__ bool operator()(int x, int y) const { return x <= y; }
};

// A device output of `count` elements between poisoned guards.
template <class T>
struct output {
  explicit output(std::size_t count) : space(count) {}
  T* first() const { return space.first(); }
  ::testing::AssertionResult guards_ok() const {
    return guards_intact(space.buffer.to_host(), guard_elements, space.count);
  }
  guarded_output<T> space;
};

// What a call may return: a size within the bound, or "not sorted" (negative).
::testing::AssertionResult size_ok(index_t size, index_t bound) {
  if (size <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "returned " << size << " outputs, bound " << bound;
}

struct inputs {
  device_buffer<int> a, b, a_values, b_values;
  index_t m, n;
};

inputs upload(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> a_values(a.size()), b_values(b.size());
  std::iota(a_values.begin(), a_values.end(), 0);
  std::iota(b_values.begin(), b_values.end(), 1 << 30);
  return {device_buffer<int>(a), device_buffer<int>(b), device_buffer<int>(a_values), device_buffer<int>(b_values),
          index_t(a.size()), index_t(b.size())};
}

// How many calls found their inputs unsorted: a pattern that should be found, is.
struct findings {
  int calls = 0;
  int found = 0;
  void note(bool unsorted) {
    ++calls;
    found += unsorted;
  }
};

// Every set operation's forms (convenience keys, by_key, count; two-phase keys and by_key;
// the paired intersection) on one input pair with `comp`, each checked for its bound.
template <class ConvenienceKeys, class ConvenienceByKey, class ConvenienceCount, class DeviceKeys, class DeviceByKey,
          class Compare>
void every_form(const inputs& in, index_t bound, strategy kind, Compare comp, findings& seen,
                ConvenienceKeys keys_form, ConvenienceByKey by_key_form, ConvenienceCount count_form,
                DeviceKeys device_keys, DeviceByKey device_by_key, const std::string& what) {
  SCOPED_TRACE(what);
  {
    output<int> out(bound);
    try {
      int* end = keys_form(in.a.begin(), in.a.begin() + in.m, in.b.begin(), in.b.begin() + in.n, out.first(), comp,
                           nullptr, kind);
      EXPECT_TRUE(size_ok(end - out.first(), bound));
      seen.note(false);
    } catch (const corank::unsorted_input& e) {
      EXPECT_EQ(0, e.input());
      EXPECT_EQ(-1, e.index());
      seen.note(true);
    }
    EXPECT_TRUE(out.guards_ok());
  }
  {
    output<int> keys(bound), values(bound);
    try {
      auto ends = by_key_form(in.a.begin(), in.a.begin() + in.m, in.b.begin(), in.b.begin() + in.n,
                              in.a_values.begin(), in.b_values.begin(), keys.first(), values.first(), comp, nullptr,
                              kind);
      EXPECT_TRUE(size_ok(ends.first - keys.first(), bound));
      EXPECT_EQ(ends.first - keys.first(), ends.second - values.first());
      seen.note(false);
    } catch (const corank::unsorted_input&) {
      seen.note(true);
    }
    EXPECT_TRUE(keys.guards_ok());
    EXPECT_TRUE(values.guards_ok());
  }
  try {
    EXPECT_TRUE(size_ok(count_form(in.a.begin(), in.a.begin() + in.m, in.b.begin(), in.b.begin() + in.n, comp,
                                   nullptr, kind),
                        bound));
    seen.note(false);
  } catch (const corank::unsorted_input&) {
    seen.note(true);
  }
  // Two-phase: the count in device memory.
  device_buffer<index_t> count(1);
  auto two_phase = [&](auto call) {
    std::size_t bytes = 0;
    ASSERT_EQ(cudaSuccess, call(nullptr, bytes));
    device_buffer<unsigned char> temp(bytes);
    ASSERT_EQ(cudaSuccess, call(temp.data(), bytes));
    CORANK_ASSERT_DEVICE_OK();
    const index_t size = count.to_host()[0];
    EXPECT_TRUE(size_ok(size, bound));
    seen.note(size < 0);
  };
  {
    output<int> out(bound);
    two_phase([&](void* temp, std::size_t& bytes) {
      return device_keys(temp, bytes, in.a.data(), in.m, in.b.data(), in.n, out.first(), count.data(), comp,
                         nullptr, kind);
    });
    EXPECT_TRUE(out.guards_ok());
  }
  {
    output<int> keys(bound), values(bound);
    two_phase([&](void* temp, std::size_t& bytes) {
      return device_by_key(temp, bytes, in.a.data(), in.a_values.data(), in.m, in.b.data(), in.b_values.data(), in.n,
                           keys.first(), values.first(), count.data(), comp, nullptr, kind);
    });
    EXPECT_TRUE(keys.guards_ok());
    EXPECT_TRUE(values.guards_ok());
  }
}

template <class Compare>
void every_operation(const inputs& in, strategy kind, Compare comp, findings& seen, const std::string& what) {
  const index_t m = in.m, n = in.n;
  every_form(in, m + n, kind, comp, seen, corank::set_union, corank::set_union_by_key, corank::set_union_count,
             corank::device::set_union, corank::device::set_union_by_key, what + " set_union");
  every_form(in, std::min(m, n), kind, comp, seen, corank::set_intersection, corank::set_intersection_by_key,
             corank::set_intersection_count, corank::device::set_intersection,
             corank::device::set_intersection_by_key, what + " set_intersection");
  every_form(in, m, kind, comp, seen, corank::set_difference, corank::set_difference_by_key,
             corank::set_difference_count, corank::device::set_difference, corank::device::set_difference_by_key,
             what + " set_difference");
  every_form(in, m + n, kind, comp, seen, corank::set_symmetric_difference,
             corank::set_symmetric_difference_by_key, corank::set_symmetric_difference_count,
             corank::device::set_symmetric_difference, corank::device::set_symmetric_difference_by_key,
             what + " set_symmetric_difference");
  {
    SCOPED_TRACE(what + " set_intersection_by_key_paired");
    const index_t bound = std::min(m, n);
    output<int> keys(bound), values(bound), b_values(bound);
    try {
      auto ends = corank::set_intersection_by_key_paired(in.a.begin(), in.a.begin() + m, in.b.begin(),
                                                         in.b.begin() + n, in.a_values.begin(), in.b_values.begin(),
                                                         keys.first(), values.first(), b_values.first(), comp,
                                                         nullptr, kind);
      EXPECT_TRUE(size_ok(std::get<0>(ends) - keys.first(), bound));
      seen.note(false);
    } catch (const corank::unsorted_input&) {
      seen.note(true);
    }
    EXPECT_TRUE(keys.guards_ok());
    EXPECT_TRUE(values.guards_ok());
    EXPECT_TRUE(b_values.guards_ok());
  }
  {
    // A user's op that sees run starts (distinct_union.hpp), bound m + n.
    SCOPED_TRACE(what + " distinct_union");
    output<int> out(m + n);
    try {
      int* end = corank::keys_operation<distinct_union_op>{}(in.a.begin(), in.a.begin() + m, in.b.begin(),
                                                             in.b.begin() + n, out.first(), comp, nullptr, kind);
      EXPECT_TRUE(size_ok(end - out.first(), m + n));
      seen.note(false);
    } catch (const corank::unsorted_input&) {
      seen.note(true);
    }
    EXPECT_TRUE(out.guards_ok());
  }
  {
    // Merges write m + n outputs whatever the keys, and cannot report.
    SCOPED_TRACE(what + " merge");
    output<int> keys(m + n), values(m + n);
    corank::merge(in.a.begin(), in.a.begin() + m, in.b.begin(), in.b.begin() + n, keys.first(), comp, nullptr, kind);
    corank::merge_by_key(in.a.begin(), in.a.begin() + m, in.b.begin(), in.b.begin() + n, in.a_values.begin(),
                         in.b_values.begin(), keys.first(), values.first(), comp, nullptr, kind);
    CORANK_ASSERT_DEVICE_OK();
    EXPECT_TRUE(keys.guards_ok());
    EXPECT_TRUE(values.guards_ok());
  }
}

// Sizes: a few tiles a side, and (not under CORANK_TEST_QUICK) more tiles than resident blocks.
std::vector<std::size_t> side_sizes() {
  if (quick_mode()) return {5000, 40000};
  return {5000, 40000, 1500000};
}

// Tile boundaries of the tile shapes in use (threads x items), where one element is misplaced.
const std::size_t boundaries[] = {1024, 2048, 3072, 3584, 3840, 4096, 7168};

class GpuRobustness : public gpu_test {};

TEST_F(GpuRobustness, UnsortedInputsStayInBoundsUnderEveryStrategy) {
  std::mt19937_64 rng = make_rng();
  findings seen;
  for (std::size_t size : side_sizes()) {
    for (pattern p : {pattern::random, pattern::descending, pattern::by_other_key, pattern::one_misplaced,
                      pattern::few_distinct}) {
      const std::size_t boundary = boundaries[rng() % std::size(boundaries)];
      const std::vector<int> a = make_keys(p, size, boundary, rng);
      const std::vector<int> b = make_keys(p == pattern::one_misplaced ? pattern::random : p, size / 2 + 7,
                                           boundary, rng);
      const inputs in = upload(a, b);
      for (strategy kind : every_strategy()) {
        every_operation(in, kind, corank::less{}, seen,
                        std::string(to_string(p)) + " m=" + std::to_string(size) + " " + corank::to_string(kind));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  // Random keys over many tiles cannot have consistent partitions: those must be found.
  EXPECT_GT(seen.found, 0) << "of " << seen.calls << " calls on unsorted inputs, none reported them";
}

// Its own instantiations: the keys forms of two set operations and the merge.
TEST_F(GpuRobustness, ComparatorThatIsNotAStrictWeakOrder) {
  std::mt19937_64 rng = make_rng();
  for (std::size_t size : side_sizes()) {
    std::vector<int> a = make_keys(pattern::few_distinct, size, 0, rng), b = make_keys(pattern::random, size, 0, rng);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const inputs in = upload(a, b);
    const index_t m = in.m, n = in.n;
    for (strategy kind : every_strategy()) {
      SCOPED_TRACE(std::string("comp <= ") + corank::to_string(kind));
      output<int> out(m + n), inter(std::min(m, n)), merged(m + n);
      try {
        int* end = corank::set_union(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), out.first(), less_equal{},
                                     nullptr, kind);
        EXPECT_TRUE(size_ok(end - out.first(), m + n));
      } catch (const corank::unsorted_input&) {
      }
      try {
        int* end = corank::set_intersection(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), inter.first(),
                                            less_equal{}, nullptr, kind);
        EXPECT_TRUE(size_ok(end - inter.first(), std::min(m, n)));
      } catch (const corank::unsorted_input&) {
      }
      corank::merge(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), merged.first(), less_equal{}, nullptr, kind);
      CORANK_ASSERT_DEVICE_OK();
      EXPECT_TRUE(out.guards_ok());
      EXPECT_TRUE(inter.guards_ok());
      EXPECT_TRUE(merged.guards_ok());
    }
  }
}

TEST_F(GpuRobustness, NanUnderPlainLessStaysInBounds) {
  std::mt19937_64 rng = make_rng();
  std::uniform_real_distribution<float> any(-1, 1);
  for (std::size_t size : side_sizes()) {
    std::vector<float> a(size), b(size / 3 + 1);
    for (float& x : a) x = rng() % 7 == 0 ? std::nanf("") : any(rng);
    for (float& x : b) x = rng() % 5 == 0 ? std::nanf("") : any(rng);
    std::sort(a.begin(), a.end());  // NaN breaks the order: "sorted" stays unsorted
    std::sort(b.begin(), b.end());
    device_buffer<float> da(a), db(b);
    const index_t m = index_t(a.size()), n = index_t(b.size());
    for (strategy kind : every_strategy()) {
      SCOPED_TRACE(corank::to_string(kind));
      output<float> out(m + n), inter(std::min(m, n));
      try {
        float* end = corank::set_union(da.begin(), da.end(), db.begin(), db.end(), out.first(), corank::less{},
                                       nullptr, kind);
        EXPECT_TRUE(size_ok(end - out.first(), m + n));
      } catch (const corank::unsorted_input&) {
      }
      try {
        float* end = corank::set_intersection(da.begin(), da.end(), db.begin(), db.end(), inter.first(),
                                              corank::less{}, nullptr, kind);
        EXPECT_TRUE(size_ok(end - inter.first(), std::min(m, n)));
      } catch (const corank::unsorted_input&) {
      }
      EXPECT_TRUE(out.guards_ok());
      EXPECT_TRUE(inter.guards_ok());
    }
  }
}

// After calls on unsorted inputs, the context is alive: a sorted call runs and is right.
TEST_F(GpuRobustness, ContextSurvivesUnsortedCalls) {
  std::mt19937_64 rng = make_rng();
  const inputs bad = upload(make_keys(pattern::random, 200000, 0, rng), make_keys(pattern::random, 200000, 0, rng));
  output<int> out(400000);
  EXPECT_THROW(corank::set_union(bad.a.begin(), bad.a.end(), bad.b.begin(), bad.b.end(), out.first()),
               corank::unsorted_input);
  std::vector<int> a = make_keys(pattern::random, 30000, 0, rng), b = make_keys(pattern::random, 20000, 0, rng);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<int> expected;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(expected));
  const inputs good = upload(a, b);
  output<int> result(a.size() + b.size());
  int* end = corank::set_union(good.a.begin(), good.a.end(), good.b.begin(), good.b.end(), result.first());
  ASSERT_EQ(index_t(expected.size()), end - result.first());
  expected.resize(a.size() + b.size(), poison_value<int>());
  EXPECT_TRUE(result.space.check(expected));
}

}  // namespace
