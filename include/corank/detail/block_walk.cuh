#pragma once
// A thread's walk over its piece of a tile: the serial walk of serial_walk.hpp, unrolled
// into registers. Step v's key goes to keys[v]; where its value comes from is recorded
// (side and index within the tile's window) so values can be gathered after the walk.

#include <corank/detail/serial_walk.hpp>
#include <corank/op.hpp>

namespace corank::detail {

template <class Key, int Steps>
struct thread_outputs {
  static_assert(Steps <= 32, "steps are tracked in 32-bit masks");
  Key keys[Steps];
  int index[Steps];        // index of step v's element in its side's window
  int partner[Steps];      // B's index at step v: the matched B element for emit::combined
  unsigned written = 0;    // bit v: step v wrote an output
  unsigned from_b = 0;     // bit v: step v wrote B's element
  unsigned combined = 0;   // bit v: step v wrote a value combined from A's and B's
};

// Walks A[i, i_end) and B[j, j_end) of the tile's windows `a` and `b` (anything with
// operator[]: shared-memory views or global iterators). For run-aware ops, `a_before` and
// `b_before` say whether the windows' element -1 exists (the window does not start its input).
// Unguarded: the caller knows the piece is exactly Steps long.
template <int Steps, bool Guarded = true, class Op, class Compare, class WindowA, class WindowB, class Key>
__device__ __forceinline__ void walk_tile(const Op& op, Compare& comp, const WindowA& a, int i, int i_end,
                                          const WindowB& b, int j, int j_end,
                                          thread_outputs<Key, Steps>& out, bool a_before = false,
                                          bool b_before = false) {
  run_tracker<Key> runs{i > 0 || j > 0 || a_before || b_before, {}};
  if constexpr (sees_run_starts_v<Op>) {
    runs.previous = key_before<Key>(a, i, i > 0 || a_before, b, j, j > 0 || b_before, comp);
  }
  // The fronts stay in registers; each step reads only the element behind the one taken.
  Key a_front = i < i_end ? Key(a[i]) : Key{};
  Key b_front = j < j_end ? Key(b[j]) : Key{};
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    if (!Guarded || i < i_end || j < j_end) {
      const relation r = i >= i_end   ? relation::b_first
                         : j >= j_end ? relation::a_first
                                      : relate<Op::partition>(a_front, b_front, comp);
      action act;
      if constexpr (sees_run_starts_v<Op>) {
        act = runs.ask(op, r, r == relation::b_first ? b_front : a_front, comp);
      } else {
        act = op(r);
      }
      const bool take_b = act.write == emit::b;
      out.keys[v] = take_b ? b_front : a_front;
      out.index[v] = take_b ? j : i;
      out.partner[v] = j;
      out.written |= unsigned(act.write != emit::nothing) << v;
      out.from_b |= unsigned(take_b) << v;
      out.combined |= unsigned(act.write == emit::combined) << v;
      if (act.step != advance::b && ++i < i_end) a_front = a[i];
      if (act.step != advance::a && ++j < j_end) b_front = b[j];
    }
  }
}

}  // namespace corank::detail
