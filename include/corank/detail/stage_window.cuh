#pragma once
// Staging a tile's input windows in shared memory: A[0, a_size) to `to_a` and B[0, b_size)
// to `to_b`, spread over the block's threads in `Steps` rounds, with every load of a thread
// in flight at once. Raw pointers to 4-, 8- and 16-byte elements are copied by cp.async
// (global to shared without passing through registers: no registers held, no store
// instruction per element); anything else is loaded into registers first, then stored.
// The caller waits with finish_staging() and a barrier before reading.

#include <corank/config.hpp>

#include <cstdint>
#include <iterator>
#include <type_traits>

namespace corank::detail {

template <class T, class Iterator>
inline constexpr bool copies_async_v =
    std::is_pointer_v<Iterator> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<Iterator>>, T> &&
    std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) &&
    alignof(T) == sizeof(T);

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

// Waits for this thread's asynchronous copies (the barrier after it makes all visible).
__device__ __forceinline__ void finish_staging() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

template <int Threads, int Steps, class T, class InA, class InB>
__device__ __forceinline__ void stage_window(T* to_a, InA a, int a_size, T* to_b, InB b, int b_size) {
  const int window = a_size + b_size;
  if constexpr (copies_async_v<T, InA> && copies_async_v<T, InB>) {
    // Per-thread bases, so that each round's addresses are a base plus a constant.
    const int tid = int(threadIdx.x);
    const auto* a_from = a + tid;
    const auto* b_from = b + (tid - a_size);  // dereferenced only at B's elements
    const auto a_to = static_cast<unsigned>(__cvta_generic_to_shared(to_a + tid));
    const auto b_to = static_cast<unsigned>(__cvta_generic_to_shared(to_b)) + unsigned(tid - a_size) * sizeof(T);
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
      const int e = int(threadIdx.x) + v * Threads;
      if (e < a_size) {
        loaded[v] = a[e];
      } else if (e < window) {
        loaded[v] = b[e - a_size];
      }
    }
    CORANK_PRAGMA_UNROLL
    for (int v = 0; v < Steps; ++v) {
      const int e = int(threadIdx.x) + v * Threads;
      if (e < a_size) {
        to_a[e] = loaded[v];
      } else if (e < window) {
        to_b[e - a_size] = loaded[v];
      }
    }
  }
}

}  // namespace corank::detail
