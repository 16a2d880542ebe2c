#pragma once
// A thread's walk over its piece of a tile: the serial walk of serial_walk.hpp, unrolled
// into registers. Step v's key goes to keys[v]; where its value comes from is recorded
// (side and index within the tile's window) so values can be gathered after the walk.

#include <corank/detail/thread/action_bits.hpp>
#include <corank/detail/thread/serial_walk.hpp>
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
  int b_index[Steps];    // B's index at step v: the matched B element (emit::combined, paired forms)
  mask written = 0;      // bit v: step v wrote an output
  mask from_b = 0;       // bit v: step v wrote B's element (WithValues only)
  mask combined = 0;     // bit v: step v wrote a value combined from A's and B's (WithValues only)
};

// Where a walk stands in one side's window `w`, and where its piece ends there: indices,
// or (ByPointer: a raw-pointer window, the staged tiles, and a walk that records no
// indices) pointers, whose loads need no address arithmetic.
template <class Window, bool ByPointer>
struct window_cursor {
  int at, end;

  __device__ window_cursor(const Window&, int i, int i_end) : at(i), end(i_end) {}
  __device__ bool left() const { return at < end; }
  __device__ decltype(auto) front(const Window& w) const { return w[at]; }
  __device__ void advance(bool move) { at += move; }
  __device__ int index() const { return at; }
  __device__ void set_end(const Window&, int i_end) { end = i_end; }
};

template <class Window>
struct window_cursor<Window, true> {
  Window at, end;

  __device__ window_cursor(Window w, int i, int i_end) : at(w + i), end(w + i_end) {
    // Shared-memory addresses the compiler cannot see through: otherwise it goes back to
    // comparing indices, and keeps both an index and a pointer per side.
    if (__isShared(w)) {
      unsigned a = unsigned(__cvta_generic_to_shared(at)), e = unsigned(__cvta_generic_to_shared(end));
      asm("" : "+r"(a), "+r"(e));
      at = static_cast<Window>(__cvta_shared_to_generic(a));
      end = static_cast<Window>(__cvta_shared_to_generic(e));
    }
  }
  __device__ bool left() const { return at < end; }
  __device__ decltype(auto) front(Window) const { return *at; }
  __device__ void advance(bool move) { at += move; }
  __device__ void set_end(Window w, int i_end) { end = w + i_end; }
};

// A walk's ends that stay where they are: a piece of one input pair (walk_tile's default).
// segment_starts.cuh's segment_ends moves them on to the next segment's.
struct fixed_ends {
  template <class CursorA, class CursorB, class WindowA, class WindowB>
  __device__ __forceinline__ void operator()(CursorA&, CursorB&, const WindowA&, const WindowB&) const {}
};

// Walks A[i, i_end) and B[j, j_end) of the tile's windows `a` and `b` (anything with
// operator[]: shared-memory views or global iterators). For run-aware ops, `a_before` and
// `b_before` say whether the windows' element -1 exists (the window does not start its input).
// Unguarded: the caller knows the piece is exactly Steps long. A merge-path piece may also
// be given by its start and the window's ends: its steps then follow the merge path.
// Overreads: a[i_end] and b[j_end] may be read (staged windows have slots there), so a
// front is reloaded (whenever its side moves, or at every step) without checking that
// anything is left.
//
// Each step is branch-free: the fronts' relation, then the op's answer from a table made
// before the walk (action_bits.hpp), then selects and loads of the next fronts.
// `ends` may move i_end and j_end at the top of a step (a segmented merge's walk goes on to
// the next segment where both sides are used up): only with Overreads, whose fronts are
// loaded whether or not anything was left.
template <int Steps, bool Guarded = true, bool Overreads = false, class Op, class Compare, class WindowA,
          class WindowB, class Key, bool WithValues, class Ends = fixed_ends>
__device__ __forceinline__ void walk_tile(const Op& op, Compare& comp, const WindowA& a, int i, int i_end,
                                          const WindowB& b, int j, int j_end,
                                          thread_outputs<Key, Steps, WithValues>& out, bool a_before = false,
                                          bool b_before = false, Ends ends = {}) {
  static_assert(Overreads || std::is_same_v<Ends, fixed_ends>, "ends that move need fronts loaded past them");
  constexpr bool balanced = Op::partition == partitioning::balanced_path;
  const action_table<Op> table(op);
  run_tracker<Key> runs{i > 0 || j > 0 || a_before || b_before, {}};
  if constexpr (sees_run_starts_v<Op>) {
    runs.previous = key_before<Key>(a, i, i > 0 || a_before, b, j, j > 0 || b_before, comp);
  }
  window_cursor<WindowA, std::is_pointer_v<WindowA> && !WithValues> a_at(a, i, i_end);
  window_cursor<WindowB, std::is_pointer_v<WindowB> && !WithValues> b_at(b, j, j_end);
  // The fronts stay in registers; each step reads only the element behind the one taken.
  Key a_front = Overreads || a_at.left() ? Key(a_at.front(a)) : Key{};
  Key b_front = Overreads || b_at.left() ? Key(b_at.front(b)) : Key{};
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    // The comparator sees only fronts that are left: a used-up side's front may be the slot
    // past its window, whose contents are not keys (and a user's comparator may, say, index
    // a table with them).
    ends(a_at, b_at, a, b);
    const bool a_left = a_at.left(), b_left = b_at.left();
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
    // The op's answer: for balanced-path ops each bit as an OR of the relations whose
    // answer has it, for merge-path ops the answer's bits selected, then tested. Each form
    // gives the compiler fewer instructions, and no spills, in its own case.
    auto answer_has = [&](unsigned bit) {
      if constexpr (balanced) {
        return table.has(bit, b_is_first, are_equal, a_left && !b_is_first && !are_equal, new_key);
      } else {
        const unsigned bits = Guarded ? table.lookup(b_is_first, false, a_left, new_key)
                                      : table.lookup(b_is_first, false, true, new_key);
        return (bits & bit) != 0;
      }
    };
    const bool take_b = answer_has(writes_b);
    out.keys[v] = take_b ? b_front : a_front;
    const step_mask<Steps> bit = step_mask<Steps>(1) << v;
    if (answer_has(writes)) out.written |= bit;
    if constexpr (WithValues) {
      out.index[v] = take_b ? b_at.index() : a_at.index();
      out.b_index[v] = b_at.index();
      if (take_b) out.from_b |= bit;
      if (answer_has(writes_combined)) out.combined |= bit;
    }
    const bool move_a = answer_has(moves_a), move_b = answer_has(moves_b);
    a_at.advance(move_a);
    b_at.advance(move_b);
    // Where the outputs are all A's keys (intersection, difference), overreads let the
    // next front be loaded whether or not its side moved (reloading the same element): no
    // predicate, and no copy of the old front to keep for out.keys. Elsewhere a predicated
    // load is better: it has the compiler select the step's key at once, where it would
    // otherwise keep both fronts of every step until the keys are stored.
    if constexpr (Overreads) {
      if (!table.ever_has(writes_b)) {
        a_front = a_at.front(a);
        b_front = b_at.front(b);
        continue;
      }
    }
    if (move_a && (Overreads || a_at.left())) a_front = a_at.front(a);
    if (move_b && (Overreads || b_at.left())) b_front = b_at.front(b);
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
