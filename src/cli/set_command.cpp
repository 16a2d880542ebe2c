// corank merge | union | intersect | diff | symdiff: a set operation on two sorted .npy
// columns (and optionally their values), on the GPU or the CPU backend; merge also takes
// three inputs or more, a k-way merge (multiway_job.hpp). With --segments, the two inputs
// are S segment pairs and each pair is one operation (segments.hpp).
//
// Order of work, so that a mistake costs nothing: the command line; then which files the
// arguments name (two outputs that are one file, an output that is an input); then the
// outputs (refused if they exist, temporary files created, so an unwritable directory
// shows now); then every input's header (dtypes, shapes, lengths), the memory it needs and
// the device; and only then the data is read, checked, processed, written and published.

#include "arguments.hpp"
#include "column.hpp"
#include "command_steps.hpp"
#include "commands.hpp"
#include "file_identity.hpp"
#include "multiway_job.hpp"
#include "npy.hpp"
#include "output_file.hpp"
#include "segments.hpp"
#include "set_job.hpp"
#include "streamed_command.hpp"

#include <corank/error.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <vector>

namespace corank::cli {
namespace {

struct set_command_info {
  const char* name;     // the subcommand
  set_operation operation;
  const char* library;  // the corank function it runs
  const char* rule;     // what it writes, for the usage
  bool multiway = false;  // takes two inputs or more (merge)
};

constexpr set_command_info merge_info{
    "merge", set_operation::merge, "corank::merge",
    "The stable merge of two or more sorted columns: every key of every input, in one sorted\n"
    "column; among equal keys A's come first, then B's, then C's ..., each input in its order.",
    true};
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
  const bool k = info.multiway;
  const std::string runs =
      k ? "It runs corank::merge for two inputs and corank::merge_run_list (a k-way merge) for more\n"
          "(with --values their _by_key forms) on the GPU, or corank::host's on the CPU."
        : fmt::format("It runs {} (its _by_key form with --values) on the GPU, or corank::host's\non the CPU.",
                      info.library);
  fmt::print(stream, R"(usage: corank {name} {inputs} -o OUT.npy [options]
       corank {name} {inputs} --values {values}
              -o OUT.npy --values-out OUT_VALUES.npy [options]
       corank {name} {inputs} --count [options]
       corank {name} A.npy B.npy --segments A_OFFSETS.npy B_OFFSETS.npy
              -o OUT.npy --segments-out OUT_OFFSETS.npy [--values ... --values-out ...] [options]

{rule}
{runs}

{which} 1-D NumPy .npy files of the same dtype: int8, uint8, int16, uint16, int32,
uint32, int64, uint64, float32 or float64, little-endian, C order, sorted ascending (NaNs
last for floats, as np.sort leaves them). The output has their dtype. It prints what it
did: sizes, time of each step, and the operation's GB/s (inputs read + output written).

options:
  -o, --output OUT.npy  the result; - for standard output
  --values {values}
{values_help}
  --values-out OUT_VALUES.npy
                        the values of the result (needed with --values)
  --segments A_OFFSETS.npy B_OFFSETS.npy
                        two inputs as S segment pairs, one operation per pair (see
                        Segments below); needs --segments-out, except with --count
  --segments-out OUT_OFFSETS.npy
                        the result's S + 1 segment offsets, int64; with --count, each
                        segment's result size instead (S int64 values)
  --count               print only the size of the result; writes no file but
                        --segments-out (merge reads only the headers, and the offsets:
                        its size is the sum of the inputs')
  --device auto|gpu|cpu where to run (default auto: the GPU when CUDA finds one)
  --threads T           CPU backend threads (default 0: every hardware thread)
  --gpu-memory BYTES    stream: map the inputs, run in chunks through at most this much GPU
                        memory (on the CPU backend: chunk buffers of this size), and write
                        the output as it comes (e.g. 4G, 2^30); see Streaming below
  --no-check            do not check that {checked} sorted (the check reads them once;
                        with --segments, each segment is checked, not the whole column).
                        Unsorted input then gives an output of unspecified content within
                        the operation's bound, or status 2 where the operation finds it
                        unsorted: never a crash or a partial output file
  --force               replace output files that exist, inputs included
  --                    the end of the options: what follows are file names
  -h, --help            this text
Long options take their value after '=' too (--output=out.npy); flags take none.

Inputs are read once, front to back: pipes, FIFOs and - (standard input) work as well as
files. A file whose length differs from what its header announces is refused.{same_file}

Float keys are ordered with NaNs last, as np.sort leaves them.
All NaNs are equal to each other (and -0.0 equals 0.0): the set operations match NaN
copies as they match copies of any other key, so the union of [nan] and [nan, nan] is
[nan, nan].

Streaming (two inputs, without --segments): when the inputs and the output do not fit in
the GPU's free memory or in host memory, or with --gpu-memory, the inputs are mapped from
their files instead of read (they may be larger than host memory), the operation runs chunk
by chunk ({streamed} on the GPU, corank::host's on the CPU), and each chunk's output is
written to the output files as it comes; they are published together at the end as always.
Inputs must then be regular files. The GPU streams int32, int64, float32 and float64 keys
with values of 4 or 8 bytes; other dtypes stream on the CPU backend. A progress bar shows
the work done and its rate.

Segments (--segments): many small operations in one run, such as the rows of two CSR
matrices, whose indptr arrays are their offsets. It runs {segmented}
(_by_key with --values{count_form}) on the GPU, or corank::host's on the CPU.
  - A_OFFSETS and B_OFFSETS are 1-D int32 or int64 files of S + 1 values each, for the
    same S: they start at 0, never decrease, and end at their keys' length. Segment s of A
    is A[a_offsets[s]:a_offsets[s + 1]], of B likewise; empty segments are fine, and [0]
    is no segments (with empty keys).
  - The keys need to be sorted only inside each segment, and are checked segment by
    segment (an unsorted one is named by file, segment and index).
  - Segment s of the result is the operation on A's and B's segments s, at
    OUT[out_offsets[s]:out_offsets[s + 1]]. OUT_OFFSETS is always int64, whatever the
    inputs' offsets: a result can outgrow an int32 offset.
  - --segments with -o needs --segments-out (a segmented result is of no use without its
    offsets), and --segments-out needs --segments. All outputs, --segments-out included,
    are published together.
  - Only two inputs: merge of three or more, and sort, have no segmented form yet.

)",
             fmt::arg("name", info.name), fmt::arg("rule", info.rule), fmt::arg("runs", runs),
             fmt::arg("inputs", k ? "A.npy B.npy [C.npy ...]" : "A.npy B.npy"),
             fmt::arg("values", k ? "A_VALUES.npy B_VALUES.npy [C_VALUES.npy ...]" : "A_VALUES.npy B_VALUES.npy"),
             fmt::arg("which", k ? "A, B, ... are" : "A and B are"),
             fmt::arg("values_help",
                      k ? "                        one values file per input, in the inputs' order (--values takes\n"
                          "                        the files up to the next option), each with one value per key,\n"
                          "                        all of one dtype (any of the above); they move with their keys\n"
                          "                        into --values-out"
                        : "                        the values of A's and of B's keys, one per key, of one dtype (any\n"
                          "                        of the above); they move with their keys into --values-out"),
             fmt::arg("checked", k ? "the inputs are" : "A and B are"),
             // "corank::set_union" -> "corank::segmented_set_union"
             fmt::arg("segmented", std::string(info.library).replace(0, 8, "corank::segmented_")),
             fmt::arg("streamed", std::string(info.library).replace(0, 8, "corank::streamed_")),
             fmt::arg("count_form", info.operation == set_operation::merge ? "" : ", _count with --count"),
             fmt::arg("same_file",
                      k ? "\nA file may be named more than once (merged with itself); standard input once." : ""));
  print_output_guarantees(stream);
  fmt::print(stream, "\n");
  print_exit_statuses(stream, fmt::format("{}, unsorted input (the message names the file, the index and the two "
                                          "values; found with --no-check, the files), segment offsets that are not "
                                          "int32 or int64, empty, of different segment counts, not starting at 0, "
                                          "decreasing, or not ending at their keys' length, ",
                                          k ? "inputs of different dtypes" : "A and B of different dtypes"));
  fmt::print(stream, R"(
examples:
  corank {name} a.npy b.npy -o out.npy
  corank {name} a.npy b.npy --count
  corank {name} keys_a.npy keys_b.npy --values vals_a.npy vals_b.npy -o keys.npy --values-out vals.npy
  corank {name} a.npy b.npy -o out.npy --device cpu --force
  corank {name} a.npy b.npy --segments a_indptr.npy b_indptr.npy -o c.npy --segments-out c_indptr.npy
  python make_column.py | corank {name} - b.npy -o - | python use_column.py
{more})",
             fmt::arg("name", info.name),
             fmt::arg("more", k ? "  corank merge part1.npy part2.npy part3.npy part4.npy -o all.npy\n" : ""));
}

npy_options parse_set_options(const set_command_info& info, int argc, char** argv, bool& help) {
  npy_options options;
  argument_reader args(argc, argv,
                       {{"--output", "-o", 1}, {"--values", nullptr, 2}, {"--values-out", nullptr, 1},
                        {"--segments", nullptr, 2}, {"--segments-out", nullptr, 1}, {"--count"},
                        {"--device", nullptr, 1}, {"--threads", nullptr, 1}, {"--gpu-memory", nullptr, 1},
                        {"--no-check"}, {"--force"}});
  while (args.next()) {
    if (args.is_help()) {
      help = true;
    } else if (args.is_positional()) {
      options.inputs.push_back(args.name());
    } else if (args.is("--values")) {
      // Two files as always, then (for merge's k inputs) any up to the next option.
      options.values = {args.value(), args.following_value()};
      for (std::string& more : args.values_up_to_next_option()) options.values.push_back(std::move(more));
    } else if (args.is("--segments")) {
      options.segments = {args.value(), args.following_value()};
    } else if (args.is("--segments-out")) {
      options.segments_output = args.value();
    } else if (args.is("--count")) {
      options.count_only = true;
    } else if (args.is("--no-check")) {
      options.check = false;
    } else if (args.is("--gpu-memory")) {
      options.gpu_memory = std::size_t(parse_count(args.name(), args.value(), 1, index_t(1) << 50));
    } else {
      read_shared_option(args, options);
    }
  }
  if (help) return options;
  const std::size_t k = options.inputs.size();
  if (k < 2) {
    throw usage_error(fmt::format("needs {} input files, A.npy and B.npy{}", info.multiway ? "two or more" : "two",
                                  options.values.size() > 1 ? " (--values takes the files up to the next option: "
                                                              "name the inputs before it)"
                                                            : ""));
  }
  if (k > 2 && !info.multiway) {
    throw usage_error(fmt::format("needs two input files, got {} (the third is '{}'); only merge takes more", k,
                                  options.inputs[2]));
  }
  if (!options.values.empty() && options.values.size() != k) {
    throw usage_error(fmt::format("--values names {} files for {} input files: give one values file per input, in "
                                  "the inputs' order",
                                  options.values.size(), k));
  }
  const bool segmented = !options.segments.empty();
  if (segmented && k > 2) {
    throw usage_error(fmt::format("--segments takes two inputs, A and B, got {}: a segmented merge of three inputs "
                                  "or more is not built",
                                  k));
  }
  if (options.gpu_memory != 0 && (segmented || k > 2)) {
    throw usage_error(segmented ? "--gpu-memory streams two inputs in chunks; with --segments they are not streamed"
                                : "--gpu-memory streams two inputs in chunks; a merge of three inputs or more is not "
                                  "streamed");
  }
  if (!segmented && !options.segments_output.empty()) {
    throw usage_error("--segments-out needs --segments A_OFFSETS.npy B_OFFSETS.npy");
  }
  if (options.count_only) {
    if (!options.output.empty() || !options.values_output.empty()) {
      throw usage_error(segmented ? "--count prints the output size and writes no keys: drop -o / --values-out "
                                    "(--segments-out takes each segment's size)"
                                  : "--count prints the output size and writes no file: drop -o / --values-out");
    }
    if (!options.values.empty()) throw usage_error("--count counts keys: drop --values");
  } else {
    if (options.output.empty()) throw usage_error("no output file: give -o OUT.npy (or --count)");
    if (segmented && options.segments_output.empty()) {
      throw usage_error("--segments needs --segments-out OUT_OFFSETS.npy: a segmented result is of no use without "
                        "its segment offsets");
    }
    if (!options.values.empty() && options.values_output.empty()) {
      throw usage_error("--values needs --values-out OUT_VALUES.npy");
    }
    if (options.values.empty() && !options.values_output.empty()) {
      throw usage_error("--values-out needs --values A_VALUES.npy B_VALUES.npy");
    }
  }
  return options;
}

// Inputs are A, B, C, ... as the usage names them (#27 on: numbers).
std::string input_role(std::size_t i) {
  return i < 26 ? std::string(1, char('A' + i)) : fmt::format("#{}", i + 1);
}

// Every input's header opened and checked against the first's dtype.
std::vector<std::unique_ptr<npy_input>> open_inputs(const std::vector<named_file>& files, std::size_t first,
                                                    std::size_t count, bool values) {
  std::vector<std::unique_ptr<npy_input>> inputs;
  for (std::size_t i = 0; i < count; ++i) inputs.push_back(std::make_unique<npy_input>(files[first + i].path));
  const npy_input& a = *inputs.front();
  for (std::size_t i = 1; i < count; ++i) {
    const npy_input& x = *inputs[i];
    if (x.header().type == a.header().type) continue;
    if (count == 2 && !values) {
      throw input_error(fmt::format("{} is {} but {} is {}: A and B must have the same dtype (convert one, e.g. "
                                    "numpy: b.astype(np.{}))",
                                    a.path(), dtype_name(a.header().type), x.path(), dtype_name(x.header().type),
                                    dtype_name(a.header().type)));
    }
    if (count == 2) {
      throw input_error(fmt::format("{} is {} but {} is {}: A's and B's values must have the same dtype", a.path(),
                                    dtype_name(a.header().type), x.path(), dtype_name(x.header().type)));
    }
    throw input_error(fmt::format("{} is {} but {} is {}: every {} must have the same dtype (convert it, e.g. "
                                  "numpy: x.astype(np.{}))",
                                  x.path(), dtype_name(x.header().type), a.path(), dtype_name(a.header().type),
                                  values ? "values file" : "input", dtype_name(a.header().type)));
  }
  return inputs;
}

// merge --count with --segments: the total, and each segment's size from the offsets alone.
void count_segmented_merge(segment_offsets_inputs& offsets_in, const std::vector<index_t>& sizes,
                           const std::vector<std::string>& paths, output_file* segments_out) {
  check_host_memory(offsets_in.host_bytes(), segments_out != nullptr ? double(offsets_in.segments()) * 8 : 0);
  const auto [a_offsets, b_offsets] = offsets_in.read(sizes[0], paths[0], sizes[1], paths[1]);
  if (segments_out != nullptr) {
    const column segment_sizes = merge_segment_sizes(a_offsets, b_offsets);
    write_outputs({{segments_out, &segment_sizes}});
  }
}

int run_set_command(const set_command_info& info, int argc, char** argv) {
  bool help = false;
  const npy_options options = parse_set_options(info, argc, argv, help);
  if (help) {
    print_set_usage(info, stdout);
    return exit_ok;
  }
  const bool with_values = !options.values.empty();
  const bool segmented = !options.segments.empty();
  const std::size_t k = options.inputs.size();

  // Which files the arguments name, before anything is opened or read.
  std::vector<named_file> inputs;
  for (std::size_t i = 0; i < k; ++i) inputs.push_back({input_role(i), options.inputs[i], {}});
  for (std::size_t i = 0; with_values && i < k; ++i) {
    inputs.push_back({input_role(i) + "'s values", options.values[i], {}});
  }
  for (std::size_t i = 0; segmented && i < 2; ++i) {
    inputs.push_back({input_role(i) + "'s offsets", options.segments[i], {}});
  }
  for (named_file& in : inputs) in.identity = identify(in.path, STDIN_FILENO);
  std::vector<named_file> outputs;
  if (!options.count_only) {
    outputs.push_back({"-o", options.output, identify(options.output, STDOUT_FILENO)});
    if (with_values) {
      outputs.push_back({"--values-out", options.values_output, identify(options.values_output, STDOUT_FILENO)});
    }
  }
  if (!options.segments_output.empty()) {
    outputs.push_back(
        {"--segments-out", options.segments_output, identify(options.segments_output, STDOUT_FILENO)});
  }
  check_file_names(inputs, outputs, options.force);

  // Outputs next: refusing an existing file or an unwritable directory costs no reading.
  std::unique_ptr<output_file> keys_out, values_out, segments_out;
  if (!options.count_only) {
    keys_out = std::make_unique<output_file>(options.output, options.force);
    if (with_values) values_out = std::make_unique<output_file>(options.values_output, options.force);
  }
  if (!options.segments_output.empty()) {
    segments_out = std::make_unique<output_file>(options.segments_output, options.force);
  }
  const bool report_to_stderr = options.output == "-" || options.values_output == "-" || options.segments_output == "-";
  std::FILE* report = report_to_stderr ? stderr : stdout;

  // Every header before any data.
  const auto key_inputs = open_inputs(inputs, 0, k, false);
  std::vector<index_t> sizes;
  std::vector<std::string> paths;
  index_t total = 0;
  for (const auto& in : key_inputs) {
    sizes.push_back(in->header().size), paths.push_back(in->path()), total += in->header().size;
  }
  const dtype key_type = key_inputs.front()->header().type;
  std::unique_ptr<segment_offsets_inputs> offsets_in;
  if (segmented) offsets_in = std::make_unique<segment_offsets_inputs>(options.segments[0], options.segments[1]);
  if (info.operation == set_operation::merge && options.count_only) {
    // A merge's size needs no data.
    if (segmented) count_segmented_merge(*offsets_in, sizes, paths, segments_out.get());
    fmt::print(report, "{}\n", total);
    return exit_ok;
  }
  std::vector<std::unique_ptr<npy_input>> value_inputs;
  if (with_values) {
    value_inputs = open_inputs(inputs, k, k, true);
    for (std::size_t i = 0; i < k; ++i) {
      if (value_inputs[i]->header().size != sizes[i]) {
        throw input_error(fmt::format("{} has {} but {} has {}: each key needs exactly one value", options.values[i],
                                      plural(value_inputs[i]->header().size, "value"), paths[i],
                                      plural(sizes[i], "key")));
      }
    }
  }

  const bool on_gpu = choose_gpu(options.device);
  const std::size_t element_bytes =
      dtype_size(key_type) + (with_values ? dtype_size(value_inputs.front()->header().type) : 0);
  const index_t segments = segmented ? offsets_in->segments() : 0;
  // The offsets' files (and their int64 copies), and the output's S + 1 offsets or S sizes.
  const double input_bytes = double(total) * double(element_bytes) + (segmented ? offsets_in->host_bytes() : 0);
  const index_t output_elements =
      options.count_only ? 0 : k > 2 ? total : output_bound(info.operation, sizes[0], sizes[1]);
  const double output_bytes = double(output_elements) * double(element_bytes) +
                              (segmented ? double(segments + (options.count_only ? 0 : 1)) * 8 : 0);
  if (k == 2 && !segmented && should_stream(options, on_gpu, input_bytes, output_bytes)) {
    return run_streamed_command(
        {info.name, info.operation, &options, on_gpu, keys_out.get(), values_out.get(), report});
  }
  check_host_memory(input_bytes, output_bytes,
                    k > 2 ? merge_runs_host_buffer_bytes(on_gpu, sizes, element_bytes) : 0);

  auto start = std::chrono::steady_clock::now();
  // The offsets first: a wrong one costs no reading of the keys.
  column a_offsets, b_offsets;
  if (segmented) std::tie(a_offsets, b_offsets) = offsets_in->read(sizes[0], paths[0], sizes[1], paths[1]);
  std::vector<column> keys, values;
  for (const auto& in : key_inputs) keys.push_back(in->read());
  for (const auto& in : value_inputs) values.push_back(in->read());
  const double read_ms = ms_since(start);

  job_outcome outcome;
  try {
    if (k == 2) {
      set_job job;
      job.operation = info.operation;
      job.a = &keys[0];
      job.b = &keys[1];
      if (with_values) {
        job.a_values = &values[0];
        job.b_values = &values[1];
      }
      if (segmented) {
        job.a_offsets = &a_offsets;
        job.b_offsets = &b_offsets;
      }
      job.count_only = options.count_only;
      job.check_sorted = options.check;
      job.threads = options.threads;
      outcome = on_gpu ? run_set_job_on_gpu(job) : run_set_job_on_cpu(job);
    } else {
      merge_runs_job job;
      for (const column& c : keys) job.keys.push_back(&c);
      for (const column& c : values) job.values.push_back(&c);
      job.check_sorted = options.check;
      job.threads = options.threads;
      outcome = on_gpu ? run_merge_runs_on_gpu(job) : run_merge_runs_on_cpu(job);
    }
  } catch (const corank::unsorted_input& e) {
    // The operation found unchecked inputs unsorted: it knows neither which input nor where.
    if ((e.input() != 'A' && e.input() != 'B') || e.index() < 1) {
      throw input_error(unchecked_unsorted_message(paths, segmented));
    }
    const std::size_t i = e.input() == 'A' ? 0 : 1;
    const index_t segment = segmented ? segment_of(i == 0 ? a_offsets : b_offsets, e.index()) : -1;
    throw input_error(unsorted_message(paths[i], keys[i], e.index(), segment));
  } catch (const unsorted_run& e) {
    throw input_error(unsorted_message(paths[e.run()], keys[e.run()], e.index()));
  }

  if (options.count_only) {
    if (segments_out) write_outputs({{segments_out.get(), &outcome.segments}});
    fmt::print(report, "{}\n", outcome.count);
    return exit_ok;
  }

  start = std::chrono::steady_clock::now();
  write_outputs({{keys_out.get(), &outcome.keys},
                 {values_out.get(), &outcome.values},
                 {segments_out.get(), &outcome.segments}});
  report_steps steps;
  steps.operation = info.name;
  steps.write_ms = ms_since(start);
  steps.read_ms = read_ms;
  steps.written_bytes = double(outcome.keys.bytes() + outcome.values.bytes() + outcome.segments.bytes());
  for (const column& c : keys) steps.read_bytes += double(c.bytes());
  for (const column& c : values) steps.read_bytes += double(c.bytes());
  if (segmented) steps.read_bytes += double(offsets_in->data_bytes());
  steps.checked = segmented ? fmt::format("A and B sorted in each of {}", plural(segments, "segment"))
                  : k == 2  ? "A and B sorted"
                            : fmt::format("{} inputs sorted", k);

  const std::string sizes_text = k == 2 ? fmt::format("{} + {}", plural(sizes[0], "key"), plural(sizes[1], "key"))
                                        : fmt::format("{} in {} files", plural(total, "key"), k);
  fmt::print(report, "corank {}: {} ({}, {}) -> {} ({})\n", info.name, join_names(paths), dtype_name(key_type),
             sizes_text, options.output, plural(outcome.count, "key"));
  if (with_values) {
    fmt::print(report, "  values: {} ({}) -> {}\n", join_names(options.values), dtype_name(values.front().type()),
               options.values_output);
  }
  if (segmented) {
    fmt::print(report, "  segments: {} ({}) -> {} (int64 offsets)\n", join_names(options.segments),
               plural(segments, "segment"), options.segments_output);
  }
  print_report_steps(report, steps, outcome);
  return exit_ok;
}

template <const set_command_info& Info>
int run_command(int argc, char** argv) {
  try {
    return run_set_command(Info, argc, argv);
  } catch (const std::bad_alloc&) {
    throw out_of_host_memory();
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
