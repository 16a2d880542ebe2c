// The distributed forms over NCCL (ops/corank/nccl.cuh), against the single-GPU call on the
// whole inputs (support/distributed_cases.hpp): with one rank (a communicator of GPU 0), every
// operation, keys, by-key and count forms, and the names as a user writes them; and with every
// GPU of the machine, one rank process per GPU (support/rank_processes.hpp says why not
// threads), where there are two or more (skipped, saying so, where there is one). There the
// test starts copies of itself that run the same test as ranks, each writing its outputs to
// a file, and checks the files. Built where NCCL was found (CORANK_WITH_NCCL). Machines whose
// NVLink multicast is not usable need NCCL_NVLS_ENABLE=0 (ctest sets it).

#include <corank/nccl.cuh>

#include "support/distributed_cases.hpp"
#include "support/gpu.hpp"
#include "support/rank_processes.hpp"
#include "support/shared_kernels.hpp"
#include "support/test_env.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

// One communicator per device 0 .. devices - 1 (ncclCommInitAll), destroyed at the end.
struct nccl_comms {
  std::vector<ncclComm_t> comms;
  explicit nccl_comms(int devices) : comms(std::size_t(devices)) {
    std::vector<int> list(static_cast<std::size_t>(devices));
    std::iota(list.begin(), list.end(), 0);
    const ncclResult_t r = ncclCommInitAll(comms.data(), devices, list.data());
    if (r != ncclSuccess) {
      comms.clear();
      throw std::runtime_error(std::string("ncclCommInitAll: ") + ncclGetErrorString(r));
    }
  }
  ~nccl_comms() {
    for (ncclComm_t c : comms) ncclCommDestroy(c);
  }
};

// body(rank, comm) on one thread per rank, the current device the rank's GPU.
template <class Body>
std::string run_nccl(nccl_comms& comms, Body body) {
  std::vector<std::string> errors(comms.comms.size());
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < comms.comms.size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        cuda_check(cudaSetDevice(int(r)), "cudaSetDevice");
        body(int(r), comms.comms[r]);
      } catch (const std::exception& e) {
        errors[r] = "rank " + std::to_string(r) + ": " + e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (!e.empty()) return e;
  }
  return "";
}

template <class Op, class Key>
void run_case(nccl_comms& comms, const distributed_case<Key>& c, const corank::distributed_options& options) {
  using compare = typename key_traits<Key>::compare;
  std::vector<rank_outputs<Key>> outs(comms.comms.size());
  const std::string error = run_nccl(comms, [&](int r, ncclComm_t comm) {
    cudaStream_t stream = nullptr;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    try {
      outs[std::size_t(r)] = run_rank<Op>(c, r, comm, compare{}, stream, options);
    } catch (...) {
      cudaStreamDestroy(stream);
      throw;
    }
    cudaStreamDestroy(stream);
  });
  ASSERT_EQ(error, "") << c.name;
  cuda_check(cudaSetDevice(0), "cudaSetDevice");
  check_ranks<Op>(c, outs, compare{});
}

// visit(op, case, options, number) for every operation and case, both placements, the moves
// in 1 to 4 stages, in an order that depends on the test's seed and name alone (so that the
// rank processes and the test see the same cases).
template <class Key, class Visit>
void for_every_case(int ranks, Visit visit) {
  auto rng = make_rng();
  const std::size_t big = quick_or(200000, 3000);
  int number = 0;
  const auto cases_of = [&](auto op) {
    for (const spread s : all_spreads) {
      for (const auto& [m, n] : {std::pair<std::size_t, std::size_t>{0, 0}, {37, 0}, {4099, 2048}, {big, big / 2 + 1}}) {
        for (const auto placement : {corank::distributed_placement::balanced, corank::distributed_placement::owner}) {
          corank::distributed_options options;
          options.placement = placement;
          options.stages = number % 5;  // 0: the default
          auto c = make_distributed_case<Key>(s, m, n, ranks, rng() % 2 == 0, rng);
          c.name += placement == corank::distributed_placement::owner ? " owner" : " balanced";
          c.name += " stages " + std::to_string(options.stages);
          visit(op, c, options, number++);
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
  };
  cases_of(corank::ops::merge_op{});
  cases_of(corank::ops::set_union_op{});
  cases_of(corank::ops::set_intersection_op{});
  cases_of(corank::ops::set_difference_op{});
  cases_of(corank::ops::set_symmetric_difference_op{});
}

template <class Key>
void every_operation(nccl_comms& comms) {
  for_every_case<Key>(int(comms.comms.size()),
                      [&](auto op, const distributed_case<Key>& c, const corank::distributed_options& options, int) {
                        run_case<decltype(op)>(comms, c, options);
                      });
}

// A rank's outputs as a file, written by its process and read by the test.
template <class T>
void put(std::ofstream& out, const std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::uint64_t size = v.size();
  out.write(reinterpret_cast<const char*>(&size), sizeof size);
  out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
}
template <class T>
std::vector<T> get(std::ifstream& in) {
  std::uint64_t size = 0;
  in.read(reinterpret_cast<char*>(&size), sizeof size);
  if (!in || size > (std::uint64_t(1) << 32)) throw std::runtime_error("a rank's output file is cut short");
  std::vector<T> v(size);
  in.read(reinterpret_cast<char*>(v.data()), std::streamsize(size * sizeof(T)));
  return v;
}

std::string outputs_path(const std::string& dir, int number, int rank) {
  return dir + "/case-" + std::to_string(number) + "-rank-" + std::to_string(rank);
}

template <class Key>
void write_outputs(const std::string& path, const rank_outputs<Key>& o) {
  std::ofstream out(path, std::ios::binary);
  put(out, std::vector<int>{int(o.plan.partition), o.plan.rank, o.plan.rounds, int(o.plan.placement)});
  put(out, o.plan.a_sizes);
  put(out, o.plan.b_sizes);
  put(out, o.plan.diagonals);
  put(out, o.plan.splits);
  put(out, o.plan.owners);
  put(out, o.plan.stages);
  put(out, o.keys_order);
  put(out, o.by_key_order);
  put(out, o.count_order);
  put(out, o.keys);
  put(out, o.by_key_keys);
  put(out, o.by_key_values);
  put(out, std::vector<index_t>{o.count});
  put(out, std::vector<char>(o.guard_problem.begin(), o.guard_problem.end()));
  if (!out) throw std::runtime_error("could not write " + path);
}

template <class Key>
rank_outputs<Key> read_outputs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("no output file " + path);
  rank_outputs<Key> o;
  const auto words = get<int>(in);
  if (words.size() != 4) throw std::runtime_error(path + " is not a rank's output file");
  o.plan.partition = corank::partitioning(words[0]);
  o.plan.rank = words[1];
  o.plan.rounds = words[2];
  o.plan.placement = corank::distributed_placement(words[3]);
  o.plan.a_sizes = get<index_t>(in);
  o.plan.b_sizes = get<index_t>(in);
  o.plan.diagonals = get<index_t>(in);
  o.plan.splits = get<corank::split<index_t>>(in);
  o.plan.owners = get<int>(in);
  o.plan.stages = get<int>(in);
  o.keys_order = get<corank::distributed_piece>(in);
  o.by_key_order = get<corank::distributed_piece>(in);
  o.count_order = get<corank::distributed_piece>(in);
  o.keys = get<Key>(in);
  o.by_key_keys = get<Key>(in);
  o.by_key_values = get<std::int32_t>(in);
  const auto count = get<index_t>(in);
  o.count = count.empty() ? -1 : count[0];
  const auto problem = get<char>(in);
  o.guard_problem.assign(problem.begin(), problem.end());
  return o;
}

// In a rank process (CORANK_RANK set): this rank's part of every case, written to files in
// CORANK_RANK_DIR. In the test: one rank process per GPU running this same test, then the
// checks of every case on their files.
template <class Key>
void every_operation_on_rank_processes() {
  using compare = typename key_traits<Key>::compare;
  if (const auto role = rank_role_from_environment()) {
    const char* dir = std::getenv("CORANK_RANK_DIR");
    ASSERT_NE(dir, nullptr) << "a rank process needs CORANK_RANK_DIR";
    cuda_check(cudaSetDevice(role->rank), "cudaSetDevice");
    ncclComm_t comm = nullptr;
    ASSERT_EQ(ncclCommInitRank(&comm, role->ranks, role->id, role->rank), ncclSuccess);
    cudaStream_t stream = nullptr;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for_every_case<Key>(role->ranks, [&](auto op, const distributed_case<Key>& c, const corank::distributed_options& options,
                                         int number) {
      write_outputs(outputs_path(dir, number, role->rank),
                    run_rank<decltype(op)>(c, role->rank, comm, compare{}, stream, options));
    });
    cudaStreamDestroy(stream);
    ncclCommDestroy(comm);
    return;
  }
  const int ranks = gpu_count();
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("corank-nccl-" + std::to_string(getpid()) + "-" + test->name())).string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string failed = run_rank_processes(
      ranks, {std::string("--gtest_filter=") + test->test_suite_name() + "." + test->name()}, dir,
      {"CORANK_TEST_SEED=" + std::to_string(seed()), "CORANK_RANK_DIR=" + dir}, 500);
  ASSERT_EQ(failed, "") << ranks << " rank processes, logs in " << dir;
  for_every_case<Key>(ranks, [&](auto op, const distributed_case<Key>& c, const corank::distributed_options&, int number) {
    std::vector<rank_outputs<Key>> outs;
    for (int r = 0; r < ranks; ++r) outs.push_back(read_outputs<Key>(outputs_path(dir, number, r)));
    check_ranks<decltype(op)>(c, outs, compare{});
  });
  if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

class NcclOneRank : public gpu_test {};

TEST_F(NcclOneRank, EveryOperationInt64) {
  nccl_comms comms(1);
  every_operation<std::int64_t>(comms);
}

TEST_F(NcclOneRank, EveryOperationComparatorOnlyKey) {
  nccl_comms comms(1);
  every_operation<opaque_key>(comms);
}

// The names as docs/guide/cpp.md writes them: plan, then run; the one-call forms; counts.
TEST_F(NcclOneRank, Names) {
  nccl_comms comms(1);
  ncclComm_t comm = comms.comms[0];
  cudaStream_t stream = nullptr;
  const std::vector<long> ha{1, 3, 3, 5, 8}, hb{2, 3, 8, 9};
  const std::vector<int> hva{0, 1, 2, 3, 4}, hvb{10, 11, 12, 13};
  const device_buffer<long> a(ha), b(hb);
  const device_buffer<int> va(hva), vb(hvb);
  device_buffer<long> out(10);
  device_buffer<int> vout(10);
  out.fill_poison();  // copied back whole, past the outputs too (initcheck)
  vout.fill_poison();

  const corank::distributed_plan plan = corank::nccl_merge.plan(a.data(), 5, b.data(), 4, comm, {}, stream);
  EXPECT_EQ(plan.output_bound(), 9);
  EXPECT_EQ(corank::nccl_merge(plan, a.data(), b.data(), out.data(), comm, {}, stream), 9);
  cuda_check(cudaStreamSynchronize(stream), "nccl_merge");
  std::vector<long> merged = out.to_host();
  merged.resize(9);
  EXPECT_EQ(merged, (std::vector<long>{1, 2, 3, 3, 3, 5, 8, 8, 9}));

  EXPECT_EQ(corank::nccl_merge_by_key(a.data(), va.data(), 5, b.data(), vb.data(), 4, out.data(), vout.data(), comm), 9);
  std::vector<int> values = vout.to_host();
  values.resize(9);
  EXPECT_EQ(values, (std::vector<int>{0, 10, 1, 2, 11, 3, 4, 12, 13}));  // equal keys: A's first

  const index_t united = corank::nccl_set_union(a.data(), 5, b.data(), 4, out.data(), comm);
  std::vector<long> uni = out.to_host();
  uni.resize(std::size_t(united));
  EXPECT_EQ(uni, (std::vector<long>{1, 2, 3, 3, 5, 8, 9}));
  EXPECT_EQ(corank::nccl_set_intersection_count(a.data(), 5, b.data(), 4, comm), 2);
  EXPECT_EQ(corank::nccl_set_difference_count(a.data(), 5, b.data(), 4, comm), 3);
  EXPECT_EQ(corank::nccl_set_symmetric_difference_count(a.data(), 5, b.data(), 4, comm), 5);
  const corank::distributed_plan balanced = corank::nccl_set_intersection.plan(a.data(), 5, b.data(), 4, comm);
  EXPECT_EQ(corank::nccl_set_intersection_by_key(balanced, a.data(), va.data(), b.data(), vb.data(), out.data(),
                                                 vout.data(), comm),
            2);
  EXPECT_EQ(corank::nccl_set_union_count(balanced, a.data(), b.data(), comm), 7);  // the same partitioning
  EXPECT_THROW(corank::nccl_merge(balanced, a.data(), b.data(), out.data(), comm), corank::cuda_error);
}

// Every GPU of the machine, one rank process each.
class NcclAllGpus : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped()) return;
    if (gpu_count() < 2) GTEST_SKIP() << "one GPU: the NCCL test across GPUs needs two or more (nvidia-h200-x2)";
  }
};

TEST_F(NcclAllGpus, EveryOperationInt64) { every_operation_on_rank_processes<std::int64_t>(); }

TEST_F(NcclAllGpus, EveryOperationComparatorOnlyKey) { every_operation_on_rank_processes<opaque_key>(); }

// A rank whose current device is not its communicator's is told so.
TEST_F(NcclAllGpus, WrongDeviceIsRefused) {
  nccl_comms comms(gpu_count());
  cuda_check(cudaSetDevice(1), "cudaSetDevice");
  EXPECT_THROW(corank::nccl_transport transport(comms.comms[0]), corank::cuda_error);
  cuda_check(cudaSetDevice(0), "cudaSetDevice");
}

}  // namespace
