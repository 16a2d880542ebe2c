#pragma once
// Columns on the GPU, for the commands' GPU drivers (set_gpu.cu, multiway_gpu.cu): device
// buffers, uploads and downloads that map keys to the device key types and widen narrow
// values (set_gpu_ops.hpp says which), the sortedness checks, and the GPU's description.
//
// gpu_columns.cu is the program's only source that includes check_sorted.cuh (a second one
// breaks the link: see the note in tests/gpu/merge_api_test.cu).

#include "column.hpp"
#include "dtype.hpp"
#include "job_outcome.hpp"

#include <corank/config.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace corank::cli {

// cudaMalloc'd bytes; a failed allocation throws corank::out_of_memory.
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(std::size_t bytes, const char* what);
  ~device_buffer() { cudaFree(data_); }
  device_buffer(device_buffer&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

// The dtype a column of `type` has on the device (device_key_t).
dtype device_key_type(dtype type);
// The width values of `bytes` have on the device: 1 and 2 are widened to 4.
std::size_t device_value_bytes(std::size_t bytes);

// A column of keys on the device, mapped to its device type; `what` names it in errors.
device_buffer upload_keys(const column& keys, const char* what);
// A column of values on the device, as payloads of device_value_bytes.
device_buffer upload_values(const column& values, const char* what);
// `n` keys (values) of `type` back from the device, in place on the device then copied
// into `to`, which holds n elements of `type`.
void download_keys(device_buffer keys, column& to, const char* what);
void download_values(device_buffer values, column& to, const char* what);
// to.bytes() bytes copied from the device as they are (positions, flags: no mapping).
void download_bytes(const device_buffer& from, column& to, const char* what);

// The first index i with keys[i] before keys[i - 1] in the key order of `type` (NaNs last),
// or n: `keys` are n keys on the device as upload_keys left them. Synchronizes.
index_t find_unsorted_on_gpu(const void* keys, index_t n, dtype type);
// corank::check_sorted on A and B as uploaded: throws corank::unsorted_input ('A' or 'B').
void check_sorted_on_gpu(const void* a, index_t m, const void* b, index_t n, dtype type);
// The same for segmented inputs (segments.hpp), each sorted segment by segment: A's and B's
// S + 1 int64 offsets on the device. Throws corank::unsorted_input ('A' or 'B', the index).
void check_sorted_in_segments_on_gpu(const void* a, index_t m, const std::int64_t* a_offsets, const void* b,
                                     index_t n, const std::int64_t* b_offsets, index_t segments, dtype type);

// The current device, in words ("GPU 0: NVIDIA H200 (132 SMs, 139.8 GiB)"), and its memory.
struct gpu_info {
  int device = 0;
  std::string where;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};
gpu_info describe_gpu();

// What to throw when a job does not fit: "not enough GPU memory: DETAIL; NEEDS must fit on
// the GPU, plus the operation's temporary storage; use --device cpu".
gpu_memory_error too_little_gpu_memory(const std::string& detail, const std::string& needs);
// Throws that before anything is uploaded if `needed_bytes` exceed the GPU's free memory.
void check_gpu_memory(const gpu_info& gpu, double needed_bytes, const std::string& needs);

// "1.50 GiB".
std::string gib(double bytes);

}  // namespace corank::cli
