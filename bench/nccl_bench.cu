// corank_nccl_bench: the distributed merge (or set_union) over NCCL (ops/corank/nccl.cuh), one
// rank per GPU of this machine, each holding 2^k int64 keys of A and 2^k of B, against
//   - one GPU merging the same data (all ranks' keys: GPU 0, where it fits), and
//   - the transfer bound: the bytes the plan moves to the rank that receives most, over the
//     all-to-all bandwidth measured here (ncclSend/ncclRecv, every pair, 256 MiB each).
// Times are wall-clock from a barrier of all ranks to the last rank's end (the search waits
// for the host anyway), medians of --runs; "search" is plan() (the distributed co-rank),
// "run" the windows' moves and the local call. Rows are printed, and written as JSON lines
// to --json FILE.
//
//   corank_nccl_bench [--log2 24,26,28] [--op merge|set_union] [--spread uniform|shifted|disjoint]
//                     [--gpus N] [--runs R] [--json FILE]
//
// --spread: uniform (A and B interleaved: every window stays where it is), shifted (B's keys
// half the range above A's: half of each input moves), disjoint (A before B: half moves).
// Machines whose NVLink multicast is not usable need NCCL_NVLS_ENABLE=0 (the H200 machines).

#include <corank/merge.cuh>
#include <corank/nccl.cuh>
#include <corank/set_operations.cuh>

#include <fmt/format.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using corank::index_t;
using key_t = std::int64_t;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}
void check(ncclResult_t e, const char* what) {
  if (e != ncclSuccess) throw std::runtime_error(fmt::format("{}: {}", what, ncclGetErrorString(e)));
}

enum class spread { uniform, shifted, disjoint };

// Global element g of A or B (of `per_side` in all): monotone in g, with ties between A and B.
__global__ void fill_keys(key_t* out, index_t count, index_t first, index_t per_side, int side, int kind) {
  const index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  const index_t g = first + i;
  const std::uint64_t h = std::uint64_t(g) * 0x9E3779B97F4A7C15ull + std::uint64_t(side);
  key_t key = 4 * g + key_t((h >> 32) % 4);
  if (side == 1 && kind == int(spread::shifted)) key += 2 * per_side;
  if (side == 1 && kind == int(spread::disjoint)) key += 4 * per_side;
  out[i] = key;
}

__global__ void count_breaks(const key_t* x, index_t count, unsigned long long* breaks) {
  const index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (i + 1 < count && x[i + 1] < x[i]) atomicAdd(breaks, 1ull);
}

struct device_array {
  key_t* data = nullptr;
  index_t size = 0;
  explicit device_array(index_t n) : size(n) { check(cudaMalloc(&data, std::size_t(std::max<index_t>(n, 1)) * sizeof(key_t)), "cudaMalloc"); }
  device_array(const device_array&) = delete;
  ~device_array() { cudaFree(data); }
};

void fill(device_array& x, index_t first, index_t per_side, int side, spread s) {
  if (x.size == 0) return;
  fill_keys<<<unsigned((x.size + 255) / 256), 256>>>(x.data, x.size, first, per_side, side, int(s));
  check(cudaGetLastError(), "fill_keys");
}

// A reusable barrier for the rank threads.
class barrier {
 public:
  explicit barrier(int n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    const unsigned long long g = generation_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != g; });
    }
  }

 private:
  int n_, arrived_ = 0;
  unsigned long long generation_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct options {
  std::vector<int> log2{24, 26, 28};
  std::string op = "merge";
  spread keys = spread::uniform;
  int gpus = 0;
  int runs = 5;
  std::string json;
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--log2") {
      o.log2.clear();
      std::string list = value();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        o.log2.push_back(std::stoi(list.substr(at, comma - at)));
        at = comma + 1;
      }
    } else if (flag == "--op") {
      o.op = value();
      if (o.op != "merge" && o.op != "set_union") throw std::invalid_argument("--op: merge or set_union");
    } else if (flag == "--spread") {
      const std::string s = value();
      if (s == "uniform") o.keys = spread::uniform;
      else if (s == "shifted") o.keys = spread::shifted;
      else if (s == "disjoint") o.keys = spread::disjoint;
      else throw std::invalid_argument("--spread: uniform, shifted or disjoint");
    } else if (flag == "--gpus") {
      o.gpus = std::stoi(value());
    } else if (flag == "--runs") {
      o.runs = std::max(1, std::stoi(value()));
    } else if (flag == "--json") {
      o.json = value();
    } else {
      throw std::invalid_argument("unknown option " + flag + " (see the comment at the top of bench/nccl_bench.cu)");
    }
  }
  return o;
}

const char* to_string(spread s) { return s == spread::uniform ? "uniform" : s == spread::shifted ? "shifted" : "disjoint"; }

// Runs body(rank) on one thread per GPU, the device set.
template <class Body>
void on_ranks(int ranks, Body body) {
  std::vector<std::thread> threads;
  std::vector<std::string> failures(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    std::string* failure = &failures[static_cast<std::size_t>(r)];
    threads.emplace_back([&body, failure, r] {
      try {
        check(cudaSetDevice(r), "cudaSetDevice");
        body(r);
      } catch (const std::exception& e) {
        *failure = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < ranks; ++r) {
    const std::string& failure = failures[static_cast<std::size_t>(r)];
    if (!failure.empty()) throw std::runtime_error(fmt::format("rank {}: {}", r, failure));
  }
}

// Every pair exchanging `bytes` in one ncclSend/ncclRecv group: GB/s received per rank.
double all_to_all_bandwidth(const std::vector<ncclComm_t>& comms, std::size_t bytes, int runs) {
  const int ranks = int(comms.size());
  if (ranks < 2) return 0;
  std::vector<double> ms(std::size_t(runs), 0);
  barrier sync(ranks);
  std::mutex mutex;
  on_ranks(ranks, [&](int r) {
    char *send = nullptr, *recv = nullptr;
    check(cudaMalloc(&send, bytes * std::size_t(ranks)), "cudaMalloc");
    check(cudaMalloc(&recv, bytes * std::size_t(ranks)), "cudaMalloc");
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int run = -1; run < runs; ++run) {
      sync.wait();
      const double start = now_ms();
      check(ncclGroupStart(), "ncclGroupStart");
      for (int q = 0; q < ranks; ++q) {
        if (q == r) continue;
        check(ncclSend(send + std::size_t(q) * bytes, bytes, ncclUint8, q, comms[std::size_t(r)], stream), "ncclSend");
        check(ncclRecv(recv + std::size_t(q) * bytes, bytes, ncclUint8, q, comms[std::size_t(r)], stream), "ncclRecv");
      }
      check(ncclGroupEnd(), "ncclGroupEnd");
      check(cudaStreamSynchronize(stream), "all-to-all");
      const double took = now_ms() - start;
      std::lock_guard<std::mutex> lock(mutex);
      if (run >= 0) ms[std::size_t(run)] = std::max(ms[std::size_t(run)], took);
    }
    cudaStreamDestroy(stream);
    cudaFree(send);
    cudaFree(recv);
  });
  return double(bytes) * double(ranks - 1) / (median(ms) * 1e6);
}

struct row {
  int log2 = 0, ranks = 0;
  double one_gpu_ms = -1, total_ms = 0, search_ms = 0, run_ms = 0, bound_ms = -1, bandwidth = 0;
  std::size_t moved_bytes = 0;  // received by the rank that receives most
  int rounds = 0;
  std::string check = "ok";
};

// One GPU running the op on every rank's keys (all on GPU 0), if they fit.
double one_gpu_ms(const options& o, index_t per_side, spread s, int runs) {
  check(cudaSetDevice(0), "cudaSetDevice");
  std::size_t free = 0, all = 0;
  check(cudaMemGetInfo(&free, &all), "cudaMemGetInfo");
  if (std::size_t(per_side) * sizeof(key_t) * 4 + (std::size_t(1) << 30) > free) return -1;
  device_array a(per_side), b(per_side), out(2 * per_side);
  fill(a, 0, per_side, 0, s);
  fill(b, 0, per_side, 1, s);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int run = -1; run < runs; ++run) {
    check(cudaEventRecord(start), "cudaEventRecord");
    if (o.op == "merge") corank::merge(a.data, a.data + per_side, b.data, b.data + per_side, out.data);
    else corank::set_union(a.data, a.data + per_side, b.data, b.data + per_side, out.data);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "one GPU");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (run >= 0) ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(ms);
}

row measure(const options& o, const std::vector<ncclComm_t>& comms, int log2, double bandwidth) {
  const int ranks = int(comms.size());
  const index_t per_rank = index_t(1) << log2, per_side = per_rank * ranks;
  row result;
  result.log2 = log2;
  result.ranks = ranks;
  result.bandwidth = bandwidth;
  result.one_gpu_ms = one_gpu_ms(o, per_side, o.keys, o.runs);

  std::vector<double> total(std::size_t(o.runs), 0), search(std::size_t(o.runs), 0), run(std::size_t(o.runs), 0);
  std::vector<std::size_t> moved(std::size_t(ranks), 0);
  std::vector<std::string> problems(static_cast<std::size_t>(ranks));
  std::mutex mutex;
  barrier sync(ranks);
  on_ranks(ranks, [&](int r) {
    device_array a(per_rank), b(per_rank), out(2 * per_rank + 2);
    fill(a, r * per_rank, per_side, 0, o.keys);
    fill(b, r * per_rank, per_side, 1, o.keys);
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaDeviceSynchronize(), "fill");
    ncclComm_t comm = comms[std::size_t(r)];
    index_t count = 0;
    corank::distributed_plan plan;
    for (int x = -1; x < o.runs; ++x) {
      sync.wait();
      const double start = now_ms();
      if (o.op == "merge") {
        plan = corank::nccl_merge.plan(a.data, per_rank, b.data, per_rank, comm, {}, stream);
      } else {
        plan = corank::nccl_set_union.plan(a.data, per_rank, b.data, per_rank, comm, {}, stream);
      }
      const double planned = now_ms();
      if (o.op == "merge") count = corank::nccl_merge(plan, a.data, b.data, out.data, comm, {}, stream);
      else count = corank::nccl_set_union(plan, a.data, b.data, out.data, comm, {}, stream);
      check(cudaStreamSynchronize(stream), "distributed op");
      const double end = now_ms();
      std::lock_guard<std::mutex> lock(mutex);
      if (x >= 0) {
        total[std::size_t(x)] = std::max(total[std::size_t(x)], end - start);
        search[std::size_t(x)] = std::max(search[std::size_t(x)], planned - start);
        run[std::size_t(x)] = std::max(run[std::size_t(x)], end - planned);
      }
    }
    // What moved to this rank: its windows' elements held elsewhere.
    for (const bool of_a : {true, false}) {
      std::vector<index_t> cuts;
      for (const auto& s : plan.splits) cuts.push_back(of_a ? s.a : s.b);
      const auto mv = corank::detail::side_moves_of(of_a ? plan.a_sizes : plan.b_sizes, cuts, r);
      for (const auto& piece : mv.receives) moved[std::size_t(r)] += std::size_t(piece.size()) * sizeof(key_t);
    }
    // The output is sorted, and this rank's merge share has its size.
    unsigned long long* breaks = nullptr;
    check(cudaMallocManaged(&breaks, sizeof *breaks), "cudaMallocManaged");
    *breaks = 0;
    if (count > 1) count_breaks<<<unsigned((count + 255) / 256), 256, 0, stream>>>(out.data, count, breaks);
    check(cudaStreamSynchronize(stream), "check");
    if (*breaks != 0) problems[std::size_t(r)] = fmt::format("rank {}: output not sorted", r);
    if (o.op == "merge" && count != 2 * per_rank) problems[std::size_t(r)] = fmt::format("rank {}: {} outputs", r, count);
    cudaFree(breaks);
    if (r == 0) result.rounds = plan.rounds;
    cudaStreamDestroy(stream);
  });
  result.total_ms = median(total);
  result.search_ms = median(search);
  result.run_ms = median(run);
  result.moved_bytes = *std::max_element(moved.begin(), moved.end());
  if (bandwidth > 0) result.bound_ms = double(result.moved_bytes) / (bandwidth * 1e6);
  for (const auto& p : problems) {
    if (!p.empty()) result.check = p;
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const options o = parse(argc, argv);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::puts("no CUDA GPU: corank_nccl_bench needs at least one");
      return 0;
    }
    const int ranks = o.gpus > 0 ? std::min(o.gpus, devices) : devices;
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(ranks));
    std::vector<int> list(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) list[std::size_t(r)] = r;
    check(ncclCommInitAll(comms.data(), ranks, list.data()), "ncclCommInitAll");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    int nccl_version = 0;
    ncclGetVersion(&nccl_version);
    const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
    fmt::print("corank_nccl_bench: {} x {}, NCCL {}, NCCL_NVLS_ENABLE={}, op {}, spread {}, int64 keys, {} runs\n",
               ranks, prop.name, nccl_version, nvls != nullptr ? nvls : "(unset)", o.op, to_string(o.keys), o.runs);
    const double bandwidth = all_to_all_bandwidth(comms, std::size_t(256) << 20, o.runs);
    if (ranks > 1) fmt::print("all-to-all: {:.1f} GB/s received per rank (every pair 256 MiB)\n", bandwidth);
    fmt::print("{:>5} {:>6} {:>10} {:>10} {:>10} {:>10} {:>8} {:>9} {:>11} {:>10} {:>7}  {}\n", "log2", "ranks",
               "one GPU ms", "total ms", "search ms", "run ms", "search%", "x one GPU", "moved MiB", "bound ms",
               "rounds", "check");
    std::FILE* json = o.json.empty() ? nullptr : std::fopen(o.json.c_str(), "a");
    for (const int log2 : o.log2) {
      const row x = measure(o, comms, log2, bandwidth);
      fmt::print("{:>5} {:>6} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>7.1f}% {:>9.2f} {:>11.1f} {:>10.3f} {:>7}  {}\n",
                 x.log2, x.ranks, x.one_gpu_ms, x.total_ms, x.search_ms, x.run_ms, 100 * x.search_ms / x.total_ms,
                 x.one_gpu_ms > 0 ? x.one_gpu_ms / x.total_ms : 0.0, double(x.moved_bytes) / (1 << 20), x.bound_ms,
                 x.rounds, x.check);
      std::fflush(stdout);
      if (json != nullptr) {
        std::fprintf(json,
                     "{\"bench\": \"nccl\", \"gpu\": \"%s\", \"op\": \"%s\", \"spread\": \"%s\", \"log2_per_rank\": %d, "
                     "\"ranks\": %d, \"one_gpu_ms\": %.4f, \"total_ms\": %.4f, \"search_ms\": %.4f, \"run_ms\": %.4f, "
                     "\"moved_bytes\": %zu, \"all_to_all_gbps\": %.2f, \"bound_ms\": %.4f, \"rounds\": %d, "
                     "\"check\": \"%s\"}\n",
                     prop.name, o.op.c_str(), to_string(o.keys), x.log2, x.ranks, x.one_gpu_ms, x.total_ms, x.search_ms,
                     x.run_ms, x.moved_bytes, x.bandwidth, x.bound_ms, x.rounds, x.check.c_str());
      }
    }
    if (json != nullptr) std::fclose(json);
    for (ncclComm_t c : comms) ncclCommDestroy(c);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "corank_nccl_bench: %s\n", e.what());
    return 1;
  }
}
