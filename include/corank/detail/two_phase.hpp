#pragma once
// Runs a two-phase (CUB-style) call for the convenience forms: query the temporary
// storage, allocate it stream-ordered (from corank's pool), run, free. Nothing here
// synchronizes.

#include <corank/detail/temporary_pool.hpp>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace corank::detail {

template <class TwoPhaseCall>
void run_two_phase(const char* context, cudaStream_t stream, TwoPhaseCall call) {
  std::size_t bytes = 0;
  CORANK_TRY(call(nullptr, bytes), context);
  void* temp = nullptr;
  CORANK_TRY(allocate_temporary(&temp, bytes, stream), context);
  const cudaError_t status = call(temp, bytes);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  CORANK_TRY(status, context);
  CORANK_TRY(freed, context);
}

}  // namespace corank::detail
