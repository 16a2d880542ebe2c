#pragma once
// The one temporary-storage mechanism of every dispatcher. An operation's storage is laid out
// piece by piece on an arena, which places each piece at the next multiple of the alignment:
// without a base it only counts (the layout: the bytes a query answers and a run checks),
// with one it also hands the pieces out. The two-input dispatcher keeps the pieces' offsets
// (temporary_layout, dispatch.cuh); the others (multiway_dispatch.cuh, join_dispatch.cuh,
// two_pass_dispatch.cuh) lay their passes out by the same code that launches them, once
// counting and once placing. Either way a query and a run take their bytes from one
// computation, so they cannot disagree.
//
// The rule for every two-phase form (memory.hpp): temp_storage is aligned to
// temporary_storage_alignment, 256 bytes, as what cudaMalloc and the stream-ordered pools
// return is; a run given storage that is not returns cudaErrorInvalidValue before anything
// touches the device. Pieces start at multiples of it, so every element type (16-byte keys,
// the bulk copies' 16-byte lines) is aligned.
//
// Where the storage comes from: the caller's (caller_storage: the two-phase protocol, every
// dispatcher; lay_out_and_launch below), or corank's pool (pool_storage, two_phase.hpp: the
// convenience sort and k-way merge, which so lay their passes out once per call rather than
// once to query and again to run).

#include <corank/config.hpp>
#include <corank/memory.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace corank::detail {

inline constexpr std::size_t temporary_alignment = temporary_storage_alignment;

constexpr std::size_t align_up(std::size_t bytes, std::size_t alignment = temporary_alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

inline bool temporary_aligned(const void* storage) {
  return reinterpret_cast<std::uintptr_t>(storage) % temporary_alignment == 0;
}

// Hands out aligned pieces of the temporary storage; with a null base, only counts them.
struct temporary_arena {
  char* base = nullptr;
  std::size_t used = 0;
  bool runs() const { return base != nullptr; }
  // The next piece of `count` Ts: its offset from the base.
  template <class T>
  std::size_t reserve(index_t count) {
    used = align_up(used);
    const std::size_t at = used;
    used += std::size_t(count) * sizeof(T);
    return at;
  }
  // The next piece of `count` Ts: where it lies, or null without a base.
  template <class T>
  T* take(index_t count) {
    const std::size_t at = reserve<T>(count);
    return base != nullptr ? reinterpret_cast<T*>(base + at) : nullptr;
  }
  // What a query answers: the pieces, rounded up to the alignment, and at least 1 byte, so that
  // a null pointer always means a query (operations that need none ask for 1).
  std::size_t bytes() const { return used == 0 ? 1 : align_up(used); }
};

// The two-phase protocol's storage: temp_storage == nullptr is a query, which writes the bytes
// to temp_storage_bytes; a run checks that temp_storage_bytes holds them and that temp_storage
// is aligned.
struct caller_storage {
  void* temp_storage;
  std::size_t& temp_storage_bytes;
  bool runs() const { return temp_storage != nullptr; }
  // `base`: where the run lays its pieces out; null after a query, which the caller then ends.
  cudaError_t provide(std::size_t bytes, char*& base) const {
    base = nullptr;
    if (temp_storage == nullptr) {
      temp_storage_bytes = bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < bytes || !temporary_aligned(temp_storage)) return cudaErrorInvalidValue;
    base = static_cast<char*>(temp_storage);
    return cudaSuccess;
  }
};

// A dispatcher whose stages(temporary_arena&) lay its storage out and, where the arena has a
// base, launch: once counting, then the bytes asked of `storage` (caller_storage: a query ends
// there, a run checks them; pool_storage: allocated), once placing. The caller checks its
// arguments first where the storage runs.
template <class Storage, class Stages>
cudaError_t lay_out_and_launch(Storage& storage, const Stages& stages) {
  temporary_arena layout;
  if (const cudaError_t e = stages(layout); e != cudaSuccess) return e;
  temporary_arena temp;
  if (const cudaError_t e = storage.provide(layout.bytes(), temp.base); e != cudaSuccess || !temp.runs()) return e;
  return stages(temp);
}

// The same in the caller's storage: the two-phase protocol (temp_storage == nullptr: a query).
template <class Stages>
cudaError_t lay_out_and_launch(void* temp_storage, std::size_t& temp_storage_bytes, const Stages& stages) {
  caller_storage storage{temp_storage, temp_storage_bytes};
  return lay_out_and_launch(storage, stages);
}

}  // namespace corank::detail
