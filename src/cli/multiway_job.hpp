#pragma once
// What `corank merge` with three inputs or more (set_command.cpp) and `corank sort`
// (sort_command.cpp) hand to a backend: a k-way merge of sorted columns, or a stable sort
// of one column. The backends: multiway_cpu.cpp (corank::host on threads) and
// multiway_gpu.cu (corank on the GPU), with the outcome of job_outcome.hpp.
//
// As in set_job.hpp, values are moved as unsigned payloads of their width.

#include "column.hpp"
#include "job_outcome.hpp"

#include <corank/config.hpp>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace corank::cli {

// k sorted runs into one, stable: among equal keys the lower run's come first.
struct merge_runs_job {
  std::vector<const column*> keys;    // k >= 1 runs, one dtype, sorted (NaNs last for float keys)
  std::vector<const column*> values;  // empty, or one per run of its length, all of one dtype
  bool check_sorted = true;           // throws unsorted_run
  unsigned threads = 0;               // CPU backend; 0: every hardware thread
};

// Run `run` of a merge_runs_job is not sorted: its element `index` comes before `index - 1`.
class unsorted_run : public std::invalid_argument {
 public:
  unsorted_run(std::size_t run, index_t index)
      : std::invalid_argument("a run is not sorted"), run_(run), index_(index) {}
  std::size_t run() const noexcept { return run_; }
  index_t index() const noexcept { return index_; }

 private:
  std::size_t run_;
  index_t index_;
};

job_outcome run_merge_runs_on_cpu(const merge_runs_job& job);
job_outcome run_merge_runs_on_gpu(const merge_runs_job& job);

// A stable sort of one column and its values: the columns are taken, sorted where they
// are, and handed back as the outcome's keys and values, so the host holds one copy.
struct sort_job {
  column keys;
  column values;             // keys.size() of them, with values
  bool with_values = false;
  unsigned threads = 0;      // CPU backend; 0: every hardware thread
};

job_outcome run_sort_on_cpu(sort_job job);
job_outcome run_sort_on_gpu(sort_job job);

// The host memory a backend needs beyond the columns it is given and returns: the CPU's
// k-way merge a buffer of the output's size (with three nonempty runs or more), its sort
// that and what std::stable_sort takes for its pieces; the GPU's nothing. `element_bytes`:
// a key's and its value's.
double merge_runs_host_buffer_bytes(bool on_gpu, const std::vector<index_t>& run_sizes, std::size_t element_bytes);
double sort_host_buffer_bytes(bool on_gpu, index_t size, std::size_t key_bytes, std::size_t value_bytes);

}  // namespace corank::cli
