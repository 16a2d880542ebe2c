#include <corank/detail/forms/temporary_pool.hpp>
#include <corank/memory.hpp>

#include "per_device.hpp"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>

namespace corank::detail {

cudaError_t temporary_pool(cudaMemPool_t& pool) {
  static per_device<cudaMemPool_t> pools;
  return pools.get(pool, [](int device, cudaMemPool_t& made) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (const cudaError_t e = cudaMemPoolCreate(&made, &props); e != cudaSuccess) return e;
    std::uint64_t keep_everything = UINT64_MAX;  // never give memory back between calls
    return cudaMemPoolSetAttribute(made, cudaMemPoolAttrReleaseThreshold, &keep_everything);
  });
}

namespace {

// Freed when its thread ends; at the process's end the runtime may be gone first, and the
// error is of no use then.
struct pinned_word {
  index_t* word = nullptr;
  ~pinned_word() {
    if (word != nullptr) cudaFreeHost(word);
  }
};

// The streamed forms' kept staging buffer. Not freed at the process's end (the runtime may be
// gone by then), which the system does anyway.
struct kept_staging {
  std::mutex mutex;
  void* memory = nullptr;
  std::size_t bytes = 0;
};

kept_staging& staging() {
  static kept_staging* kept = new kept_staging;
  return *kept;
}

}  // namespace

cudaError_t take_pinned_staging(void** memory, std::size_t& bytes) {
  {
    kept_staging& kept = staging();
    std::lock_guard<std::mutex> lock(kept.mutex);
    if (kept.memory != nullptr && kept.bytes >= bytes) {
      *memory = kept.memory;
      bytes = kept.bytes;
      kept.memory = nullptr;
      kept.bytes = 0;
      return cudaSuccess;
    }
  }
  return cudaMallocHost(memory, bytes);
}

void give_back_pinned_staging(void* memory, std::size_t bytes) {
  if (memory == nullptr) return;
  kept_staging& kept = staging();
  std::unique_lock<std::mutex> lock(kept.mutex);
  if (kept.bytes < bytes) {
    std::swap(kept.memory, memory);
    std::swap(kept.bytes, bytes);
  }
  lock.unlock();
  if (memory != nullptr) cudaFreeHost(memory);
}

cudaError_t pinned_result(index_t*& result) {
  thread_local pinned_word slot;
  if (slot.word == nullptr) {
    void* memory = nullptr;
    // Mapped and portable: kernels on any device may store a result into it directly (with
    // unified addressing, at the same address).
    if (const cudaError_t e = cudaHostAlloc(&memory, sizeof(index_t), cudaHostAllocMapped | cudaHostAllocPortable);
        e != cudaSuccess)
      return e;
    slot.word = static_cast<index_t*>(memory);
  }
  result = slot.word;
  return cudaSuccess;
}

}  // namespace corank::detail

namespace corank {

cudaError_t release_temporary_memory() {
  cudaMemPool_t pool = nullptr;
  if (const cudaError_t e = detail::temporary_pool(pool); e != cudaSuccess) return e;
  {
    detail::kept_staging& kept = detail::staging();
    std::lock_guard<std::mutex> lock(kept.mutex);
    if (kept.memory != nullptr) cudaFreeHost(kept.memory);
    kept.memory = nullptr;
    kept.bytes = 0;
  }
  return cudaMemPoolTrimTo(pool, 0);
}

}  // namespace corank
