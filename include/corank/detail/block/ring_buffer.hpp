#pragma once
// A logical view of a circular buffer: index 0 is the oldest element still needed.
// The co-rank search and the serial walk only ever see logical offsets (the textbook's
// "simplified model"); only element access maps them to physical slots. Capacities are
// powers of two, so the wrap-around is a mask rather than a modulo.

#include <corank/config.hpp>

namespace corank::detail {

template <class T>
struct ring_view {
  T* slots;
  int start;  // physical slot of logical index 0
  int mask;   // capacity - 1

  template <class Index>
  CORANK_HOST_DEVICE T& operator[](Index logical) const {
    return slots[(start + static_cast<int>(logical)) & mask];
  }
};

// The physical slot that absolute input position `position` occupies. Mapping absolute
// positions (not "next free slot") keeps a refill of consumed slots trivially disjoint
// from the live window, whatever the history of the buffer.
CORANK_HOST_DEVICE constexpr int ring_slot(index_t position, int mask) {
  return static_cast<int>(position & mask);
}

constexpr int next_power_of_two(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

}  // namespace corank::detail
