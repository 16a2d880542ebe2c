#pragma once
// A thread's walk over its piece of a shared-memory tile: the serial walk of
// serial_walk.hpp, unrolled into registers. Step v's output goes to keys[v], and where its
// value sits in the tile's value buffer (A's values first, B's after them) to slot[v].

#include <corank/detail/ring_buffer.hpp>
#include <corank/detail/serial_walk.hpp>
#include <corank/op.hpp>

namespace corank::detail {

template <class Key, int Steps>
struct thread_outputs {
  Key keys[Steps];
  int slot[Steps];          // value of step v (A's or B's)
  int partner_slot[Steps];  // B's value of step v, for emit::combined
  unsigned written = 0;     // bit v: step v wrote an output
};

template <int Steps, class Op, class Compare, class Key>
__device__ __forceinline__ void walk_tile(const Op& op, Compare& comp, ring_view<Key> a, int i,
                                          int i_end, ring_view<Key> b, int j, int j_end,
                                          int b_value_offset, thread_outputs<Key, Steps>& out) {
  // The fronts stay in registers; each step reads only the element behind the one taken.
  Key a_front = i < i_end ? a[i] : Key{};
  Key b_front = j < j_end ? b[j] : Key{};
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    if (i < i_end || j < j_end) {
      const relation r = i >= i_end   ? relation::b_first
                         : j >= j_end ? relation::a_first
                                      : relate<Op::partition>(a_front, b_front, comp);
      const action act = op(r);
      const bool from_b = act.write == emit::b;
      out.keys[v] = from_b ? b_front : a_front;
      out.slot[v] = from_b ? b_value_offset + j : i;
      out.partner_slot[v] = b_value_offset + j;
      out.written |= unsigned(act.write != emit::nothing) << v;
      if (act.step != advance::b && ++i < i_end) a_front = a[i];
      if (act.step != advance::a && ++j < j_end) b_front = b[j];
    }
  }
}

}  // namespace corank::detail
