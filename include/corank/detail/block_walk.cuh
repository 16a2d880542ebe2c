#pragma once
// A thread's walk over its piece of a tile: the serial walk of serial_walk.hpp, unrolled
// into registers. Step v's key goes to keys[v]; where its value comes from is recorded
// (side and index within the tile's window) so values can be gathered after the walk.

#include <corank/detail/action_bits.hpp>
#include <corank/detail/serial_walk.hpp>
#include <corank/op.hpp>

#include <type_traits>

namespace corank::detail {

// A bit per step of a walk: 32-bit masks where they suffice, 64-bit ones for longer walks
// (the set operations' tiles walk up to items + 2 steps a thread).
template <int Steps>
using step_mask = std::conditional_t<(Steps <= 32), unsigned, unsigned long long>;

__device__ __forceinline__ int count_steps(unsigned mask) { return __popc(mask); }
__device__ __forceinline__ int count_steps(unsigned long long mask) { return __popcll(mask); }

// Keeps the compiler from seeing through a mask (see walk_tile's end).
__device__ __forceinline__ void make_opaque(unsigned& mask) { asm("" : "+r"(mask)); }
__device__ __forceinline__ void make_opaque(unsigned long long& mask) { asm("" : "+l"(mask)); }

// Steps' keys, and with WithValues where each step's value comes from. A keys-only walk
// records no more than which steps wrote: the rest would cost instructions every step.
template <class Key, int Steps, bool WithValues = true>
struct thread_outputs {
  static_assert(Steps <= 64, "steps are tracked in 64-bit masks");
  using mask = step_mask<Steps>;
  Key keys[Steps];
  int index[Steps];      // index of step v's element in its side's window
  int partner[Steps];    // B's index at step v: the matched B element for emit::combined
  mask written = 0;      // bit v: step v wrote an output
  mask from_b = 0;       // bit v: step v wrote B's element (WithValues only)
  mask combined = 0;     // bit v: step v wrote a value combined from A's and B's (WithValues only)
};

// Walks A[i, i_end) and B[j, j_end) of the tile's windows `a` and `b` (anything with
// operator[]: shared-memory views or global iterators). For run-aware ops, `a_before` and
// `b_before` say whether the windows' element -1 exists (the window does not start its input).
// Unguarded: the caller knows the piece is exactly Steps long. A merge-path piece may also
// be given by its start and the window's ends: its steps then follow the merge path.
// Overreads: a[i_end] and b[j_end] may be read (staged windows have slots there), so a
// front is reloaded whenever its side moves, without checking that anything is left.
//
// Each step is branch-free: the fronts' relation, then the op's answer from a table made
// before the walk (action_bits.hpp), then selects and predicated loads of the next fronts.
template <int Steps, bool Guarded = true, bool Overreads = false, class Op, class Compare, class WindowA,
          class WindowB, class Key, bool WithValues>
__device__ __forceinline__ void walk_tile(const Op& op, Compare& comp, const WindowA& a, int i, int i_end,
                                          const WindowB& b, int j, int j_end,
                                          thread_outputs<Key, Steps, WithValues>& out, bool a_before = false,
                                          bool b_before = false) {
  constexpr bool balanced = Op::partition == partitioning::balanced_path;
  const action_table<Op> table(op);
  run_tracker<Key> runs{i > 0 || j > 0 || a_before || b_before, {}};
  if constexpr (sees_run_starts_v<Op>) {
    runs.previous = key_before<Key>(a, i, i > 0 || a_before, b, j, j > 0 || b_before, comp);
  }
  // The fronts stay in registers; each step reads only the element behind the one taken.
  Key a_front = Overreads || i < i_end ? Key(a[i]) : Key{};
  Key b_front = Overreads || j < j_end ? Key(b[j]) : Key{};
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    // The comparator sees only fronts that are left: a used-up side's front may be the slot
    // past its window, whose contents are not keys (and a user's comparator may, say, index
    // a table with them).
    const bool a_left = i < i_end, b_left = j < j_end;
    const bool b_is_first = b_left && (!a_left || comp(b_front, a_front));
    const bool are_equal = balanced && a_left && b_left && !b_is_first && !comp(a_front, b_front);
    bool new_key = true;
    if constexpr (sees_run_starts_v<Op>) {
      if (a_left || b_left) {
        const Key& front = b_is_first ? b_front : a_front;
        new_key = !runs.has_previous || comp(runs.previous, front);
        runs.has_previous = true;
        runs.previous = front;
      }
    }
    const unsigned bits = Guarded || balanced ? table.lookup(b_is_first, are_equal, a_left, new_key)
                                              : table.lookup(b_is_first, false, true, new_key);
    const bool take_b = bits & writes_b;
    out.keys[v] = take_b ? b_front : a_front;
    const step_mask<Steps> bit = step_mask<Steps>(1) << v;
    if (bits & writes) out.written |= bit;
    if constexpr (WithValues) {
      out.index[v] = take_b ? j : i;
      out.partner[v] = j;
      if (take_b) out.from_b |= bit;
      if (bits & writes_combined) out.combined |= bit;
    }
    const bool move_a = bits & moves_a, move_b = bits & moves_b;
    i += move_a;
    j += move_b;
    if (move_a && (Overreads || i < i_end)) a_front = a[i];
    if (move_b && (Overreads || j < j_end)) b_front = b[j];
  }
  // Opaque masks: otherwise the compiler reads each bit back from its step's answer,
  // keeping every step's answer live in a register until the outputs are stored.
  make_opaque(out.written);
  if constexpr (WithValues) {
    make_opaque(out.from_b);
    make_opaque(out.combined);
  }
}

}  // namespace corank::detail
