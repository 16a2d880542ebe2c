// The set commands on the GPU: upload the columns, check them with corank::check_sorted,
// run the operation (set_gpu_*.cu), download the result. Times each step; the operation's
// time is one run, so it includes CUDA's first-launch costs (corank_set_ops_bench
// measures steady-state throughput).
//
// This is the program's only source that includes check_sorted.cuh (a second one breaks
// the link: see the note in tests/gpu/merge_api_test.cu).

#include "set_gpu_ops.hpp"
#include "set_job.hpp"

#include <corank/check_sorted.cuh>
#include <corank/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace corank::cli {
namespace {

// cudaMalloc'd bytes; a failed allocation throws corank::out_of_memory.
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(std::size_t bytes, const char* what) {
    if (bytes > 0) CORANK_TRY(cudaMalloc(&data_, bytes), what);
  }
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

device_buffer upload(const column& c, const char* what) {
  device_buffer d(c.bytes(), what);
  if (c.bytes() > 0) CORANK_TRY(cudaMemcpy(d.get(), c.data(), c.bytes(), cudaMemcpyHostToDevice), what);
  return d;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

index_t run_on_gpu(set_operation op, const operation_operands& o, cudaStream_t stream) {
  switch (op) {
    case set_operation::merge: return run_gpu_merge(o, stream);
    case set_operation::set_union: return run_gpu_union(o, stream);
    case set_operation::set_intersection: return run_gpu_intersection(o, stream);
    case set_operation::set_difference: return run_gpu_difference(o, stream);
    case set_operation::set_symmetric_difference: break;
  }
  return run_gpu_symmetric_difference(o, stream);
}

// 1- and 2-byte values travel as uint32 payloads on the device only (see gpu_value_payloads).
template <class From, class To>
__global__ void convert_payloads(const From* from, To* to, index_t n) {
  for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    to[i] = To(from[i]);
  }
}

// `values` (n payloads of `bytes` each) widened to uint32, or narrowed back from it.
device_buffer convert_payloads(const device_buffer& values, index_t n, std::size_t bytes, bool widen,
                               const char* what) {
  device_buffer converted(std::size_t(n) * (widen ? 4 : bytes), what);
  if (n == 0) return converted;
  const unsigned blocks = unsigned(std::min<index_t>((n + 255) / 256, 4096));
  const auto launch = [&](auto narrow) {
    using Narrow = decltype(narrow);
    if (widen) {
      convert_payloads<<<blocks, 256>>>(static_cast<const Narrow*>(values.get()),
                                        static_cast<std::uint32_t*>(converted.get()), n);
    } else {
      convert_payloads<<<blocks, 256>>>(static_cast<const std::uint32_t*>(values.get()),
                                        static_cast<Narrow*>(converted.get()), n);
    }
  };
  if (bytes == 1) launch(std::uint8_t{});
  else launch(std::uint16_t{});
  CORANK_TRY(cudaGetLastError(), what);
  return converted;
}

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

}  // namespace

set_outcome run_set_job_on_gpu(const set_job& job) {
  const column& a = *job.a;
  const column& b = *job.b;
  const bool with_values = job.a_values != nullptr;
  const std::size_t key_bytes = dtype_size(a.type());
  const std::size_t narrow_bytes = with_values ? dtype_size(job.a_values->type()) : 0;
  const bool widened = with_values && narrow_bytes < 4;
  const std::size_t value_bytes = widened ? 4 : narrow_bytes;
  const index_t bound = job.count_only ? 0 : output_bound(job.operation, a.size(), b.size());
  const double input_bytes = double(a.size() + b.size()) * double(key_bytes + value_bytes);
  const double output_bytes = double(bound) * double(key_bytes + value_bytes);

  set_outcome outcome;
  // Every out-of-memory below, the context's creation included, gets the same advice.
  const auto too_little_memory = [&](const std::string& detail) {
    return gpu_memory_error(fmt::format(
        "not enough GPU memory: {}; the inputs ({}) and the output ({}, at most) must fit on the GPU, plus the "
        "operation's temporary storage; use --device cpu",
        detail, gib(input_bytes), gib(output_bytes)));
  };
  try {
    int device = 0;
    CORANK_TRY(cudaGetDevice(&device), "cudaGetDevice");
    cudaDeviceProp properties{};
    CORANK_TRY(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    outcome.where = fmt::format("GPU {}: {} ({} SMs, {:.1f} GiB)", device, properties.name,
                                properties.multiProcessorCount,
                                properties.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    std::size_t free_bytes = 0, total_bytes = 0;
    CORANK_TRY(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (input_bytes + output_bytes > double(free_bytes)) {
      throw too_little_memory(fmt::format("GPU {} has {} free of {}", device, gib(double(free_bytes)),
                                          gib(double(total_bytes))));
    }

    auto start = std::chrono::steady_clock::now();
    const device_buffer d_a = upload(a, "copying A to the GPU");
    const device_buffer d_b = upload(b, "copying B to the GPU");
    device_buffer d_a_values, d_b_values;
    if (with_values) {
      d_a_values = upload(*job.a_values, "copying A's values to the GPU");
      d_b_values = upload(*job.b_values, "copying B's values to the GPU");
      if (widened) {
        d_a_values = convert_payloads(d_a_values, a.size(), narrow_bytes, true, "widening A's values");
        d_b_values = convert_payloads(d_b_values, b.size(), narrow_bytes, true, "widening B's values");
      }
    }
    outcome.upload_ms = ms_since(start);

    if (job.check_sorted) {
      start = std::chrono::steady_clock::now();
      visit_dtype(a.type(), [&](auto tag) {
        using Key = typename decltype(tag)::type;
        const Key* pa = static_cast<const Key*>(d_a.get());
        const Key* pb = static_cast<const Key*>(d_b.get());
        corank::check_sorted(pa, pa + a.size(), pb, pb + b.size(), key_order<Key>{});
      });
      outcome.check_ms = ms_since(start);
    }

    // Never null where there are inputs, even for an empty result (corank rejects a null
    // output with a nonzero input size).
    const std::size_t out_elements = job.count_only ? 0 : std::size_t(std::max<index_t>(bound, 1));
    const device_buffer d_keys_out(out_elements * key_bytes, "allocating the output");
    const device_buffer d_values_out(out_elements * value_bytes, "allocating the output values");
    operation_operands o;
    o.key_type = a.type();
    o.value_bytes = value_bytes;
    o.a = d_a.get();
    o.size_a = a.size();
    o.b = d_b.get();
    o.size_b = b.size();
    o.a_values = d_a_values.get();
    o.b_values = d_b_values.get();
    o.keys_out = d_keys_out.get();
    o.values_out = d_values_out.get();
    o.count_only = job.count_only;

    CORANK_TRY(cudaDeviceSynchronize(), "before the operation");
    start = std::chrono::steady_clock::now();
    outcome.count = run_on_gpu(job.operation, o, nullptr);
    CORANK_TRY(cudaStreamSynchronize(nullptr), "running the operation");  // merge returns before it ends
    outcome.compute_ms = ms_since(start);

    if (!job.count_only) {
      start = std::chrono::steady_clock::now();
      outcome.keys = column(a.type(), outcome.count);
      if (with_values) outcome.values = column(job.a_values->type(), outcome.count);
      if (outcome.count > 0) {
        CORANK_TRY(cudaMemcpy(outcome.keys.data(), d_keys_out.get(), outcome.keys.bytes(), cudaMemcpyDeviceToHost),
                   "copying the output to the host");
        if (with_values) {
          const device_buffer narrowed =
              widened ? convert_payloads(d_values_out, outcome.count, narrow_bytes, false, "narrowing the values")
                      : device_buffer();
          CORANK_TRY(cudaMemcpy(outcome.values.data(), widened ? narrowed.get() : d_values_out.get(),
                                outcome.values.bytes(), cudaMemcpyDeviceToHost),
                     "copying the output values to the host");
        }
      }
      outcome.download_ms = ms_since(start);
    }
  } catch (const corank::out_of_memory& e) {
    throw too_little_memory(e.what());
  }
  return outcome;
}

}  // namespace corank::cli
