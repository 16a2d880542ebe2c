// corank's streamed merge and set operations (host memory through the GPU in chunks) against
// the host<->device copy bound and corank's CPU backend, in one process on one device.
//
//   corank_streamed_bench [--logs 28,30,32] [--types i32,i64] [--runs 5] [--chunks 22,24,26]
//                         [--mmap-log 28] [--json FILE] [--quick]
//
// First the bound, measured with pinned buffers of 1 GiB: host-to-device alone, device-to-host
// alone, and both at once (each direction's rate while the other runs). Then for each key type
// and 2^log keys per input: the streamed merge, the four set operations and
// set_intersection_count, from pinned host memory (the arrays registered with
// cudaHostRegister) and from pageable memory (the same arrays unregistered); GB/s counts the
// bytes moved each way (inputs in, outputs out); "of bound" is the time the two copies alone
// would take at the measured rates (both directions at once, then the longer one alone) over
// the measured time. The CPU backend (corank::host, every core) runs the same operation on the
// same pageable arrays. Then --chunks: the pinned merge at the largest int32 size with these
// chunk sizes (log2). Then memory-mapped input files at 2^mmap-log (written to $TMPDIR, page
// cache warm, and once cold after posix_fadvise(DONTNEED)), with the disk's cold read rate.
// Pageable and mmap rows' bound also counts the host's memcpy rate on every core (measured):
// each byte moves through the pinned buffers once. Wall-clock time of each call
// (it synchronizes), median of --runs (--runs/2, at least 3, from 2^30 on).
// Keys: A[i] = (i - h(i)) >> s with h a hash bit and s chosen so that keys fit the type,
// B the same with another hash: sorted, with runs of 1 to 4 equal keys, about half of them
// matched. --quick: 2^28 int32 only, pinned and pageable, merge and set_union.

#include <corank/host/set_operations.hpp>
#include <corank/host/merge.hpp>
#include <corank/detail/forms/copy_team.hpp>
#include <corank/streamed.cuh>

#include "harness.hpp"
#include "report.hpp"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace corank_bench;

struct options {
  std::vector<int> logs{28, 30, 32};
  std::vector<std::string> types{"i32", "i64"};
  std::vector<int> chunks{22, 23, 24, 25, 26};
  int mmap_log = 28;
  int runs = 5;
  std::string json_path;
  bool quick = false;
};

std::vector<std::string> json_rows;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The median of `runs` wall-clock times of `call`, in seconds.
double median_seconds(int runs, const std::function<void()>& call) {
  std::vector<double> s;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    call();
    s.push_back(seconds_since(start));
  }
  return summarize(s).median_ms;  // summarize takes any unit
}

// Splits [0, n) over every core.
template <class Work>
void parallel_for(std::size_t n, Work work) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> team;
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([=] { work(n / threads * t, t + 1 == threads ? n : n / threads * (t + 1)); });
  }
  for (std::thread& t : team) t.join();
}

// ---------------------------------------------------------------------------------------
// The bound

struct bandwidth {
  double h2d = 0, d2h = 0;            // alone, bytes per second
  double h2d_both = 0, d2h_both = 0;  // each while the other runs
  double host_copy = 0;               // memcpy between pageable buffers on every core

  // Seconds to copy `in` bytes to the device and `out` back, both at once until the shorter
  // one ends, then the rest alone.
  double bound_seconds(double in, double out) const {
    const double together = std::min(in / h2d_both, out / d2h_both);
    const double in_left = in - together * h2d_both, out_left = out - together * d2h_both;
    return together + std::max(0.0, in_left) / h2d + std::max(0.0, out_left) / d2h;
  }
};

// Pageable memory moves through pinned buffers by memcpy on every core (copy_team.hpp), each
// byte in and out once: the host's copy rate bounds those rows.
double measure_host_copy(int runs) {
  const std::size_t bytes = std::size_t(1) << 30;
  std::vector<char> from(bytes, 1), to(bytes, 0);
  corank::detail::copy_team team(std::max(1u, std::thread::hardware_concurrency()));
  const double s = median_seconds(runs, [&] { team.copy({{to.data(), from.data(), bytes}}); });
  return bytes / s;
}

bandwidth measure_bandwidth(int runs) {
  const std::size_t bytes = std::size_t(1) << 30;
  void *host_in = nullptr, *host_out = nullptr, *device_in = nullptr, *device_out = nullptr;
  BENCH_CHECK(cudaMallocHost(&host_in, bytes));
  BENCH_CHECK(cudaMallocHost(&host_out, bytes));
  BENCH_CHECK(cudaMalloc(&device_in, bytes));
  BENCH_CHECK(cudaMalloc(&device_out, bytes));
  std::memset(host_in, 1, bytes);
  cudaStream_t up, down;
  BENCH_CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
  BENCH_CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
  cudaEvent_t up_start, up_stop, down_start, down_stop;
  for (cudaEvent_t* e : {&up_start, &up_stop, &down_start, &down_stop}) BENCH_CHECK(cudaEventCreate(e));
  auto timed = [&](bool in, bool out, double& in_rate, double& out_rate) {
    std::vector<double> in_ms, out_ms;
    for (int r = 0; r < runs + 1; ++r) {  // the first run warms up
      if (in) {
        BENCH_CHECK(cudaEventRecord(up_start, up));
        BENCH_CHECK(cudaMemcpyAsync(device_in, host_in, bytes, cudaMemcpyHostToDevice, up));
        BENCH_CHECK(cudaEventRecord(up_stop, up));
      }
      if (out) {
        BENCH_CHECK(cudaEventRecord(down_start, down));
        BENCH_CHECK(cudaMemcpyAsync(host_out, device_out, bytes, cudaMemcpyDeviceToHost, down));
        BENCH_CHECK(cudaEventRecord(down_stop, down));
      }
      BENCH_CHECK(cudaDeviceSynchronize());
      float ms = 0;
      if (in && r > 0) {
        BENCH_CHECK(cudaEventElapsedTime(&ms, up_start, up_stop));
        in_ms.push_back(ms);
      }
      if (out && r > 0) {
        BENCH_CHECK(cudaEventElapsedTime(&ms, down_start, down_stop));
        out_ms.push_back(ms);
      }
    }
    if (in) in_rate = bytes / (summarize(in_ms).median_ms * 1e-3);
    if (out) out_rate = bytes / (summarize(out_ms).median_ms * 1e-3);
  };
  bandwidth b;
  double unused_rate = 0;
  timed(true, false, b.h2d, unused_rate);
  timed(false, true, unused_rate, b.d2h);
  timed(true, true, b.h2d_both, b.d2h_both);
  b.host_copy = measure_host_copy(runs);
  for (cudaEvent_t e : {up_start, up_stop, down_start, down_stop}) cudaEventDestroy(e);
  cudaStreamDestroy(up);
  cudaStreamDestroy(down);
  cudaFreeHost(host_in);
  cudaFreeHost(host_out);
  cudaFree(device_in);
  cudaFree(device_out);
  return b;
}

// ---------------------------------------------------------------------------------------
// The operations

enum class op_kind { merge, set_union, set_intersection, set_difference, set_symmetric_difference, intersection_count };
constexpr op_kind all_ops[] = {op_kind::merge,          op_kind::set_union,
                               op_kind::set_intersection, op_kind::set_difference,
                               op_kind::set_symmetric_difference, op_kind::intersection_count};

const char* to_string(op_kind op) {
  switch (op) {
    case op_kind::merge: return "merge";
    case op_kind::set_union: return "set_union";
    case op_kind::set_intersection: return "set_intersection";
    case op_kind::set_difference: return "set_difference";
    case op_kind::set_symmetric_difference: return "set_symmetric_difference";
    case op_kind::intersection_count: return "set_intersection_count";
  }
  return "?";
}

// The streamed call; returns the output size.
template <class Key>
index_t streamed(op_kind op, const Key* a, index_t m, const Key* b, index_t n, Key* out,
                 const corank::streamed_options& o) {
  switch (op) {
    case op_kind::merge: return corank::streamed_merge(a, a + m, b, b + n, out, {}, o) - out;
    case op_kind::set_union: return corank::streamed_set_union(a, a + m, b, b + n, out, {}, o) - out;
    case op_kind::set_intersection: return corank::streamed_set_intersection(a, a + m, b, b + n, out, {}, o) - out;
    case op_kind::set_difference: return corank::streamed_set_difference(a, a + m, b, b + n, out, {}, o) - out;
    case op_kind::set_symmetric_difference:
      return corank::streamed_set_symmetric_difference(a, a + m, b, b + n, out, {}, o) - out;
    case op_kind::intersection_count: return corank::streamed_set_intersection_count(a, a + m, b, b + n, {}, o);
  }
  return 0;
}

// The CPU backend's call on every core.
template <class Key>
index_t on_cpu(op_kind op, const Key* a, index_t m, const Key* b, index_t n, Key* out) {
  switch (op) {
    case op_kind::merge: return corank::host::merge(a, a + m, b, b + n, out) - out;
    case op_kind::set_union: return corank::host::set_union(a, a + m, b, b + n, out) - out;
    case op_kind::set_intersection: return corank::host::set_intersection(a, a + m, b, b + n, out) - out;
    case op_kind::set_difference: return corank::host::set_difference(a, a + m, b, b + n, out) - out;
    case op_kind::set_symmetric_difference: return corank::host::set_symmetric_difference(a, a + m, b, b + n, out) - out;
    case op_kind::intersection_count: return corank::host::set_intersection_count(a, a + m, b, b + n);
  }
  return 0;
}

std::uint64_t hash(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

template <class Key>
void fill_keys(std::vector<Key>& keys, std::uint64_t salt, int shift) {
  parallel_for(keys.size(), [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      const std::uint64_t bit = i > 0 ? hash(i ^ salt) & 1 : 0;
      keys[i] = Key((i - bit) >> shift);
    }
  });
}

void print_row(const std::string& memory, const std::string& type, int log, op_kind op, index_t out_count,
               std::size_t key_bytes, double seconds, const bandwidth& bw, double cpu_seconds, index_t chunk = 0) {
  const index_t n = index_t(1) << log;
  const double in = 2.0 * n * key_bytes;
  const double out = op == op_kind::intersection_count ? 0.0 : double(out_count) * key_bytes;
  // Pageable and memory-mapped memory is also copied once on the host each way.
  const double bound = memory == "pinned" ? bw.bound_seconds(in, out)
                                          : std::max(bw.bound_seconds(in, out), (in + out) / bw.host_copy);
  const std::string cpu = cpu_seconds > 0 ? fmt::format("{:8.1f} {:6.2f}x", (in + out) / cpu_seconds / 1e9, cpu_seconds / seconds)
                                          : fmt::format("{:>8} {:>7}", "", "");
  fmt::print("{:<9} {:<4} 2^{:<3} {:<26} {:>9.1f} {:>8.1f} {:>8.0f}%  {}{}\n", memory, type, log, to_string(op),
             seconds * 1e3, (in + out) / seconds / 1e9, 100.0 * bound / seconds, cpu,
             chunk > 0 ? fmt::format("  chunk 2^{}", int(std::log2(double(chunk)))) : std::string());
  std::fflush(stdout);
  json_rows.push_back(fmt::format(
      "{{\"memory\": \"{}\", \"type\": \"{}\", \"log\": {}, \"operation\": \"{}\", \"chunk\": {}, \"ms\": {:.3f}, "
      "\"gb_per_s\": {:.2f}, \"bound_ms\": {:.3f}, \"of_bound\": {:.3f}, \"cpu_ms\": {:.3f}}}",
      memory, type, log, to_string(op), chunk, seconds * 1e3, (in + out) / seconds / 1e9, bound * 1e3, bound / seconds,
      cpu_seconds * 1e3));
}

void print_head() {
  fmt::print("{:<9} {:<4} {:<5} {:<26} {:>9} {:>8} {:>9}  {:>8} {:>7}\n", "memory", "key", "n", "operation", "ms",
             "GB/s", "of bound", "CPU GB/s", "GPU/CPU");
}

// Pinned (registered) and pageable rows for one key type and size, with the CPU backend's.
template <class Key>
void bench_size(const options& opt, const std::string& type, int log, const bandwidth& bw) {
  const std::size_t n = std::size_t(1) << log;
  const int shift = std::max(0, log + 1 - int(8 * sizeof(Key)));
  std::vector<Key> a(n), b(n), out(2 * n);
  fill_keys(a, 1, shift);
  fill_keys(b, 2, shift);
  parallel_for(out.size(), [&](std::size_t from, std::size_t to) { std::fill(out.data() + from, out.data() + to, Key(0)); });
  const int runs = log >= 30 ? std::max(3, opt.runs / 2) : opt.runs;
  corank::streamed_options o;
  std::vector<op_kind> ops(std::begin(all_ops), std::end(all_ops));
  if (opt.quick) ops = {op_kind::merge, op_kind::set_union};
  std::vector<double> cpu_seconds(ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    on_cpu(ops[k], a.data(), index_t(n), b.data(), index_t(n), out.data());  // warm-up
    cpu_seconds[k] = median_seconds(std::max(1, runs / 2),
                                    [&] { on_cpu(ops[k], a.data(), index_t(n), b.data(), index_t(n), out.data()); });
  }
  for (const bool pinned : {true, false}) {
    if (pinned) {
      for (auto* v : {&a, &b, &out}) BENCH_CHECK(cudaHostRegister(v->data(), v->size() * sizeof(Key), cudaHostRegisterDefault));
    }
    for (std::size_t k = 0; k < ops.size(); ++k) {
      index_t count = streamed(ops[k], a.data(), index_t(n), b.data(), index_t(n), out.data(), o);  // warm-up
      const index_t reference = on_cpu(ops[k], a.data(), index_t(n), b.data(), index_t(n), out.data());
      if (count != reference) fmt::print("CHECK FAILED: {} streamed {} outputs, the CPU {}\n", to_string(ops[k]), count, reference);
      const double s = median_seconds(runs, [&] { count = streamed(ops[k], a.data(), index_t(n), b.data(), index_t(n), out.data(), o); });
      print_row(pinned ? "pinned" : "pageable", type, log, ops[k], count, sizeof(Key), s, bw, cpu_seconds[k]);
    }
    if (pinned && !opt.quick && type == "i32" && log == opt.logs.back()) {
      for (int c : opt.chunks) {
        corank::streamed_options chunked;
        chunked.chunk = index_t(1) << c;
        index_t count = 0;
        const double s = median_seconds(runs, [&] { count = streamed(op_kind::merge, a.data(), index_t(n), b.data(), index_t(n), out.data(), chunked); });
        print_row("pinned", type, log, op_kind::merge, count, sizeof(Key), s, bw, 0, chunked.chunk);
      }
    }
    if (pinned) {
      for (auto* v : {&a, &b, &out}) BENCH_CHECK(cudaHostUnregister(v->data()));
    }
  }
}

// A file of `keys`, memory-mapped read-only; unmapped and removed by the destructor.
struct mapped_file {
  std::string path;
  void* data = MAP_FAILED;
  std::size_t bytes = 0;
  int fd = -1;

  template <class Key>
  mapped_file(const std::string& name, const std::vector<Key>& keys) : path(name), bytes(keys.size() * sizeof(Key)) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) throw std::runtime_error("cannot create " + path);
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t w = ::write(fd, reinterpret_cast<const char*>(keys.data()) + done, bytes - done);
      if (w <= 0) throw std::runtime_error("cannot write " + path);
      done += std::size_t(w);
    }
    ::fsync(fd);
    data = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (data == MAP_FAILED) throw std::runtime_error("cannot map " + path);
  }
  ~mapped_file() {
    if (data != MAP_FAILED) ::munmap(data, bytes);
    if (fd >= 0) ::close(fd);
    ::unlink(path.c_str());
  }
  // Drops the file's pages from memory and the page cache: the next reads come from the disk.
  void make_cold() {
    ::madvise(data, bytes, MADV_DONTNEED);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  }
};

void bench_mmap(const options& opt, int log, const bandwidth& bw) {
  using Key = std::int32_t;
  const std::size_t n = std::size_t(1) << log;
  std::vector<Key> keys(n);
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp != nullptr ? tmp : "/tmp";
  fill_keys(keys, 1, 0);
  mapped_file fa(dir + "/corank_streamed_bench_a.bin", keys);
  fill_keys(keys, 2, 0);
  mapped_file fb(dir + "/corank_streamed_bench_b.bin", keys);
  keys = {};
  std::vector<Key> out(2 * n);
  const Key* a = static_cast<const Key*>(fa.data);
  const Key* b = static_cast<const Key*>(fb.data);
  corank::streamed_options o;
  index_t count = 0;
  for (op_kind op : {op_kind::merge, op_kind::set_union}) {
    streamed(op, a, index_t(n), b, index_t(n), out.data(), o);
    const double s = median_seconds(opt.runs, [&] { count = streamed(op, a, index_t(n), b, index_t(n), out.data(), o); });
    print_row("mmap warm", "i32", log, op, count, sizeof(Key), s, bw, 0);
  }
  // The disk: A's file read cold, sequentially.
  fa.make_cold();
  {
    std::vector<char> buffer(std::size_t(64) << 20);
    const auto start = std::chrono::steady_clock::now();
    ::lseek(fa.fd, 0, SEEK_SET);
    std::size_t read_bytes = 0;
    for (ssize_t r; (r = ::read(fa.fd, buffer.data(), buffer.size())) > 0;) read_bytes += std::size_t(r);
    fmt::print("disk: {:.2f} GB read cold at {:.2f} GB/s\n", read_bytes / 1e9, read_bytes / seconds_since(start) / 1e9);
  }
  fa.make_cold();
  fb.make_cold();
  const auto start = std::chrono::steady_clock::now();
  count = streamed(op_kind::merge, a, index_t(n), b, index_t(n), out.data(), o);
  print_row("mmap cold", "i32", log, op_kind::merge, count, sizeof(Key), seconds_since(start), bw, 0);
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto ints = [&](const std::string& text) {
      std::vector<int> out;
      for (const std::string& t : split_commas(text)) out.push_back(std::stoi(t));
      return out;
    };
    if (arg == "--logs" && i + 1 < argc) opt.logs = ints(argv[++i]);
    else if (arg == "--types" && i + 1 < argc) opt.types = split_commas(argv[++i]);
    else if (arg == "--chunks" && i + 1 < argc) opt.chunks = ints(argv[++i]);
    else if (arg == "--mmap-log" && i + 1 < argc) opt.mmap_log = std::stoi(argv[++i]);
    else if (arg == "--runs" && i + 1 < argc) opt.runs = std::stoi(argv[++i]);
    else if (arg == "--json" && i + 1 < argc) opt.json_path = argv[++i];
    else if (arg == "--quick") opt.quick = true;
    else {
      fmt::print(stderr,
                 "usage: corank_streamed_bench [--logs 28,30,32] [--types i32,i64] [--runs 5] [--chunks 22,24,26]\n"
                 "                             [--mmap-log 28 (0: none)] [--json FILE] [--quick]\n");
      return 2;
    }
  }
  if (opt.quick) {
    opt.logs = {28};
    opt.types = {"i32"};
    opt.mmap_log = 0;
  }
  try {
    bench_context ctx;
    if (!open_device(ctx, "corank_streamed_bench")) return 1;
    fmt::print("corank_streamed_bench on {}, {} host threads\ncommand: {}\n", ctx.device_description,
               std::thread::hardware_concurrency(), command_line(argc, argv));
    const bandwidth bw = measure_bandwidth(opt.runs);
    fmt::print("bound (pinned, 1 GiB, median of {}): host-to-device {:.1f} GB/s, device-to-host {:.1f} GB/s; both at "
               "once {:.1f} + {:.1f} GB/s.\nPageable and mmap rows: also the host's memcpy on every core, {:.1f} GB/s "
               "(each byte in and out is copied once).\n\n",
               opt.runs, bw.h2d / 1e9, bw.d2h / 1e9, bw.h2d_both / 1e9, bw.d2h_both / 1e9, bw.host_copy / 1e9);
    json_rows.push_back(fmt::format("{{\"bound\": {{\"h2d\": {:.2f}, \"d2h\": {:.2f}, \"h2d_both\": {:.2f}, \"d2h_both\": {:.2f}, \"host_copy\": {:.2f}}}}}",
                                    bw.h2d / 1e9, bw.d2h / 1e9, bw.h2d_both / 1e9, bw.d2h_both / 1e9, bw.host_copy / 1e9));
    print_head();
    for (const std::string& type : opt.types) {
      for (int log : opt.logs) {
        if (type == "i64" && log > 30) continue;  // 2^31 int64 keys need 64 GB of host memory with the output
        if (type == "i32") bench_size<std::int32_t>(opt, type, log, bw);
        else bench_size<std::int64_t>(opt, type, log, bw);
      }
    }
    if (opt.mmap_log > 0) bench_mmap(opt, opt.mmap_log, bw);
    if (!opt.json_path.empty()) write_json_rows(opt.json_path, "corank_streamed_bench", ctx, command_line(argc, argv), json_rows);
  } catch (const std::exception& e) {
    fmt::print(stderr, "corank_streamed_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
