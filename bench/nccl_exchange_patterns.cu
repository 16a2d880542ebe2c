// corank_nccl_exchange_patterns: how fast NCCL moves the distributed forms' exchange patterns
// on a machine of 4 GPUs, one process driving every GPU (ncclCommInitAll, one NCCL group per
// step): the moves of the balanced placement with shifted and disjoint inputs (each transfer
// 2^LOG2 bytes), a ring, one pair and two senders into one, each as one group, in matchings
// (groups in which a rank sends once and receives once: detail/forms/exchange_rounds.hpp),
// chunked; against the all-to-all bound measured first. Median of 7 runs, wall-clock.
//   corank_nccl_exchange_patterns [LOG2]      (default 31: 2 GiB a transfer)
// bench/RESULTS.md, "Four GPUs", has what it measured. Needs NCCL_NVLS_ENABLE=0 on the H200s.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x) do { auto e = (x); if (e != 0) { std::printf("%s failed: %d line %d\n", #x, int(e), __LINE__); std::exit(1); } } while (0)

struct transfer { int from, to; size_t bytes; };
using step = std::vector<transfer>;  // one group

int P;
std::vector<ncclComm_t> comms;
std::vector<cudaStream_t> streams;
std::vector<char*> sendbuf, recvbuf;

double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Runs the steps in order (each one ncclGroup over all ranks); returns ms, median of runs.
double run(const std::vector<step>& steps, int runs = 7) {
  std::vector<double> ms;
  for (int r = -1; r < runs; ++r) {
    for (int g = 0; g < P; ++g) { CHECK(cudaSetDevice(g)); CHECK(cudaDeviceSynchronize()); }
    const double t0 = now();
    for (const step& s : steps) {
      CHECK(ncclGroupStart());
      for (const transfer& t : s) {
        // offsets: sender reads from its buffer at 0; receiver writes at from * slot
        CHECK(ncclSend(sendbuf[t.from], t.bytes, ncclUint8, t.to, comms[t.from], streams[t.from]));
        CHECK(ncclRecv(recvbuf[t.to] + size_t(t.from) * (t.bytes), t.bytes, ncclUint8, t.from, comms[t.to], streams[t.to]));
      }
      CHECK(ncclGroupEnd());
    }
    for (int g = 0; g < P; ++g) { CHECK(cudaSetDevice(g)); CHECK(cudaStreamSynchronize(streams[g])); }
    if (r >= 0) ms.push_back(now() - t0);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Greedy matchings: each step has at most one send and one receive per rank.
std::vector<step> matchings(const step& all) {
  std::vector<step> out;
  std::vector<bool> used(all.size(), false);
  for (size_t done = 0; done < all.size();) {
    step s; std::vector<bool> sends(P, false), recvs(P, false);
    for (size_t i = 0; i < all.size(); ++i) {
      if (used[i] || sends[all[i].from] || recvs[all[i].to]) continue;
      sends[all[i].from] = recvs[all[i].to] = true; used[i] = true; ++done; s.push_back(all[i]);
    }
    out.push_back(s);
  }
  return out;
}

// Each transfer in k chunks: `together` one group of all chunks, else a group per chunk round.
std::vector<step> chunked(const std::vector<step>& steps, int k, bool together) {
  std::vector<step> out;
  for (const step& s : steps) {
    if (together) {
      step one;
      for (int c = 0; c < k; ++c) for (const transfer& t : s) one.push_back({t.from, t.to, t.bytes / k});
      out.push_back(one);
    } else {
      for (int c = 0; c < k; ++c) { step one; for (const transfer& t : s) one.push_back({t.from, t.to, t.bytes / k}); out.push_back(one); }
    }
  }
  return out;
}

int main(int argc, char** argv) {
  const int lg = argc > 1 ? std::atoi(argv[1]) : 31;  // 2^31 bytes: 2^28 int64 keys
  const size_t bytes = size_t(1) << lg;
  CHECK(cudaGetDeviceCount(&P));
  if (P != 4) { std::printf("needs 4 GPUs, has %d\n", P); return 1; }
  comms.resize(P); streams.resize(P); sendbuf.resize(P); recvbuf.resize(P);
  std::vector<int> devs(P); for (int g = 0; g < P; ++g) devs[g] = g;
  CHECK(ncclCommInitAll(comms.data(), P, devs.data()));
  for (int g = 0; g < P; ++g) {
    CHECK(cudaSetDevice(g)); CHECK(cudaStreamCreateWithFlags(&streams[g], cudaStreamNonBlocking));
    CHECK(cudaMalloc(&sendbuf[g], bytes)); CHECK(cudaMalloc(&recvbuf[g], bytes * P));
    CHECK(cudaMemset(sendbuf[g], g, bytes));
  }
  // The bound's reference: every pair 256 MiB in one group, GB/s received per rank.
  step a2a;
  const size_t pair = size_t(256) << 20;
  for (int f = 0; f < P; ++f) for (int t = 0; t < P; ++t) if (f != t) a2a.push_back({f, t, pair});
  const double a2a_ms = run({a2a});
  const double gbps = double(pair) * (P - 1) / (a2a_ms * 1e6);
  std::printf("all-to-all: %.3f ms, %.1f GB/s received per rank; each transfer below %zu MiB\n", a2a_ms, gbps, bytes >> 20);
  const double bound = 2.0 * double(bytes) / (gbps * 1e6);  // the rank receiving most receives 2 transfers
  const std::vector<std::pair<std::string, step>> patterns = {
      {"shifted", {{0, 1, bytes}, {1, 0, bytes}, {1, 2, bytes}, {2, 1, bytes}, {2, 3, bytes}, {3, 2, bytes}}},
      {"disjoint", {{0, 2, bytes}, {1, 0, bytes}, {1, 2, bytes}, {2, 1, bytes}, {2, 3, bytes}, {3, 1, bytes}}},
      {"ring+1", {{0, 1, bytes}, {1, 2, bytes}, {2, 3, bytes}, {3, 0, bytes}}},
      {"pair 1->2", {{1, 2, bytes}}},
      {"two into 1", {{2, 1, bytes}, {3, 1, bytes}}},
  };
  std::printf("%-12s %-28s %9s %9s %7s\n", "pattern", "schedule", "ms", "bound ms", "bound/ms");
  for (const auto& [name, p] : patterns) {
    const std::vector<std::pair<std::string, std::vector<step>>> schedules = {
        {"one group", {p}},
        {"matchings", matchings(p)},
        {"one group, 4 chunks each", chunked({p}, 4, true)},
        {"matchings, 4 chunk rounds", chunked(matchings(p), 4, false)},
        {"4 chunk rounds", chunked({p}, 4, false)},
    };
    const double b = (name == "ring+1" || name == "pair 1->2") ? bound / 2 : bound;
    for (const auto& [sname, steps] : schedules) {
      const double ms = run(steps);
      std::printf("%-12s %-28s %9.3f %9.3f %7.3f  (%zu groups)\n", name.c_str(), sname.c_str(), ms, b, b / ms, steps.size());
    }
  }
  for (int g = 0; g < P; ++g) ncclCommDestroy(comms[g]);
  return 0;
}
