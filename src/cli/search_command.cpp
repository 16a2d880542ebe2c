// corank search | join: the answers of one sorted column about another, on the GPU or the
// CPU backend (search_job.hpp): searchsorted and isin (search), and the sort-merge inner join
// (join), whose outputs are positions (int64) or flags (bool), not keys.
//
// The same order of work as the set commands' (set_command.cpp): the command line, the files
// the arguments name, the outputs, the headers, memory and device, and only then the data.
// The join's output size is known only once it is counted: host memory for it is checked
// then, before anything is allocated for it.

#include "arguments.hpp"
#include "column.hpp"
#include "command_steps.hpp"
#include "commands.hpp"
#include "file_identity.hpp"
#include "npy.hpp"
#include "output_file.hpp"
#include "search_job.hpp"

#include <corank/error.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace corank::cli {
namespace {

constexpr const char* no_values =
    "search and join write positions, which gather any values (numpy: values[positions]): they take no --values";
constexpr const char* no_segments = "search and join have no segmented form (not built)";

struct search_options {
  npy_options common;
  std::string side = "left";
  bool isin = false;
  bool invert = false;
  std::string right_output;  // join: the second output
};

void read_inputs_and_flags(argument_reader& args, search_options& options) {
  if (args.is_positional()) {
    options.common.inputs.push_back(args.name());
  } else if (args.is("--no-check")) {
    options.common.check = false;
  } else {
    read_shared_option(args, options.common);
  }
}

void require_two_inputs(const npy_options& options, const char* names) {
  if (options.inputs.size() != 2) {
    throw usage_error(fmt::format("needs two input files, {}; got {}", names, options.inputs.size()));
  }
}

search_options parse_search_options(int argc, char** argv, bool& help) {
  search_options options;
  argument_reader args(argc, argv,
                       {{"--output", "-o", 1}, {"--side", nullptr, 1}, {"--isin"}, {"--invert"},
                        {"--device", nullptr, 1}, {"--threads", nullptr, 1}, {"--no-check"}, {"--force"},
                        {"--values", nullptr, 2, no_values}, {"--values-out", nullptr, 1, no_values},
                        {"--segments", nullptr, 2, no_segments}, {"--segments-out", nullptr, 1, no_segments},
                        {"--count", nullptr, 0, "search writes one answer per query in V: its size is V's length"}});
  bool side_given = false;
  while (args.next()) {
    if (args.is_help()) {
      help = true;
    } else if (args.is("--side")) {
      options.side = parse_choice(args.name(), args.value(), {"left", "right"});
      side_given = true;
    } else if (args.is("--isin")) {
      options.isin = true;
    } else if (args.is("--invert")) {
      options.invert = true;
    } else {
      read_inputs_and_flags(args, options);
    }
  }
  if (help) return options;
  require_two_inputs(options.common, "A.npy (sorted) and V.npy (the sorted queries)");
  if (options.common.output.empty()) throw usage_error("no output file: give -o OUT.npy");
  if (options.isin && side_given) throw usage_error("--isin writes flags, not positions: drop --side");
  if (options.invert && !options.isin) throw usage_error("--invert inverts --isin's flags: give --isin too");
  return options;
}

search_options parse_join_options(int argc, char** argv, bool& help) {
  search_options options;
  argument_reader args(argc, argv,
                       {{"--output", "-o", 2}, {"--count"}, {"--device", nullptr, 1}, {"--threads", nullptr, 1},
                        {"--no-check"}, {"--force"}, {"--values", nullptr, 2, no_values},
                        {"--values-out", nullptr, 1, no_values}, {"--segments", nullptr, 2, no_segments},
                        {"--segments-out", nullptr, 1, no_segments}});
  while (args.next()) {
    if (args.is_help()) {
      help = true;
    } else if (args.is("-o")) {
      options.common.output = args.value();
      options.right_output = args.following_value();
    } else if (args.is("--count")) {
      options.common.count_only = true;
    } else {
      read_inputs_and_flags(args, options);
    }
  }
  if (help) return options;
  require_two_inputs(options.common, "LEFT.npy and RIGHT.npy (both sorted)");
  if (options.common.count_only && !options.common.output.empty()) {
    throw usage_error("--count prints the number of pairs and writes no file: drop -o");
  }
  if (!options.common.count_only && options.common.output.empty()) {
    throw usage_error("no output files: give -o LEFT_OUT.npy RIGHT_OUT.npy (or --count)");
  }
  return options;
}

// The two inputs' headers, which must have one dtype.
std::array<std::unique_ptr<npy_input>, 2> open_inputs(const npy_options& options, const char* names) {
  std::array<std::unique_ptr<npy_input>, 2> in = {std::make_unique<npy_input>(options.inputs[0]),
                                                  std::make_unique<npy_input>(options.inputs[1])};
  const dtype a = in[0]->header().type, b = in[1]->header().type;
  if (a != b) {
    throw input_error(fmt::format("{} is {} but {} is {}: {} must have the same dtype (convert one, e.g. numpy: "
                                  "x.astype(np.{}))",
                                  in[0]->path(), dtype_name(a), in[1]->path(), dtype_name(b), names, dtype_name(a)));
  }
  return in;
}

// What the operation's corank::unsorted_input says, as the message that names the file.
input_error unsorted_error(const corank::unsorted_input& e, const std::array<column, 2>& keys,
                           const std::vector<std::string>& paths) {
  if ((e.input() != 'A' && e.input() != 'B') || e.index() < 1) {
    return input_error(unchecked_unsorted_message(paths));
  }
  const std::size_t i = e.input() == 'A' ? 0 : 1;
  return input_error(unsorted_message(paths[i], keys[i], e.index()));
}

int run_search_command(int argc, char** argv) {
  bool help = false;
  const search_options options = parse_search_options(argc, argv, help);
  if (help) {
    print_search_usage(stdout);
    return exit_ok;
  }
  const npy_options& o = options.common;

  std::vector<named_file> inputs = {{"A", o.inputs[0], identify(o.inputs[0], STDIN_FILENO)},
                                    {"V", o.inputs[1], identify(o.inputs[1], STDIN_FILENO)}};
  const std::vector<named_file> outputs = {{"-o", o.output, identify(o.output, STDOUT_FILENO)}};
  check_file_names(inputs, outputs, o.force);
  output_file out(o.output, o.force);
  std::FILE* report = o.output == "-" ? stderr : stdout;

  const auto in = open_inputs(o, "A and V");
  const dtype key_type = in[0]->header().type;
  const index_t n = in[0]->header().size, m = in[1]->header().size;
  const bool on_gpu = choose_gpu(o.device);
  check_host_memory(double(n + m) * double(dtype_size(key_type)), double(m) * (options.isin ? 1.0 : 8.0));

  auto start = std::chrono::steady_clock::now();
  const std::array<column, 2> keys = {in[0]->read(), in[1]->read()};
  report_steps steps;
  steps.read_ms = ms_since(start);
  steps.read_bytes = double(keys[0].bytes() + keys[1].bytes());

  search_job job;
  job.kind = options.isin ? (options.invert ? search_kind::not_contains : search_kind::contains)
             : options.side == "right" ? search_kind::right
                                       : search_kind::left;
  job.haystack = &keys[0];
  job.queries = &keys[1];
  job.check_sorted = o.check;
  job.threads = o.threads;
  job_outcome outcome;
  try {
    outcome = on_gpu ? run_search_on_gpu(job) : run_search_on_cpu(job);
  } catch (const corank::unsorted_input& e) {
    throw unsorted_error(e, keys, o.inputs);
  }

  start = std::chrono::steady_clock::now();
  write_outputs({{&out, &outcome.keys}});
  steps.write_ms = ms_since(start);
  steps.written_bytes = double(outcome.keys.bytes());
  steps.operation = "search";
  steps.unit = "answer";
  steps.checked = "A and V sorted";
  const std::string what = options.isin ? fmt::format("isin{} (bool)", options.invert ? ", inverted" : "")
                                        : fmt::format("side {} (int64 positions)", options.side);
  fmt::print(report, "corank search: {} in {} ({}, {} + {}) -> {}, {}\n", o.inputs[1], o.inputs[0],
             dtype_name(key_type), plural(n, "key"), fmt::format("{} {}", m, m == 1 ? "query" : "queries"), o.output, what);
  print_report_steps(report, steps, outcome);
  return exit_ok;
}

int run_join_command(int argc, char** argv) {
  bool help = false;
  const search_options options = parse_join_options(argc, argv, help);
  if (help) {
    print_join_usage(stdout);
    return exit_ok;
  }
  const npy_options& o = options.common;

  std::vector<named_file> inputs = {{"LEFT", o.inputs[0], identify(o.inputs[0], STDIN_FILENO)},
                                    {"RIGHT", o.inputs[1], identify(o.inputs[1], STDIN_FILENO)}};
  std::vector<named_file> outputs;
  if (!o.count_only) {
    outputs = {{"-o", o.output, identify(o.output, STDOUT_FILENO)},
               {"-o", options.right_output, identify(options.right_output, STDOUT_FILENO)}};
  }
  check_file_names(inputs, outputs, o.force);
  std::unique_ptr<output_file> left_out, right_out;
  if (!o.count_only) {
    left_out = std::make_unique<output_file>(o.output, o.force);
    right_out = std::make_unique<output_file>(options.right_output, o.force);
  }
  std::FILE* report = o.output == "-" || options.right_output == "-" ? stderr : stdout;

  const auto in = open_inputs(o, "LEFT and RIGHT");
  const dtype key_type = in[0]->header().type;
  const index_t m = in[0]->header().size, n = in[1]->header().size;
  const bool on_gpu = choose_gpu(o.device);
  const double input_bytes = double(m + n) * double(dtype_size(key_type));
  // The CPU backend's counts: each left key's lower bound and the prefix sums.
  const double counts_bytes = on_gpu ? 0 : double(2 * m + 1) * 8.0;
  check_host_memory(input_bytes, 0, counts_bytes);

  auto start = std::chrono::steady_clock::now();
  const std::array<column, 2> keys = {in[0]->read(), in[1]->read()};
  report_steps steps;
  steps.read_ms = ms_since(start);
  steps.read_bytes = double(keys[0].bytes() + keys[1].bytes());

  join_job job;
  job.left = &keys[0];
  job.right = &keys[1];
  job.count_only = o.count_only;
  job.check_sorted = o.check;
  job.threads = o.threads;
  job.before_output = [&](index_t pairs) { check_host_memory(input_bytes, double(pairs) * 16.0, counts_bytes); };
  job_outcome outcome;
  try {
    outcome = on_gpu ? run_join_on_gpu(job) : run_join_on_cpu(job);
  } catch (const corank::unsorted_input& e) {
    throw unsorted_error(e, keys, o.inputs);
  }
  if (o.count_only) {
    fmt::print(report, "{}\n", outcome.count);
    return exit_ok;
  }

  start = std::chrono::steady_clock::now();
  write_outputs({{left_out.get(), &outcome.keys}, {right_out.get(), &outcome.values}});
  steps.write_ms = ms_since(start);
  steps.written_bytes = double(outcome.keys.bytes() + outcome.values.bytes());
  steps.operation = "join";
  steps.unit = "pair";
  steps.checked = "LEFT and RIGHT sorted";
  fmt::print(report, "corank join: {} and {} ({}, {} + {}) -> {} and {} ({}, int64 positions)\n", o.inputs[0],
             o.inputs[1], dtype_name(key_type), plural(m, "key"), plural(n, "key"), o.output, options.right_output,
             plural(outcome.count, "pair"));
  print_report_steps(report, steps, outcome);
  return exit_ok;
}

}  // namespace

int run_search(int argc, char** argv) {
  try {
    return run_search_command(argc, argv);
  } catch (const std::bad_alloc&) {
    throw out_of_host_memory();
  }
}

int run_join(int argc, char** argv) {
  try {
    return run_join_command(argc, argv);
  } catch (const std::bad_alloc&) {
    throw out_of_host_memory();
  }
}

void print_search_usage(std::FILE* stream) {
  fmt::print(stream, R"(usage: corank search A.npy V.npy -o OUT.npy [--side left|right] [options]
       corank search A.npy V.npy -o OUT.npy --isin [--invert] [options]

For each query in V, where it goes in A: np.searchsorted(A, V, side) as int64 positions
(left: the first position whose element is not less than the query; right: the first whose
element is greater); or with --isin, whether A holds it: np.isin(V, A) as bool flags
(--invert: np.isin(V, A, invert=True)). It runs corank's sorted search
(corank::device::sorted_lower_bound, sorted_upper_bound, sorted_contains,
sorted_not_contains) on the GPU, or corank::host's on the CPU: one pass over both columns,
O(len(A) + len(V)).

A and V are 1-D NumPy .npy files of the same dtype: int8, uint8, int16, uint16, int32,
uint32, int64, uint64, float32 or float64, little-endian, C order, both sorted ascending
(NaNs last for floats, as np.sort leaves them; a NaN query finds A's NaNs). OUT has one
answer per query, in V's order. It prints what it did: sizes, time of each step, and the
search's GB/s (inputs read + output written).

options:
  -o, --output OUT.npy  the positions (int64) or flags (bool); - for standard output
  --side left|right     which bound (default left, as numpy's)
  --isin                write whether A holds each query instead
  --invert              with --isin, whether A does not hold it
  --device auto|gpu|cpu where to run (default auto: the GPU when CUDA finds one)
  --threads T           CPU backend threads (default 0: every hardware thread)
  --no-check            do not check that A and V are sorted (the check reads them once).
                        Unsorted input then gives answers of unspecified content, or
                        status 2 where the search finds it unsorted: never a crash or a
                        partial output file
  --force               replace an output file that exists, an input included
  --                    the end of the options: what follows are file names
  -h, --help            this text
Long options take their value after '=' too (--output=out.npy); flags take none.

Inputs are read once, front to back: pipes, FIFOs and - (standard input) work as well as
files. A file whose length differs from what its header announces is refused. A file may
be named twice (searched in itself); standard input once.

)");
  print_output_guarantees(stream);
  fmt::print(stream, "\n");
  print_exit_statuses(stream, "A and V of different dtypes, unsorted input (the message names the file, the index "
                              "and the two values; found with --no-check, the files), ");
  fmt::print(stream, R"(
examples:
  corank search sorted.npy queries.npy -o positions.npy
  corank search sorted.npy queries.npy -o positions.npy --side right --device cpu
  corank search allowed.npy ids.npy -o flags.npy --isin
)");
}

void print_join_usage(std::FILE* stream) {
  fmt::print(stream, R"(usage: corank join LEFT.npy RIGHT.npy -o LEFT_OUT.npy RIGHT_OUT.npy [options]
       corank join LEFT.npy RIGHT.npy --count [options]

The sort-merge inner join of two sorted key columns: every pair of positions (i, j) with
LEFT[i] equal to RIGHT[j], i into LEFT_OUT and j into RIGHT_OUT (int64), in the order of i,
then j. A key a times in LEFT and b times in RIGHT gives its a * b pairs (as pandas.merge
of the two columns, how='inner'). Gather rows with them: left_values[LEFT_OUT]. It runs
corank::device::sorted_join_count_and_keep and sorted_join_from_kept on the GPU (--count:
sorted_join_count), or corank::host's join on the CPU: each left key's bounds in RIGHT,
their prefix sums, and the pairs spread evenly over the threads however they fall on the
keys. O(len(LEFT) + len(RIGHT) + pairs).

LEFT and RIGHT are 1-D NumPy .npy files of the same dtype: int8, uint8, int16, uint16,
int32, uint32, int64, uint64, float32 or float64, little-endian, C order, both sorted
ascending (NaNs last for floats, as np.sort leaves them; NaN keys match each other, as in
pandas.merge). It prints what it did: sizes, time of each step, and the join's GB/s
(inputs read + outputs written). The number of pairs is known only once counted: the
outputs' host memory is checked then, before they are made.

options:
  -o, --output LEFT_OUT.npy RIGHT_OUT.npy
                        the pairs' positions in LEFT and in RIGHT; - for standard output
  --count               print only the number of pairs; writes no file
  --device auto|gpu|cpu where to run (default auto: the GPU when CUDA finds one)
  --threads T           CPU backend threads (default 0: every hardware thread)
  --no-check            do not check that LEFT and RIGHT are sorted (the check reads them
                        once). Unsorted input then gives pairs of unspecified content, or
                        status 2 where the join finds it unsorted: never a crash or a
                        partial output file
  --force               replace output files that exist, inputs included
  --                    the end of the options: what follows are file names
  -h, --help            this text
Long options take their value after '=' too (--output=out.npy); flags take none.

Inputs are read once, front to back: pipes, FIFOs and - (standard input) work as well as
files. A file whose length differs from what its header announces is refused. A file may
be named twice (a self-join); standard input once. The two outputs are published together.

)");
  print_output_guarantees(stream);
  fmt::print(stream, "\n");
  print_exit_statuses(stream, "LEFT and RIGHT of different dtypes, unsorted input (the message names the file, the "
                              "index and the two values; found with --no-check, the files), ");
  fmt::print(stream, R"(
examples:
  corank join left_keys.npy right_keys.npy -o li.npy ri.npy
  corank join left_keys.npy right_keys.npy --count
  corank join keys.npy keys.npy -o li.npy ri.npy --device cpu     # a self-join
)");
}

}  // namespace corank::cli
