#pragma once
// The report of a benchmark run, shared by merge_bench.cu and set_ops_bench.cu: the run
// header, the tables (column heads, then rows as they are measured, each compared with
// the copy and the reference implementation, a convenience row also with the two-phase
// form), failures and skipped cases, the JSON file (--json) and the closing summary. Each
// program gives its columns and JSON fields (report_format) and measures its cases.
//
// CUDA source, as harness.hpp: include it from .cu files only, one per program.

#include "harness.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace corank_bench {

// ---------------------------------------------------------------------------------------
// Text: the date, JSON strings, the "method:" lines both programs print

inline std::string now_text() {
  const std::time_t now = std::time(nullptr);
  char text[64] = {};
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  return text;
}

inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", int(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// The start of the "method:" paragraph: how every row is timed (harness.hpp, measure).
// Each program goes on after "2x L2.", on the same line.
inline std::string timing_method(const common_options& opt, const bench_context& ctx) {
  return fmt::format(
      "method:  median of --runs {} timed runs (fewer above 2^24, see 'runs'), after {} warm-up runs; CUDA events;\n"
      "         L2 flushed before every run by reading {:.0f} MiB (untimed); inputs rotate over 2 buffer sets when\n"
      "         input + output fit in 2x L2.{}",
      opt.runs, opt.warmup, ctx.flush_data.bytes() / (1024.0 * 1024.0),
      opt.graph == 0 ? ""
                     : fmt::format("\n         --graph {0}: the rows that can be captured (copy, CUB, the two-phase forms) time\n"
                                   "         {0} back-to-back calls in one CUDA graph per run (flushed before the graph, not\n"
                                   "         between its calls); median ms is per call. The others time one call per run.",
                                   opt.graph));
}

// How the rows other than the convenience row were timed: the last sentence of the
// method's lines on the convenience row.
inline const char* from_idle_method(const common_options& opt) {
  return opt.from_idle ? "--from-idle: every row timed so."
                       : "Other rows: enqueued during the flush (--from-idle to time them so too).";
}

// The --json file of the programs that keep their rows as JSON objects (corank_sort_bench,
// corank_segmented_bench): the run's device, date and command, then the rows. Says on stderr
// when it cannot be written.
inline void write_json_rows(const std::string& path, const std::string& program, const bench_context& ctx,
                            const std::string& command, const std::vector<std::string>& rows) {
  std::ofstream file(path, std::ios::trunc);
  file << fmt::format("{{\n  \"device\": {},\n  \"date\": {},\n  \"command\": {},\n  \"results\": [\n    ",
                      json_string(ctx.device_description), json_string(now_text()), json_string(command));
  for (std::size_t i = 0; i < rows.size(); ++i) file << (i == 0 ? "" : ",\n    ") << rows[i];
  file << "\n  ]\n}\n";
  if (!file) fmt::print(stderr, "{}: could not write {}\n", program, path);
}

// ---------------------------------------------------------------------------------------
// Rows

// One row of a table: an implementation on a case. set_ops_bench's rows (set_op_row) add
// the operation, its output size and its bytes.
struct result_row {
  std::string type;
  std::string shape;
  int log = 0;
  index_t elements_per_input = 0;  // m, A's size
  index_t elements_b = 0;          // n
  std::string impl;
  timing time;
  double gbps = 0;
  double percent_of_copy = 0;
  // The reference implementation's time / this time: above 1 is faster than it.
  double ratio_to_reference = 0;
  std::string check;       // "OK", "-", or "FAIL: ..."
  bool from_idle = false;  // timed from an idle stream (harness.hpp, measure)
  // A convenience row's comparisons (compare_with_two_phase).
  std::string two_phase_impl;
  double two_phase_ms = 0;
  double thrust_ms = 0;

  result_row() = default;
  result_row(std::string type_, std::string shape_, int log_, index_t m, index_t n, std::string impl_)
      : type(std::move(type_)), shape(std::move(shape_)), log(log_), elements_per_input(m), elements_b(n),
        impl(std::move(impl_)) {}
};

// Convenience rows: the cost of allocating and synchronizing inside the call.

// Fills a convenience row's comparisons from its case's rows measured before it (rows[first..]):
// the two-phase row named `two_phase_impl` (the strategy the convenience call resolves to,
// preallocated storage) and Thrust's, if they ran.
template <class Row>
void compare_with_two_phase(Row& row, const std::vector<Row>& rows, std::size_t first,
                            const std::string& two_phase_impl) {
  row.two_phase_impl = two_phase_impl;
  for (std::size_t i = first; i < rows.size(); ++i) {
    if (rows[i].impl == two_phase_impl) row.two_phase_ms = rows[i].time.median_ms;
    if (rows[i].impl == "thrust") row.thrust_ms = rows[i].time.median_ms;
  }
}

// Convenience minus two-phase, in us: issue #27 bounds this fixed cost in us, not as a ratio.
inline bool has_overhead(const result_row& r) {
  return !r.two_phase_impl.empty() && r.time.median_ms > 0 && r.two_phase_ms > 0;
}
inline double overhead_us(const result_row& r) { return 1000.0 * (r.time.median_ms - r.two_phase_ms); }

// The line under a convenience row: the difference, and Thrust's convenience call against it.
inline void print_overhead(const result_row& r, bool all_from_idle) {
  if (!has_overhead(r)) return;
  std::string line = fmt::format("  convenience - two-phase ({}): {:+.1f} us ({:.4f} - {:.4f} ms)", r.two_phase_impl,
                                 overhead_us(r), r.time.median_ms, r.two_phase_ms);
  if (r.thrust_ms > 0) line += fmt::format("; thrust / convenience {:.2f}x", r.thrust_ms / r.time.median_ms);
  // Otherwise the others' pre-launch host time hid behind the flush (see measure).
  if (!all_from_idle) line += "; the others not timed from idle (--from-idle)";
  fmt::print("{}\n", line);
  std::fflush(stdout);
}

// A row's JSON fields beside the common ones: how it was timed (from idle, in a graph of how
// many calls), and the comparisons.
inline std::string convenience_json(const result_row& r) {
  std::string text = fmt::format(", \"from_idle\": {}, \"graph_calls\": {}", r.from_idle ? "true" : "false",
                                 r.time.graph_calls);
  if (has_overhead(r)) {
    text += fmt::format(", \"two_phase_impl\": {}, \"two_phase_ms\": {:.6f}, \"overhead_us\": {:.2f}",
                        json_string(r.two_phase_impl), r.two_phase_ms, overhead_us(r));
  }
  if (r.thrust_ms > 0 && !r.two_phase_impl.empty()) text += fmt::format(", \"thrust_ms\": {:.6f}", r.thrust_ms);
  return text;
}

// ---------------------------------------------------------------------------------------
// The report

// A case that did not run, for lack of device memory.
struct skipped_case {
  std::string type;
  std::string shape;
  int log = 0;
  std::string reason;
};

// What each program's report has of its own: its columns and its JSON fields.
template <class Row>
struct report_format {
  void (*print_table_header)();
  void (*print_row)(const Row&);
  // A row's fields in the JSON file's results, up to "check" (convenience_json follows).
  std::string (*row_json)(const Row&);
  // The program's own fields in the JSON file's settings.
  const char* settings_json;
};

// The report of a run: begin() prints its header, run_table() runs and prints a table,
// end() its summary. The JSON file (--json) is rewritten after each case.
template <class Row>
class report {
 public:
  report(const common_options& opt, bench_context& ctx, report_format<Row> format)
      : opt_(opt), ctx_(ctx), format_(format) {}

  // Opens the device and prints the header (title, device, CUDA and CCCL versions, date,
  // command) and the device's copy bandwidth. False, having said why on stderr, when the
  // machine has no CUDA GPU.
  bool begin(const char* program, const char* title) {
    if (!open_device(ctx_, program)) return false;
    date_ = now_text();
    int runtime_version = 0, driver_version = 0;
    cudaRuntimeGetVersion(&runtime_version);
    cudaDriverGetVersion(&driver_version);
    fmt::print("{}\n", title);
    fmt::print("device:  {}\n", ctx_.device_description);
    fmt::print("runtime: CUDA {}.{} (driver {}.{}), CCCL {}.{}.{}\n", runtime_version / 1000,
               runtime_version % 1000 / 10, driver_version / 1000, driver_version % 1000 / 10, CCCL_MAJOR_VERSION,
               CCCL_MINOR_VERSION, CCCL_PATCH_VERSION);
    fmt::print("date:    {}\n", date_);
    fmt::print("command: {}\n", opt_.command);
    std::fflush(stdout);
    copy_peak_gbps_ = measure_copy_peak(ctx_);
    fmt::print("copy bandwidth: {:.1f} GB/s (cudaMemcpyAsync of 1 GiB device to device, read + write counted)\n",
               copy_peak_gbps_);
    return true;
  }

  // One table: the column heads, then `run_case(Key{}, Value{}, log)` for each size, Key
  // and Value the types of `kind`, the JSON file rewritten after each; a blank line after.
  template <class RunCase>
  void run_table(case_kind kind, RunCase run_case) {
    format_.print_table_header();
    for (const int log : opt_.size_logs()) {
      with_case_types(kind, [&](auto key, auto value) { run_case(key, value, log); });
      write_json();
    }
    fmt::print("\n");
  }

  // Measures the rows of a case (of an operation in set_ops_bench) with `measure(impl)` and
  // prints and keeps them in the table's order: first the copy and the reference
  // implementation, which every row is compared with, then the others of `impls`. A
  // convenience row is also compared with the row of `two_phase_impl`, the two-phase
  // strategy it runs, and gets a line of its own (print_overhead).
  template <class Impl, class Measure>
  void add_case_rows(const std::vector<Impl>& impls, Impl copy, Impl reference, Measure measure,
                     const std::string& two_phase_impl) {
    const Row copy_row = measure(copy);
    const Row reference_row = measure(reference);
    const std::size_t first_row = rows_.size();  // this case's rows
    auto add = [&](Row row) {
      if (row.time.median_ms > 0) {
        row.percent_of_copy = copy_row.time.median_ms > 0 ? 100.0 * copy_row.time.median_ms / row.time.median_ms : 0;
        row.ratio_to_reference =
            reference_row.time.median_ms > 0 ? reference_row.time.median_ms / row.time.median_ms : 0;
      }
      if (row.impl == "convenience") compare_with_two_phase(row, rows_, first_row, two_phase_impl);
      format_.print_row(row);
      if (!row.two_phase_impl.empty()) print_overhead(row, opt_.from_idle);
      rows_.push_back(row);
    };
    add(copy_row);
    add(reference_row);
    for (Impl impl : impls) {
      if (impl == copy || impl == reference) continue;
      add(measure(impl));
    }
  }

  // A case that does not run: `columns` (the row's first columns) and why, in the table.
  void skip(skipped_case skipped, const std::string& columns) {
    fmt::print("{}  skipped: {}\n", columns, skipped.reason);
    std::fflush(stdout);
    skipped_.push_back(std::move(skipped));
  }

  // Counts a failure and prints it, set off from the table.
  void fail(const std::string& what, const std::string& message) {
    ++failures_;
    fmt::print("\n!!!!!!!! FAIL: {}: {}\n\n", what, message);
    std::fflush(stdout);
  }

  // Releases the device's stream and events, then prints the summary: the cases skipped,
  // the failures or that every output matched the reference implementation's
  // (`reference`). Returns the exit status.
  int end(const char* reference) {
    ctx_.release();
    if (!skipped_.empty()) {
      fmt::print("skipped for lack of device memory: {} case(s), listed above\n", skipped_.size());
    }
    if (failures_ > 0) {
      fmt::print("!!!!!!!! {} FAILURE(S): see the FAIL lines above\n", failures_);
      return 1;
    }
    fmt::print("all outputs matched {}\n", reference);
    return 0;
  }

 private:
  void write_json() const {
    if (opt_.json_path.empty()) return;
    std::string logs;
    for (const int log : opt_.size_logs()) logs += fmt::format("{}{}", logs.empty() ? "" : ", ", log);
    std::string text = "{\n";
    text += fmt::format("  \"device\": {},\n  \"date\": {},\n  \"command\": {},\n",
                        json_string(ctx_.device_description), json_string(date_), json_string(opt_.command));
    text += fmt::format(
        "  \"settings\": {{\"min_log\": {}, \"max_log\": {}, \"log_step\": {}, \"runs\": {}, \"warmup\": {}, "
        "\"l2_bytes\": {}, \"flush_bytes\": {}, {}, \"logs\": [{}], \"from_idle\": {}, \"graph\": {}}},\n",
        opt_.min_log, opt_.max_log, opt_.log_step, opt_.runs, opt_.warmup, ctx_.l2_bytes, ctx_.flush_data.bytes(),
        format_.settings_json, logs, opt_.from_idle ? "true" : "false", opt_.graph);
    text += fmt::format("  \"copy_peak_gbps\": {:.2f},\n  \"results\": [", copy_peak_gbps_);
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const Row& r = rows_[i];
      text += fmt::format("{}\n    {{{}{}}}", i == 0 ? "" : ",", format_.row_json(r), convenience_json(r));
    }
    text += "\n  ],\n  \"skipped\": [";
    for (std::size_t i = 0; i < skipped_.size(); ++i) {
      const skipped_case& s = skipped_[i];
      text += fmt::format("{}\n    {{\"type\": {}, \"shape\": {}, \"log2_elements_per_input\": {}, \"reason\": {}}}",
                          i == 0 ? "" : ",", json_string(s.type), json_string(s.shape), s.log, json_string(s.reason));
    }
    text += fmt::format("\n  ],\n  \"failures\": {}\n}}\n", failures_);
    std::ofstream file(opt_.json_path, std::ios::trunc);
    file << text;
    if (!file) fmt::print(stderr, "warning: could not write {}\n", opt_.json_path);
  }

  const common_options& opt_;
  bench_context& ctx_;
  report_format<Row> format_;
  std::string date_;
  double copy_peak_gbps_ = 0;
  std::vector<Row> rows_;
  std::vector<skipped_case> skipped_;
  int failures_ = 0;
};

}  // namespace corank_bench
