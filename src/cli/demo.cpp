// corank demo: merge two generated sorted columns with corank on the GPU (or the CPU
// backend), time it against a copy of the same bytes, and check it against std::merge.

#include "arguments.hpp"
#include "commands.hpp"
#include "column.hpp"
#include "cuda_devices.hpp"
#include "demo.hpp"

#include <corank/error.hpp>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <new>
#include <string>
#include <type_traits>

namespace corank::cli {

void print_demo_usage(std::FILE* stream) {
  fmt::print(stream, R"(usage: corank demo [options]

Generates two sorted columns of N random keys each, merges them with corank, checks the
result element by element against std::merge on the CPU, and prints the time, the
bandwidth (inputs read + output written) and the fraction of a copy of the same bytes.

options:
  --n N                 keys per column (default 100000000); also 100M, 1e8, 2^27
  --type int32|int64    key type (default int32)
  --device auto|gpu|cpu where to merge (default auto: the GPU if CUDA finds one, else
                        the CPU backend)
  --strategy automatic|naive|tiled|circular|partitioned
                        the GPU kernel (default automatic)
  --seed S              seed of the keys (default 1); the same seed gives the same
                        columns on the GPU and on the CPU
  --runs R              timed runs, median reported, after one warm-up (default 5)
  --threads T           CPU backend threads (default 0: all hardware threads)
  --gpu-memory BYTES    stream the columns from host memory through the GPU using at most
                        this much of its memory (corank::streamed_merge), e.g. 2G, 2^30;
                        the GPU run streams by itself when inputs and output do not fit on
                        the GPU. Streamed runs are timed against copying the same bytes
                        to and from the GPU at once, at the rates measured in the run.
  -h, --help            this text

exit status: 0 when the check passes, 1 on a mismatch or an error (out of memory, CUDA),
2 for a wrong command line.
)");
}

namespace {

demo_options parse_demo_options(int argc, char** argv, bool& help) {
  demo_options options;
  argument_reader args(argc, argv,
                       {{"--n", nullptr, 1}, {"--type", nullptr, 1}, {"--device", nullptr, 1},
                        {"--strategy", nullptr, 1}, {"--seed", nullptr, 1}, {"--runs", nullptr, 1},
                        {"--threads", nullptr, 1}, {"--gpu-memory", nullptr, 1}});
  while (args.next()) {
    if (args.is_help()) {
      help = true;
    } else if (args.is("--n")) {
      options.keys_per_column = parse_count(args.name(), args.value(), 1, index_t(1) << 40);
    } else if (args.is("--type")) {
      options.key_type = parse_choice(args.name(), args.value(), {"int32", "int64"}) == "int32"
                             ? demo_key_type::int32
                             : demo_key_type::int64;
    } else if (args.is("--device")) {
      const std::string device = parse_choice(args.name(), args.value(), {"auto", "gpu", "cpu"});
      options.device = device == "gpu" ? demo_device::gpu : device == "cpu" ? demo_device::cpu : demo_device::automatic;
    } else if (args.is("--strategy")) {
      const std::string name =
          parse_choice(args.name(), args.value(), {"automatic", "naive", "tiled", "circular", "partitioned"});
      options.strategy = name == "naive"         ? corank::strategy::naive
                         : name == "tiled"       ? corank::strategy::tiled
                         : name == "circular"    ? corank::strategy::circular
                         : name == "partitioned" ? corank::strategy::partitioned
                                                 : corank::strategy::automatic;
      options.strategy_given = true;
    } else if (args.is("--seed")) {
      options.seed = parse_unsigned(args.name(), args.value());
    } else if (args.is("--runs")) {
      options.runs = int(parse_count(args.name(), args.value(), 1, 1000));
    } else if (args.is("--threads")) {
      const std::uint64_t threads = parse_unsigned(args.name(), args.value());
      if (threads > 4096) throw usage_error(fmt::format("--threads: {} is more than 4096", threads));
      options.threads = unsigned(threads);
    } else if (args.is("--gpu-memory")) {
      options.gpu_memory = std::size_t(parse_count(args.name(), args.value(), 1, index_t(1) << 50));
    } else {
      throw usage_error(fmt::format("unexpected argument '{}'", args.name()));
    }
  }
  return options;
}

struct table_row {
  std::string operation;
  double ms = 0;
  double percent_of_copy = -1;  // negative: not shown
  std::string check;
};

template <class Key>
int run_typed(const demo_options& options, bool on_gpu) {
  const char* type_name = std::is_same_v<Key, std::int32_t> ? "int32" : "int64";
  const index_t n = options.keys_per_column;
  const index_t total = 2 * n;
  const double bytes = 2.0 * double(total) * sizeof(Key);  // inputs read + output written

  fmt::print("corank demo: stable merge of two sorted {} columns of {} keys each\n", type_name, n);
  std::fflush(stdout);
  const demo_run<Key> run = on_gpu ? run_demo_on_gpu<Key>(options) : run_demo_on_cpu<Key>(options);

  // The reference: std::merge on one CPU thread, then an element-wise comparison.
  std::vector<Key> expected(static_cast<std::size_t>(total));
  const auto start = std::chrono::steady_clock::now();
  std::merge(run.input.begin(), run.input.begin() + n, run.input.begin() + n, run.input.end(), expected.begin());
  const double reference_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const auto difference = std::mismatch(run.output.begin(), run.output.end(), expected.begin());
  const index_t mismatch_at = index_t(difference.first - run.output.begin());
  const bool ok = run.output.size() == expected.size() && mismatch_at == total;

  // Below this many bytes moved, launch and call overheads are the time: a rate or a
  // ratio would say nothing about the merge.
  constexpr double min_timed_bytes = 16e6;
  const bool timed = bytes >= min_timed_bytes;
  const std::vector<table_row> rows = {
      {run.copy.operation, run.copy.median_ms, 100.0, "-"},
      {run.merge.operation, run.merge.median_ms, 100.0 * run.copy.median_ms / run.merge.median_ms,
       ok ? "OK" : "MISMATCH"},
      {"std::merge (1 CPU thread)", reference_ms, -1, "reference"},
  };
  fmt::print("{}\n{}\n\n", run.where, run.timing_method);
  fmt::print("{:<36} {:>12} {:>11} {:>9} {:>10}  {}\n", "operation", "elements", "time ms", "GB/s", "% of copy",
             "check");
  for (const table_row& row : rows) {
    const std::string rate = timed ? fmt::format("{:.1f}", bytes / (row.ms * 1e6)) : "-";
    const std::string percent = timed && row.percent_of_copy >= 0 ? fmt::format("{:.1f}", row.percent_of_copy) : "-";
    fmt::print("{:<36} {:>12} {:>11.3f} {:>9} {:>10}  {}\n", row.operation, total, row.ms, rate, percent, row.check);
  }
  if (!timed) {
    fmt::print("\nnote: {} moved is too little to time: GB/s and % of copy are shown from {} (--n {} for {})\n",
               format_bytes(bytes), format_bytes(min_timed_bytes),
               index_t(min_timed_bytes / (4.0 * sizeof(Key))), type_name);
  }
  fmt::print("\n");
  if (ok) {
    fmt::print("check: OK ({} keys equal std::merge's)\n", total);
    return exit_ok;
  }
  if (run.output.size() != expected.size()) {
    fmt::print("check: MISMATCH: {} keys, std::merge has {}\n", run.output.size(), expected.size());
  } else {
    fmt::print("check: MISMATCH at index {} (corank wrote {}, std::merge has {})\n", mismatch_at,
               run.output[std::size_t(mismatch_at)], expected[std::size_t(mismatch_at)]);
  }
  return exit_failure;
}

}  // namespace

int run_demo(int argc, char** argv) {
  bool help = false;
  const demo_options options = parse_demo_options(argc, argv, help);
  if (help) {
    print_demo_usage(stdout);
    return exit_ok;
  }

  bool on_gpu = false;
  if (options.device != demo_device::cpu) {
    std::string reason;
    on_gpu = cuda_device_count(reason) > 0;
    if (!on_gpu && options.device == demo_device::gpu) {
      fmt::print(stderr, "corank demo: --device gpu, but no CUDA GPU found ({}); use --device cpu or auto\n", reason);
      return exit_failure;
    }
    if (!on_gpu) {
      fmt::print("no CUDA GPU found; running on the CPU backend\n");
      if (reason != "no device") fmt::print("  (the CUDA runtime said: {})\n", reason);
    }
  }
  if (!on_gpu && options.strategy_given) {
    fmt::print("note: --strategy chooses a GPU kernel; the CPU backend has a single one\n");
  }
  if (!on_gpu && options.gpu_memory != 0) {
    fmt::print("note: --gpu-memory caps the GPU's memory; the CPU backend works in host memory\n");
  }

  const std::size_t key_bytes = options.key_type == demo_key_type::int32 ? 4 : 8;
  const double gib = double(options.keys_per_column) * key_bytes / (1024.0 * 1024.0 * 1024.0);
  try {
    return options.key_type == demo_key_type::int32 ? run_typed<std::int32_t>(options, on_gpu)
                                                    : run_typed<std::int64_t>(options, on_gpu);
  } catch (const corank::out_of_memory& e) {
    // Inputs and output on the device: 4 columns' worth.
    fmt::print(stderr,
               "corank demo: out of GPU memory: {}\n  --n {} needs about {:.1f} GiB on the GPU; try a smaller --n, "
               "--gpu-memory to stream from host memory, or --device cpu\n",
               e.what(), options.keys_per_column, 4 * gib);
    return exit_failure;
  } catch (const corank::cuda_error& e) {
    fmt::print(stderr, "corank demo: CUDA error: {}\n", e.what());
    return exit_failure;
  } catch (const std::bad_alloc&) {
    // Inputs, output and the std::merge reference on the host: 6 columns' worth.
    fmt::print(stderr, "corank demo: out of host memory: --n {} needs about {:.1f} GiB of RAM; try a smaller --n\n",
               options.keys_per_column, 6 * gib);
    return exit_failure;
  }
}

}  // namespace corank::cli
