#pragma once
// Temporary storage, the one rule for every two-phase form (corank::device::): temp_storage
// is device memory aligned to 256 bytes, as what cudaMalloc and the stream-ordered pools
// return is; a run given storage that is not returns cudaErrorInvalidValue before anything
// touches the device (a sub-allocation of a larger buffer starts at a multiple of 256).
//
// The convenience forms (corank::merge, corank::stable_sort, ...) take their temporary
// storage from a stream-ordered memory pool of corank's own, one per device, which keeps the
// memory it has mapped between calls (it never gives it back by itself) so that a call does
// not pay to map it again. What the pool then keeps is the largest storage a call took:
// - the two-input operations (merges, set operations, segmented and search forms): tile
//   boundaries and look-back words, 16 to 24 bytes per tile of thousands of elements (a few
//   MB for 2^30 int32 keys);
// - stable_sort and merge_runs with more than 64 runs: a buffer of n keys (and n values) for
//   their passes, plus the samples, a few percent of that: about 3 GiB after a sort of 2^28
//   int64:int32 pairs, 1 GiB after 2^28 int32 keys. release_temporary_memory gives it back.
// The two-phase forms use the caller's storage and never touch the pool. The streamed forms
// (streamed_operation.cuh) keep the pinned host buffer they stage pageable memory through
// (three chunks' inputs and outputs: hundreds of MB) for the next call likewise.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace corank {

// The alignment every two-phase form's temp_storage must have.
inline constexpr std::size_t temporary_storage_alignment = 256;

// Gives what the current device's pool holds unused back to the driver (cudaMemPoolTrimTo to
// 0), creating the pool if the device has none yet, and frees the streamed forms' kept pinned
// buffer. Storage that calls freed on a stream may
// count as in use until the host has seen that work complete, and then stays in the pool:
// synchronize those streams first to give everything back. Returns the CUDA calls' error;
// does not throw.
cudaError_t release_temporary_memory();

}  // namespace corank
