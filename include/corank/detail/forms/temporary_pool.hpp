#pragma once
// Where the convenience forms take their temporary storage and read their results back.
//
// The storage comes from a stream-ordered memory pool of corank's own, one per device, that
// keeps its memory between calls: the device's default pool returns freed memory to the
// driver at every synchronization (its release threshold is 0), and the next call then
// paid ~100 us to map it again. What the pool keeps: memory.hpp (kilobytes to a few MB for
// the two-input operations; a buffer of the data's size for the sort and the k-way merge). Results (output sizes, indices) come back through a pinned
// host word per thread, mapped for the devices: cheaper to copy to than the pageable stack,
// and the kernels that store a result once write it there themselves (two_phase.hpp).
// The streamed forms' pinned staging buffer is kept between calls likewise.
// corank::release_temporary_memory (memory.hpp) empties the pool and frees that buffer.

#include <corank/config.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace corank::detail {

// The current device's pool, created on first use.
cudaError_t temporary_pool(cudaMemPool_t& pool);

// `bytes` of device memory, ordered on `stream`; free it with cudaFreeAsync.
inline cudaError_t allocate_temporary(void** memory, std::size_t bytes, cudaStream_t stream) {
  cudaMemPool_t pool = nullptr;
  if (const cudaError_t e = temporary_pool(pool); e != cudaSuccess) return e;
  return cudaMallocFromPoolAsync(memory, bytes, pool, stream);
}

// Pinned host memory of at least `bytes` for the streamed forms' staging buffers: the one that
// an earlier call gave back if it is large enough (pinning hundreds of MB takes ~100 ms), else
// new. `bytes` is set to the size of what is handed out.
cudaError_t take_pinned_staging(void** memory, std::size_t& bytes);
// Gives it back: kept for the next call (the largest one given back is kept, the others freed).
void give_back_pinned_staging(void* memory, std::size_t bytes);

// This thread's pinned host word for a result read back from the device, mapped (and usable
// at the same address) in every device's kernels.
cudaError_t pinned_result(index_t*& result);

}  // namespace corank::detail
