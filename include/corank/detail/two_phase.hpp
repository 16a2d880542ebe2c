#pragma once
// Runs a two-phase (CUB-style) call for the convenience forms: query the temporary storage,
// allocate it stream-ordered (from corank's pool), run, free. run_two_phase does not
// synchronize; run_two_phase_for_result also reads back the index the call leaves on the
// device (an output size, the first unsorted position), so it waits for the stream.

#include <corank/detail/merge_args.hpp>
#include <corank/detail/temporary_pool.hpp>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace corank::detail {

// Convenience forms check first, so that a bad argument gets a sentence, not just a code.
template <class Args>
void throw_on_bad_arguments(const Args& args, const char* context) {
  if (const char* problem = merge_argument_error(args)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  }
}

// `call(temp, bytes, result)` is the two-phase call; `result` is null in the query, and a
// device word after the temporary storage in the run where WithResult (else null).
template <bool WithResult, class TwoPhaseCall>
cudaError_t run_allocated(const char* context, cudaStream_t stream, TwoPhaseCall call, index_t* host_result) {
  std::size_t bytes = 0;
  CORANK_TRY(call(nullptr, bytes, nullptr), context);
  const std::size_t result_at = (bytes + alignof(index_t) - 1) / alignof(index_t) * alignof(index_t);
  void* temp = nullptr;
  CORANK_TRY(allocate_temporary(&temp, WithResult ? result_at + sizeof(index_t) : bytes, stream), context);
  index_t* result = WithResult ? reinterpret_cast<index_t*>(static_cast<char*>(temp) + result_at) : nullptr;
  cudaError_t status = call(temp, bytes, result);
  if (WithResult && status == cudaSuccess) {
    status = cudaMemcpyAsync(host_result, result, sizeof(index_t), cudaMemcpyDeviceToHost, stream);
  }
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  CORANK_TRY(status, context);
  return freed;
}

template <class TwoPhaseCall>
void run_two_phase(const char* context, cudaStream_t stream, TwoPhaseCall call) {
  CORANK_TRY(run_allocated<false>(context, stream, call, nullptr), context);
}

template <class TwoPhaseCall>
index_t run_two_phase_for_result(const char* context, cudaStream_t stream, TwoPhaseCall call) {
  index_t* host_result = nullptr;
  CORANK_TRY(pinned_result(host_result), context);
  CORANK_TRY(run_allocated<true>(context, stream, call, host_result), context);
  CORANK_TRY(cudaStreamSynchronize(stream), context);
  return *host_result;
}

}  // namespace corank::detail
