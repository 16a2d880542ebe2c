// corank demo on the GPU: columns generated on the device, corank::merge timed with CUDA
// events against cudaMemcpyAsync of the same bytes, results copied back for the check.
// Columns that do not fit on the GPU, or a --gpu-memory cap, take the streamed path instead:
// generated in host memory and pinned there, corank::streamed_merge timed against copying
// the same bytes to and from the GPU at once.

#include "column.hpp"
#include "demo.hpp"
#include "demo_keys.hpp"

#include <corank/error.hpp>
#include <corank/merge.cuh>
#include <corank/streamed.cuh>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace corank::cli {
namespace {

template <class Key>
struct gap_of {
  sorted_keys_recipe<Key> recipe;
  __host__ __device__ std::uint64_t operator()(index_t i) const { return recipe.gap(i); }
};

template <class Key>
struct saturating_add {
  sorted_keys_recipe<Key> recipe;
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return recipe.add(a, b); }
};

template <class Key>
struct key_of {
  sorted_keys_recipe<Key> recipe;
  __host__ __device__ Key operator()(std::uint64_t offset) const { return recipe.key(offset); }
};

// cudaMalloc'd bytes; a failed allocation throws corank::out_of_memory.
class device_memory {
 public:
  device_memory(std::size_t bytes, const char* what) { CORANK_TRY(cudaMalloc(&data_, bytes), what); }
  ~device_memory() { cudaFree(data_); }
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  template <class T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
};

class stream_owner {
 public:
  stream_owner() { CORANK_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~stream_owner() { cudaStreamDestroy(stream_); }
  stream_owner(const stream_owner&) = delete;
  stream_owner& operator=(const stream_owner&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// The same columns as the CPU backend's generate_column: the gaps' saturating inclusive
// scan, written through the offset-to-key map.
template <class Key>
void generate_column(Key* keys, index_t count, std::uint64_t seed, cudaStream_t stream) {
  const sorted_keys_recipe<Key> recipe(seed, count);
  const auto gaps = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), gap_of<Key>{recipe});
  const auto out = thrust::make_transform_output_iterator(keys, key_of<Key>{recipe});
  std::size_t bytes = 0;
  CORANK_TRY(cub::DeviceScan::InclusiveScan(nullptr, bytes, gaps, out, saturating_add<Key>{recipe}, count, stream),
             "generating the columns");
  device_memory temp(std::max<std::size_t>(bytes, 1), "generating the columns");  // never null: null means "query"
  CORANK_TRY(cub::DeviceScan::InclusiveScan(temp.get(), bytes, gaps, out, saturating_add<Key>{recipe}, count, stream),
             "generating the columns");
  CORANK_TRY(cudaStreamSynchronize(stream), "generating the columns");
}

// One warm-up run, then `runs` runs between CUDA events; the median in milliseconds.
template <class Enqueue>
double median_ms(cudaStream_t stream, int runs, Enqueue enqueue) {
  enqueue();
  std::vector<cudaEvent_t> starts(std::size_t(runs), nullptr), stops(std::size_t(runs), nullptr);
  auto destroy = [&] {
    for (cudaEvent_t e : starts) if (e != nullptr) cudaEventDestroy(e);
    for (cudaEvent_t e : stops) if (e != nullptr) cudaEventDestroy(e);
  };
  std::vector<double> ms;
  try {
    for (int r = 0; r < runs; ++r) {
      CORANK_TRY(cudaEventCreate(&starts[std::size_t(r)]), "cudaEventCreate");
      CORANK_TRY(cudaEventCreate(&stops[std::size_t(r)]), "cudaEventCreate");
    }
    for (int r = 0; r < runs; ++r) {
      CORANK_TRY(cudaEventRecord(starts[std::size_t(r)], stream), "cudaEventRecord");
      enqueue();
      CORANK_TRY(cudaEventRecord(stops[std::size_t(r)], stream), "cudaEventRecord");
    }
    CORANK_TRY(cudaStreamSynchronize(stream), "running the timed runs");
    for (int r = 0; r < runs; ++r) {
      float t = 0;
      CORANK_TRY(cudaEventElapsedTime(&t, starts[std::size_t(r)], stops[std::size_t(r)]), "cudaEventElapsedTime");
      ms.push_back(t);
    }
  } catch (...) {
    destroy();
    throw;
  }
  destroy();
  return median_of(ms);
}

// Host memory registered with CUDA (pinned) for the object's life; where the system refuses
// (a memory-lock limit), it stays pageable and says so.
class pinned_registration {
 public:
  pinned_registration(void* data, std::size_t bytes) {
    pinned_ = bytes > 0 && cudaHostRegister(data, bytes, cudaHostRegisterDefault) == cudaSuccess;
    if (pinned_) data_ = data;
    cudaGetLastError();  // a refusal is not an error of the run
  }
  ~pinned_registration() {
    if (pinned_) cudaHostUnregister(data_);
  }
  pinned_registration(const pinned_registration&) = delete;
  pinned_registration& operator=(const pinned_registration&) = delete;
  bool pinned() const { return pinned_; }

 private:
  void* data_ = nullptr;
  bool pinned_ = false;
};

class event_owner {
 public:
  event_owner() { CORANK_TRY(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~event_owner() { cudaEventDestroy(event_); }
  event_owner(const event_owner&) = delete;
  event_owner& operator=(const event_owner&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// The slower direction's rate, in bytes per second, while host-to-device and device-to-host
// copies run at once: up to 256 MiB of `from` in and as much out into `to`, median of `runs`
// after one warm-up.
double both_ways_rate(const void* from, void* to, std::size_t bytes, int runs) {
  const std::size_t size = std::min<std::size_t>(bytes, std::size_t(256) << 20);
  const device_memory in(size, "measuring the copy rates"), out(size, "measuring the copy rates");
  const stream_owner up, down;
  const event_owner up_start, up_stop, down_start, down_stop;
  std::vector<double> ms;
  for (int r = 0; r <= runs; ++r) {
    CORANK_TRY(cudaEventRecord(up_start.get(), up.get()), "cudaEventRecord");
    CORANK_TRY(cudaEventRecord(down_start.get(), down.get()), "cudaEventRecord");
    CORANK_TRY(cudaMemcpyAsync(in.get(), from, size, cudaMemcpyHostToDevice, up.get()), "measuring the copy rates");
    CORANK_TRY(cudaMemcpyAsync(to, out.get(), size, cudaMemcpyDeviceToHost, down.get()), "measuring the copy rates");
    CORANK_TRY(cudaEventRecord(up_stop.get(), up.get()), "cudaEventRecord");
    CORANK_TRY(cudaEventRecord(down_stop.get(), down.get()), "cudaEventRecord");
    CORANK_TRY(cudaDeviceSynchronize(), "measuring the copy rates");
    float up_ms = 0, down_ms = 0;
    CORANK_TRY(cudaEventElapsedTime(&up_ms, up_start.get(), up_stop.get()), "cudaEventElapsedTime");
    CORANK_TRY(cudaEventElapsedTime(&down_ms, down_start.get(), down_stop.get()), "cudaEventElapsedTime");
    if (r > 0) ms.push_back(std::max(up_ms, down_ms));  // run 0 warms up
  }
  return double(size) / (median_of(ms) * 1e-3);
}

}  // namespace

template <class Key>
demo_run<Key> run_streamed_demo(const demo_options& options, const std::string& where) {
  const index_t n = options.keys_per_column;
  const std::size_t bytes = std::size_t(2 * n) * sizeof(Key);
  demo_run<Key> run;
  generate_columns_on_host(run, n, options.seed);
  Key* a = run.input.data();
  Key* b = a + n;
  std::fill(run.output.begin(), run.output.end(), Key(0));  // faults the pages in before pinning
  const pinned_registration pinned_input(run.input.data(), bytes), pinned_output(run.output.data(), bytes);
  const bool pinned = pinned_input.pinned() && pinned_output.pinned();

  corank::streamed_options streamed;
  streamed.gpu_memory = options.gpu_memory;
  run.where = fmt::format("{}\nstreamed from {} host memory through {} of the GPU (corank::streamed_merge)", where,
                          pinned ? "pinned" : "pageable (pinning was refused)",
                          options.gpu_memory != 0 ? format_bytes(double(options.gpu_memory)) : std::string("what is free"));
  // Both columns in and the output out, at once: the rate of the slower direction bounds it.
  const double rate = both_ways_rate(run.input.data(), run.output.data(), bytes, options.runs);
  run.copy.operation = "host<->device copies, both ways at once";
  run.copy.median_ms = 1e3 * double(bytes) / rate;
  run.timing_method = fmt::format(
      "time: median of {} runs after 1 warm-up (std::chrono; the call returns with the output on the host); GB/s "
      "counts inputs read + output written; % of copy is against copying the inputs to the GPU and the output back "
      "at once, at the rates measured now ({:.1f} GB/s each way)",
      options.runs, rate / 1e9);
  run.merge.operation = "corank::streamed_merge";
  auto merge = [&] { corank::streamed_merge(a, a + n, b, b + n, run.output.data(), corank::less{}, streamed); };
  merge();
  std::vector<double> ms;
  for (int r = 0; r < options.runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    merge();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  run.merge.median_ms = median_of(ms);
  return run;
}

template <class Key>
demo_run<Key> run_demo_on_gpu(const demo_options& options) {
  const index_t n = options.keys_per_column;
  const std::size_t bytes = std::size_t(2 * n) * sizeof(Key);

  int device = 0;
  CORANK_TRY(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp properties{};
  CORANK_TRY(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  const std::string where = fmt::format("device: GPU {}: {} ({} SMs, {:.1f} GiB)", device, properties.name,
                                        properties.multiProcessorCount,
                                        properties.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
  std::size_t free = 0, total = 0;
  CORANK_TRY(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  // Inputs and output on the GPU, with room for the context's other needs.
  if (options.gpu_memory != 0 || 2 * bytes > free / 16 * 15) return run_streamed_demo<Key>(options, where);

  demo_run<Key> run;
  run.where = where;
  run.timing_method = fmt::format(
      "time: median of {} runs after 1 warm-up (CUDA events); GB/s counts inputs read + output written; "
      "% of copy is against cudaMemcpyAsync of the same bytes, device to device",
      options.runs);
  if (2 * bytes <= 2 * std::size_t(properties.l2CacheSize)) {
    run.timing_method += fmt::format(
        "\nnote: inputs and output ({:.1f} MiB) fit in L2 ({:.0f} MiB), so these times are warm-cache ones; "
        "corank_merge_bench measures with a flushed L2",
        2 * bytes / (1024.0 * 1024.0), properties.l2CacheSize / (1024.0 * 1024.0));
  }

  stream_owner stream;
  device_memory input(bytes, "allocating the input columns");
  device_memory output(bytes, "allocating the output");
  Key* a = input.get<Key>();
  Key* b = a + n;
  Key* out = output.get<Key>();
  fmt::print("generating the columns on the GPU (seed {})\n", options.seed);
  std::fflush(stdout);
  generate_column(a, n, column_seed(options.seed, 0), stream.get());
  generate_column(b, n, column_seed(options.seed, 1), stream.get());

  run.copy.operation = "device-to-device copy";
  run.copy.median_ms = median_ms(stream.get(), options.runs, [&] {
    CORANK_TRY(cudaMemcpyAsync(out, a, bytes, cudaMemcpyDeviceToDevice, stream.get()), "cudaMemcpyAsync");
  });

  run.merge.operation = fmt::format("corank::merge ({})", corank::to_string(options.strategy));
  run.merge.median_ms = median_ms(stream.get(), options.runs, [&] {
    corank::merge(a, a + n, b, b + n, out, corank::less{}, stream.get(), options.strategy);
  });

  run.input.resize(std::size_t(2 * n));
  run.output.resize(std::size_t(2 * n));
  CORANK_TRY(cudaMemcpy(run.input.data(), a, bytes, cudaMemcpyDeviceToHost), "copying the inputs to the host");
  CORANK_TRY(cudaMemcpy(run.output.data(), out, bytes, cudaMemcpyDeviceToHost), "copying the output to the host");
  return run;
}

template demo_run<std::int32_t> run_demo_on_gpu<std::int32_t>(const demo_options&);
template demo_run<std::int64_t> run_demo_on_gpu<std::int64_t>(const demo_options&);

}  // namespace corank::cli
