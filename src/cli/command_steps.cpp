#include "command_steps.hpp"

#include "cuda_devices.hpp"
#include "host_memory.hpp"
#include "npy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace corank::cli {

bool read_shared_option(argument_reader& args, npy_options& options) {
  if (args.is("-o") || args.is("--output")) {
    options.output = args.value();
  } else if (args.is("--values-out")) {
    options.values_output = args.value();
  } else if (args.is("--device")) {
    options.device = parse_choice(args.name(), args.value(), {"auto", "gpu", "cpu"});
  } else if (args.is("--threads")) {
    const std::uint64_t threads = parse_unsigned(args.name(), args.value());
    if (threads > 4096) throw usage_error(fmt::format("--threads: {} is more than 4096", threads));
    options.threads = unsigned(threads);
  } else if (args.is("--force")) {
    options.force = true;
  } else {
    return false;
  }
  return true;
}

std::string plural(index_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

std::string format_gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / double(std::uint64_t(1) << 30)); }

std::string join_names(const std::vector<std::string>& names) {
  std::string joined;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) joined += i + 1 == names.size() ? " and " : ", ";
    joined += names[i];
  }
  return joined;
}

void check_file_names(const std::vector<named_file>& inputs, const std::vector<named_file>& outputs, bool force) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[i].identity != outputs[j].identity) continue;
      throw input_error(fmt::format("{} {} and {} {} are the same file; name two different files", outputs[i].role,
                                    outputs[i].path, outputs[j].role, outputs[j].path));
    }
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
  // A regular file may be named twice (merging a file with itself is a merge); a stream is
  // read once.
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

void check_host_memory(double input_bytes, double output_bytes, double working_bytes) {
  const double needed = input_bytes + output_bytes + working_bytes;
  const std::uint64_t available = available_host_memory();
  if (needed <= double(available)) return;
  std::vector<std::string> parts = {fmt::format("the inputs ({})", format_gib(input_bytes))};
  if (output_bytes > 0) parts.push_back(fmt::format("the output (up to {})", format_gib(output_bytes)));
  if (working_bytes > 0) parts.push_back(fmt::format("the backend's buffers ({})", format_gib(working_bytes)));
  throw std::runtime_error(fmt::format("not enough host memory: {} need {} in RAM, and {} is available; free memory, "
                                       "or use smaller inputs",
                                       join_names(parts), format_gib(needed), format_gib(double(available))));
}

std::runtime_error out_of_host_memory() {
  return std::runtime_error(fmt::format("out of host memory ({} available): the inputs and the output must fit in "
                                        "RAM; free memory, or use smaller inputs",
                                        format_gib(double(available_host_memory()))));
}

bool choose_gpu(const std::string& device) {
  if (device == "cpu") return false;
  std::string reason;
  const bool found = cuda_device_count(reason) > 0;
  if (!found && device == "gpu") {
    throw std::runtime_error(fmt::format("--device gpu, but no CUDA GPU found ({}); use --device cpu or auto", reason));
  }
  return found;
}

std::string unsorted_message(const std::string& path, const column& keys, index_t i, index_t segment) {
  return unsorted_message(path, keys.type(), keys.data(), i, segment);
}

std::string unsorted_message(const std::string& path, dtype type, const void* keys, index_t i, index_t segment) {
  const bool floats = type == dtype::float32 || type == dtype::float64;
  const std::string where = segment < 0 ? "" : fmt::format(" in segment {}", segment);
  const char* advice = segment < 0 ? "sort it first (numpy: np.sort, or np.argsort with kind='stable' to reorder "
                                     "values with their keys)"
                                   : "sort each segment first (numpy: np.lexsort((keys, segment_ids)) orders the "
                                     "keys inside each segment)";
  return fmt::format("{} is not sorted{}: element {} ({}) is less than element {} ({}){}; {}, or check that it is "
                     "the file you meant",
                     path, where, i, format_element(type, keys, i), i - 1, format_element(type, keys, i - 1),
                     floats ? " in the order with NaNs last" : "", advice);
}

std::string unchecked_unsorted_message(const std::vector<std::string>& paths, bool segmented) {
  const std::string which = paths.size() == 2 ? paths[0] + " or " + paths[1] : "one of " + join_names(paths);
  return fmt::format("{} is not sorted{} (found while partitioning the unchecked inputs); run without --no-check to "
                     "find where",
                     which, segmented ? " in its segments" : "");
}

void write_outputs(const std::vector<std::pair<output_file*, const column*>>& writes) {
  std::vector<std::pair<output_file*, const column*>> ordered;
  std::vector<output_file*> outputs;
  for (const auto& w : writes) {
    if (w.first != nullptr) ordered.push_back(w), outputs.push_back(w.first);
  }
  std::stable_partition(ordered.begin(), ordered.end(), [](const auto& w) { return !w.first->is_stream(); });
  for (const auto& [out, data] : ordered) {
    write_npy(out->file(), out->name(), *data);
    out->finish_writing();
  }
  publish_together(outputs);
}

void print_output_guarantees(std::FILE* stream) {
  fmt::print(stream, R"(Outputs are safe to name anything:
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
)");
}

void print_exit_statuses(std::FILE* stream, const std::string& own_problems) {
  fmt::print(stream, R"(exit status:
  0  done
  1  the work failed: a read or write error, an output directory where no file can be
     created, not enough host memory (the message says how much is needed) or GPU memory
     (use --device cpu), a CUDA error, --device gpu without a GPU
)");
  const std::string problems =
      "a wrong command line, or an input that cannot be used: a missing or unreadable file, not a .npy file, "
      "truncated data or bytes after it, an unsupported dtype, big-endian data, Fortran order, not one dimension, " +
      own_problems +
      "values whose length differs from their keys', an output that exists or is an input (without --force), two "
      "outputs that are one file, an output that cannot be one, or whose directory does not exist";
  // Wrapped at 88 columns under its first word, as the usage texts are.
  std::string line = "  2 ";
  std::size_t from = 0;
  while (from < problems.size()) {
    std::size_t to = problems.find(' ', from);
    if (to == std::string::npos) to = problems.size();
    const std::string word = problems.substr(from, to - from);
    if (line.size() + 1 + word.size() > 88) {
      fmt::print(stream, "{}\n", line);
      line = "    ";
    }
    line += " " + word;
    from = to + 1;
  }
  fmt::print(stream, "{}\n", line);
}

void print_report_steps(std::FILE* report, const report_steps& steps, const job_outcome& outcome) {
  fmt::print(report, "  device    {}\n", outcome.where);
  fmt::print(report, "  read      {} in {:.1f} ms\n", format_bytes(steps.read_bytes), steps.read_ms);
  if (outcome.upload_ms >= 0) fmt::print(report, "  to GPU    {:.1f} ms\n", outcome.upload_ms);
  if (!steps.checked.empty()) {
    if (outcome.check_ms >= 0) {
      fmt::print(report, "  check     {}, {:.1f} ms\n", steps.checked, outcome.check_ms);
    } else {
      fmt::print(report, "  check     skipped (--no-check)\n");
    }
  }
  const double moved = steps.read_bytes + steps.written_bytes;
  fmt::print(report, "  {:<9} {} in {:.3f} ms, {:.2f} GB/s (inputs read + output written, {})\n", steps.operation,
             plural(outcome.count, steps.unit), outcome.compute_ms,
             outcome.compute_ms > 0 ? moved / (outcome.compute_ms * 1e6) : 0.0, format_bytes(moved));
  if (outcome.download_ms >= 0) fmt::print(report, "  from GPU  {:.1f} ms\n", outcome.download_ms);
  fmt::print(report, "  write     {} in {:.1f} ms\n", format_bytes(steps.written_bytes), steps.write_ms);
}

}  // namespace corank::cli
