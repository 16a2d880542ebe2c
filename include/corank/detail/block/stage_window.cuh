#pragma once
// Staging a tile's input windows, A[begin.a, end.a) and B[begin.b, end.b), in a shared-memory
// buffer, and where in it they land (window_layout). Three ways, best first:
//  - bulk copies (code for sm_90 and newer): raw pointers to 16-byte-aligned arrays. One
//    thread hands each window to the copy engine (cp.async.bulk) as whole 16-byte lines,
//    completing on an mbarrier; the other threads issue nothing. Each window then starts at
//    its offset within its first line, and the line may bring the element before it along.
//  - per-element cp.async: other raw pointers to 4-, 8- and 16-byte elements (in code for
//    sm_80, all of them). Global to shared without passing through registers, one
//    predicated copy per element.
//  - through registers: any other iterator; every load of a thread in flight at once, then
//    the stores.
// In every layout the slot before each window exists, for the element before it that
// run-aware ops look at (stage_element_before fills it where the copies did not).
// The caller waits with finish_staging() and then a barrier before reading.
// The k-way tiles and the block sort, whose windows are many and of any length, stage element
// by element (stage_element) and wait with finish_async_copies().

#include <corank/balanced_path.hpp>
#include <corank/config.hpp>

#include <cstdint>
#include <iterator>
#include <type_traits>

// Bulk copies (cp.async.bulk, mbarrier transaction counts and try_wait, the async proxy's
// fence, the L2 prefetch of a range) are sm_90's. Compiled for sm_80, stages_in_bulk is
// false, so every window is staged by per-element cp.async, and the bulk instructions
// below compile to nothing: they are never reached.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CORANK_DETAIL_BULK_COPIES 0
#else
#define CORANK_DETAIL_BULK_COPIES 1
#endif

namespace corank::detail {

// Where A's and B's first elements lie in the staging buffer, and whether the copies
// brought the element before each window (slot a - 1, b - 1) along.
struct window_layout {
  int a = 1;
  int b = 0;
  bool a_has_before = false;
  bool b_has_before = false;
};

template <class T, class Iterator>
inline constexpr bool copies_async_v =
    std::is_pointer_v<Iterator> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<Iterator>>, T> &&
    std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) &&
    alignof(T) == sizeof(T);

template <class T, class Iterator>
inline constexpr bool copies_bulk_v =
    std::is_pointer_v<Iterator> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<Iterator>>, T> &&
    std::is_trivially_copyable_v<T> && 16 % sizeof(T) == 0 && alignof(T) == sizeof(T);

// Elements of T in a 16-byte line (1 where T does not divide 16).
template <class T>
inline constexpr int line_elements = 16 % sizeof(T) == 0 ? int(16 / sizeof(T)) : 1;

// Slots a staging buffer needs beyond the window itself: the slot before each window, and
// for bulk copies the partial lines at both ends of each window and the alignment of B's.
// In every layout the slot after each window lies inside the buffer too: the walks read it
// (block_walk.cuh, Overreads) rather than check for the end before each load.
template <class T>
inline constexpr int staging_slack = 2 + 6 * line_elements<T>;

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One asynchronous copy of Bytes from global `from` to the shared-memory address `to`, if
// `copy`. The predicate lives inside the instruction, so that a run of guarded copies
// compiles to straight-line code rather than a branch around each.
template <int Bytes>
__device__ __forceinline__ void copy_async(bool copy, unsigned to, const void* from) {
  if constexpr (Bytes == 16) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n @p cp.async.cg.shared.global [%1], [%2], 16;\n}\n" ::"r"(
            int(copy)),
        "r"(to), "l"(from)
        : "memory");
  } else {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n @p cp.async.ca.shared.global [%1], [%2], %3;\n}\n" ::"r"(
            int(copy)),
        "r"(to), "l"(from), "n"(Bytes)
        : "memory");
  }
}

// The mbarrier that bulk copies complete on: one arrival (the issuing thread) plus the bytes.
class staging_barrier {
 public:
  __device__ explicit staging_barrier(unsigned long long* word) : address_(shared_address(word)) {}

  // By the issuing thread, once, before a barrier that precedes every use.
  __device__ void init() const {
#if CORANK_DETAIL_BULK_COPIES
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(address_) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
  }
  // Copies `bytes` (a multiple of 16, from and to 16-byte-aligned addresses) to shared `to`.
  __device__ void copy(unsigned to, const void* from, unsigned bytes) const {
#if CORANK_DETAIL_BULK_COPIES
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(address_), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(to),
        "l"(from), "r"(bytes), "r"(address_)
        : "memory");
#else
    __trap();  // unreachable (stages_in_bulk): fail loudly rather than leave the window unstaged
#endif
  }
  // By the issuing thread, after its copies: completes the phase once they have landed.
  __device__ void arrive() const {
#if CORANK_DETAIL_BULK_COPIES
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(address_) : "memory");
#endif
  }
  // By every thread that reads the copied data (after a barrier that follows init()).
  __device__ void wait(unsigned parity = 0) const {
#if CORANK_DETAIL_BULK_COPIES
    unsigned done = 0;
    do {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
          " selp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(address_), "r"(parity)
          : "memory");
    } while (!done);
#endif
  }

 private:
  unsigned address_;
};

// Copies one element global -> shared: by cp.async where copies_async_v allows, else through
// a register. finish_async_copies, then a barrier, before it is read.
template <class T, class Iterator>
__device__ __forceinline__ void stage_element(T* to, Iterator from) {
  if constexpr (copies_async_v<T, Iterator>) {
    copy_async<int(sizeof(T))>(true, shared_address(to), from);
  } else {
    *to = *from;
  }
}

// Waits for this thread's per-element asynchronous copies (the barrier after it makes all visible).
__device__ __forceinline__ void finish_async_copies() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// Whether stage_window would use bulk copies for these inputs (checked at run time: the
// arrays must be 16-byte aligned).
template <class T, class InA, class InB>
__device__ __forceinline__ bool stages_in_bulk(InA a, InB b) {
  if constexpr (CORANK_DETAIL_BULK_COPIES && copies_bulk_v<T, InA> && copies_bulk_v<T, InB>) {
    return (reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b)) % 16 == 0;
  } else {
    return false;
  }
}

// The whole 16-byte lines that a bulk copy of from[first, first + count) takes, in an array of
// `size` elements: from the line holding `first`, as many as the window spans, but none past
// the array's end (a partial last line is left to per-element loads).
struct line_span {
  index_t start;  // the first line's first element
  int lead;       // elements of that line before `first`
  int lines;
};

template <class T>
__device__ __forceinline__ line_span whole_lines(index_t size, index_t first, int count) {
  constexpr int line = line_elements<T>;
  line_span span;
  span.lead = int(first % line);
  span.start = first - span.lead;
  const int spanned = (span.lead + count + line - 1) / line;
  const index_t in_array = (size - span.start) / line;
  span.lines = in_array < spanned ? int(in_array) : spanned;
  return span;
}

// The layout of a tile's windows [begin, end) in the staging buffer.
template <class T>
__device__ __forceinline__ window_layout staging_layout(bool bulk, split<index_t> begin, split<index_t> end) {
  const int a_size = int(end.a - begin.a);
  window_layout at;
  if (!bulk) {
    at.a = 1;
    at.b = a_size + 2;
    return at;
  }
  constexpr int line = line_elements<T>;
  const int a_lead = int(begin.a % line), b_lead = int(begin.b % line);
  const int a_lines = (a_lead + a_size + line - 1) / line;
  at.a = line + a_lead;
  at.b = line + a_lines * line + line + b_lead;
  at.a_has_before = a_lead > 0;
  at.b_has_before = b_lead > 0;
  return at;
}

// Stages the windows of `a` (size_a elements) and `b` between the tile's splits `begin`
// and `end` at `buffer` in the layout `at`. Bulk copies are issued by thread 0 on
// `barrier` (initialized once), which then calls arrive(); with them, the caller's barrier
// must come before finish_staging.
template <int Threads, int Steps, class T, class InA, class InB>
__device__ __forceinline__ void stage_window(T* buffer, const window_layout& at, bool bulk, InA a, index_t size_a,
                                             InB b, index_t size_b, split<index_t> begin, split<index_t> end,
                                             const staging_barrier& barrier) {
  static_assert(Threads >= 32, "the partial lines take up to 16 threads per side, in the first warp");
  const int a_size = int(end.a - begin.a), b_size = int(end.b - begin.b);
  const int tid = int(threadIdx.x);
  if constexpr (copies_bulk_v<T, InA> && copies_bulk_v<T, InB>) {
    if (bulk) {
      // Whole lines from the line holding the window's first element; at the array's end,
      // the partial last line is loaded element by element instead.
      auto stage_side = [&](const T* from, index_t size, index_t first, int count, int to, int first_thread) {
        const line_span span = whole_lines<T>(size, first, count);
        const int wanted = span.lead + count;
        const int bulk_elements = span.lines * line_elements<T>;
        T* to_line = buffer + (to - span.lead);
        if (tid == 0 && bulk_elements > 0) {
          barrier.copy(shared_address(to_line), from + span.start, unsigned(bulk_elements) * unsigned(sizeof(T)));
        }
        // The rest (fewer than a line) element by element.
        const int e = bulk_elements + (tid - first_thread);
        if (tid >= first_thread && e < wanted) to_line[e] = from[span.start + e];
      };
      // All in the first warp (threads 0-15 for A's partial line, 16-31 for B's): the
      // others skip the address arithmetic altogether.
      if (tid < 32) {
        stage_side(a, size_a, begin.a, a_size, at.a, 0);
        stage_side(b, size_b, begin.b, b_size, at.b, 16);
      }
      return;
    }
  }
  const int window = a_size + b_size;
  T* to_a = buffer + at.a;
  T* to_b = buffer + at.b;
  if constexpr (copies_async_v<T, InA> && copies_async_v<T, InB>) {
    // Per-thread bases, so that each round's addresses are a base plus a constant.
    const auto* a_from = a + begin.a + tid;
    const auto* b_from = b + begin.b + (tid - a_size);  // dereferenced only at B's elements
    const unsigned a_to = shared_address(to_a + tid);
    const unsigned b_to = shared_address(to_b) + unsigned(tid - a_size) * sizeof(T);
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < Steps; ++v) {
      const int e = tid + v * Threads;
      copy_async<sizeof(T)>(e < a_size, a_to + v * Threads * sizeof(T), a_from + v * Threads);
      copy_async<sizeof(T)>(e >= a_size && e < window, b_to + v * Threads * sizeof(T), b_from + v * Threads);
    }
  } else {
    // All loads first: a store right behind each load would wait out DRAM latency each time.
    T loaded[Steps];
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < Steps; ++v) {
      const int e = tid + v * Threads;
      if (e < a_size) {
        loaded[v] = a[begin.a + e];
      } else if (e < window) {
        loaded[v] = b[begin.b + (e - a_size)];
      }
    }
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < Steps; ++v) {
      const int e = tid + v * Threads;
      if (e < a_size) {
        to_a[e] = loaded[v];
      } else if (e < window) {
        to_b[e - a_size] = loaded[v];
      }
    }
  }
}

// Asks L2 for the whole lines of `from[first, first + count)` that stage_window would copy in
// bulk, ahead of the copy: a hint, by one thread; nothing waits for it. `from` is 16-byte
// aligned (stages_in_bulk).
template <class T>
__device__ __forceinline__ void prefetch_window(const T* from, index_t size, index_t first, int count) {
#if CORANK_DETAIL_BULK_COPIES
  const line_span span = whole_lines<T>(size, first, count);
  if (span.lines > 0) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(from + span.start), "r"(unsigned(span.lines) * 16)
                 : "memory");
  }
#endif
}

// Puts the element before each window in its slot where the copies did not bring it
// (threads 0 and 1), for ops that look at run starts.
template <class T, class InA, class InB>
__device__ __forceinline__ void stage_elements_before(T* buffer, const window_layout& at, InA a, InB b,
                                                      split<index_t> begin) {
  const int tid = int(threadIdx.x);
  if (tid == 0 && begin.a > 0 && !at.a_has_before) buffer[at.a - 1] = a[begin.a - 1];
  if (tid == 1 && begin.b > 0 && !at.b_has_before) buffer[at.b - 1] = b[begin.b - 1];
}

// Puts B's element after its window, where B has one, in the slot after the window (thread
// 2), unless the copies brought it (a bulk copy's last line): for the searches' b_matches
// (b_step_values.hpp), which compare a step's key with B's front also past the window.
template <class T, class InB>
__device__ __forceinline__ void stage_element_after(T* buffer, const window_layout& at, bool bulk, InB b,
                                                    index_t size_b, split<index_t> begin, split<index_t> end) {
  if (threadIdx.x != 2 || end.b >= size_b) return;
  const int b_size = int(end.b - begin.b);
  if (bulk) {
    const line_span span = whole_lines<T>(size_b, begin.b, b_size);
    if (end.b < span.start + index_t(span.lines) * line_elements<T>) return;
  }
  buffer[at.b + b_size] = b[end.b];
}

// After the caller's barrier: every thread waits until the staged windows have arrived
// (phase `parity` of the buffer's barrier: its first use is phase 0, then 1, 0, ...).
__device__ __forceinline__ void finish_staging(bool bulk, const staging_barrier& barrier, unsigned parity) {
  if (bulk) barrier.wait(parity);
}

// Orders this thread's ordinary reads and writes of shared memory before later bulk copies
// into it (a barrier between them completes the order).
__device__ __forceinline__ void fence_shared_for_copies() {
#if CORANK_DETAIL_BULK_COPIES
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

}  // namespace corank::detail

#undef CORANK_DETAIL_BULK_COPIES
