#pragma once
// What a backend hands back to a command (set_job.hpp, multiway_job.hpp): the result, where
// it ran, and how long each step took.

#include "column.hpp"

#include <corank/config.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace corank::cli {

struct job_outcome {
  index_t count = 0;  // output size
  column keys;        // count elements (none when only counted)
  column values;      // count payloads, when the job has values
  column segments;    // a segmented job's output offsets (int64, S + 1), or with count_only its S sizes
  std::string where;  // the device, in words
  // Milliseconds; negative: the backend has no such step.
  double upload_ms = -1;
  double check_ms = -1;
  double compute_ms = 0;
  double download_ms = -1;
};

// Milliseconds since `start`: the outcome's timings and the commands' reports.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The CPU backend's threads: `threads`, or every hardware thread where it is 0.
inline unsigned cpu_threads(unsigned threads) {
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Where a job on the CPU backend ran, in words (job_outcome::where).
inline std::string cpu_backend_name(unsigned threads) {
  return fmt::format("CPU backend (corank::host), {} thread{}", threads, threads == 1 ? "" : "s");
}

// The GPU has too little free memory for the job; the message suggests --device cpu.
class gpu_memory_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace corank::cli
