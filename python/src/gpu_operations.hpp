#pragma once
// The GPU backend of the Python package. run_on_gpu takes every dtype: it widens 1- and
// 2-byte keys and values into temporaries, checks sortedness where asked, runs the
// operation's kernels (one source per operation, for the native types only, so that their
// many instantiations compile in parallel) and narrows the outputs back.

#include "operands.hpp"

#include <cuda_runtime_api.h>

namespace corank::python {

// Runs o on the current device, ordered on `stream`. Returns the output size, waiting for it
// unless o.count_out is set (then it returns -1) or the size is known (merge: m + n).
// Throws corank::cuda_error, corank::out_of_memory or corank::unsorted_input.
index_t run_on_gpu(const operands& o, cudaStream_t stream);

// The kernels' key types: 4- and 8-byte integers and floats.
index_t run_gpu_merge(const operands& o, cudaStream_t stream);
index_t run_gpu_union(const operands& o, cudaStream_t stream);
index_t run_gpu_intersection(const operands& o, cudaStream_t stream);
index_t run_gpu_difference(const operands& o, cudaStream_t stream);
index_t run_gpu_symmetric_difference(const operands& o, cudaStream_t stream);
index_t run_gpu_distinct(const operands& o, cudaStream_t stream);
index_t run_gpu_bounds(const operands& o, cudaStream_t stream);    // lower_bound, upper_bound
index_t run_gpu_contains(const operands& o, cudaStream_t stream);  // contains, not_contains
index_t run_gpu_join(const operands& o, cudaStream_t stream);      // in gpu_bounds.cu: the same bounds

// The key type the kernels take for keys of `type`: 1- and 2-byte keys widen to 4 bytes of
// their signedness.
inline dtype kernel_key_type(dtype type) {
  if (dtype_size(type) >= 4) return type;
  return type == dtype::int8 || type == dtype::int16 ? dtype::int32 : dtype::uint32;
}

// The bytes the join's count keeps for its pairs on the GPU (operands::join_kept), for m left
// and n right keys of key_type.
std::size_t gpu_join_kept_bytes(dtype key_type, index_t m, index_t n);

// corank::check_sorted of A and B, for the kernels' key types.
void check_sorted_on_gpu(const operands& o, cudaStream_t stream);

// corank::find_unsorted of n keys of any dtype (waits for the stream).
index_t find_unsorted_on_gpu(dtype key_type, const void* keys, index_t n, cudaStream_t stream);

}  // namespace corank::python
