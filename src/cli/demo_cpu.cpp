// corank demo on the CPU backend: corank::host::merge across all threads, timed with
// std::chrono against a multithreaded memcpy of the same bytes.

#include "demo.hpp"
#include "demo_keys.hpp"

#include <corank/host/merge.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace corank::cli {
namespace {

// memcpy split over `threads` threads: the CPU's copy roofline for the same bytes.
void parallel_copy(void* destination, const void* source, std::size_t bytes, unsigned threads) {
  const std::size_t chunk = (bytes / threads + 63) / 64 * 64;
  auto copy_piece = [&](unsigned t) {
    const std::size_t begin = std::min(bytes, std::size_t(t) * chunk);
    const std::size_t end = std::min(bytes, begin + chunk);
    std::memcpy(static_cast<char*>(destination) + begin, static_cast<const char*>(source) + begin, end - begin);
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(copy_piece, t);
  copy_piece(0);
  for (std::thread& w : workers) w.join();
}

// One warm-up run (it also faults in the output's pages), then `runs` timed ones.
template <class Work>
double median_ms(int runs, Work work) {
  work();
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return median_of(ms);
}

}  // namespace

template <class Key>
void generate_columns_on_host(demo_run<Key>& run, index_t n, std::uint64_t seed) {
  fmt::print("generating the columns on the CPU (seed {})\n", seed);
  std::fflush(stdout);
  run.input.resize(std::size_t(2 * n));
  run.output.resize(std::size_t(2 * n));
  Key* a = run.input.data();
  std::thread second([&] { generate_column_on_host(a + n, n, column_seed(seed, 1)); });
  generate_column_on_host(a, n, column_seed(seed, 0));
  second.join();
}

template void generate_columns_on_host<std::int32_t>(demo_run<std::int32_t>&, index_t, std::uint64_t);
template void generate_columns_on_host<std::int64_t>(demo_run<std::int64_t>&, index_t, std::uint64_t);

template <class Key>
demo_run<Key> run_demo_on_cpu(const demo_options& options) {
  const index_t n = options.keys_per_column;
  const unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());

  // Like the merge, the copy leaves threads idle rather than give them tiny pieces.
  const std::size_t bytes = std::size_t(2 * n) * sizeof(Key);
  const unsigned copy_threads = unsigned(std::min<std::size_t>(threads, std::max<std::size_t>(1, bytes >> 18)));

  demo_run<Key> run;
  run.where = fmt::format("device: CPU backend (corank::host), {} thread{}", threads, threads == 1 ? "" : "s");
  run.copy.operation = fmt::format("memcpy ({} thread{})", copy_threads, copy_threads == 1 ? "" : "s");
  run.timing_method = fmt::format(
      "time: median of {} runs after 1 warm-up (std::chrono); GB/s counts inputs read + output written; "
      "% of copy is against {} of the same bytes",
      options.runs, run.copy.operation);
  generate_columns_on_host(run, n, options.seed);
  Key* a = run.input.data();
  Key* b = a + n;

  run.copy.median_ms =
      median_ms(options.runs, [&] { parallel_copy(run.output.data(), run.input.data(), bytes, copy_threads); });

  run.merge.operation = fmt::format("corank::host::merge ({} thread{})", threads, threads == 1 ? "" : "s");
  run.merge.median_ms = median_ms(options.runs, [&] {
    corank::host::merge(a, a + n, b, b + n, run.output.data(), corank::less{}, threads);
  });
  return run;
}

template demo_run<std::int32_t> run_demo_on_cpu<std::int32_t>(const demo_options&);
template demo_run<std::int64_t> run_demo_on_cpu<std::int64_t>(const demo_options&);

}  // namespace corank::cli
