// corank merge | union | intersect | diff | symdiff: a set operation on two sorted .npy
// columns (and optionally their values), on the GPU or the CPU backend.
//
// Order of work, so that a mistake costs nothing: the command line; then which files the
// arguments name (two outputs that are one file, an output that is an input); then the
// outputs (refused if they exist, temporary files created, so an unwritable directory
// shows now); then every input's header (dtypes, shapes, lengths), the memory it needs and
// the device; and only then the data is read, checked, processed, written and published.

#include "arguments.hpp"
#include "column.hpp"
#include "commands.hpp"
#include "cuda_devices.hpp"
#include "file_identity.hpp"
#include "host_memory.hpp"
#include "npy.hpp"
#include "output_file.hpp"
#include "set_job.hpp"

#include <corank/error.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
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
  -o, --output OUT.npy  the result; - for standard output
  --values A_VALUES.npy B_VALUES.npy
                        the values of A's and of B's keys, one per key, of one dtype (any
                        of the above); they move with their keys into --values-out
  --values-out OUT_VALUES.npy
                        the values of the result (needed with --values)
  --count               print only the size of the result; writes no file (merge reads
                        only the headers: its size is the sum of the two)
  --device auto|gpu|cpu where to run (default auto: the GPU when CUDA finds one)
  --threads T           CPU backend threads (default 0: every hardware thread)
  --no-check            do not check that A and B are sorted (the check reads them once;
                        on unsorted input the result is then undefined)
  --force               replace output files that exist, inputs included
  --                    the end of the options: what follows are file names
  -h, --help            this text
Long options take their value after '=' too (--output=out.npy); flags take none.

Inputs are read once, front to back: pipes, FIFOs and - (standard input) work as well as
files. A file whose length differs from what its header announces is refused.

Float keys are ordered with NaNs last, as np.sort leaves them.
All NaNs are equal to each other (and -0.0 equals 0.0): the set operations match NaN
copies as they match copies of any other key, so the union of [nan] and [nan, nan] is
[nan, nan].

Outputs are safe to name anything:
  - A file is written to an unnamed temporary file in its directory and renamed over the
    output once complete: an error, a signal, a kill or running out of memory never
    leaves a partial output or a stray temporary file.
  - With --values-out, both files are published together: both are complete before
    either is renamed, and if the second rename fails the first output is put back as it
    was. (Only a crash between the two renames, or a file system without hard links, can
    leave one new and one old.)
  - An existing file is replaced only with --force. A symbolic link is followed: the file
    it points to is replaced and the link stays; a link to nothing is refused.
  - An output that is also an input (under any name: a path, a link, a hard link) is
    replaced only with --force, and only after every input was read, as sort -o does.
  - Standard output (-), FIFOs and character devices such as /dev/null are written
    directly, never replaced; they cannot be taken back if the write fails midway.
  - Directories, sockets and block devices are refused, and so are two outputs that are
    one file.
A progress bar shows on stderr while reading or writing files over 256 MiB, when stderr is
a terminal. The report goes to standard output, or to stderr when -o or --values-out is -.

exit status:
  0  done
  1  the work failed: a read or write error, an output directory where no file can be
     created, not enough host memory (the message says how much is needed) or GPU memory
     (use --device cpu), a CUDA error, --device gpu without a GPU
  2  a wrong command line, or an input that cannot be used: a missing or unreadable
     file, not a .npy file, truncated data or bytes after it, an unsupported dtype,
     big-endian data, Fortran order, not one dimension, A and B of different dtypes,
     values whose length differs from their keys', unsorted input (the message names the
     file, the index and the two values), an output that exists or is an input (without
     --force), two outputs that are one file, an output that cannot be one, or whose
     directory does not exist

examples:
  corank {0} a.npy b.npy -o out.npy
  corank {0} a.npy b.npy --count
  corank {0} keys_a.npy keys_b.npy --values vals_a.npy vals_b.npy -o keys.npy --values-out vals.npy
  corank {0} a.npy b.npy -o out.npy --device cpu --force
  python make_column.py | corank {0} - b.npy -o - | python use_column.py
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
  argument_reader args(argc, argv,
                       {{"--output", "-o", 1}, {"--values", nullptr, 2}, {"--values-out", nullptr, 1}, {"--count"},
                        {"--device", nullptr, 1}, {"--threads", nullptr, 1}, {"--no-check"}, {"--force"}});
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
  }
  return options;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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

// An argument naming a file, and what it is (by identity: see file_identity.hpp).
struct named_file {
  std::string role;  // "A", "-o", ...
  std::string path;
  file_identity identity;
};

// Every rule about which files the arguments name, checked before anything is opened.
void check_file_names(const std::vector<named_file>& inputs, const std::vector<named_file>& outputs, bool force) {
  if (outputs.size() == 2 && outputs[0].identity == outputs[1].identity) {
    throw input_error(fmt::format("-o {} and --values-out {} are the same file; name two different files",
                                  outputs[0].path, outputs[1].path));
  }
  for (const named_file& out : outputs) {
    for (const named_file& in : inputs) {
      if (!in.identity.exists || out.identity != in.identity) continue;
      if (out.identity.exists && !out.identity.is_regular()) {
        throw input_error(fmt::format("{} {} is also input {} ({}), and {} cannot be both", out.role, out.path,
                                      in.role, in.path, file_type_name(out.identity.type)));
      }
      if (!force) {
        throw input_error(fmt::format("{} {} is also input {} ({}); pass --force to replace it once it has been read",
                                      out.role, out.path, in.role, in.path));
      }
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (std::size_t j = i + 1; j < inputs.size(); ++j) {
      const bool both_stdin = inputs[i].path == "-" && inputs[j].path == "-";
      if (both_stdin || (inputs[i].identity == inputs[j].identity && inputs[i].identity.exists &&
                         !inputs[i].identity.is_regular())) {
        throw input_error(fmt::format("inputs {} and {} are both {}, which can be read only once", inputs[i].role,
                                      inputs[j].role, both_stdin ? "standard input" : inputs[i].path));
      }
    }
  }
}

std::string format_gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / double(std::uint64_t(1) << 30)); }

// Refuses a job whose inputs and output cannot fit in host memory, before reading it.
void check_host_memory(double input_bytes, double output_bytes) {
  const double needed = input_bytes + output_bytes;
  const std::uint64_t available = available_host_memory();
  if (needed > double(available)) {
    throw std::runtime_error(fmt::format(
        "not enough host memory: the inputs ({}) and the output (up to {}) need {} in RAM, and {} is available; "
        "free memory, or use smaller inputs",
        format_gib(input_bytes), format_gib(output_bytes), format_gib(needed), format_gib(double(available))));
  }
}

int run_set_command(const set_command_info& info, int argc, char** argv) {
  bool help = false;
  const set_options options = parse_set_options(argc, argv, help);
  if (help) {
    print_set_usage(info, stdout);
    return exit_ok;
  }
  const bool with_values = !options.values.empty();

  // Which files the arguments name, before anything is opened or read.
  std::vector<named_file> inputs = {{"A", options.inputs[0], {}}, {"B", options.inputs[1], {}}};
  if (with_values) {
    inputs.push_back({"A's values", options.values[0], {}});
    inputs.push_back({"B's values", options.values[1], {}});
  }
  for (named_file& in : inputs) in.identity = identify(in.path, STDIN_FILENO);
  std::vector<named_file> outputs;
  if (!options.count_only) {
    outputs.push_back({"-o", options.output, identify(options.output, STDOUT_FILENO)});
    if (with_values) {
      outputs.push_back({"--values-out", options.values_output, identify(options.values_output, STDOUT_FILENO)});
    }
  }
  check_file_names(inputs, outputs, options.force);

  // Outputs next: refusing an existing file or an unwritable directory costs no reading.
  std::unique_ptr<output_file> keys_out, values_out;
  if (!options.count_only) {
    keys_out = std::make_unique<output_file>(options.output, options.force);
    if (with_values) values_out = std::make_unique<output_file>(options.values_output, options.force);
  }
  const bool report_to_stderr = options.output == "-" || options.values_output == "-";
  std::FILE* report = report_to_stderr ? stderr : stdout;

  // Every header before any data.
  npy_input input_a(inputs[0].path);
  npy_input input_b(inputs[1].path);
  const npy_header& header_a = input_a.header();
  const npy_header& header_b = input_b.header();
  const std::string& path_a = input_a.path();
  const std::string& path_b = input_b.path();
  if (header_a.type != header_b.type) {
    throw input_error(fmt::format("{} is {} but {} is {}: A and B must have the same dtype (convert one, e.g. "
                                  "numpy: b.astype(np.{}))",
                                  path_a, dtype_name(header_a.type), path_b, dtype_name(header_b.type),
                                  dtype_name(header_a.type)));
  }
  if (info.operation == set_operation::merge && options.count_only) {
    fmt::print("{}\n", header_a.size + header_b.size);  // a merge's size needs no data
    return exit_ok;
  }
  std::unique_ptr<npy_input> input_va, input_vb;
  if (with_values) {
    input_va = std::make_unique<npy_input>(inputs[2].path);
    input_vb = std::make_unique<npy_input>(inputs[3].path);
    const npy_header& header_va = input_va->header();
    const npy_header& header_vb = input_vb->header();
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

  const std::size_t element_bytes =
      dtype_size(header_a.type) + (with_values ? dtype_size(input_va->header().type) : 0);
  const double input_bytes = double(header_a.size + header_b.size) * double(element_bytes);
  const index_t output_elements = options.count_only ? 0 : output_bound(info.operation, header_a.size, header_b.size);
  const double output_bytes = double(output_elements) * double(element_bytes);
  check_host_memory(input_bytes, output_bytes);

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
  const column a = input_a.read();
  const column b = input_b.read();
  column a_values, b_values;
  if (with_values) {
    a_values = input_va->read();
    b_values = input_vb->read();
  }
  const double read_ms = ms_since(start);

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

  // Files first (the likeliest to fail: a full disk), then streams, then the files are
  // published together: an error anywhere leaves every output file as it was.
  start = std::chrono::steady_clock::now();
  std::vector<std::pair<output_file*, const column*>> writes = {{keys_out.get(), &outcome.keys}};
  if (with_values) writes.push_back({values_out.get(), &outcome.values});
  std::stable_partition(writes.begin(), writes.end(), [](const auto& w) { return !w.first->is_stream(); });
  for (const auto& [out, data] : writes) {
    write_npy(out->file(), out->name(), *data);
    out->finish_writing();
  }
  publish_together({keys_out.get(), values_out.get()});
  const double write_ms = ms_since(start);
  const double written_bytes = double(outcome.keys.bytes() + outcome.values.bytes());
  const double read_bytes = double(a.bytes() + b.bytes() + a_values.bytes() + b_values.bytes());

  fmt::print(report, "corank {}: {} and {} ({}, {} + {}) -> {} ({})\n", info.name, path_a, path_b,
             dtype_name(a.type()), plural(a.size(), "key"), plural(b.size(), "key"), options.output,
             plural(outcome.count, "key"));
  if (with_values) {
    fmt::print(report, "  values: {} and {} ({}) -> {}\n", options.values[0], options.values[1],
               dtype_name(a_values.type()), options.values_output);
  }
  fmt::print(report, "  device    {}\n", outcome.where);
  fmt::print(report, "  read      {} in {:.1f} ms\n", format_bytes(read_bytes), read_ms);
  if (outcome.upload_ms >= 0) fmt::print(report, "  to GPU    {:.1f} ms\n", outcome.upload_ms);
  if (outcome.check_ms >= 0) {
    fmt::print(report, "  check     A and B sorted, {:.1f} ms\n", outcome.check_ms);
  } else {
    fmt::print(report, "  check     skipped (--no-check)\n");
  }
  const double moved = read_bytes + written_bytes;
  fmt::print(report, "  {:<9} {} in {:.3f} ms, {:.2f} GB/s (inputs read + output written, {})\n", info.name,
             plural(outcome.count, "key"), outcome.compute_ms,
             outcome.compute_ms > 0 ? moved / (outcome.compute_ms * 1e6) : 0.0, format_bytes(moved));
  if (outcome.download_ms >= 0) fmt::print(report, "  from GPU  {:.1f} ms\n", outcome.download_ms);
  fmt::print(report, "  write     {} in {:.1f} ms\n", format_bytes(written_bytes), write_ms);
  return exit_ok;
}

template <const set_command_info& Info>
int run_command(int argc, char** argv) {
  try {
    return run_set_command(Info, argc, argv);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format("out of host memory ({} available): the inputs and the output must fit in "
                                         "RAM; free memory, or use smaller inputs",
                                         format_gib(double(available_host_memory()))));
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
