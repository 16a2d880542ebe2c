// The merge benchmark: corank's strategies against CUB, Thrust and a device-to-device
// copy of the same bytes, in one process, for int32 keys, int64 keys and int32 keys with
// int32 values (int64 keys with int64 values on request), at 2^16 .. 2^28 elements per
// input (2^1 .. 2^30 can be asked for); corank's convenience form (corank::merge[_by_key])
// beside the two-phase form it wraps; on request also the CPU: a sequential merge and
// corank's CPU backend on every hardware thread (the seeds' evaluation). RESULTS.md has
// the commands and tables, docs/decisions.md what they decided.
//
// How it measures (bench/RESULTS.md, "How the tables are produced"):
//  - bytes = (m + n) * (key [+ value] size) * 2: the inputs read once, the output written
//    once. The copy row moves the same bytes: one cudaMemcpyAsync of (m + n) elements.
//  - every run is bracketed by CUDA events; the table gives the median of the timed runs,
//    after warm-up runs. Before every run, outside the events, a kernel reads a scratch
//    buffer three times the size of L2, so no run finds its data in L2 (and the previous
//    run's dirty output lines are written back then, not inside the next run). Working
//    sets that fit in twice the L2 also rotate over two buffer sets.
//  - every implementation's output is checked once per size against CUB's, after the
//    output buffer was overwritten with a pattern, so a kernel that writes nothing fails.
//    CUB's own output is checked to be sorted (and, with values, stable).
//  - corank's two-phase rows and CUB get preallocated temporary storage. Thrust allocates its
//    own (cudaMalloc/cudaFree) and synchronizes inside every call; that time is part of its
//    measurement, as it is part of a Thrust user's.
//  - the convenience row calls corank::merge[_by_key] as a user does: it allocates and frees
//    its storage stream-ordered and returns without waiting; the stop event follows its
//    kernels. It is timed from idle (harness.hpp, measure): the host waits for the flush, so
//    the call's host time before its first launch is inside the events, not hidden behind
//    the flush. --from-idle times every row so; the line under the convenience row gives its
//    time less the two-phase row of the strategy it resolves to (merge_strategy_for), in us.
//  - the CPU rows merge host copies of the same inputs into a preallocated host vector,
//    timed by the steady clock around each call (threads started inside it included);
//    their caches are not flushed. Their output is checked against CUB's as well.
// The timing, flush, device and copy-bandwidth parts are in harness.hpp, the header,
// tables, JSON file and summary in report.hpp (both shared with set_ops_bench.cu).

#include "harness.hpp"
#include "report.hpp"

#include <corank/host/merge.hpp>
#include <corank/merge.cuh>

#include <cub/device/device_merge.cuh>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/merge.h>

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace corank_bench;

// ---------------------------------------------------------------------------------------
// Options

// convenience after the strategies: its line compares it with rows measured before it.
enum class impl_kind { copy, cub, thrust, naive, tiled, circular, partitioned, convenience, sequential, cpu };
constexpr impl_kind all_impls[] = {impl_kind::copy,        impl_kind::cub,         impl_kind::thrust,
                                   impl_kind::naive,       impl_kind::tiled,       impl_kind::circular,
                                   impl_kind::partitioned, impl_kind::convenience, impl_kind::sequential,
                                   impl_kind::cpu};
// The GPU implementations: the default set.
constexpr impl_kind gpu_impls[] = {impl_kind::copy,        impl_kind::cub,         impl_kind::thrust,
                                   impl_kind::naive,       impl_kind::tiled,       impl_kind::circular,
                                   impl_kind::partitioned, impl_kind::convenience};

bool runs_on_host(impl_kind kind) { return kind == impl_kind::sequential || kind == impl_kind::cpu; }

// The inputs' shape. uniform: keys over the whole range of the type, m = n. duplicates:
// 1024 distinct keys, so each key's run in each input is 2^k / 1024 long (longer than a
// tile from 2^23). skewed: keys as uniform, but B has m / 64 elements.
enum class input_shape { uniform, duplicates, skewed };
constexpr input_shape all_shapes[] = {input_shape::uniform, input_shape::duplicates, input_shape::skewed};

const char* to_string(input_shape shape) {
  switch (shape) {
    case input_shape::uniform: return "uniform";
    case input_shape::duplicates: return "duplicates";
    case input_shape::skewed: return "skewed";
  }
  return "?";
}

const char* to_string(impl_kind kind) {
  switch (kind) {
    case impl_kind::copy: return "copy";
    case impl_kind::cub: return "cub";
    case impl_kind::thrust: return "thrust";
    case impl_kind::naive: return "naive";
    case impl_kind::tiled: return "tiled";
    case impl_kind::circular: return "circular";
    case impl_kind::partitioned: return "partitioned";
    case impl_kind::convenience: return "convenience";
    case impl_kind::sequential: return "sequential";
    case impl_kind::cpu: return "cpu";
  }
  return "?";
}

struct options : common_options {
  options() { runs = 50; }
  std::vector<impl_kind> impls{std::begin(gpu_impls), std::end(gpu_impls)};
  std::vector<input_shape> shapes{input_shape::uniform};
};

// The shared flags' help is in harness.hpp.
const std::string usage_text = std::string(R"(usage: corank_merge_bench [options]

Times a stable merge of two sorted inputs of 2^k elements each: corank (naive, tiled,
circular and partitioned strategies, two-phase API; the convenience form corank::merge[_by_key]),
cub::DeviceMerge, thrust::merge[_by_key] and a device-to-device copy of the same bytes; on
request also a sequential CPU merge and corank's CPU backend (corank::host, every hardware
thread). Outputs are checked against CUB's.

options:
)") + sizes_and_types_help + R"(  --impls LIST      comma-separated: naive, tiled, circular, partitioned, convenience,
                    thrust, sequential, cpu (copy and cub always run: they are the baselines;
                    convenience brings naive and partitioned, which it is compared with)
                    (default: every GPU implementation)
)" + from_idle_help + graph_help + R"(  --shapes LIST     comma-separated: uniform (m = n, keys over the type's range),
                    duplicates (1024 distinct keys), skewed (n = m / 64)
                                                                 (default uniform)
  --runs N          timed runs per measurement; fewer above 2^24:
                    N/2 at 2^25..2^26, N/4 at 2^27..2^28, never below min(N, 10);
                    CPU rows: at most 2^26 / (elements per input), at least 3
                                                                 (default 50)
)" + last_options_help;

options parse_options(int argc, char** argv) {
  return parse_command_line<options>(argc, argv, usage_text, 32, [](options& opt, const std::string& flag, auto next) {
    if (flag == "--shapes") {
      const std::vector<input_shape> chosen = named_items(next(), all_shapes, "--shapes", "shape");
      if (chosen.empty()) throw usage_error("--shapes: empty list");
      opt.shapes = in_order(chosen, all_shapes);
      return true;
    }
    if (flag != "--impls") return false;
    std::vector<impl_kind> chosen{impl_kind::copy, impl_kind::cub};  // the baselines always run
    for (impl_kind kind : named_items(next(), all_impls, "--impls", "implementation")) chosen.push_back(kind);
    // The two-phase strategies the convenience form resolves to (merge_strategy_for).
    if (std::find(chosen.begin(), chosen.end(), impl_kind::convenience) != chosen.end()) {
      chosen.insert(chosen.end(), {impl_kind::naive, impl_kind::partitioned});
    }
    opt.impls = in_order(chosen, all_impls);  // the table's fixed order
    return true;
  });
}

// Timed runs of a CPU row: a sequential merge of 2^30 + 2^30 takes seconds.
int host_runs_for(const options& opt, int log) {
  return log >= 26 ? 3 : std::max(3, std::min(opt.runs, 1 << (26 - log)));
}

// ---------------------------------------------------------------------------------------
// Results: the table's columns and the JSON file's fields (the rest is report.hpp's)

void print_table_header() {
  fmt::print("{:<8} {:<10} {:>4} {:>11}  {:<11} {:>4} {:>11} {:>9} {:>7} {:>7}  {}\n", "type", "shape", "log2",
             "elems/input", "impl", "runs", "median ms", "GB/s", "% copy", "vs CUB", "check");
  std::fflush(stdout);
}

void print_row(const result_row& r) {
  fmt::print("{:<8} {:<10} {:>4} {:>11}  {:<11} {:>4} {:>11.4f} {:>9.1f} {:>7.1f} {:>7.3f}  {}\n", r.type, r.shape,
             r.log, r.elements_per_input, r.impl, r.time.runs, r.time.median_ms, r.gbps, r.percent_of_copy,
             r.ratio_to_reference, r.check.rfind("FAIL", 0) == 0 ? "FAIL (see above)" : r.check);
  std::fflush(stdout);
}

std::string row_json(const result_row& r) {
  return fmt::format(
      "\"type\": {}, \"shape\": {}, \"log2_elements_per_input\": {}, \"elements_per_input\": {}, "
      "\"elements_b\": {}, \"impl\": {}, \"runs\": {}, \"median_ms\": {:.6f}, \"min_ms\": {:.6f}, "
      "\"max_ms\": {:.6f}, \"gbps\": {:.3f}, \"percent_of_copy\": {:.3f}, \"ratio_to_cub\": {:.4f}, "
      "\"check\": {}",
      json_string(r.type), json_string(r.shape), r.log, r.elements_per_input, r.elements_b, json_string(r.impl),
      r.time.runs, r.time.median_ms, r.time.min_ms, r.time.max_ms, r.gbps, r.percent_of_copy, r.ratio_to_reference,
      json_string(r.check));
}

const report_format<result_row> table_format{print_table_header, print_row, row_json,
                                          "\"bytes_formula\": \"(m + n) * (key [+ value] size) * 2\""};

// ---------------------------------------------------------------------------------------
// One case: a key type (with or without values) at one size

template <class Key, class Value>
struct temp_storage {
  device_buffer cub;
  std::size_t cub_bytes = 0;
  device_buffer corank;
  std::size_t corank_bytes = 0;
};

// Enqueues one run of `kind` on `stream`, reading and writing `set`.
template <class Key, class Value>
void enqueue(impl_kind kind, const buffer_set<Key, Value>& set, temp_storage<Key, Value>& temp, cudaStream_t stream) {
  constexpr bool pairs = buffer_set<Key, Value>::with_values;
  const Key* a = set.a_keys();
  const Key* b = set.b_keys();
  const index_t m = set.m;
  const index_t n = set.n;
  switch (kind) {
    case impl_kind::copy:
      BENCH_CHECK(cudaMemcpyAsync(set.output.get(), set.input.get(), set.input.bytes(), cudaMemcpyDeviceToDevice, stream));
      return;
    case impl_kind::cub:
      if constexpr (pairs) {
        check(cub::DeviceMerge::MergePairs(temp.cub.get(), temp.cub_bytes, a, static_cast<const Value*>(set.a_values()), m,
                                           b, static_cast<const Value*>(set.b_values()), n, set.out_keys(),
                                           set.out_values(), ::cuda::std::less<>{}, stream),
              "cub::DeviceMerge::MergePairs");
      } else {
        check(cub::DeviceMerge::MergeKeys(temp.cub.get(), temp.cub_bytes, a, m, b, n, set.out_keys(),
                                          ::cuda::std::less<>{}, stream),
              "cub::DeviceMerge::MergeKeys");
      }
      check(cudaPeekAtLastError(), "cub::DeviceMerge launch");
      return;
    case impl_kind::thrust:
      if constexpr (pairs) {
        thrust::merge_by_key(thrust::cuda::par.on(stream), a, a + m, b, b + n,
                             static_cast<const Value*>(set.a_values()), static_cast<const Value*>(set.b_values()),
                             set.out_keys(), set.out_values());
      } else {
        thrust::merge(thrust::cuda::par.on(stream), a, a + m, b, b + n, set.out_keys());
      }
      return;
    case impl_kind::naive:
    case impl_kind::tiled:
    case impl_kind::circular:
    case impl_kind::partitioned: {
      const corank::strategy strategy = kind == impl_kind::naive      ? corank::strategy::naive
                                        : kind == impl_kind::tiled    ? corank::strategy::tiled
                                        : kind == impl_kind::circular ? corank::strategy::circular
                                                                      : corank::strategy::partitioned;
      if constexpr (pairs) {
        check(corank::device::merge_by_key(temp.corank.get(), temp.corank_bytes, a,
                                           static_cast<const Value*>(set.a_values()), m, b,
                                           static_cast<const Value*>(set.b_values()), n, set.out_keys(),
                                           set.out_values(), corank::less{}, stream, strategy),
              "corank::device::merge_by_key");
      } else {
        check(corank::device::merge(temp.corank.get(), temp.corank_bytes, a, m, b, n, set.out_keys(), corank::less{},
                                    stream, strategy),
              "corank::device::merge");
      }
      return;
    }
    case impl_kind::convenience: {
      // As a user calls it: no storage passed, the default strategy; it throws on failure.
      Key* const out = set.out_keys();
      bool ends_right = false;
      if constexpr (pairs) {
        const auto ends = corank::merge_by_key(a, a + m, b, b + n, static_cast<const Value*>(set.a_values()),
                                               static_cast<const Value*>(set.b_values()), out, set.out_values(),
                                               corank::less{}, stream);
        ends_right = ends.first == out + m + n && ends.second == set.out_values() + m + n;
      } else {
        ends_right = corank::merge(a, a + m, b, b + n, out, corank::less{}, stream) == out + m + n;
      }
      if (!ends_right) throw std::runtime_error("the convenience merge returned a wrong output end");
      return;
    }
  }
}

// The reference must be sorted, and with origin values a stable merge is sorted by
// (key, value) as well.
template <class Key, class Value>
std::string check_reference(const buffer_set<Key, Value>& reference, cudaStream_t stream) {
  const index_t total = reference.m + reference.n;
  if (!keys_sorted(reference, total, stream)) return "FAIL: CUB's keys are not sorted";
  if (!in_input_order(reference, total, stream)) {
    return "FAIL: CUB's merge is not stable (equal keys out of input order)";
  }
  return "OK";
}

// ---------------------------------------------------------------------------------------
// The CPU rows

template <class T>
std::vector<T> copy_to_host(const T* device, index_t count) {
  std::vector<T> host(std::size_t(count), T{});
  BENCH_CHECK(cudaMemcpy(host.data(), device, std::size_t(count) * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Host copies of a buffer set's inputs and of CUB's output, and room for an output.
template <class Key, class Value>
struct host_set {
  static constexpr bool with_values = buffer_set<Key, Value>::with_values;
  using value_type = std::conditional_t<with_values, Value, char>;
  std::vector<Key> a, b, out, reference;
  std::vector<value_type> a_values, b_values, out_values, reference_values;

  host_set(const buffer_set<Key, Value>& set, const buffer_set<Key, Value>& cub_output)
      : a(copy_to_host<Key>(set.a_keys(), set.m)),
        b(copy_to_host<Key>(set.b_keys(), set.n)),
        out(a.size() + b.size()),
        reference(copy_to_host<Key>(cub_output.out_keys(), set.m + set.n)) {
    if constexpr (with_values) {
      a_values = copy_to_host<Value>(set.a_values(), set.m);
      b_values = copy_to_host<Value>(set.b_values(), set.n);
      out_values.resize(out.size());
      reference_values = copy_to_host<Value>(cub_output.out_values(), set.m + set.n);
    }
  }
};

// The sequential merge the seeds start from: one thread, A first among equal keys.
template <class Key, class Value>
void sequential_merge(host_set<Key, Value>& h) {
  if constexpr (!host_set<Key, Value>::with_values) {
    std::merge(h.a.begin(), h.a.end(), h.b.begin(), h.b.end(), h.out.begin());
  } else {
    std::size_t i = 0, j = 0, k = 0;
    const std::size_t m = h.a.size(), n = h.b.size();
    while (i < m && j < n) {
      const bool take_b = h.b[j] < h.a[i];
      h.out[k] = take_b ? h.b[j] : h.a[i];
      h.out_values[k++] = take_b ? h.b_values[j++] : h.a_values[i++];
    }
    for (; i < m; ++i, ++k) h.out[k] = h.a[i], h.out_values[k] = h.a_values[i];
    for (; j < n; ++j, ++k) h.out[k] = h.b[j], h.out_values[k] = h.b_values[j];
  }
}

template <class Key, class Value>
void host_merge(impl_kind kind, host_set<Key, Value>& h) {
  if (kind == impl_kind::sequential) return sequential_merge(h);
  if constexpr (host_set<Key, Value>::with_values) {
    corank::host::merge_by_key(h.a.data(), h.a.data() + h.a.size(), h.b.data(), h.b.data() + h.b.size(),
                               h.a_values.data(), h.b_values.data(), h.out.data(), h.out_values.data());
  } else {
    corank::host::merge(h.a.data(), h.a.data() + h.a.size(), h.b.data(), h.b.data() + h.b.size(), h.out.data());
  }
}

// "OK", or where the host output differs from CUB's.
template <class Key, class Value>
std::string compare_with_reference(const host_set<Key, Value>& h) {
  const auto key = std::mismatch(h.out.begin(), h.out.end(), h.reference.begin());
  if (key.first != h.out.end()) {
    const auto at = key.first - h.out.begin();
    return fmt::format("FAIL: key {} of {} is {}, CUB has {}", at, h.out.size(), *key.first, *key.second);
  }
  if constexpr (host_set<Key, Value>::with_values) {
    const auto value = std::mismatch(h.out_values.begin(), h.out_values.end(), h.reference_values.begin());
    if (value.first != h.out_values.end()) {
      const auto at = value.first - h.out_values.begin();
      return fmt::format("FAIL: value {} of {} is {}, CUB has {}", at, h.out.size(), *value.first, *value.second);
    }
  }
  return "OK";
}

// Times `run()` by the steady clock: warm-up runs, then the timed ones.
template <class Run>
timing measure_host(int warmup, int runs, Run&& run) {
  for (int w = 0; w < warmup; ++w) run();
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return summarize(std::move(ms));
}

template <class Key, class Value>
void run_case(bench_context& ctx, const options& opt, case_kind kind, input_shape shape, int log,
              report<result_row>& rep) {
  using set_type = buffer_set<Key, Value>;
  const std::string type = to_string(kind);
  const index_t m = index_t(1) << log;
  const index_t n = shape == input_shape::skewed ? std::max<index_t>(1, m / 64) : m;
  const double bytes_moved = 2.0 * double(set_type::block_bytes(m, n));
  const int runs = opt.runs_for(log);
  case_buffers<Key, Value> buffers(ctx, m, n);

  auto skip = [&](const std::string& reason) {
    rep.skip({type, to_string(shape), log, reason},
             fmt::format("{:<8} {:<10} {:>4} {:>11}", type, to_string(shape), log, m));
  };

  std::size_t cub_bytes = 0;
  if constexpr (set_type::with_values) {
    BENCH_CHECK(cub::DeviceMerge::MergePairs(nullptr, cub_bytes, static_cast<const Key*>(nullptr),
                                             static_cast<const Value*>(nullptr), m, static_cast<const Key*>(nullptr),
                                             static_cast<const Value*>(nullptr), n, static_cast<Key*>(nullptr),
                                             static_cast<Value*>(nullptr), ::cuda::std::less<>{}, ctx.stream));
  } else {
    BENCH_CHECK(cub::DeviceMerge::MergeKeys(nullptr, cub_bytes, static_cast<const Key*>(nullptr), m,
                                            static_cast<const Key*>(nullptr), n, static_cast<Key*>(nullptr),
                                            ::cuda::std::less<>{}, ctx.stream));
  }
  // Room for CUB's temporary storage, and as much again for Thrust's.
  if (const std::string shortfall = buffers.shortfall(cub_bytes); !shortfall.empty()) return skip(shortfall);

  temp_storage<Key, Value> temp;
  try {
    buffers.allocate();
    // At least one byte each: a null temporary pointer would turn a run into a size query.
    temp.cub_bytes = std::max<std::size_t>(cub_bytes, 1);
    temp.cub = device_buffer(temp.cub_bytes);
    // The two-phase protocol: a null pointer asks for the size, per strategy.
    for (const corank::strategy strategy :
         {corank::strategy::naive, corank::strategy::tiled, corank::strategy::circular,
          corank::strategy::partitioned}) {
      std::size_t bytes = 0;
      const set_type& s0 = buffers.sets[0];
      if constexpr (set_type::with_values) {
        BENCH_CHECK(corank::device::merge_by_key(nullptr, bytes, static_cast<const Key*>(s0.a_keys()),
                                                 static_cast<const Value*>(s0.a_values()), m,
                                                 static_cast<const Key*>(s0.b_keys()),
                                                 static_cast<const Value*>(s0.b_values()), n, s0.out_keys(),
                                                 s0.out_values(), corank::less{}, ctx.stream, strategy));
      } else {
        BENCH_CHECK(corank::device::merge(nullptr, bytes, static_cast<const Key*>(s0.a_keys()), m,
                                          static_cast<const Key*>(s0.b_keys()), n, s0.out_keys(), corank::less{},
                                          ctx.stream, strategy));
      }
      temp.corank_bytes = std::max(temp.corank_bytes, std::max<std::size_t>(bytes, 1));
    }
    temp.corank = device_buffer(temp.corank_bytes);
    buffers.generate_inputs(
        ctx, 0x5eed0000ull + std::uint64_t(shape) * 4096 + std::uint64_t(kind) * 64 + std::uint64_t(log),
        shape == input_shape::duplicates ? 1024 : 0);
  } catch (const device_memory_exhausted& e) {
    return skip(e.what());
  }
  const set_type& reference = buffers.reference;
  {
    // The reference: CUB's merge of set 0's inputs.
    const set_type& s0 = buffers.sets[0];
    const Key* a = s0.a_keys();
    const Key* b = s0.b_keys();
    if constexpr (set_type::with_values) {
      BENCH_CHECK(cub::DeviceMerge::MergePairs(temp.cub.get(), temp.cub_bytes, a,
                                               static_cast<const Value*>(s0.a_values()), m, b,
                                               static_cast<const Value*>(s0.b_values()), n, reference.out_keys(),
                                               reference.out_values(), ::cuda::std::less<>{}, ctx.stream));
    } else {
      BENCH_CHECK(cub::DeviceMerge::MergeKeys(temp.cub.get(), temp.cub_bytes, a, m, b, n, reference.out_keys(),
                                              ::cuda::std::less<>{}, ctx.stream));
    }
    BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
  }
  const std::string reference_check = check_reference(reference, ctx.stream);
  if (reference_check != "OK") rep.fail(fmt::format("{} {} 2^{}: cub", type, to_string(shape), log), reference_check);

  // One GPU run of `impl` on set 0, its output poisoned first, checked against the
  // reference; the copy row is not checked.
  auto check_run = [&](impl_kind impl) -> std::string {
    if (impl == impl_kind::copy) return "-";
    buffers.sets[0].poison_output(ctx.stream);
    enqueue(impl, buffers.sets[0], temp, ctx.stream);
    BENCH_CHECK(cudaStreamSynchronize(ctx.stream));
    if (impl == impl_kind::cub && reference_check != "OK") return reference_check;
    return compare_outputs(buffers.sets[0], reference, m + n, "CUB", ctx.stream);
  };

  // Measures one implementation: verify once, then time.
  std::unique_ptr<host_set<Key, Value>> host;  // made for the first CPU row
  auto measure_impl = [&](impl_kind impl) {
    result_row row(type, to_string(shape), log, m, n, to_string(impl));
    auto run = [&](int s) { enqueue(impl, buffers.sets[std::size_t(s)], temp, ctx.stream); };
    try {
      if (runs_on_host(impl)) {
        if (!host) host = std::make_unique<host_set<Key, Value>>(buffers.sets[0], reference);
        std::fill(host->out.begin(), host->out.end(), Key(0x5a5a5a5a));
        host_merge(impl, *host);  // also the warm-up
        row.check = compare_with_reference(*host);
        row.time = measure_host(0, host_runs_for(opt, log), [&] { host_merge(impl, *host); });
      } else {
        row.check = check_run(impl);
        row.from_idle = opt.from_idle || impl == impl_kind::convenience;
        // Thrust and the convenience form synchronize: they cannot be captured in a graph.
        const bool capturable = impl != impl_kind::thrust && impl != impl_kind::convenience;
        row.time = measure(ctx, buffers.count, opt.warmup, runs, run, row.from_idle, capturable ? opt.graph : 0);
      }
      row.gbps = bytes_moved / (row.time.median_ms * 1e6);
    } catch (const corank::out_of_memory& e) {  // a std::bad_alloc, but of the device
      row.check = fmt::format("FAIL: out of memory: {}", e.what());
    } catch (const std::bad_alloc&) {
      row.check = "FAIL: out of host memory";
    } catch (...) {
      row.check = failed_check();
    }
    // A bad reference was reported and counted above.
    if (row.check.rfind("FAIL", 0) == 0 && !(impl == impl_kind::cub && row.check == reference_check)) {
      rep.fail(fmt::format("{} {} 2^{}: {}", type, to_string(shape), log, row.impl), row.check);
    }
    return row;
  };

  // The convenience form's row is compared with the strategy it resolves to.
  const corank::strategy resolved = corank::merge_strategy_for(corank::default_strategy, m, n, set_type::with_values);
  rep.add_case_rows(opt.impls, impl_kind::copy, impl_kind::cub, measure_impl, corank::to_string(resolved));
}

void print_method(const options& opt, const bench_context& ctx) {
  fmt::print(
      "{} GB/s = (m + n) x (key [+ value] bytes) x 2 / time. % copy = copy time\n"
      "         / time, for a copy of the same bytes. vs CUB = CUB time / time (above 1: faster than CUB).\n"
      "         corank (two-phase API) and CUB use preallocated temporary storage; Thrust allocates its own and\n"
      "         synchronizes inside each call, which is in its time. Outputs checked against CUB once per size.\n"
      "         convenience: corank::merge[_by_key] as a user calls it (allocates and frees on the stream; its\n"
      "         kernels' completion is in its time), timed from idle: the host waits for the flush before each\n"
      "         run, so the call's host time before its first launch is in the time. {}\n"
      "         The line under it: its time less the two-phase row of the strategy it resolves to, in us.\n"
      "         CPU rows (sequential, cpu): host copies of the inputs, steady-clock time of each call, caches\n"
      "         not flushed; cpu = corank::host on {} hardware threads.\n"
      "inputs:  uniform: m = n, keys over the type's whole range; duplicates: m = n, 1024 distinct keys (runs\n"
      "         of m / 1024 per key and input); skewed: n = m / 64. elems/input is m. Sorted on the device.\n\n",
      timing_method(opt, ctx), from_idle_method(opt), std::thread::hardware_concurrency());
  std::fflush(stdout);
}

int run_bench(const options& opt) {
  bench_context ctx;
  report<result_row> rep(opt, ctx, table_format);
  if (!rep.begin("corank_merge_bench", "corank merge benchmark")) return 1;
  print_method(opt, ctx);
  for (input_shape shape : opt.shapes) {
    for (case_kind kind : opt.types) {
      rep.run_table(kind, [&](auto key, auto value, int log) {
        run_case<decltype(key), decltype(value)>(ctx, opt, kind, shape, log, rep);
      });
    }
  }
  return rep.end("CUB");
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(argc, argv, "corank_merge_bench", usage_text, parse_options, run_bench);
}
