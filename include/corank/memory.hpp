#pragma once
// The convenience forms (corank::merge, corank::set_union, ...) take their temporary
// storage from a stream-ordered memory pool of corank's own, one per device, which keeps
// its memory between calls so that a call does not pay to map it again: at most what the
// largest call needed (tile boundaries and look-back words, a few MB for 2^30 elements).
// The two-phase forms use the caller's storage and never touch it.

#include <cuda_runtime_api.h>

namespace corank {

// Gives what the current device's pool holds unused back to the driver (storage that calls
// still in flight on a stream have freed is returned once they have run).
cudaError_t release_temporary_memory();

}  // namespace corank
