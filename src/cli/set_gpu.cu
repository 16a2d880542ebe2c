// The set commands on the GPU: upload the columns (keys mapped to their device type, narrow
// values widened: set_gpu_ops.hpp), check them with corank::check_sorted, run the
// operation (set_gpu_*.cu), download the result (mapped back). Times each step; the operation's
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
#include <limits>
#include <type_traits>
#include <utility>

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

// to[i] = To(from[i]) ^ flip: values of 1 and 2 bytes widened to uint32 (gpu_value_payloads)
// and narrowed back, keys mapped to their device type and back (gpu_key_types; flip is the
// top bit for uint32 and uint64 keys, else 0). `from` may be `to`.
template <class From, class To>
__global__ void convert_elements(const From* from, To* to, index_t n, To flip) {
  for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    to[i] = To(To(from[i]) ^ flip);
  }
}

// `in`'s n elements converted From -> To: in place where the two are of one size, else into
// a new buffer.
template <class From, class To>
device_buffer convert(device_buffer in, index_t n, To flip, const char* what) {
  constexpr bool in_place = sizeof(From) == sizeof(To);
  device_buffer out = in_place ? device_buffer() : device_buffer(std::size_t(n) * sizeof(To), what);
  if (n > 0) {
    const unsigned blocks = unsigned(std::min<index_t>((n + 255) / 256, 4096));
    convert_elements<<<blocks, 256>>>(static_cast<const From*>(in.get()),
                                      static_cast<To*>(in_place ? in.get() : out.get()), n, flip);
    CORANK_TRY(cudaGetLastError(), what);
  }
  return in_place ? std::move(in) : std::move(out);
}

// n values of `bytes` (1 or 2) widened to uint32, or narrowed back from it.
device_buffer convert_values(device_buffer values, index_t n, std::size_t bytes, bool widen, const char* what) {
  const auto run = [&](auto narrow) {
    using Narrow = decltype(narrow);
    return widen ? convert<Narrow, std::uint32_t>(std::move(values), n, 0, what)
                 : convert<std::uint32_t, Narrow>(std::move(values), n, 0, what);
  };
  return bytes == 1 ? run(std::uint8_t{}) : run(std::uint16_t{});
}

// n keys of `type` mapped to their device type (device_key_t), or back from it.
device_buffer convert_keys(device_buffer keys, index_t n, dtype type, bool to_device, const char* what) {
  return visit_dtype(type, [&](auto tag) -> device_buffer {
    using Key = typename decltype(tag)::type;
    using Device = device_key_t<Key>;
    if constexpr (std::is_same_v<Key, Device>) {
      return std::move(keys);
    } else {
      constexpr Device flip = std::is_unsigned_v<Key> && sizeof(Key) == sizeof(Device)
                                  ? std::numeric_limits<Device>::min()
                                  : Device(0);
      return to_device ? convert<Key, Device>(std::move(keys), n, flip, what)
                       : convert<Device, Key>(std::move(keys), n, Key(flip), what);
    }
  });
}

// The dtype of a column of `type` on the device.
dtype device_key_type(dtype type) {
  return visit_dtype(type, [](auto tag) { return dtype_of<device_key_t<typename decltype(tag)::type>>(); });
}

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

}  // namespace

set_outcome run_set_job_on_gpu(const set_job& job) {
  const column& a = *job.a;
  const column& b = *job.b;
  const bool with_values = job.a_values != nullptr;
  const dtype key_type = device_key_type(a.type());
  const std::size_t key_bytes = dtype_size(key_type);
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
    const device_buffer d_a =
        convert_keys(upload(a, "copying A to the GPU"), a.size(), a.type(), true, "mapping A's keys");
    const device_buffer d_b =
        convert_keys(upload(b, "copying B to the GPU"), b.size(), b.type(), true, "mapping B's keys");
    device_buffer d_a_values, d_b_values;
    if (with_values) {
      d_a_values = upload(*job.a_values, "copying A's values to the GPU");
      d_b_values = upload(*job.b_values, "copying B's values to the GPU");
      if (widened) {
        d_a_values = convert_values(std::move(d_a_values), a.size(), narrow_bytes, true, "widening A's values");
        d_b_values = convert_values(std::move(d_b_values), b.size(), narrow_bytes, true, "widening B's values");
      }
    }
    outcome.upload_ms = ms_since(start);

    if (job.check_sorted) {
      start = std::chrono::steady_clock::now();
      visit_dtype(a.type(), [&](auto tag) {
        using Key = device_key_t<typename decltype(tag)::type>;  // 4 checks compiled, not 10
        const Key* pa = static_cast<const Key*>(d_a.get());
        const Key* pb = static_cast<const Key*>(d_b.get());
        corank::check_sorted(pa, pa + a.size(), pb, pb + b.size(), key_order<Key>{});
      });
      outcome.check_ms = ms_since(start);
    }

    // Never null where there are inputs, even for an empty result (corank rejects a null
    // output with a nonzero input size).
    const std::size_t out_elements = job.count_only ? 0 : std::size_t(std::max<index_t>(bound, 1));
    device_buffer d_keys_out(out_elements * key_bytes, "allocating the output");
    device_buffer d_values_out(out_elements * value_bytes, "allocating the output values");
    operation_operands o;
    o.key_type = key_type;
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
        d_keys_out = convert_keys(std::move(d_keys_out), outcome.count, a.type(), false, "mapping the output back");
        CORANK_TRY(cudaMemcpy(outcome.keys.data(), d_keys_out.get(), outcome.keys.bytes(), cudaMemcpyDeviceToHost),
                   "copying the output to the host");
        if (with_values) {
          if (widened) {
            d_values_out = convert_values(std::move(d_values_out), outcome.count, narrow_bytes, false,
                                          "narrowing the values");
          }
          CORANK_TRY(cudaMemcpy(outcome.values.data(), d_values_out.get(), outcome.values.bytes(),
                                cudaMemcpyDeviceToHost),
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
