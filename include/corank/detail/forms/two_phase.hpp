#pragma once
// Runs a call for the convenience forms with temporary storage from corank's pool, stream-
// ordered: run_from_pool hands the multiway dispatcher a pool_storage, which it asks for the
// bytes of the layout it computed; run_two_phase runs a two-phase (CUB-style) call: query,
// allocate, run, free. Neither synchronizes; run_two_phase_for_result also reads back the
// index the call leaves on the device (an output size, the first unsorted position), so it
// waits for the stream.

#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/forms/temporary_pool.hpp>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace corank::detail {

// A convenience call's temporary storage, as a storage source of the multiway dispatcher
// (temporary_arena.hpp): the bytes the layout asks for, allocated from corank's pool once the
// layout is computed (so it is computed once per call), and freed in stream order by
// release(), or when it goes (an exception on the way).
class pool_storage {
 public:
  explicit pool_storage(cudaStream_t stream) : stream_(stream) {}
  pool_storage(const pool_storage&) = delete;
  pool_storage& operator=(const pool_storage&) = delete;
  ~pool_storage() { release(); }

  bool runs() const { return true; }
  cudaError_t provide(std::size_t bytes, char*& base) {
    void* memory = nullptr;
    const cudaError_t e = allocate_temporary(&memory, bytes, stream_);
    memory_ = memory;
    base = static_cast<char*>(memory);
    return e;
  }
  cudaError_t release() {
    void* memory = memory_;
    memory_ = nullptr;
    return memory == nullptr ? cudaSuccess : cudaFreeAsync(memory, stream_);
  }

 private:
  cudaStream_t stream_;
  void* memory_ = nullptr;
};

// A convenience call on `dispatcher(storage)` with storage from the pool: runs, frees in stream
// order, throws any error of either with `context`; does not synchronize.
template <class Dispatcher>
void run_from_pool(const char* context, cudaStream_t stream, Dispatcher dispatcher) {
  pool_storage storage(stream);
  CORANK_TRY(dispatcher(storage), context);
  CORANK_TRY(storage.release(), context);
}

// Convenience forms check first, so that a bad argument gets a sentence, not just a code.
template <class Args>
void throw_on_bad_arguments(const Args& args, const char* context) {
  if (const char* problem = merge_argument_error(args)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  }
}

// Where a convenience form's result word is written: in device memory, then copied to this
// thread's pinned host word (forms whose kernels add to it or clear it), or straight into the
// pinned host word, which the kernels reach through its device mapping (forms whose kernels
// store it once, as the look-back's last tile does): no copy to enqueue and wait for.
enum class result_word { device, host };

// `call(temp, bytes, result)` is the two-phase call; `result` is null in the query, and in
// the run where WithResult a device word after the temporary storage or the host word.
template <bool WithResult, result_word Where, class TwoPhaseCall>
cudaError_t run_allocated(const char* context, cudaStream_t stream, TwoPhaseCall call, index_t* host_result) {
  constexpr bool in_temp = WithResult && Where == result_word::device;
  std::size_t bytes = 0;
  CORANK_TRY(call(nullptr, bytes, nullptr), context);
  const std::size_t result_at = (bytes + alignof(index_t) - 1) / alignof(index_t) * alignof(index_t);
  void* temp = nullptr;
  CORANK_TRY(allocate_temporary(&temp, in_temp ? result_at + sizeof(index_t) : bytes, stream), context);
  index_t* result = nullptr;
  if constexpr (in_temp) result = reinterpret_cast<index_t*>(static_cast<char*>(temp) + result_at);
  if constexpr (WithResult && !in_temp) result = host_result;
  cudaError_t status = call(temp, bytes, result);
  if (in_temp && status == cudaSuccess) {
    status = cudaMemcpyAsync(host_result, result, sizeof(index_t), cudaMemcpyDeviceToHost, stream);
  }
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  CORANK_TRY(status, context);
  return freed;
}

template <class TwoPhaseCall>
void run_two_phase(const char* context, cudaStream_t stream, TwoPhaseCall call) {
  CORANK_TRY((run_allocated<false, result_word::device>(context, stream, call, nullptr)), context);
}

template <result_word Where = result_word::device, class TwoPhaseCall>
index_t run_two_phase_for_result(const char* context, cudaStream_t stream, TwoPhaseCall call) {
  index_t* host_result = nullptr;
  CORANK_TRY(pinned_result(host_result), context);
  CORANK_TRY((run_allocated<true, Where>(context, stream, call, host_result)), context);
  CORANK_TRY(cudaStreamSynchronize(stream), context);
  return *host_result;
}

}  // namespace corank::detail
