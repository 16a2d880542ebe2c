#pragma once
// The convenience forms (corank::merge, corank::set_union, ...) take their temporary
// storage from a stream-ordered memory pool of corank's own, one per device, which keeps
// the memory it has mapped between calls (it never gives it back by itself) so that a call
// does not pay to map it again. A call's storage is small: tile boundaries and look-back
// words, 16 to 24 bytes per tile of thousands of elements (a few MB for 2^30 int32 keys).
// The two-phase forms use the caller's storage and never touch the pool. The streamed forms
// (streamed_operation.cuh) keep the pinned host buffer they stage pageable memory through
// (three chunks' inputs and outputs: hundreds of MB) for the next call likewise.

#include <cuda_runtime_api.h>

namespace corank {

// Gives what the current device's pool holds unused back to the driver (cudaMemPoolTrimTo to
// 0), creating the pool if the device has none yet, and frees the streamed forms' kept pinned
// buffer. Storage that calls freed on a stream may
// count as in use until the host has seen that work complete, and then stays in the pool:
// synchronize those streams first to give everything back. Returns the CUDA calls' error;
// does not throw.
cudaError_t release_temporary_memory();

}  // namespace corank
