#pragma once
// What the streamed set commands (streamed_command.cpp) hand to a backend: inputs mapped
// from their files, the outputs' writers, and the memory budget. The backends run the
// library's streamed forms with sinks that write each chunk's output as it comes:
// streamed_cpu.cpp (corank::host::streamed_*) and streamed_gpu.cu (corank::streamed_*,
// through the GPU in chunks), both through run_operation (set_dispatch.hpp).

#include "mapped_npy.hpp"
#include "npy.hpp"
#include "set_dispatch.hpp"
#include "set_job.hpp"

#include <corank/streamed_chunks.hpp>

#include <cstddef>
#include <functional>
#include <utility>

namespace corank::cli {

struct streamed_job {
  set_operation operation = set_operation::merge;
  const mapped_npy* a = nullptr;
  const mapped_npy* b = nullptr;
  const mapped_npy* a_values = nullptr;  // optional
  const mapped_npy* b_values = nullptr;
  npy_writer* keys_out = nullptr;    // null: count only
  npy_writer* values_out = nullptr;  // with values
  std::size_t memory = 0;            // the GPU's budget, or the CPU's chunk buffers; 0: the default
  unsigned threads = 0;
  std::function<void(index_t done, index_t total)> progress;

  // The pointers run_operation reads: the mapped inputs, no output arrays.
  operation_operands operands() const {
    operation_operands o;
    o.key_type = a->type();
    o.value_bytes = a_values != nullptr ? dtype_size(a_values->type()) : 0;
    o.a = a->data();
    o.size_a = a->size();
    o.b = b->data();
    o.size_b = b->size();
    o.a_values = a_values != nullptr ? a_values->data() : nullptr;
    o.b_values = b_values != nullptr ? b_values->data() : nullptr;
    o.count_only = keys_out == nullptr;
    return o;
  }
};

// What run_operation subtracts the output pointer from: the streamed forms return a count.
struct streamed_end {
  index_t count;
  template <class T>
  friend index_t operator-(streamed_end end, T*) {
    return end.count;
  }
};

// The three streamed forms of one operation (streamed_merge, streamed_merge_by_key and a count,
// of corank:: or corank::host::) as run_operation's runners: each chunk's output goes to the
// job's writers; the trailing argument is the streamed_options.
template <class Keys, class ByKey, class Count>
auto streamed_runners(Keys keys, ByKey by_key, Count count, const streamed_job& job) {
  npy_writer* keys_out = job.keys_out;
  npy_writer* values_out = job.values_out;
  return operation_runners{
      [=](auto a, auto a_end, auto b, auto b_end, auto, auto comp, const streamed_options& options) {
        const auto sink = [=](const auto* chunk, index_t n) { keys_out->write(chunk, n); };
        return streamed_end{keys(a, a_end, b, b_end, sink, comp, options)};
      },
      [=](auto a, auto a_end, auto b, auto b_end, auto a_values, auto b_values, auto, auto, auto comp,
          const streamed_options& options) {
        const auto sink = [=](const auto* chunk_keys, const auto* chunk_values, index_t n) {
          keys_out->write(chunk_keys, n);
          values_out->write(chunk_values, n);
        };
        const index_t n = by_key(a, a_end, b, b_end, a_values, b_values, sink, comp, options);
        return std::pair{streamed_end{n}, streamed_end{n}};
      },
      count};
}

// The merges have no count form: their size is the inputs'.
inline constexpr auto streamed_merge_size = [](auto a, auto a_end, auto b, auto b_end, auto, auto) {
  return index_t((a_end - a) + (b_end - b));
};

index_t run_streamed_job_on_cpu(const streamed_job& job);
index_t run_streamed_job_on_gpu(const streamed_job& job);

}  // namespace corank::cli
