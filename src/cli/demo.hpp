#pragma once
// corank demo, split by backend: demo.cpp parses options, picks the device, checks the
// result against std::merge and prints the table; demo_gpu.cu and demo_cpu.cpp generate
// the columns, time a copy and the merge, and hand back the inputs and the output. On the
// GPU, columns that do not fit (or a --gpu-memory cap) stream from host memory, timed
// against the host<->device copies of the same bytes.

#include <corank/config.hpp>
#include <corank/strategy.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace corank::cli {

enum class demo_device { automatic, gpu, cpu };
enum class demo_key_type { int32, int64 };

struct demo_options {
  index_t keys_per_column = 100'000'000;
  demo_device device = demo_device::automatic;
  demo_key_type key_type = demo_key_type::int32;
  corank::strategy strategy = corank::default_strategy;
  bool strategy_given = false;
  std::uint64_t seed = 1;
  int runs = 5;          // timed runs; one warm-up run comes first
  unsigned threads = 0;  // CPU backend threads; 0: all hardware threads
  // GPU: stream the columns from host memory through at most this many bytes of the GPU
  // (corank::streamed_merge); 0: stream only when inputs and output do not fit on it.
  std::size_t gpu_memory = 0;
};

struct demo_timing {
  std::string operation;
  double median_ms = 0;
};

// What a backend hands back: where it ran, its two timings (a copy of the same bytes, and
// the merge), and the data to check on the host.
template <class Key>
struct demo_run {
  std::string where;
  std::string timing_method;
  demo_timing copy;
  demo_timing merge;
  std::vector<Key> input;   // column A, then column B (keys_per_column each)
  std::vector<Key> output;  // corank's merge of A and B
};

// The backends' columns on the host: A then B, n keys each, one thread per column, and room
// for the output.
template <class Key>
void generate_columns_on_host(demo_run<Key>& run, index_t n, std::uint64_t seed);

template <class Key>
demo_run<Key> run_demo_on_gpu(const demo_options& options);
template <class Key>
demo_run<Key> run_demo_on_cpu(const demo_options& options);

extern template void generate_columns_on_host<std::int32_t>(demo_run<std::int32_t>&, index_t, std::uint64_t);
extern template void generate_columns_on_host<std::int64_t>(demo_run<std::int64_t>&, index_t, std::uint64_t);
extern template demo_run<std::int32_t> run_demo_on_gpu<std::int32_t>(const demo_options&);
extern template demo_run<std::int64_t> run_demo_on_gpu<std::int64_t>(const demo_options&);
extern template demo_run<std::int32_t> run_demo_on_cpu<std::int32_t>(const demo_options&);
extern template demo_run<std::int64_t> run_demo_on_cpu<std::int64_t>(const demo_options&);

}  // namespace corank::cli

namespace corank::cli {

// The median of timed runs, in milliseconds.
inline double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + middle));
}

}  // namespace corank::cli
