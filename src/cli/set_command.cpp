// corank merge | union | intersect | diff | symdiff: a set operation on two sorted .npy
// columns (and optionally their values), on the GPU or the CPU backend.
//
// Order of work, so that a mistake costs nothing: the command line, then the outputs
// (refused if they exist, temporary files created, so an unwritable directory shows now),
// then every input's header (dtypes, shapes, lengths), then the device, and only then the
// data is read, checked, processed and written.

#include "arguments.hpp"
#include "atomic_output.hpp"
#include "column.hpp"
#include "commands.hpp"
#include "cuda_devices.hpp"
#include "npy.hpp"
#include "set_job.hpp"

#include <corank/error.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace corank::cli {
namespace {

struct set_command_info {
  const char* name;     // the subcommand
  set_operation operation;
  const char* library;  // the corank function it runs
  const char* rule;     // what it writes, for the usage
};

constexpr set_command_info merge_info{
    "merge", set_operation::merge, "corank::merge",
    "The stable merge of two sorted columns: every key of A and of B, m + n in all;\n"
    "among equal keys A's come first, each side in its input order."};
constexpr set_command_info union_info{
    "union", set_operation::set_union, "corank::set_union",
    "The multiset union of two sorted columns: a key present a times in A and b times in B\n"
    "is written max(a, b) times: A's copies, then B's last b - a."};
constexpr set_command_info intersect_info{
    "intersect", set_operation::set_intersection, "corank::set_intersection",
    "The multiset intersection of two sorted columns: a key present a times in A and b times\n"
    "in B is written min(a, b) times, A's copies (with A's values)."};
constexpr set_command_info diff_info{
    "diff", set_operation::set_difference, "corank::set_difference",
    "The multiset difference A - B of two sorted columns: a key present a times in A and b\n"
    "times in B is written max(a - b, 0) times, A's last copies."};
constexpr set_command_info symdiff_info{
    "symdiff", set_operation::set_symmetric_difference, "corank::set_symmetric_difference",
    "The multiset symmetric difference of two sorted columns: a key present a times in A and\n"
    "b times in B is written |a - b| times, the extra copies of the side that has more."};

void print_set_usage(const set_command_info& info, std::FILE* stream) {
  fmt::print(stream, R"(usage: corank {0} A.npy B.npy -o OUT.npy [options]
       corank {0} A.npy B.npy --values A_VALUES.npy B_VALUES.npy -o OUT.npy
              --values-out OUT_VALUES.npy [options]
       corank {0} A.npy B.npy --count [options]

{1}
It runs {2} (its _by_key form with --values) on the GPU, or corank::host's
on the CPU.

A and B are 1-D NumPy .npy files of the same dtype: int8, uint8, int16, uint16, int32,
uint32, int64, uint64, float32 or float64, little-endian, C order, sorted ascending (NaNs
last for floats, as np.sort leaves them). The output has their dtype. It prints what it
did: sizes, time of each step, and the operation's GB/s (inputs read + output written).

options:
  -o, --output OUT.npy  the result
  --values A_VALUES.npy B_VALUES.npy
                        the values of A's and of B's keys, one per key, of one dtype (any
                        of the above); they move with their keys into --values-out
  --values-out OUT_VALUES.npy
                        the values of the result (needed with --values)
  --count               print only the size of the result; writes no file
  --device auto|gpu|cpu where to run (default auto: the GPU when CUDA finds one)
  --threads T           CPU backend threads (default 0: every hardware thread)
  --no-check            do not check that A and B are sorted (the check reads them once;
                        on unsorted input the result is then undefined)
  --force               replace output files that exist
  -h, --help            this text

Outputs are written to a temporary file in their directory and renamed when complete:
an error never leaves a partial output. A progress bar shows on stderr while reading or
writing files over 256 MiB, when stderr is a terminal.

exit status:
  0  done
  1  the work failed: a read or write error, an output directory where no file can be
     created, not enough GPU memory (use --device cpu) or host memory, a CUDA error,
     --device gpu without a GPU
  2  a wrong command line, or an input that cannot be used: a missing or unreadable
     file, not a .npy file, truncated data, an unsupported dtype, big-endian data,
     Fortran order, not one dimension, A and B of different dtypes, values whose length
     differs from their keys', unsorted input (the message names the file, the index and
     the two values), an output that exists (without --force) or whose directory does
     not exist

examples:
  corank {0} a.npy b.npy -o out.npy
  corank {0} a.npy b.npy --count
  corank {0} keys_a.npy keys_b.npy --values vals_a.npy vals_b.npy -o keys.npy --values-out vals.npy
  corank {0} a.npy b.npy -o out.npy --device cpu --force
)",
             info.name, info.rule, info.library);
}

struct set_options {
  std::vector<std::string> inputs;
  std::vector<std::string> values;
  std::string output;
  std::string values_output;
  bool count_only = false;
  bool check = true;
  bool force = false;
  std::string device = "auto";
  unsigned threads = 0;
};

set_options parse_set_options(int argc, char** argv, bool& help) {
  set_options options;
  argument_reader args(argc, argv);
  while (args.next()) {
    if (args.is_help()) {
      help = true;
    } else if (args.is_positional()) {
      options.inputs.push_back(args.name());
    } else if (args.is("-o") || args.is("--output")) {
      options.output = args.value();
    } else if (args.is("--values")) {
      options.values = {args.value(), args.following_value()};
    } else if (args.is("--values-out")) {
      options.values_output = args.value();
    } else if (args.is("--count")) {
      options.count_only = true;
    } else if (args.is("--device")) {
      options.device = parse_choice(args.name(), args.value(), {"auto", "gpu", "cpu"});
    } else if (args.is("--threads")) {
      const std::uint64_t threads = parse_unsigned(args.name(), args.value());
      if (threads > 4096) throw usage_error(fmt::format("--threads: {} is more than 4096", threads));
      options.threads = unsigned(threads);
    } else if (args.is("--no-check")) {
      options.check = false;
    } else if (args.is("--force")) {
      options.force = true;
    } else {
      args.reject();
    }
  }
  if (help) return options;
  if (options.inputs.size() != 2) {
    throw usage_error(options.inputs.size() < 2
                          ? "needs two input files, A.npy and B.npy"
                          : fmt::format("needs two input files, got {} (the third is '{}')",
                                        options.inputs.size(), options.inputs[2]));
  }
  if (options.count_only) {
    if (!options.output.empty() || !options.values_output.empty()) {
      throw usage_error("--count prints the output size and writes no file: drop -o / --values-out");
    }
    if (!options.values.empty()) throw usage_error("--count counts keys: drop --values");
  } else {
    if (options.output.empty()) throw usage_error("no output file: give -o OUT.npy (or --count)");
    if (!options.values.empty() && options.values_output.empty()) {
      throw usage_error("--values needs --values-out OUT_VALUES.npy");
    }
    if (options.values.empty() && !options.values_output.empty()) {
      throw usage_error("--values-out needs --values A_VALUES.npy B_VALUES.npy");
    }
    if (options.output == options.values_output) throw usage_error("-o and --values-out name the same file");
  }
  return options;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Values are moved, not compared: 1- and 2-byte ones travel as uint32 payloads, so that
// the backends only have 4- and 8-byte value types.
column widen_values(const column& values) {
  column wide(dtype::uint32, values.size());
  const auto* from = static_cast<const unsigned char*>(values.data());
  const std::size_t size = dtype_size(values.type());
  std::uint32_t* to = wide.as<std::uint32_t>();
  for (index_t i = 0; i < values.size(); ++i) {
    std::uint32_t v = 0;
    std::memcpy(&v, from + std::size_t(i) * size, size);  // little-endian host
    to[i] = v;
  }
  return wide;
}

column narrow_values(const column& wide, dtype type) {
  column values(type, wide.size());
  auto* to = static_cast<unsigned char*>(values.data());
  const std::size_t size = dtype_size(type);
  const std::uint32_t* from = wide.as<std::uint32_t>();
  for (index_t i = 0; i < wide.size(); ++i) std::memcpy(to + std::size_t(i) * size, &from[i], size);
  return values;
}

std::string unsorted_message(const corank::unsorted_input& e, const std::string& path, const column& keys) {
  const index_t i = e.index();
  const bool floats = keys.type() == dtype::float32 || keys.type() == dtype::float64;
  return fmt::format(
      "{} is not sorted: element {} ({}) is less than element {} ({}){}; sort it first (numpy: np.sort, or "
      "np.argsort with kind='stable' to reorder values with their keys), or check that it is the file you meant",
      path, i, format_element(keys, i), i - 1, format_element(keys, i - 1),
      floats ? " in the order with NaNs last" : "");
}

std::string plural(index_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

int run_set_command(const set_command_info& info, int argc, char** argv) {
  bool help = false;
  const set_options options = parse_set_options(argc, argv, help);
  if (help) {
    print_set_usage(info, stdout);
    return exit_ok;
  }
  const bool with_values = !options.values.empty();
  const std::string& path_a = options.inputs[0];
  const std::string& path_b = options.inputs[1];

  // Outputs first: refusing an existing file or an unwritable directory costs no reading.
  std::unique_ptr<atomic_output> keys_out, values_out;
  if (!options.count_only) {
    keys_out = std::make_unique<atomic_output>(options.output, options.force);
    if (with_values) values_out = std::make_unique<atomic_output>(options.values_output, options.force);
  }

  // Every header before any data.
  const npy_header header_a = read_npy_header(path_a);
  const npy_header header_b = read_npy_header(path_b);
  if (header_a.type != header_b.type) {
    throw input_error(fmt::format("{} is {} but {} is {}: A and B must have the same dtype (convert one, e.g. "
                                  "numpy: b.astype(np.{}))",
                                  path_a, dtype_name(header_a.type), path_b, dtype_name(header_b.type),
                                  dtype_name(header_a.type)));
  }
  if (with_values) {
    const npy_header header_va = read_npy_header(options.values[0]);
    const npy_header header_vb = read_npy_header(options.values[1]);
    if (header_va.type != header_vb.type) {
      throw input_error(fmt::format("{} is {} but {} is {}: A's and B's values must have the same dtype",
                                    options.values[0], dtype_name(header_va.type), options.values[1],
                                    dtype_name(header_vb.type)));
    }
    const auto same_length = [](const npy_header& values, const std::string& values_path, const npy_header& keys,
                                const std::string& keys_path) {
      if (values.size != keys.size) {
        throw input_error(fmt::format("{} has {} but {} has {}: each key needs exactly one value", values_path,
                                      plural(values.size, "value"), keys_path, plural(keys.size, "key")));
      }
    };
    same_length(header_va, options.values[0], header_a, path_a);
    same_length(header_vb, options.values[1], header_b, path_b);
  }

  bool on_gpu = false;
  if (options.device != "cpu") {
    std::string reason;
    on_gpu = cuda_device_count(reason) > 0;
    if (!on_gpu && options.device == "gpu") {
      throw std::runtime_error(
          fmt::format("--device gpu, but no CUDA GPU found ({}); use --device cpu or auto", reason));
    }
  }

  auto start = std::chrono::steady_clock::now();
  const column a = read_npy(path_a);
  const column b = read_npy(path_b);
  column a_values, b_values;
  if (with_values) {
    a_values = read_npy(options.values[0]);
    b_values = read_npy(options.values[1]);
  }
  const double read_ms = ms_since(start);
  const double read_bytes = double(a.bytes() + b.bytes() + a_values.bytes() + b_values.bytes());

  const dtype value_type = a_values.type();
  const bool widened = with_values && dtype_size(value_type) < 4;
  if (widened) {
    a_values = widen_values(a_values);
    b_values = widen_values(b_values);
  }

  set_job job;
  job.operation = info.operation;
  job.a = &a;
  job.b = &b;
  if (with_values) {
    job.a_values = &a_values;
    job.b_values = &b_values;
  }
  job.count_only = options.count_only;
  job.check_sorted = options.check;
  job.threads = options.threads;

  set_outcome outcome;
  try {
    outcome = on_gpu ? run_set_job_on_gpu(job) : run_set_job_on_cpu(job);
  } catch (const corank::unsorted_input& e) {
    const bool in_a = e.input() == 'A';
    throw input_error(unsorted_message(e, in_a ? path_a : path_b, in_a ? a : b));
  }

  if (options.count_only) {
    fmt::print("{}\n", outcome.count);
    return exit_ok;
  }
  if (widened) outcome.values = narrow_values(outcome.values, value_type);

  start = std::chrono::steady_clock::now();
  write_npy(keys_out->file(), options.output, outcome.keys);
  if (with_values) write_npy(values_out->file(), options.values_output, outcome.values);
  // Both files complete and synced before either appears.
  keys_out->finish_writing();
  if (with_values) values_out->finish_writing();
  keys_out->publish();
  if (with_values) values_out->publish();
  const double write_ms = ms_since(start);
  const double written_bytes = double(outcome.keys.bytes() + outcome.values.bytes());

  fmt::print("corank {}: {} and {} ({}, {} + {}) -> {} ({})\n", info.name, path_a, path_b, dtype_name(a.type()),
             plural(a.size(), "key"), plural(b.size(), "key"), options.output, plural(outcome.count, "key"));
  if (with_values) {
    fmt::print("  values: {} and {} ({}) -> {}\n", options.values[0], options.values[1], dtype_name(value_type),
               options.values_output);
  }
  fmt::print("  device    {}\n", outcome.where);
  fmt::print("  read      {} in {:.1f} ms\n", format_bytes(read_bytes), read_ms);
  if (outcome.upload_ms >= 0) fmt::print("  to GPU    {:.1f} ms\n", outcome.upload_ms);
  if (outcome.check_ms >= 0) {
    fmt::print("  check     A and B sorted, {:.1f} ms\n", outcome.check_ms);
  } else {
    fmt::print("  check     skipped (--no-check)\n");
  }
  const double moved = read_bytes + written_bytes;
  fmt::print("  {:<9} {} in {:.3f} ms, {:.2f} GB/s (inputs read + output written, {})\n", info.name,
             plural(outcome.count, "key"), outcome.compute_ms,
             outcome.compute_ms > 0 ? moved / (outcome.compute_ms * 1e6) : 0.0, format_bytes(moved));
  if (outcome.download_ms >= 0) fmt::print("  from GPU  {:.1f} ms\n", outcome.download_ms);
  fmt::print("  write     {} in {:.1f} ms\n", format_bytes(written_bytes), write_ms);
  return exit_ok;
}

template <const set_command_info& Info>
int run_command(int argc, char** argv) {
  try {
    return run_set_command(Info, argc, argv);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("out of host memory: the inputs and the output must fit in RAM");
  }
}

}  // namespace

int run_merge(int argc, char** argv) { return run_command<merge_info>(argc, argv); }
int run_union(int argc, char** argv) { return run_command<union_info>(argc, argv); }
int run_intersect(int argc, char** argv) { return run_command<intersect_info>(argc, argv); }
int run_diff(int argc, char** argv) { return run_command<diff_info>(argc, argv); }
int run_symdiff(int argc, char** argv) { return run_command<symdiff_info>(argc, argv); }
void print_merge_usage(std::FILE* stream) { print_set_usage(merge_info, stream); }
void print_union_usage(std::FILE* stream) { print_set_usage(union_info, stream); }
void print_intersect_usage(std::FILE* stream) { print_set_usage(intersect_info, stream); }
void print_diff_usage(std::FILE* stream) { print_set_usage(diff_info, stream); }
void print_symdiff_usage(std::FILE* stream) { print_set_usage(symdiff_info, stream); }

}  // namespace corank::cli
