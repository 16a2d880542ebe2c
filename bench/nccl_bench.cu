// corank_nccl_bench: the distributed merge (or set_union) over NCCL (ops/corank/nccl.cuh), one
// rank process per GPU of this machine (the program starts copies of itself:
// tests/support/rank_processes.hpp says why not threads), each holding 2^k int64 keys of A and
// 2^k of B, against
//   - one GPU merging the same data (all ranks' keys: GPU 0, where it fits), and
//   - the transfer bound: the bytes the plan moves to the rank that receives most, over the
//     all-to-all bandwidth measured here (ncclSend/ncclRecv, every pair, 256 MiB each).
// Times are wall-clock from a barrier of all ranks (an all-reduce) to the last rank's end (the
// search waits for the host anyway), medians of --runs; "search" is plan() (the distributed
// co-rank), "run" the windows' moves and the local call; "local" is the same op called
// directly on the rank's own partitions (as many elements as its windows), timed the same way,
// which is what the run costs without the distributed form. Rank 0 prints the rows and writes
// them as JSON lines to --json FILE.
//
//   corank_nccl_bench [--log2 24,26,28] [--op merge|set_union] [--spread uniform|shifted|disjoint]
//                     [--placement balanced|owner|balanced,owner] [--stages S] [--gpus N] [--runs R]
//                     [--json FILE]
//
// --placement: where the output is computed (distributed_options::placement): equal shares in
// rank order (balanced), or each piece on the rank holding most of it (owner); a row each, with
// the bytes each moves (default both). --stages: the moves in S stages overlapped with the
// local calls (distributed_options::stages; default 0: the library's, 1: one stage).
// --spread: uniform (A and B interleaved: every window stays where it is), shifted (B's keys
// half the range above A's: half of each input moves), disjoint (A before B: half moves).
// Machines whose NVLink multicast is not usable need NCCL_NVLS_ENABLE=0 (the H200 machines).

#include <corank/merge.cuh>
#include <corank/nccl.cuh>
#include <corank/set_operations.cuh>

#include <fmt/format.h>

#include "support/rank_processes.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
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

// This rank process: its communicator and stream, and device scratch for barriers and reductions.
struct rank_context {
  int rank = 0, ranks = 1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  double* scratch = nullptr;  // device memory for reductions of up to `scratch_size` doubles
  std::size_t scratch_size = 0;

  // Every rank here at once: an all-reduce of one word, waited for.
  void barrier() {
    check(ncclAllReduce(scratch, scratch, 1, ncclFloat64, ncclMax, comm, stream), "ncclAllReduce");
    check(cudaStreamSynchronize(stream), "barrier");
  }
  // The largest of every rank's values, elementwise, on every rank.
  std::vector<double> max_over_ranks(std::vector<double> v) {
    if (v.size() > scratch_size) throw std::runtime_error("max_over_ranks: too many values");
    check(cudaMemcpyAsync(scratch, v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice, stream), "copy");
    check(ncclAllReduce(scratch, scratch, v.size(), ncclFloat64, ncclMax, comm, stream), "ncclAllReduce");
    check(cudaMemcpyAsync(v.data(), scratch, v.size() * sizeof(double), cudaMemcpyDeviceToHost, stream), "copy");
    check(cudaStreamSynchronize(stream), "max_over_ranks");
    return v;
  }
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
  std::vector<corank::distributed_placement> placements{corank::distributed_placement::balanced,
                                                         corank::distributed_placement::owner};
  int stages = 0;
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
    } else if (flag == "--placement") {
      o.placements.clear();
      const std::string list = value();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string name = list.substr(at, comma - at);
        if (name == "balanced") o.placements.push_back(corank::distributed_placement::balanced);
        else if (name == "owner") o.placements.push_back(corank::distributed_placement::owner);
        else throw std::invalid_argument("--placement: balanced, owner, or both (balanced,owner)");
        at = comma + 1;
      }
    } else if (flag == "--stages") {
      o.stages = std::max(0, std::stoi(value()));
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
const char* to_string(corank::distributed_placement p) {
  return p == corank::distributed_placement::owner ? "owner" : "balanced";
}

// Every pair exchanging `bytes` in one ncclSend/ncclRecv group: GB/s received per rank.
double all_to_all_bandwidth(rank_context& x, std::size_t bytes, int runs) {
  if (x.ranks < 2) return 0;
  char *send = nullptr, *recv = nullptr;
  check(cudaMalloc(&send, bytes * std::size_t(x.ranks)), "cudaMalloc");
  check(cudaMalloc(&recv, bytes * std::size_t(x.ranks)), "cudaMalloc");
  std::vector<double> ms;
  for (int run = -1; run < runs; ++run) {
    x.barrier();
    const double start = now_ms();
    check(ncclGroupStart(), "ncclGroupStart");
    for (int q = 0; q < x.ranks; ++q) {
      if (q == x.rank) continue;
      check(ncclSend(send + std::size_t(q) * bytes, bytes, ncclUint8, q, x.comm, x.stream), "ncclSend");
      check(ncclRecv(recv + std::size_t(q) * bytes, bytes, ncclUint8, q, x.comm, x.stream), "ncclRecv");
    }
    check(ncclGroupEnd(), "ncclGroupEnd");
    check(cudaStreamSynchronize(x.stream), "all-to-all");
    if (run >= 0) ms.push_back(now_ms() - start);
  }
  cudaFree(send);
  cudaFree(recv);
  return double(bytes) * double(x.ranks - 1) / (median(x.max_over_ranks(ms)) * 1e6);
}

struct row {
  int log2 = 0, ranks = 0, pieces = 0, stages = 0;
  corank::distributed_placement placement = corank::distributed_placement::balanced;
  double one_gpu_ms = -1, total_ms = 0, search_ms = 0, run_ms = 0, local_ms = 0, bound_ms = -1, bandwidth = 0;
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

row measure(const options& o, rank_context& x, int log2, double bandwidth, corank::distributed_placement placement,
            double one_gpu) {
  const index_t per_rank = index_t(1) << log2, per_side = per_rank * x.ranks;
  row result;
  result.log2 = log2;
  result.ranks = x.ranks;
  result.bandwidth = bandwidth;
  result.placement = placement;
  result.one_gpu_ms = one_gpu;
  corank::distributed_options options;
  options.placement = placement;
  options.stages = o.stages;

  const int r = x.rank;
  device_array a(per_rank), b(per_rank);
  fill(a, r * per_rank, per_side, 0, o.keys);
  fill(b, r * per_rank, per_side, 1, o.keys);
  check(cudaDeviceSynchronize(), "fill");
  // The owner placement's shares follow the data: the output as large as this rank's bound.
  corank::distributed_plan plan = o.op == "merge"
                                      ? corank::nccl_merge.plan(a.data, per_rank, b.data, per_rank, x.comm, {}, x.stream, options)
                                      : corank::nccl_set_union.plan(a.data, per_rank, b.data, per_rank, x.comm, {}, x.stream, options);
  device_array out(std::max<index_t>(plan.output_bound(), 2 * per_rank) + 2);
  // Every rank's numbers, reduced in one all-reduce below: total, search and run of each run,
  // then each run of the local call, then the bytes moved, then 1 where a check failed.
  std::vector<double> times;
  index_t count = 0;
  for (int run = -1; run < o.runs; ++run) {
    x.barrier();
    const double start = now_ms();
    if (o.op == "merge") {
      plan = corank::nccl_merge.plan(a.data, per_rank, b.data, per_rank, x.comm, {}, x.stream, options);
    } else {
      plan = corank::nccl_set_union.plan(a.data, per_rank, b.data, per_rank, x.comm, {}, x.stream, options);
    }
    const double planned = now_ms();
    if (o.op == "merge") count = corank::nccl_merge(plan, a.data, b.data, out.data, x.comm, {}, x.stream, options);
    else count = corank::nccl_set_union(plan, a.data, b.data, out.data, x.comm, {}, x.stream, options);
    check(cudaStreamSynchronize(x.stream), "distributed op");
    const double end = now_ms();
    if (run >= 0) times.insert(times.end(), {end - start, planned - start, end - planned});
  }
  // What moved to this rank: its pieces' elements held elsewhere.
  std::size_t moved = 0;
  for (const bool of_a : {true, false}) {
    const std::vector<index_t> starts = corank::detail::starts_of(of_a ? plan.a_sizes : plan.b_sizes);
    for (int p = 0; p < plan.pieces(); ++p) {
      const auto from = plan.splits[std::size_t(p)], to = plan.splits[std::size_t(p) + 1];
      const auto side = corank::detail::piece_side_of(starts, of_a ? from.a : from.b, of_a ? to.a : to.b,
                                                      plan.owners[std::size_t(p)], r);
      for (const auto& piece : side.receives) moved += std::size_t(piece.size()) * sizeof(key_t);
    }
  }
  // The output is sorted, and this rank's merge share has its size.
  unsigned long long* breaks = nullptr;
  check(cudaMallocManaged(&breaks, sizeof *breaks), "cudaMallocManaged");
  *breaks = 0;
  if (count > 1) count_breaks<<<unsigned((count + 255) / 256), 256, 0, x.stream>>>(out.data, count, breaks);
  check(cudaStreamSynchronize(x.stream), "check");
  std::string problem;
  if (*breaks != 0) problem = fmt::format("rank {}: output not sorted", r);
  if (o.op == "merge" && count != plan.output_bound()) problem = fmt::format("rank {}: {} outputs", r, count);
  cudaFree(breaks);
  if (!problem.empty()) std::fprintf(stderr, "corank_nccl_bench: %s\n", problem.c_str());

  // The same op called directly on this rank's own partitions (as many elements as its
  // windows), timed the same way: the local call without the distributed form around it.
  for (int run = -1; run < o.runs; ++run) {
    x.barrier();
    const double start = now_ms();
    if (o.op == "merge") {
      corank::merge(a.data, a.data + per_rank, b.data, b.data + per_rank, out.data, corank::less{}, x.stream);
    } else {
      corank::set_union(a.data, a.data + per_rank, b.data, b.data + per_rank, out.data, corank::less{}, x.stream);
    }
    check(cudaStreamSynchronize(x.stream), "local call");
    if (run >= 0) times.push_back(now_ms() - start);
  }

  times.push_back(double(moved));
  times.push_back(problem.empty() ? 0 : 1);
  times = x.max_over_ranks(times);
  std::vector<double> total, search, run;
  for (int i = 0; i < o.runs; ++i) {
    total.push_back(times[std::size_t(3 * i)]);
    search.push_back(times[std::size_t(3 * i + 1)]);
    run.push_back(times[std::size_t(3 * i + 2)]);
  }
  result.total_ms = median(total);
  result.search_ms = median(search);
  result.run_ms = median(run);
  result.local_ms = median(std::vector<double>(times.begin() + 3 * o.runs, times.begin() + 4 * o.runs));
  result.moved_bytes = std::size_t(times[std::size_t(4 * o.runs)]);
  if (bandwidth > 0) result.bound_ms = double(result.moved_bytes) / (bandwidth * 1e6);
  result.rounds = plan.rounds;
  result.pieces = plan.pieces();
  result.stages = plan.stage_count();
  if (times.back() != 0) result.check = "failed on a rank (see above)";
  return result;
}

// One rank's whole run; rank 0 prints.
int run_rank(const options& o, const corank::test::rank_role& role) {
  rank_context x;
  x.rank = role.rank;
  x.ranks = role.ranks;
  check(cudaSetDevice(x.rank), "cudaSetDevice");
  check(ncclCommInitRank(&x.comm, x.ranks, role.id, x.rank), "ncclCommInitRank");
  check(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  x.scratch_size = std::size_t(4 * o.runs + 64);
  check(cudaMalloc(&x.scratch, x.scratch_size * sizeof(double)), "cudaMalloc");
  check(cudaMemset(x.scratch, 0, x.scratch_size * sizeof(double)), "cudaMemset");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  const bool printing = x.rank == 0;
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  if (printing) {
    fmt::print("corank_nccl_bench: {} x {}, one process each, NCCL {}, NCCL_NVLS_ENABLE={}, op {}, spread {}, int64 keys, {} runs\n",
               x.ranks, prop.name, nccl_version, nvls != nullptr ? nvls : "(unset)", o.op, to_string(o.keys), o.runs);
  }
  const double bandwidth = all_to_all_bandwidth(x, std::size_t(256) << 20, o.runs);
  if (printing && x.ranks > 1) fmt::print("all-to-all: {:.1f} GB/s received per rank (every pair 256 MiB)\n", bandwidth);
  if (printing) {
    fmt::print("{:>5} {:>6} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>9} {:>11} {:>10} {:>7} {:>7}  {}\n", "log2",
               "ranks", "placement", "one GPU ms", "total ms", "search ms", "run ms", "local ms", "search%", "x one GPU",
               "moved MiB", "bound ms", "rounds", "pieces", "check");
  }
  std::FILE* json = printing && !o.json.empty() ? std::fopen(o.json.c_str(), "a") : nullptr;
  bool failed = false;
  for (const int log2 : o.log2) {
   double one_gpu = -1;
   if (x.rank == 0) one_gpu = one_gpu_ms(o, (index_t(1) << log2) * x.ranks, o.keys, o.runs);  // the others wait
   x.barrier();
   for (const auto placement : o.placements) {
    const row r = measure(o, x, log2, bandwidth, placement, one_gpu);
    failed |= r.check != "ok";
    if (!printing) continue;
    fmt::print("{:>5} {:>6} {:>9} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>7.1f}% {:>9.2f} {:>11.1f} {:>10.3f} {:>7} {:>3}/{:<3}  {}\n",
               r.log2, r.ranks, to_string(r.placement), r.one_gpu_ms, r.total_ms, r.search_ms, r.run_ms, r.local_ms,
               100 * r.search_ms / r.total_ms, r.one_gpu_ms > 0 ? r.one_gpu_ms / r.total_ms : 0.0,
               double(r.moved_bytes) / (1 << 20), r.bound_ms, r.rounds, r.pieces, r.stages, r.check);
    std::fflush(stdout);
    if (json != nullptr) {
      std::fprintf(json,
                   "{\"bench\": \"nccl\", \"gpu\": \"%s\", \"processes\": true, \"op\": \"%s\", \"spread\": \"%s\", "
                   "\"placement\": \"%s\", \"pieces\": %d, \"stages\": %d, "
                   "\"log2_per_rank\": %d, \"ranks\": %d, \"one_gpu_ms\": %.4f, \"total_ms\": %.4f, \"search_ms\": %.4f, "
                   "\"run_ms\": %.4f, \"local_ms\": %.4f, \"moved_bytes\": %zu, \"all_to_all_gbps\": %.2f, \"bound_ms\": %.4f, "
                   "\"rounds\": %d, \"check\": \"%s\"}\n",
                   prop.name, o.op.c_str(), to_string(o.keys), to_string(r.placement), r.pieces, r.stages, r.log2, r.ranks, r.one_gpu_ms, r.total_ms, r.search_ms,
                   r.run_ms, r.local_ms, r.moved_bytes, r.bandwidth, r.bound_ms, r.rounds, r.check.c_str());
    }
   }
  }
  if (json != nullptr) std::fclose(json);
  cudaFree(x.scratch);
  cudaStreamDestroy(x.stream);
  ncclCommDestroy(x.comm);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const options o = parse(argc, argv);
    if (const auto role = corank::test::rank_role_from_environment()) return run_rank(o, *role);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::puts("no CUDA GPU: corank_nccl_bench needs at least one");
      return 0;
    }
    const int ranks = o.gpus > 0 ? std::min(o.gpus, devices) : devices;
    const std::string failed =
        corank::test::run_rank_processes(ranks, std::vector<std::string>(argv + 1, argv + argc), "", {}, 3600);
    if (!failed.empty()) {
      std::fprintf(stderr, "corank_nccl_bench: %s\n", failed.c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "corank_nccl_bench: %s\n", e.what());
    return 1;
  }
}
