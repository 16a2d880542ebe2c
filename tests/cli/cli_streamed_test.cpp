// The set commands' streamed path (--gpu-memory, or inputs and output larger than the GPU or
// the host) end to end: every operation, keys, values and --count, with budgets small enough
// for hundreds of chunks (chunk boundaries inside runs of equal keys), against std::merge /
// std::set_* and against the command's in-memory path; outputs to standard output (the set
// operations count first); the dtypes the GPU does not stream (run on the CPU backend, with a
// note); and the failures: a stream as input, a full disk midway (nothing left behind), an
// unsorted input (also a break on a piece boundary of the threaded check), --gpu-memory with
// --segments or three inputs.
//
// Device/CliStreamed.../cpu (label cpu: the CPU backend stands in for the GPU) and .../gpu
// (label gpu, skipped visibly without a GPU). The seed is printed first ("corank test seed:
// N"); CORANK_TEST_SEED=N reproduces a run.

#include "cli/cli_support.hpp"

namespace {

using namespace corank::cli_test;
using std::int32_t;
using std::int64_t;

class CliStreamed : public CliTest {
 protected:
  // Every operation on (a, b) with values, streamed through `budget` bytes, against std:: and
  // against the in-memory run of the same command (keys, values and --count).
  template <class K, class V>
  void check_every_operation(const std::vector<K>& a, const std::vector<K>& b, const std::string& budget,
                             const std::string& what) {
    std::vector<V> va(a.size()), vb(b.size());
    for (std::size_t i = 0; i < va.size(); ++i) va[i] = V(i % 100);
    for (std::size_t j = 0; j < vb.size(); ++j) vb[j] = V(200 + j % 50);
    write_npy(path("a.npy"), a);
    write_npy(path("b.npy"), b);
    write_npy(path("va.npy"), va);
    write_npy(path("vb.npy"), vb);
    for (const char* op : operations) {
      SCOPED_TRACE(std::string(op) + " " + name_of<K>() + " keys, " + name_of<V>() + " values, " + what);
      const result streamed = run({op, p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), "-o",
                                   p("s.npy"), "--values-out", p("sv.npy"), "--gpu-memory", budget, "--force"});
      ASSERT_EQ(streamed.status, 0) << streamed.err;
      EXPECT_NE(streamed.out.find("streamed in chunks"), std::string::npos) << streamed.out;
      const result in_memory = run({op, p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), "-o",
                                    p("r.npy"), "--values-out", p("rv.npy"), "--force"});
      ASSERT_EQ(in_memory.status, 0) << in_memory.err;
      const std::vector<K> keys = read_npy<K>(path("s.npy"));
      EXPECT_TRUE(same_bits(keys, std_reference(op, a, b, order<K>{})));
      EXPECT_EQ(read_file(path("s.npy")), read_file(path("r.npy"))) << "keys differ from the in-memory run";
      EXPECT_EQ(read_file(path("sv.npy")), read_file(path("rv.npy"))) << "values differ from the in-memory run";

      const result keys_only = run({op, p("a.npy"), p("b.npy"), "-o", p("k.npy"), "--gpu-memory", budget, "--force"});
      ASSERT_EQ(keys_only.status, 0) << keys_only.err;
      EXPECT_EQ(read_file(path("k.npy")), read_file(path("r.npy"))) << "keys only";
      const result count = run({op, p("a.npy"), p("b.npy"), "--count", "--gpu-memory", budget});
      ASSERT_EQ(count.status, 0) << count.err;
      EXPECT_EQ(count.out, std::to_string(keys.size()) + "\n");
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliStreamed, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliStreamed, EveryOperationInManyChunksMatchesStdAndTheInMemoryRun) {
  std::mt19937_64 rng = make_rng();
  // Few distinct keys: long runs of equal keys across the chunks' boundaries.
  check_every_operation<int32_t, float>(sorted_column<int32_t>(rng, 60000, 300), sorted_column<int32_t>(rng, 45000, 300),
                                        "64k", "runs of equal keys");
  check_every_operation<int64_t, int64_t>(sorted_column<int64_t>(rng, 30000, 1 << 30),
                                          sorted_column<int64_t>(rng, 100, 1 << 30), "256k", "one side small");
  check_every_operation<double, int32_t>(sorted_column<double>(rng, 20000, 500, 30), sorted_column<double>(rng, 20000, 500, 7),
                                         "100k", "NaNs");
}

TEST_P(CliStreamed, DtypesTheGpuDoesNotStreamRunOnTheCpuBackend) {
  std::mt19937_64 rng = make_rng();
  check_every_operation<std::uint8_t, std::uint16_t>(sorted_column<std::uint8_t>(rng, 5000, 40),
                                                     sorted_column<std::uint8_t>(rng, 7000, 40), "8k", "narrow");
  check_every_operation<std::uint64_t, double>(sorted_column<std::uint64_t>(rng, 5000, 1000),
                                               sorted_column<std::uint64_t>(rng, 3000, 1000), "16k", "unsigned");
  const result r = run({"union", p("a.npy"), p("b.npy"), "-o", p("u.npy"), "--gpu-memory", "1M", "--force"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The note goes to standard error, so that it never mixes with a count on standard output.
  if (device() == "gpu") EXPECT_NE(r.err.find("stream on the CPU backend"), std::string::npos) << r.err;
}

TEST_P(CliStreamed, EmptyInputs) {
  check_every_operation<int32_t, int32_t>({}, {}, "1M", "both empty");
  check_every_operation<int32_t, int32_t>({1, 2, 2, 3}, {}, "1M", "B empty");
}

TEST_P(CliStreamed, OutputToStandardOutputCountsFirst) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int32_t> a = sorted_column<int32_t>(rng, 30000, 1000), b = sorted_column<int32_t>(rng, 20000, 1000);
  write_npy(path("a.npy"), a);
  write_npy(path("b.npy"), b);
  for (const char* op : operations) {
    SCOPED_TRACE(op);
    const std::string command = quoted(CORANK_CLI_PATH) + " " + op + " --device " + device() + " " + p("a.npy") + " " +
                                p("b.npy") + " -o - --gpu-memory 64k > " + p("out.npy") + " 2>/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0);
    EXPECT_TRUE(same_bits(read_npy<int32_t>(path("out.npy")), std_reference(op, a, b, order<int32_t>{})));
  }
}

TEST_P(CliStreamed, AFullDiskMidwayLeavesNothingBehind) {
  std::mt19937_64 rng = make_rng();
  write_npy(path("a.npy"), sorted_column<int32_t>(rng, 100000, 1000));
  write_npy(path("b.npy"), sorted_column<int32_t>(rng, 100000, 1000));
  const result r = run({"merge", p("a.npy"), p("b.npy"), "-o", "/dev/full", "--gpu-memory", "64k"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("writing /dev/full: No space left on device"), std::string::npos) << r.err;
}

TEST_P(CliStreamed, RefusalsNameTheProblemAndWriteNothing) {
  write_npy(path("a.npy"), std::vector<int32_t>{1, 2, 3});
  write_npy(path("b.npy"), std::vector<int32_t>{3, 1});
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--gpu-memory", "1M"}, 2,
                 "b.npy is not sorted: element 1 (1) is less than element 0 (3)");
  write_npy(path("b.npy"), std::vector<int32_t>{3, 4});
  how from_stdin;
  from_stdin.input = p("b.npy");
  const std::vector<std::string> before = files();
  const result r = run({"merge", p("a.npy"), "-", "-o", p("out.npy"), "--gpu-memory", "1M"}, from_stdin);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("standard input is a stream"), std::string::npos) << r.err;
  EXPECT_EQ(files(), before);
  write_npy(path("offsets.npy"), std::vector<int64_t>{0, 3});
  expect_failure({"merge", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--segments", p("offsets.npy"),
                  p("offsets.npy"), "--segments-out", p("so.npy"), "--gpu-memory", "1M"},
                 2, "with --segments they are not streamed");
  expect_failure({"merge", p("a.npy"), p("b.npy"), p("a.npy"), "-o", p("out.npy"), "--gpu-memory", "1M"}, 2,
                 "a merge of three inputs or more is not streamed");
  expect_failure({"merge", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--gpu-memory", "0"}, 2, "--gpu-memory");
}

TEST_P(CliStreamed, AnUnsortedStretchFarIntoALargeInputIsFoundByTheThreadedCheck) {
  // 6 * 2^20 keys on 4 threads: pieces of 1572864. The first break is the first key of the
  // third piece (found only by comparing it with the second piece's last), a later one
  // inside the fourth.
  std::vector<int32_t> big(std::size_t(6) << 20);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = int32_t(i);
  big[3145728] = 5;
  big[5000000] = 9;
  write_npy(path("big.npy"), big);
  write_npy(path("small.npy"), std::vector<int32_t>{1, 2});
  expect_failure({"merge", p("small.npy"), p("big.npy"), "-o", p("out.npy"), "--gpu-memory", "16M", "--threads", "4"}, 2,
                 "big.npy is not sorted: element 3145728 (5) is less than element 3145727 (3145727)");
}

}  // namespace
