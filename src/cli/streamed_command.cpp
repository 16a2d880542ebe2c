#include "streamed_command.hpp"

#include "gpu_columns.hpp"
#include "host_memory.hpp"
#include "mapped_npy.hpp"
#include "progress.hpp"
#include "set_dispatch.hpp"
#include "streamed_gpu_ops.hpp"
#include "streamed_job.hpp"

#include <corank/error.hpp>
#include <corank/host/check_sorted.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace corank::cli {
namespace {

// The first i in [1, n) with comp(keys[i], keys[i - 1]), or n: equal pieces searched on
// `threads` threads (each piece also compares its first key with the one before it), the
// first break of the first piece that has one. A mapped file larger than memory is read at
// the disk's rate by several threads, not one core's.
template <class Key, class Compare>
index_t find_unsorted_on_threads(const Key* keys, index_t n, Compare comp, unsigned threads) {
  const index_t pieces = std::max<index_t>(1, std::min<index_t>(threads, n / (index_t(1) << 20)));
  std::vector<index_t> first(std::size_t(pieces), n);
  auto search = [&](index_t p) {
    const index_t begin = std::max<index_t>(0, n / pieces * p - 1), end = p + 1 == pieces ? n : n / pieces * (p + 1);
    const index_t i = begin + corank::host::find_unsorted(keys + begin, keys + end, comp);
    first[std::size_t(p)] = i == end ? n : i;
  };
  std::vector<std::thread> team;
  for (index_t p = 1; p < pieces; ++p) team.emplace_back(search, p);
  search(0);
  for (std::thread& t : team) t.join();
  return *std::min_element(first.begin(), first.end());
}

// Each input sorted, on the mapped data: throws input_error naming the file and the index.
void check_sorted_mapped(const mapped_npy& a, const mapped_npy& b, unsigned threads) {
  visit_key_and_payload(all_key_types{}, all_value_payloads{}, a.type(), 0, [&](auto key_tag, auto) {
    using Key = typename decltype(key_tag)::type;
    for (const mapped_npy* x : {&a, &b}) {
      const index_t i = find_unsorted_on_threads(static_cast<const Key*>(x->data()), x->size(), key_order<Key>{},
                                                 threads);
      if (i != x->size()) throw input_error(unsorted_message(x->path(), x->type(), x->data(), i));
    }
  });
}

}  // namespace

bool should_stream(const npy_options& options, bool on_gpu, double input_bytes, double output_bytes) {
  if (options.gpu_memory != 0) return true;
  // Mapped inputs need no RAM, but do need address space (ulimit -v), as do a few chunks' buffers.
  const double buffers = double(std::uint64_t(1) << 30);
  if (input_bytes + output_bytes > double(available_host_memory()) &&
      input_bytes + buffers <= double(available_address_space()))
    return true;
  return on_gpu && input_bytes + output_bytes > double(describe_gpu().free_bytes) / 16 * 15;
}

int run_streamed_command(const streamed_command& command) {
  const npy_options& options = *command.options;
  const bool with_values = !options.values.empty();
  auto start = std::chrono::steady_clock::now();
  const mapped_npy a(options.inputs[0]), b(options.inputs[1]);
  std::unique_ptr<mapped_npy> a_values, b_values;
  if (with_values) {
    a_values = std::make_unique<mapped_npy>(options.values[0]);
    b_values = std::make_unique<mapped_npy>(options.values[1]);
  }
  if (options.check) {
    check_sorted_mapped(a, b, cpu_threads(options.threads));
  }
  const double check_ms = options.check ? ms_since(start) : -1;

  const std::size_t value_bytes = with_values ? dtype_size(a_values->type()) : 0;
  const bool gpu = command.on_gpu && gpu_streams(a.type(), value_bytes);
  if (command.on_gpu && !gpu) {
    fmt::print(stderr,
               "note: the GPU streams int32, int64, float32 and float64 keys with values of 4 or 8 bytes; {} keys{} "
               "stream on the CPU backend\n",
               dtype_name(a.type()), with_values ? fmt::format(" with {} values", dtype_name(a_values->type())) : "");
  }
  streamed_job job;
  job.operation = command.operation;
  job.a = &a;
  job.b = &b;
  job.a_values = a_values.get();
  job.b_values = b_values.get();
  job.memory = options.gpu_memory;
  job.threads = options.threads;
  const index_t bound = output_bound(command.operation, a.size(), b.size());
  // Unchecked inputs found unsorted (an exception, or a size the operation cannot have):
  // refused, the outputs unpublished.
  const auto run = [&](const streamed_job& j) {
    index_t count = -1;  // stays so where the operation throws corank::unsorted_input
    try {
      count = gpu ? run_streamed_job_on_gpu(j) : run_streamed_job_on_cpu(j);
    } catch (const corank::unsorted_input&) {
    }
    if (count < 0 || count > bound) throw input_error(unchecked_unsorted_message({a.path(), b.path()}));
    return count;
  };

  // A stream's header is written first, with the output's size: the merge knows it, a set
  // operation counts first.
  index_t most = bound;
  const bool to_stream = command.keys_out != nullptr &&
                         (command.keys_out->is_stream() || (with_values && command.values_out->is_stream()));
  if ((command.keys_out == nullptr || to_stream) && command.operation != set_operation::merge) most = run(job);
  if (command.keys_out == nullptr) {
    fmt::print(command.report, "{}\n", most);
    return exit_ok;
  }

  npy_writer keys_writer(command.keys_out->file(), command.keys_out->name(), a.type(), most);
  std::unique_ptr<npy_writer> values_writer;
  if (with_values) {
    values_writer = std::make_unique<npy_writer>(command.values_out->file(), command.values_out->name(),
                                                 a_values->type(), most);
  }
  job.keys_out = &keys_writer;
  job.values_out = values_writer.get();
  const std::size_t element_bytes = dtype_size(a.type()) + value_bytes;
  progress_bar bar(fmt::format("{} ({})", command.name, gpu ? "through the GPU" : "CPU"),
                   std::uint64_t(a.size() + b.size()) * element_bytes);
  job.progress = [&](index_t done, index_t) { bar.update(std::uint64_t(done) * element_bytes); };

  start = std::chrono::steady_clock::now();
  const index_t count = run(job);
  // A stream's header announced `most`; a write that differs (unsorted inputs) would break it.
  if (to_stream && count != most) throw input_error(unchecked_unsorted_message({a.path(), b.path()}));
  keys_writer.finish(!command.keys_out->is_stream());
  if (values_writer) values_writer->finish(!command.values_out->is_stream());
  command.keys_out->finish_writing();
  if (command.values_out != nullptr) command.values_out->finish_writing();
  publish_together({command.keys_out, command.values_out});
  const double run_ms = ms_since(start);
  bar.finish();

  const double read_bytes = double(a.size() + b.size()) * double(element_bytes);
  const double written_bytes = double(count) * double(element_bytes);
  fmt::print(command.report, "corank {}: {} and {} ({}, {} + {}) -> {} ({}), streamed in chunks\n", command.name,
             a.path(), b.path(), dtype_name(a.type()), plural(a.size(), "key"), plural(b.size(), "key"),
             options.output, plural(count, "key"));
  if (with_values) {
    fmt::print(command.report, "  values: {} ({}) -> {}\n", join_names(options.values), dtype_name(a_values->type()),
               options.values_output);
  }
  fmt::print(command.report, "  device    {}, {}\n",
             gpu ? "the GPU, through its memory in chunks" : "the CPU backend, in chunks",
             options.gpu_memory != 0 ? fmt::format("at most {} of memory (--gpu-memory)", format_bytes(double(options.gpu_memory)))
                                     : std::string(gpu ? "what is free of its memory" : "one chunk's memory"));
  if (check_ms >= 0) {
    fmt::print(command.report, "  check     A and B sorted, {:.1f} ms\n", check_ms);
  } else {
    fmt::print(command.report, "  check     skipped (--no-check)\n");
  }
  fmt::print(command.report, "  {:<9} {} in {:.1f} ms, {:.2f} GB/s (inputs read from their files + output written, {})\n",
             command.name, plural(count, "key"), run_ms, (read_bytes + written_bytes) / (run_ms * 1e6),
             format_bytes(read_bytes + written_bytes));
  return exit_ok;
}

}  // namespace corank::cli
