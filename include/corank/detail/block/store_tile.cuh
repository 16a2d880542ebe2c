#pragma once
// A block's coalesced store of a tile's outputs, staged in shared memory.

#include <corank/config.hpp>

#include <cstdint>
#include <type_traits>

namespace corank::detail {

// Copies `staged[0, count)` to `out[0, count)`, coalesced; `count` is at most Threads *
// Steps. Raw pointers to T that are 16-byte aligned get 16-byte stores (4 int32 keys a
// store): a quarter of the store instructions, which is what a memory-bound kernel's issue
// slots are short of. Pointers to another type are written element by element, converted.
template <int Threads, int Steps, class T, class Out>
__device__ __forceinline__ void store_tile(const T* staged, Out out, int count) {
  constexpr int per_vector = 16 / int(sizeof(T));
  if constexpr (std::is_pointer_v<Out> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<Out>>, T> &&
                sizeof(T) < 16 && 16 % sizeof(T) == 0 && alignof(T) == sizeof(T)) {
    if (reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      const int vectors = count / per_vector;
      const auto* from = reinterpret_cast<const uint4*>(staged);
      auto* to = reinterpret_cast<uint4*>(out);
      CORANK_PRAGMA_UNROLL
      for (int v = 0; v < (Steps + per_vector - 1) / per_vector; ++v) {
        // A set operation's tile often has far fewer outputs than steps: the block leaves
        // once no thread has any left (checked every 4 rounds, so a full tile pays little).
        if (v % 4 == 0 && v * Threads >= vectors) break;
        const int e = int(threadIdx.x) + v * Threads;
        if (e < vectors) to[e] = from[e];
      }
      for (int e = vectors * per_vector + int(threadIdx.x); e < count; e += Threads) out[e] = staged[e];
      return;
    }
  }
  CORANK_PRAGMA_UNROLL
  for (int v = 0; v < Steps; ++v) {
    if (v % 4 == 0 && v * Threads >= count) break;  // as above
    const int e = int(threadIdx.x) + v * Threads;
    if (e < count) out[e] = staged[e];
  }
}

}  // namespace corank::detail
