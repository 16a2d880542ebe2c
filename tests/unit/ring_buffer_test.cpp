// ring_view and ring_slot: logical-to-physical index math, wrap-around, and the
// "simplified model" (co-rank and the serial walk on logical offsets of a wrapped window
// give the same answers as on a linear array).

#include <corank/co_rank.hpp>
#include <corank/comparators.hpp>
#include <corank/detail/block/ring_buffer.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/ops/merge.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {

using corank::index_t;
using corank::detail::next_power_of_two;
using corank::detail::ring_slot;
using corank::detail::ring_view;

TEST(RingView, LogicalToPhysical) {
  int slots[8];
  for (int p = 0; p < 8; ++p) slots[p] = 10 * p;
  const ring_view<int> view{slots, 5, 7};
  // Logical 0 is physical 5; 3 wraps to physical 0; a second lap wraps again.
  const int expected_physical[] = {5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4};
  for (int logical = 0; logical < 16; ++logical) {
    EXPECT_EQ(view[logical], 10 * expected_physical[logical]) << "logical " << logical;
    EXPECT_EQ(&view[logical], &slots[expected_physical[logical]]);
  }
  // 64-bit logical offsets are accepted (the kernels pass int, co_rank may pass index_t).
  EXPECT_EQ(view[index_t(3)], slots[0]);
}

TEST(RingView, WritesLandInTheirPhysicalSlots) {
  int slots[4] = {-1, -1, -1, -1};
  const ring_view<int> view{slots, 3, 3};
  for (int logical = 0; logical < 4; ++logical) view[logical] = logical;
  EXPECT_EQ(slots[3], 0);
  EXPECT_EQ(slots[0], 1);
  EXPECT_EQ(slots[1], 2);
  EXPECT_EQ(slots[2], 3);
}

TEST(RingSlot, IsPositionModuloCapacity) {
  for (int capacity : {1, 2, 8, 1024, 4096, 16384}) {
    const int mask = capacity - 1;
    for (index_t position : {index_t(0), index_t(1), index_t(capacity - 1), index_t(capacity),
                             index_t(capacity) + 1, index_t(12345), (index_t(1) << 31) - 1, index_t(1) << 31,
                             (index_t(1) << 40) + 3, (index_t(1) << 62) + 77}) {
      EXPECT_EQ(ring_slot(position, mask), int(position % capacity)) << "capacity " << capacity << " position "
                                                                     << position;
      EXPECT_GE(ring_slot(position, mask), 0);
      EXPECT_LT(ring_slot(position, mask), capacity);
    }
  }
  static_assert(ring_slot(9, 7) == 1, "ring_slot must be usable in constant expressions");
}

TEST(RingSlot, RefillIsDisjointFromTheLiveWindow) {
  // Capacity 2T: the live window [c, c + T) and the refill [c + T, c + 2T) never share a
  // slot, whatever c is (absolute positions, not a "next free slot" cursor).
  constexpr int tile = 64, mask = 2 * tile - 1;
  std::mt19937_64 rng = corank::test::make_rng();
  for (int trial = 0; trial < 200; ++trial) {
    const index_t c = index_t(rng() % (index_t(1) << 40));
    std::set<int> live, refill;
    for (index_t p = c; p < c + tile; ++p) live.insert(ring_slot(p, mask));
    for (index_t p = c + tile; p < c + 2 * tile; ++p) refill.insert(ring_slot(p, mask));
    ASSERT_EQ(live.size(), std::size_t(tile));
    ASSERT_EQ(refill.size(), std::size_t(tile));
    for (int s : refill) ASSERT_EQ(live.count(s), 0u) << "slot " << s << " at c = " << c;
  }
}

TEST(RingBuffer, NextPowerOfTwo) {
  EXPECT_EQ(next_power_of_two(1), 1);
  EXPECT_EQ(next_power_of_two(2), 2);
  EXPECT_EQ(next_power_of_two(3), 4);
  EXPECT_EQ(next_power_of_two(1000), 1024);
  EXPECT_EQ(next_power_of_two(1024), 1024);
  EXPECT_EQ(next_power_of_two(1025), 2048);
  EXPECT_EQ(next_power_of_two(2 * 2048), 4096);
  static_assert(next_power_of_two(3 * 256) == 1024, "constexpr");
}

// Places input positions [from, from + count) in a ring as the kernels do, at
// ring_slot(position), and views them from `from`.
template <class T>
ring_view<T> place_window(std::vector<T>& slots, const std::vector<T>& input, index_t from, int count) {
  const int mask = int(slots.size()) - 1;
  for (int e = 0; e < count; ++e) slots[ring_slot(from + e, mask)] = input[std::size_t(e)];
  return ring_view<T>{slots.data(), ring_slot(from, mask), mask};
}

TEST(RingBuffer, CoRankAndWalkOnWrappedWindowsMatchLinearArrays) {
  std::mt19937_64 rng = corank::test::make_rng();
  constexpr int capacity = 32;
  for (int trial = 0; trial < 500; ++trial) {
    const int m = int(rng() % (capacity / 2 + 1)), n = int(rng() % (capacity / 2 + 1));
    std::vector<int> a(m), b(n);
    for (int& x : a) x = int(rng() % 6);
    for (int& x : b) x = int(rng() % 6);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    // Windows that start anywhere, so most of them wrap.
    std::vector<int> slots_a(capacity, -99), slots_b(capacity, -99);
    const ring_view<int> ra = place_window(slots_a, a, index_t(rng() % 100000), m);
    const ring_view<int> rb = place_window(slots_b, b, index_t(rng() % 100000), n);
    for (int k = 0; k <= m + n; ++k) {
      ASSERT_EQ(corank::co_rank(k, ra, m, rb, n, corank::less{}), corank::co_rank(k, a, m, b, n, corank::less{}))
          << "k = " << k;
    }
    // The serial walk over the logical windows writes the merge.
    std::vector<int> expected(a.size() + b.size()), out(a.size() + b.size(), -1);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), expected.begin());
    const index_t written = corank::detail::walk_partition(
        corank::ops::merge_op{}, corank::less{}, ra, index_t(0), index_t(m), rb, index_t(0), index_t(n),
        corank::detail::unused{}, corank::detail::unused{}, out.data(), corank::detail::unused{});
    ASSERT_EQ(written, index_t(m + n));
    ASSERT_EQ(out, expected);
  }
}

}  // namespace
