#include <corank/detail/temporary_pool.hpp>
#include <corank/memory.hpp>

#include <array>
#include <cstdint>
#include <mutex>

namespace corank::detail {

cudaError_t temporary_pool(cudaMemPool_t& pool) {
  constexpr int max_devices = 64;
  static std::array<cudaMemPool_t, max_devices> pools{};
  static std::array<std::once_flag, max_devices> once;
  static std::array<cudaError_t, max_devices> status{};

  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (device < 0 || device >= max_devices) return cudaErrorInvalidDevice;
  std::call_once(once[device], [device] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    status[device] = cudaMemPoolCreate(&pools[device], &props);
    if (status[device] != cudaSuccess) return;
    std::uint64_t keep_everything = UINT64_MAX;  // never give memory back between calls
    status[device] = cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep_everything);
  });
  pool = pools[device];
  return status[device];
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

}  // namespace

cudaError_t pinned_result(index_t*& result) {
  thread_local pinned_word slot;
  if (slot.word == nullptr) {
    void* memory = nullptr;
    if (const cudaError_t e = cudaMallocHost(&memory, sizeof(index_t)); e != cudaSuccess) return e;
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
  return cudaMemPoolTrimTo(pool, 0);
}

}  // namespace corank
