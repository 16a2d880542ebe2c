#pragma once
// Two passes of the two-input dispatcher (dispatch.cuh) over one temporary storage, one after
// the other: sorted_count's (search.inl: the upper bounds, then the lower bounds subtracted
// from them). Each pass is a callable (void* temp, std::size_t& bytes, index_t* count), a
// query where temp is null. The storage (temporary_arena.hpp): the room either pass needs,
// then the second pass's count word, laid out by the same code for the query and the run.
// *count_out ends the first pass's count, or the second's where that is negative (it found
// the inputs out of order).

#include <corank/config.hpp>
#include <corank/detail/dispatch/temporary_arena.hpp>
#include <corank/detail/kernels/count_words.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace corank::detail {

template <class First, class Second>
cudaError_t two_pass_stages(temporary_arena& temp, const First& first, const Second& second, index_t* count_out,
                            cudaStream_t stream) {
  std::size_t first_bytes = 0, second_bytes = 0;
  index_t* none = nullptr;
  if (const cudaError_t e = first(nullptr, first_bytes, none); e != cudaSuccess) return e;
  if (const cudaError_t e = second(nullptr, second_bytes, none); e != cudaSuccess) return e;
  const std::size_t pass_bytes = first_bytes > second_bytes ? first_bytes : second_bytes;
  char* passes = temp.take<char>(index_t(pass_bytes));
  index_t* second_count = temp.take<index_t>(1);
  if (!temp.runs()) return cudaSuccess;
  std::size_t given = pass_bytes;
  if (const cudaError_t e = first(passes, given, count_out); e != cudaSuccess) return e;
  if (const cudaError_t e = second(passes, given, second_count); e != cudaSuccess) return e;
  keep_negative_count_kernel<<<1, 1, 0, stream>>>(count_out, second_count);
  return cudaPeekAtLastError();
}

// The two-phase form (temp_storage == nullptr: a query). The caller has checked its
// arguments where temp_storage is not null.
template <class First, class Second>
cudaError_t dispatch_two_passes(void* temp_storage, std::size_t& temp_storage_bytes, const First& first,
                                const Second& second, index_t* count_out, cudaStream_t stream) {
  return lay_out_and_launch(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
    return two_pass_stages(temp, first, second, count_out, stream);
  });
}

}  // namespace corank::detail
