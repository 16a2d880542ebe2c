#pragma once
// The measuring harness shared by corank's benchmarks (merge_bench.cu, set_ops_bench.cu):
// CUDA error handling, device buffers, input-generation and L2-flush kernels, the shared
// command-line options and main, CUDA-event timing (warm-up, flush before every run,
// median), the device's copy bandwidth, a case's buffers and the checks of its outputs.
// What a run prints and writes is in report.hpp.
//
// CUDA source (it defines kernels): include it from .cu files only, one per program.

#include <corank/config.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/mismatch.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace corank_bench {

using corank::index_t;

inline constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// ---------------------------------------------------------------------------------------
// Errors and device memory

class cuda_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// cudaMalloc failed for lack of memory: the case is skipped, not failed.
class device_memory_exhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) {
    throw cuda_failure(fmt::format("{}: {} ({})", what, cudaGetErrorString(code), cudaGetErrorName(code)));
  }
}
#define BENCH_CHECK(call) ::corank_bench::check((call), #call)

// The check of a row whose measurement threw: call it in a catch block. Out of device
// memory is "FAIL: out of memory: ...", any other std::exception "FAIL: ..." (and the
// CUDA error, if any, is cleared); anything else is thrown on.
inline std::string failed_check() {
  try {
    throw;
  } catch (const device_memory_exhausted& e) {
    return fmt::format("FAIL: out of memory: {}", e.what());
  } catch (const std::exception& e) {
    std::string check = fmt::format("FAIL: {}", e.what());
    cudaGetLastError();
    return check;
  }
}

class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&data_, bytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky; clear it
      data_ = nullptr;
      throw device_memory_exhausted(fmt::format("cudaMalloc of {:.2f} GiB failed", bytes / gib));
    }
    check(e, "cudaMalloc");
  }
  ~device_buffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  template <class T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// ---------------------------------------------------------------------------------------
// Kernels: input generation and the L2 flush

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The hash of element i under `seed`: uniform 64-bit values.
__host__ __device__ inline std::uint64_t index_hash(std::uint64_t seed, index_t i) {
  return splitmix64(seed ^ (std::uint64_t(i) * 0xd6e8feb86659fd93ull));
}

// Keys uniform over [0, range), or over the whole range of Key when range is 0: a hash of
// the index, reduced or truncated.
template <class Key>
__global__ void random_keys_kernel(Key* keys, index_t count, std::uint64_t seed, std::uint64_t range) {
  using bits = std::make_unsigned_t<Key>;
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < count;
       i += index_t(gridDim.x) * blockDim.x) {
    const std::uint64_t hash = index_hash(seed, i);
    keys[i] = range == 0 ? static_cast<Key>(static_cast<bits>(hash)) : static_cast<Key>(hash % range);
  }
}

// Values are the element's origin: A's i-th is i, B's j-th is m + j. A stable merge then
// orders equal keys by value, which is how the reference's stability is checked.
template <class Value>
__global__ void origin_values_kernel(Value* values, index_t count, index_t first) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < count;
       i += index_t(gridDim.x) * blockDim.x) {
    values[i] = static_cast<Value>(first + i);
  }
}

// Reads every byte of `data`. The buffer holds zeros, so the store never happens, but the
// compiler cannot know that and keeps the loads. (A template only so that the header may
// define it without an ODR question.)
template <int = 0>
__global__ void read_to_evict_kernel(const uint4* data, std::size_t count, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x2545f491u) *sink = acc;
}

template <class Key>
std::size_t sort_temp_bytes(index_t count) {
  std::size_t bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const Key*>(nullptr), static_cast<Key*>(nullptr),
                                       count),
        "cub::DeviceRadixSort::SortKeys (size query)");
  return bytes;
}

// ---------------------------------------------------------------------------------------
// Options, and main

class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline int parse_int(const std::string& flag, const std::string& text, int low, int high) {
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) throw usage_error(fmt::format("{}: '{}' is not an integer", flag, text));
  if (value < low || value > high)
    throw usage_error(fmt::format("{}: {} is outside [{}, {}]", flag, value, low, high));
  return int(value);
}

inline std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    if (end > begin) parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

// The command line as typed, arguments with spaces or quotes quoted.
inline std::string command_line(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) command += ' ';
    const std::string arg = argv[i];
    command += arg.find_first_of(" \t\"'") == std::string::npos ? arg : "'" + arg + "'";
  }
  return command;
}

// Keeps `chosen` in the order of `all`, without repeats.
template <class T, std::size_t N>
std::vector<T> in_order(const std::vector<T>& chosen, const T (&all)[N]) {
  std::vector<T> ordered;
  for (const T& item : all) {
    if (std::find(chosen.begin(), chosen.end(), item) != chosen.end()) ordered.push_back(item);
  }
  return ordered;
}

// The items of `all` that a comma-separated list names (by to_string), in the list's
// order; an unknown name is a usage error: "FLAG: unknown WHAT 'name'CHOICES".
template <class T, std::size_t N>
std::vector<T> named_items(const std::string& list, const T (&all)[N], const char* flag, const char* what,
                           const char* choices = "") {
  std::vector<T> chosen;
  for (const std::string& name : split_commas(list)) {
    const T* found = std::find_if(std::begin(all), std::end(all), [&](const T& item) { return name == to_string(item); });
    if (found == std::end(all)) throw usage_error(fmt::format("{}: unknown {} '{}'{}", flag, what, name, choices));
    chosen.push_back(*found);
  }
  return chosen;
}

// The element types both benchmarks measure.
enum class case_kind { keys_i32, keys_i64, pairs_i32_i32, pairs_i64_i64 };

inline const char* to_string(case_kind kind) {
  switch (kind) {
    case case_kind::keys_i32: return "i32";
    case case_kind::keys_i64: return "i64";
    case case_kind::pairs_i32_i32: return "i32:i32";
    case case_kind::pairs_i64_i64: return "i64:i64";
  }
  return "?";
}

// The options both benchmarks take; each program derives its own from this.
struct common_options {
  int min_log = 16;
  int max_log = 28;
  int log_step = 2;
  int runs = 50;
  int warmup = 3;
  // i64:i64 only on request (--types), so a default run measures what RESULTS.md records.
  std::vector<case_kind> types{case_kind::keys_i32, case_kind::keys_i64, case_kind::pairs_i32_i32};
  std::vector<int> logs;   // --logs: these sizes instead of min-log..max-log by log-step
  bool from_idle = false;  // --from-idle: every row timed as the convenience rows are (see measure)
  int graph = 0;           // --graph N: rows that can be captured timed as N calls in one CUDA graph (measure)
  std::string json_path;
  std::string command;

  // The sizes to run, as log2 of the elements per input.
  std::vector<int> size_logs() const {
    if (!logs.empty()) return logs;
    std::vector<int> all;
    for (int log = min_log; log <= max_log; log += log_step) all.push_back(log);
    return all;
  }

  // Timed runs at 2^log elements per input: all of them up to 2^24, fewer above, where one
  // run is long enough that its median is stable with fewer samples: runs/2 at
  // 2^25..2^26, runs/4 at 2^27..2^28, never below min(runs, 10).
  int runs_for(int log) const {
    if (log <= 24) return runs;
    const int shift = (log - 23) / 2;
    return std::max(std::min(runs, 10), runs >> shift);
  }
};

// The help of the shared flags, for each program's usage text: the sizes and types, then
// --from-idle, then the last three.
inline constexpr const char* sizes_and_types_help =
    R"(  --min-log K       smallest size, 2^K elements per input        (default 16)
  --max-log K       largest size, 2^K elements per input         (default 28)
  --log-step S      sizes 2^min-log, 2^(min-log + S), ...        (default 2)
  --logs LIST       comma-separated sizes K, 2^K elements per input, instead of the three
                    above (e.g. 10,12,16,20,24)
  --types LIST      comma-separated: i32, i64, i32:i32, i64:i64  (default i32,i64,i32:i32)
                    (also: int32, int64, int32:int32 or pairs, int64:int64)
)";
inline constexpr const char* from_idle_help =
    R"(  --from-idle       time every row from an idle stream, as the convenience row always is
                    (the host waits for the L2 flush before each run): like for like
                    with the convenience row, for its difference from the two-phase row
)";
inline constexpr const char* graph_help =
    R"(  --graph N         time the two-phase, copy (and CUB) rows as N back-to-back calls
                    captured in one CUDA graph, each sample the graph's time / N: precise
                    where a call takes a few us (L2 not flushed between the N calls)
)";
inline constexpr const char* last_options_help =
    R"(  --warmup N        untimed runs before timing                   (default 3)
  --json FILE       also write every result to FILE (rewritten after each size)
  -h, --help        this text
)";

// Reads the command line into an Options (derived from common_options): the shared flags
// here (sizes up to 2^max_log_limit), the others through `own(opt, flag, next)`, which
// returns false for a flag it does not know; `next()` yields the flag's value (`--flag
// value` or `--flag=value`).
template <class Options, class Own>
Options parse_command_line(int argc, char** argv, const std::string& usage, int max_log_limit, Own own) {
  Options opt;
  opt.command = command_line(argc, argv);
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string value;
    bool has_value = false;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    if (flag == "-h" || flag == "--help") {
      std::fputs(usage.c_str(), stdout);
      std::exit(0);
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw usage_error(fmt::format("{} needs a value", flag));
      return argv[++i];
    };
    if (flag == "--min-log") {
      opt.min_log = parse_int(flag, next(), 1, max_log_limit);
    } else if (flag == "--max-log") {
      opt.max_log = parse_int(flag, next(), 1, max_log_limit);
    } else if (flag == "--log-step") {
      opt.log_step = parse_int(flag, next(), 1, max_log_limit);
    } else if (flag == "--logs") {
      opt.logs.clear();
      for (const std::string& log : split_commas(next())) opt.logs.push_back(parse_int(flag, log, 1, max_log_limit));
      if (opt.logs.empty()) throw usage_error("--logs: empty list");
      std::sort(opt.logs.begin(), opt.logs.end());
      opt.logs.erase(std::unique(opt.logs.begin(), opt.logs.end()), opt.logs.end());
    } else if (flag == "--from-idle") {
      if (has_value) throw usage_error("--from-idle takes no value");
      opt.from_idle = true;
    } else if (flag == "--graph") {
      opt.graph = parse_int(flag, next(), 1, 10000);
    } else if (flag == "--runs") {
      opt.runs = parse_int(flag, next(), 1, 100000);
    } else if (flag == "--warmup") {
      opt.warmup = parse_int(flag, next(), 0, 1000);
    } else if (flag == "--json") {
      opt.json_path = next();
    } else if (flag == "--types") {
      opt.types.clear();
      for (const std::string& t : split_commas(next())) {
        if (t == "i32" || t == "int32") {
          opt.types.push_back(case_kind::keys_i32);
        } else if (t == "i64" || t == "int64") {
          opt.types.push_back(case_kind::keys_i64);
        } else if (t == "i32:i32" || t == "int32:int32" || t == "pairs") {
          opt.types.push_back(case_kind::pairs_i32_i32);
        } else if (t == "i64:i64" || t == "int64:int64") {
          opt.types.push_back(case_kind::pairs_i64_i64);
        } else {
          throw usage_error(fmt::format("--types: unknown type '{}' (i32, i64, i32:i32, i64:i64)", t));
        }
      }
      if (opt.types.empty()) throw usage_error("--types: empty list");
    } else if (!own(opt, flag, next)) {
      throw usage_error(fmt::format("unknown option '{}'", flag));
    }
  }
  if (!opt.logs.empty()) {
    // So the JSON settings' min_log and max_log still bound the sizes run.
    opt.min_log = opt.logs.front();
    opt.max_log = opt.logs.back();
  }
  if (opt.min_log > opt.max_log) throw usage_error("--min-log is larger than --max-log");
  return opt;
}

// A benchmark's main: the options (`parse`), then the run (`run`, which returns the exit
// status). A usage error prints the usage and exits with 2; an exception, its message
// and 1.
template <class Options>
int bench_main(int argc, char** argv, const char* program, const std::string& usage,
               Options (*parse)(int, char**), int (*run)(const Options&)) {
  Options opt;
  try {
    opt = parse(argc, argv);
  } catch (const usage_error& e) {
    fmt::print(stderr, "{}: {}\n\n{}", program, e.what(), usage);
    return 2;
  }
  try {
    return run(opt);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", program, e.what());
    return 1;
  }
}

// ---------------------------------------------------------------------------------------
// The measuring context: stream, events, the L2 flush

struct bench_context {
  cudaStream_t stream = nullptr;
  std::string device_name;
  std::string device_description;  // name, architecture, SMs, L2, memory
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  std::size_t total_memory = 0;
  device_buffer flush_data;
  device_buffer flush_sink;
  std::vector<cudaEvent_t> starts, stops;

  bench_context() = default;
  bench_context(const bench_context&) = delete;
  bench_context& operator=(const bench_context&) = delete;
  ~bench_context() { release(); }

  // Destroys the events and the stream (the buffers go with the context).
  void release() {
    for (cudaEvent_t e : starts) cudaEventDestroy(e);
    for (cudaEvent_t e : stops) cudaEventDestroy(e);
    starts.clear();
    stops.clear();
    if (stream != nullptr) cudaStreamDestroy(stream);
    stream = nullptr;
  }

  void flush_l2() {
    const std::size_t count = flush_data.bytes() / sizeof(uint4);
    read_to_evict_kernel<><<<unsigned(multiprocessors) * 4, 512, 0, stream>>>(flush_data.get<const uint4>(), count,
                                                                               flush_sink.get<unsigned>());
    BENCH_CHECK(cudaPeekAtLastError());
  }

  unsigned grid_for(index_t count) const {
    return unsigned(std::max<index_t>(1, std::min<index_t>((count + 255) / 256, index_t(multiprocessors) * 32)));
  }
};

// Opens device 0 (the current device) for `ctx`: its properties, a non-blocking stream and
// the flush buffer of max(128 MiB, 3 x L2). Returns false, having said why on stderr, when
// the machine has no CUDA GPU.
inline bool open_device(bench_context& ctx, const char* program) {
  int devices = 0;
  const cudaError_t count_status = cudaGetDeviceCount(&devices);
  if (count_status != cudaSuccess || devices == 0) {
    cudaGetLastError();
    fmt::print(stderr, "{}: no CUDA GPU found ({}); this benchmark needs one\n", program,
               count_status != cudaSuccess ? cudaGetErrorString(count_status) : "no device");
    return false;
  }
  int device = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, device));
  ctx.device_name = prop.name;
  ctx.multiprocessors = prop.multiProcessorCount;
  ctx.l2_bytes = std::size_t(prop.l2CacheSize);
  ctx.total_memory = prop.totalGlobalMem;
  ctx.device_description = fmt::format("{} (sm_{}{}, {} SMs, L2 {:.0f} MiB, {:.1f} GiB)", prop.name, prop.major,
                                       prop.minor, prop.multiProcessorCount, ctx.l2_bytes / (1024.0 * 1024.0),
                                       ctx.total_memory / gib);
  BENCH_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
  ctx.flush_data = device_buffer(std::max<std::size_t>(std::size_t(128) << 20, 3 * ctx.l2_bytes));
  ctx.flush_sink = device_buffer(sizeof(unsigned));
  BENCH_CHECK(cudaMemset(ctx.flush_data.get(), 0, ctx.flush_data.bytes()));
  return true;
}

struct timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int runs = 0;
  int graph_calls = 0;  // each run: this many calls in one graph, times per call (0: one call)
};

// A CUDA graph of calls captured from a stream, for measure's --graph mode.
class captured_graph {
 public:
  captured_graph() = default;
  captured_graph(const captured_graph&) = delete;
  captured_graph& operator=(const captured_graph&) = delete;
  ~captured_graph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }

  // Captures `enqueue(0)`, ..., `enqueue(calls - 1)` on `stream`. Thread-local capture mode:
  // a call that synchronizes or allocates fails the capture instead of running outside it.
  template <class Enqueue>
  void capture(cudaStream_t stream, int calls, Enqueue&& enqueue) {
    BENCH_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      for (int call = 0; call < calls; ++call) enqueue(call);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph_);  // ends the invalidated capture
      cudaGetLastError();
      throw;
    }
    BENCH_CHECK(cudaStreamEndCapture(stream, &graph_));
    BENCH_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }

  void launch(cudaStream_t stream) const { BENCH_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// The median, minimum and maximum of some runs' times (at least one).
inline timing summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const std::size_t runs = ms.size();
  timing result;
  result.runs = int(runs);
  result.min_ms = ms.front();
  result.max_ms = ms.back();
  result.median_ms = runs % 2 == 1 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
  return result;
}

// Enqueues warm-up runs, then timed runs each preceded by an untimed flush, then reads the
// events once. graph_calls > 0: each timed run is one launch of a CUDA graph that holds
// `graph_calls` runs back to back (captured once after the warm-up, rotating over the sets),
// and its time is divided by graph_calls: a lone launch of a few us varies by more than
// the differences looked for, and in a graph the launch gaps go too. `run` must then be
// capturable (no synchronization, no allocation). `run(set)` enqueues one run on ctx.stream using buffer set `set`.
// from_idle: the host waits for the flush before each run, so the run starts on an idle
// stream, as a lone call does. Otherwise the host enqueues a run while the flush still
// executes, and whatever the call does on the host before its first launch (a query, an
// allocation) hides behind the flush (tens of us), outside the events.
template <class Run>
timing measure(bench_context& ctx, int sets, int warmup, int runs, Run&& run, bool from_idle = false,
               int graph_calls = 0) {
  if (int(ctx.starts.size()) < runs) {
    const std::size_t have = ctx.starts.size();
    ctx.starts.resize(runs);
    ctx.stops.resize(runs);
    for (std::size_t r = have; r < std::size_t(runs); ++r) {
      BENCH_CHECK(cudaEventCreate(&ctx.starts[r]));
      BENCH_CHECK(cudaEventCreate(&ctx.stops[r]));
    }
  }
  auto flush = [&] {
    ctx.flush_l2();
    if (from_idle) BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
  };
  for (int w = 0; w < warmup; ++w) {
    flush();
    run(w % sets);
  }
  captured_graph graph;
  if (graph_calls > 0) {
    graph.capture(ctx.stream, graph_calls, [&](int call) { run(call % sets); });
    graph.launch(ctx.stream);  // untimed: the first launch uploads the graph
  }
  for (int r = 0; r < runs; ++r) {
    flush();
    BENCH_CHECK(cudaEventRecord(ctx.starts[r], ctx.stream));
    if (graph_calls > 0) graph.launch(ctx.stream); else run(r % sets);
    BENCH_CHECK(cudaEventRecord(ctx.stops[r], ctx.stream));
  }
  BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
  std::vector<double> ms(runs);
  for (int r = 0; r < runs; ++r) {
    float t = 0;
    BENCH_CHECK(cudaEventElapsedTime(&t, ctx.starts[r], ctx.stops[r]));
    ms[r] = graph_calls > 0 ? double(t) / graph_calls : t;
  }
  timing result = summarize(std::move(ms));
  result.graph_calls = graph_calls;
  return result;
}

// The device's copy bandwidth: a large device-to-device copy, read plus write counted.
inline double measure_copy_peak(bench_context& ctx) {
  const std::size_t bytes = std::size_t(1) << 30;
  try {
    device_buffer source(bytes);
    device_buffer destination(bytes);
    BENCH_CHECK(cudaMemsetAsync(source.get(), 1, bytes, ctx.stream));
    auto run = [&](int) {
      BENCH_CHECK(cudaMemcpyAsync(destination.get(), source.get(), bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    };
    const timing t = measure(ctx, 1, 3, 20, run);
    return 2.0 * double(bytes) / (t.median_ms * 1e6);
  } catch (const device_memory_exhausted&) {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------
// Inputs and outputs of one case: the buffers and their random sorted keys

struct no_values {};

// Calls `f(Key{}, Value{})` with the key and value types of `kind` (Value no_values for
// keys only).
template <class F>
void with_case_types(case_kind kind, F&& f) {
  switch (kind) {
    case case_kind::keys_i32: f(std::int32_t{}, no_values{}); break;
    case case_kind::keys_i64: f(std::int64_t{}, no_values{}); break;
    case case_kind::pairs_i32_i32: f(std::int32_t{}, std::int32_t{}); break;
    case case_kind::pairs_i64_i64: f(std::int64_t{}, std::int64_t{}); break;
  }
}

// One buffer set. Input: [A keys | B keys | A values | B values]; output: [keys | values],
// room for m + n elements. The copy row copies the input block onto the output block.
template <class Key, class Value>
struct buffer_set {
  static constexpr bool with_values = !std::is_same_v<Value, no_values>;
  static constexpr std::size_t element_bytes = sizeof(Key) + (with_values ? sizeof(Value) : 0);

  index_t m = 0;
  index_t n = 0;
  device_buffer input;
  device_buffer output;

  static std::size_t block_bytes(index_t m, index_t n) { return std::size_t(m + n) * element_bytes; }

  buffer_set() = default;
  // The reference set has no input block of its own.
  buffer_set(index_t m_, index_t n_, bool with_input = true)
      : m(m_), n(n_), input(with_input ? block_bytes(m_, n_) : 0), output(block_bytes(m_, n_)) {}

  Key* a_keys() const { return input.get<Key>(); }
  Key* b_keys() const { return a_keys() + m; }
  Value* a_values() const { return reinterpret_cast<Value*>(input.get<char>() + std::size_t(m + n) * sizeof(Key)); }
  Value* b_values() const { return a_values() + m; }
  Key* out_keys() const { return output.get<Key>(); }
  Value* out_values() const {
    return reinterpret_cast<Value*>(output.get<char>() + std::size_t(m + n) * sizeof(Key));
  }

  // Overwrites the output block with a pattern, so that a run that writes nothing fails
  // its check.
  void poison_output(cudaStream_t stream) const {
    BENCH_CHECK(cudaMemsetAsync(output.get(), 0x5a, output.bytes(), stream));
  }
};

// Fresh random sorted keys, different for A and B (see random_keys_kernel for `range`):
// hashed into the output block (free now), then radix-sorted into the input block. Values:
// the element's origin.
template <class Key, class Value>
void generate_inputs(bench_context& ctx, const buffer_set<Key, Value>& set, std::uint64_t seed,
                     std::uint64_t range = 0) {
  device_buffer sort_temp(sort_temp_bytes<Key>(std::max(set.m, set.n)));
  Key* scratch = set.out_keys();
  const struct {
    Key* keys;
    index_t count;
  } sides[] = {{set.a_keys(), set.m}, {set.b_keys(), set.n}};
  std::uint64_t side_seed = seed;
  for (const auto& side : sides) {
    side_seed = splitmix64(side_seed);
    random_keys_kernel<<<ctx.grid_for(side.count), 256, 0, ctx.stream>>>(scratch, side.count, side_seed, range);
    BENCH_CHECK(cudaPeekAtLastError());
    std::size_t bytes = sort_temp.bytes();
    BENCH_CHECK(cub::DeviceRadixSort::SortKeys(sort_temp.get(), bytes, static_cast<const Key*>(scratch), side.keys,
                                               side.count, 0, int(sizeof(Key) * 8), ctx.stream));
  }
  if constexpr (buffer_set<Key, Value>::with_values) {
    origin_values_kernel<<<ctx.grid_for(set.m), 256, 0, ctx.stream>>>(set.a_values(), set.m, index_t(0));
    BENCH_CHECK(cudaPeekAtLastError());
    origin_values_kernel<<<ctx.grid_for(set.n), 256, 0, ctx.stream>>>(set.b_values(), set.n, set.m);
    BENCH_CHECK(cudaPeekAtLastError());
  }
  BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
}

// A case's device memory: the buffer sets its runs rotate over, all with the same inputs,
// and the reference implementation's output block.
template <class Key, class Value>
struct case_buffers {
  using set_type = buffer_set<Key, Value>;

  index_t m = 0;
  index_t n = 0;
  // Two sets while a run's working set (input + output) could stay in L2, else one.
  int count = 1;
  std::vector<set_type> sets;
  set_type reference;  // output block only

  case_buffers(const bench_context& ctx, index_t m_, index_t n_)
      : m(m_), n(n_), count(2 * set_type::block_bytes(m_, n_) <= 2 * ctx.l2_bytes ? 2 : 1) {}

  // Why the case cannot run, or "" if it can. At its peak it holds its sets, the
  // reference's block, the sort's temporary storage (generate_inputs), twice `temp_bytes`
  // (its own temporary storage, and room for Thrust's) and 256 MiB to spare.
  std::string shortfall(std::size_t temp_bytes) const {
    const std::size_t block = set_type::block_bytes(m, n);
    const std::size_t needed = std::size_t(count) * 2 * block + block + sort_temp_bytes<Key>(m) + 2 * temp_bytes +
                               (std::size_t(256) << 20);
    std::size_t free_bytes = 0, total_bytes = 0;
    BENCH_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (needed <= free_bytes) return "";
    return fmt::format("needs about {:.1f} GiB of device memory, {:.1f} GiB free", needed / gib, free_bytes / gib);
  }

  // Throws device_memory_exhausted when cudaMalloc fails for lack of memory.
  void allocate() {
    for (int s = 0; s < count; ++s) sets.emplace_back(m, n);
    reference = set_type(m, n, false);
  }

  // Fresh inputs in set 0 (generate_inputs), copied into the other sets.
  void generate_inputs(bench_context& ctx, std::uint64_t seed, std::uint64_t range) {
    corank_bench::generate_inputs(ctx, sets[0], seed, range);
    for (int s = 1; s < count; ++s) {
      BENCH_CHECK(cudaMemcpyAsync(sets[s].input.get(), sets[0].input.get(), sets[0].input.bytes(),
                                  cudaMemcpyDeviceToDevice, ctx.stream));
    }
    BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
  }
};

// ---------------------------------------------------------------------------------------
// Checking outputs on the device

template <class T>
T read_element(const T* p) {
  T value{};
  BENCH_CHECK(cudaMemcpy(&value, p, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

// Index of the first difference, or `count` (device-side, on `stream`).
template <class T>
index_t first_difference(const T* got, const T* expected, index_t count, cudaStream_t stream) {
  if (count <= 0) return count;
  const auto result = thrust::mismatch(thrust::cuda::par.on(stream), thrust::device_pointer_cast(got),
                                       thrust::device_pointer_cast(got + count), thrust::device_pointer_cast(expected));
  return index_t(result.first.get() - got);
}

// "OK", or where the first `count` elements of `set`'s output first differ from
// `reference`'s: a key, else a value. `reference_name` names the reference implementation.
template <class Key, class Value>
std::string compare_outputs(const buffer_set<Key, Value>& set, const buffer_set<Key, Value>& reference,
                            index_t count, const char* reference_name, cudaStream_t stream) {
  const index_t key_at = first_difference<Key>(set.out_keys(), reference.out_keys(), count, stream);
  if (key_at != count) {
    return fmt::format("FAIL: key {} of {} is {}, {} has {}", key_at, count, read_element(set.out_keys() + key_at),
                       reference_name, read_element(reference.out_keys() + key_at));
  }
  if constexpr (buffer_set<Key, Value>::with_values) {
    const index_t value_at = first_difference<Value>(set.out_values(), reference.out_values(), count, stream);
    if (value_at != count) {
      return fmt::format("FAIL: value {} of {} is {}, {} has {} (key {})", value_at, count,
                         read_element(set.out_values() + value_at), reference_name,
                         read_element(reference.out_values() + value_at), read_element(set.out_keys() + value_at));
    }
  }
  return "OK";
}

// Whether the first `count` keys of `set`'s output are sorted.
template <class Key, class Value>
bool keys_sorted(const buffer_set<Key, Value>& set, index_t count, cudaStream_t stream) {
  const auto keys = thrust::device_pointer_cast(set.out_keys());
  return thrust::is_sorted(thrust::cuda::par.on(stream), keys, keys + count);
}

// Whether the first `count` elements of `set`'s output are sorted by (key, value), true
// without values. The values being origins (origin_values_kernel): whether the copies of
// each key are in input order, A's before B's.
template <class Key, class Value>
bool in_input_order(const buffer_set<Key, Value>& set, index_t count, cudaStream_t stream) {
  if constexpr (buffer_set<Key, Value>::with_values) {
    const auto keys = thrust::device_pointer_cast(set.out_keys());
    const auto values = thrust::device_pointer_cast(set.out_values());
    const auto first = thrust::make_zip_iterator(thrust::make_tuple(keys, values));
    return thrust::is_sorted(thrust::cuda::par.on(stream), first, first + count);
  } else {
    return true;
  }
}

}  // namespace corank_bench
