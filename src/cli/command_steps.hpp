#pragma once
// The steps that the commands on .npy columns (set_command.cpp: merge and the set
// operations; sort_command.cpp: sort) take alike, in the order they take them: the options
// they share, which files the arguments name, host memory, the device, the unsorted-input
// message, writing and publishing the outputs, and the report's timing lines.

#include "arguments.hpp"
#include "column.hpp"
#include "file_identity.hpp"
#include "job_outcome.hpp"
#include "output_file.hpp"

#include <corank/config.hpp>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace corank::cli {

// What the commands' options set; each command takes a subset.
struct npy_options {
  std::vector<std::string> inputs;
  std::vector<std::string> values;
  std::string output;
  std::string values_output;
  std::vector<std::string> segments;  // the offsets files of A and B (segments.hpp), or none
  std::string segments_output;
  bool count_only = false;
  bool check = true;
  bool force = false;
  std::string device = "auto";
  unsigned threads = 0;
  std::size_t gpu_memory = 0;  // --gpu-memory: stream through at most this much (streamed_command.hpp)
};

// Takes the current argument if it is one of the options every command reads alike: -o,
// --values-out, --device, --threads, --force. False for any other.
bool read_shared_option(argument_reader& args, npy_options& options);

std::string plural(index_t n, const char* word);
std::string format_gib(double bytes);

// "a.npy", "a.npy and b.npy", "a.npy, b.npy and c.npy".
std::string join_names(const std::vector<std::string>& names);

// An argument naming a file, and what it is (by identity: see file_identity.hpp).
struct named_file {
  std::string role;  // "A", "-o", ...: messages say "input A", "-o out.npy"
  std::string path;
  file_identity identity;
};

// Every rule about which files the arguments name, checked before anything is opened: any
// two outputs that are one file; an output that is an input (only with `force`, and only a
// regular file); one stream read twice. Throws input_error.
void check_file_names(const std::vector<named_file>& inputs, const std::vector<named_file>& outputs, bool force);

// Refuses a job that cannot fit in host memory, before reading it: the inputs, the output
// and, where the backend needs them, `working_bytes` more of buffers. Throws
// std::runtime_error with the figures.
void check_host_memory(double input_bytes, double output_bytes, double working_bytes = 0);

// The message for std::bad_alloc: the host ran out of memory after all.
std::runtime_error out_of_host_memory();

// --device auto|gpu|cpu: whether to run on the GPU. Throws std::runtime_error for --device
// gpu without one.
bool choose_gpu(const std::string& device);

// "PATH is not sorted: element i (x) is less than element i - 1 (y) ...; sort it first ...";
// with a segment (>= 0), "PATH is not sorted in segment s: ...; sort each segment first ...".
std::string unsorted_message(const std::string& path, const column& keys, index_t index, index_t segment = -1);
// The same for keys of `type` at `keys` (a mapped file's).
std::string unsorted_message(const std::string& path, dtype type, const void* keys, index_t index,
                             index_t segment = -1);

// An unsorted input that an operation on unchecked inputs (--no-check) found without knowing
// which or where (corank::unsorted_input with input() 0): "A or B is not sorted (found ...);
// run without --no-check to find where"; three inputs or more: "one of A, B and C ...".
std::string unchecked_unsorted_message(const std::vector<std::string>& paths, bool segmented = false);

// Writes each column to its output (null outputs skipped): files first (the likeliest to
// fail: a full disk), then streams, then the files are published together, so an error
// anywhere leaves every output file as it was.
void write_outputs(const std::vector<std::pair<output_file*, const column*>>& writes);

// The usage's paragraphs on what happens to outputs (temporary files, publishing together,
// --force, streams) and on the progress bar and the report.
void print_output_guarantees(std::FILE* stream);

// The usage's exit statuses; status 2 also lists `own_problems`, the command's own unusable
// inputs (each followed by ", "; may be empty).
void print_exit_statuses(std::FILE* stream, const std::string& own_problems);

// The report's lines after its first: device, read, to GPU, check, the operation (its
// keys, time and GB/s over the bytes read and written), from GPU, write. `checked` says what
// the check covered ("A and B sorted"); empty: the command has no check step.
struct report_steps {
  const char* operation = "";
  const char* unit = "key";  // what the operation's count counts: "key", "pair", "query"

  std::string checked;
  double read_bytes = 0;
  double read_ms = 0;
  double written_bytes = 0;
  double write_ms = 0;
};
void print_report_steps(std::FILE* report, const report_steps& steps, const job_outcome& outcome);

}  // namespace corank::cli
