#pragma once
// The set commands' streamed path (set_command.cpp takes it for two inputs without segments
// when inputs and output do not fit the GPU's memory or the host's, or --gpu-memory is
// given): the inputs are mapped from their files, not read; the operation runs chunk by
// chunk (the library's streamed forms, through the GPU or on the CPU backend); each chunk's
// output is written to the output files as it comes, and the files are published together
// at the end, as the command's other outputs are. A progress bar shows the path done and
// the rate.

#include "command_steps.hpp"
#include "output_file.hpp"
#include "set_job.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace corank::cli {

struct streamed_command {
  const char* name = "";  // the subcommand
  set_operation operation = set_operation::merge;
  const npy_options* options = nullptr;
  bool on_gpu = false;
  output_file* keys_out = nullptr;  // null with --count
  output_file* values_out = nullptr;
  std::FILE* report = stdout;
};

// Whether the job streams: --gpu-memory given, or inputs and output too large for the GPU's
// free memory (on_gpu) or for the host's.
bool should_stream(const npy_options& options, bool on_gpu, double input_bytes, double output_bytes);

int run_streamed_command(const streamed_command& command);

}  // namespace corank::cli
