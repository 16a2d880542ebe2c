// corank sort: a stable sort of one .npy column (and optionally its values), on the GPU or
// the CPU backend (multiway_job.hpp).
//
// The same order of work as the set commands' (set_command.cpp): the command line, the
// files the arguments name, the outputs, the headers, memory and device, and only then the
// data. The column is sorted where it was read and written from there, so the host holds
// one copy; sorting a file into itself (-o IN.npy --force) replaces it only once the
// sorted data is complete, as any output.

#include "arguments.hpp"
#include "column.hpp"
#include "command_steps.hpp"
#include "commands.hpp"
#include "file_identity.hpp"
#include "multiway_job.hpp"
#include "npy.hpp"
#include "output_file.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace corank::cli {
namespace {

// The set commands' segmented form has no sort to go with it yet.
constexpr const char* no_segmented_sort =
    "sort has no segmented form (not built): --segments and --segments-out are taken by merge of two inputs, "
    "union, intersect, diff and symdiff";

npy_options parse_sort_options(int argc, char** argv, bool& help) {
  npy_options options;
  argument_reader args(argc, argv,
                       {{"--output", "-o", 1}, {"--values", nullptr, 1}, {"--values-out", nullptr, 1},
                        {"--device", nullptr, 1}, {"--threads", nullptr, 1}, {"--force"},
                        {"--segments", nullptr, 2, no_segmented_sort},
                        {"--segments-out", nullptr, 1, no_segmented_sort}});
  while (args.next()) {
    if (args.is_help()) {
      help = true;
    } else if (args.is_positional()) {
      options.inputs.push_back(args.name());
    } else if (args.is("--values")) {
      options.values = {args.value()};
    } else {
      read_shared_option(args, options);
    }
  }
  if (help) return options;
  if (options.inputs.empty()) throw usage_error("needs an input file, IN.npy");
  if (options.inputs.size() > 1) {
    throw usage_error(fmt::format("sorts one input file, got {} (the second is '{}'); to sort several into one, "
                                  "sort each and merge them: corank merge",
                                  options.inputs.size(), options.inputs[1]));
  }
  if (options.output.empty()) throw usage_error("no output file: give -o OUT.npy");
  if (!options.values.empty() && options.values_output.empty()) {
    throw usage_error("--values needs --values-out OUT_VALUES.npy");
  }
  if (options.values.empty() && !options.values_output.empty()) {
    throw usage_error("--values-out needs --values VALUES.npy");
  }
  return options;
}

int run_sort_command(int argc, char** argv) {
  bool help = false;
  const npy_options options = parse_sort_options(argc, argv, help);
  if (help) {
    print_sort_usage(stdout);
    return exit_ok;
  }
  const bool with_values = !options.values.empty();

  // Which files the arguments name, before anything is opened or read.
  std::vector<named_file> inputs = {{"IN", options.inputs[0], identify(options.inputs[0], STDIN_FILENO)}};
  if (with_values) inputs.push_back({"VALUES", options.values[0], identify(options.values[0], STDIN_FILENO)});
  std::vector<named_file> outputs = {{"-o", options.output, identify(options.output, STDOUT_FILENO)}};
  if (with_values) {
    outputs.push_back({"--values-out", options.values_output, identify(options.values_output, STDOUT_FILENO)});
  }
  check_file_names(inputs, outputs, options.force);

  // Outputs next: refusing an existing file or an unwritable directory costs no reading.
  output_file keys_out(options.output, options.force);
  std::unique_ptr<output_file> values_out;
  if (with_values) values_out = std::make_unique<output_file>(options.values_output, options.force);
  std::FILE* report = options.output == "-" || options.values_output == "-" ? stderr : stdout;

  // Every header before any data.
  npy_input keys_in(options.inputs[0]);
  const index_t n = keys_in.header().size;
  std::unique_ptr<npy_input> values_in;
  if (with_values) {
    values_in = std::make_unique<npy_input>(options.values[0]);
    if (values_in->header().size != n) {
      throw input_error(fmt::format("{} has {} but {} has {}: each key needs exactly one value", options.values[0],
                                    plural(values_in->header().size, "value"), keys_in.path(), plural(n, "key")));
    }
  }

  const bool on_gpu = choose_gpu(options.device);
  const std::size_t key_bytes = dtype_size(keys_in.header().type);
  const std::size_t value_bytes = with_values ? dtype_size(values_in->header().type) : 0;
  // The output is written from the input's memory: no second copy.
  check_host_memory(double(n) * double(key_bytes + value_bytes), 0,
                    sort_host_buffer_bytes(on_gpu, n, key_bytes, value_bytes));

  auto start = std::chrono::steady_clock::now();
  sort_job job;
  job.keys = keys_in.read();
  if (with_values) job.values = values_in->read();
  job.with_values = with_values;
  job.threads = options.threads;
  report_steps steps;
  steps.operation = "sort";
  steps.read_ms = ms_since(start);
  steps.read_bytes = double(job.keys.bytes() + job.values.bytes());

  const job_outcome outcome = on_gpu ? run_sort_on_gpu(std::move(job)) : run_sort_on_cpu(std::move(job));

  start = std::chrono::steady_clock::now();
  write_outputs({{&keys_out, &outcome.keys}, {values_out.get(), &outcome.values}});
  steps.write_ms = ms_since(start);
  steps.written_bytes = double(outcome.keys.bytes() + outcome.values.bytes());

  fmt::print(report, "corank sort: {} ({}, {}) -> {}\n", keys_in.path(), dtype_name(outcome.keys.type()),
             plural(n, "key"), options.output);
  if (with_values) {
    fmt::print(report, "  values: {} ({}) -> {}\n", options.values[0], dtype_name(outcome.values.type()),
               options.values_output);
  }
  print_report_steps(report, steps, outcome);
  return exit_ok;
}

}  // namespace

int run_sort(int argc, char** argv) {
  try {
    return run_sort_command(argc, argv);
  } catch (const std::bad_alloc&) {
    throw out_of_host_memory();
  }
}

void print_sort_usage(std::FILE* stream) {
  fmt::print(stream, R"(usage: corank sort IN.npy -o OUT.npy [options]
       corank sort IN.npy --values VALUES.npy -o OUT.npy --values-out OUT_VALUES.npy [options]

A stable sort of one column: its keys in ascending order, equal keys in their input order
(np.sort(kind='stable'); with --values, np.argsort(kind='stable') applied to keys and
values). It runs corank::stable_sort (stable_sort_by_key with --values) on the GPU, or
corank::host's on the CPU.

IN is a 1-D NumPy .npy file: int8, uint8, int16, uint16, int32, uint32, int64, uint64,
float32 or float64, little-endian, C order, in any order. The output has its dtype. It
prints what it did: sizes, time of each step, and the sort's GB/s (input read + output
written).

options:
  -o, --output OUT.npy  the sorted keys; - for standard output; IN itself with --force
  --values VALUES.npy   one value per key, of any of the above dtypes; they move with their
                        keys into --values-out
  --values-out OUT_VALUES.npy
                        the values in the keys' new order (needed with --values)
  --device auto|gpu|cpu where to run (default auto: the GPU when CUDA finds one)
  --threads T           CPU backend threads (default 0: every hardware thread)
  --force               replace output files that exist, inputs included
  --                    the end of the options: what follows are file names
  -h, --help            this text
Long options take their value after '=' too (--output=out.npy); flags take none.

Inputs are read once, front to back: pipes, FIFOs and - (standard input) work as well as
files. A file whose length differs from what its header announces is refused.

Float keys are ordered as np.sort orders them: NaNs last (in their input order), and -0.0
equal to 0.0 (so they keep their input order too).

)");
  print_output_guarantees(stream);
  fmt::print(stream, "\n");
  print_exit_statuses(stream, "");
  fmt::print(stream, R"(
examples:
  corank sort keys.npy -o sorted.npy
  corank sort keys.npy -o keys.npy --force                    # in place: replaced once sorted
  corank sort keys.npy --values vals.npy -o k.npy --values-out v.npy
  python make_column.py | corank sort - -o - --device cpu | python use_column.py
)");
}

}  // namespace corank::cli
