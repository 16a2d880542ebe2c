// The `corank` command's set operations end to end: the built binary runs on small .npy
// files that these tests write (with their own tiny .npy writer, no NumPy), and its
// outputs are compared with std::merge / std::set_* and with corank::host. Then every bad
// input: its message on stderr, its exit status, and no output file (nor temporary file)
// left behind.
//
// Each test runs once per device: Device/.../cpu (label cpu) and Device/.../gpu (label
// gpu, skipped visibly without a GPU). CORANK_CLI_PATH is the binary, set by CMake.

#include "cli/cli_support.hpp"

namespace {

using namespace corank::cli_test;

INSTANTIATE_TEST_SUITE_P(Device, CliTest, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// ---------------------------------------------------------------------------------------
// Results

TEST_P(CliTest, EveryOperationAndKeyTypeMatchesTheStandardLibraryAndCorankHost) {
  std::mt19937_64 rng = make_rng();
  for_each_key_type([&](auto zero) {
    using T = decltype(zero);
    check_all_operations(sorted_column<T>(rng, 3000, 50), sorted_column<T>(rng, 2000, 60), "duplicates");
    check_all_operations(sorted_column<T>(rng, 1, 5), sorted_column<T>(rng, 777, 100), "1 and 777");
    check_all_operations(std::vector<T>{}, sorted_column<T>(rng, 100, 10), "empty A");
    check_all_operations(sorted_column<T>(rng, 100, 10), std::vector<T>{}, "empty B");
    check_all_operations(std::vector<T>{}, std::vector<T>{}, "both empty");
  });
}

// Every integer type's extremes, around the zero and around the top bit: the GPU maps
// unsigned 32- and 64-bit keys to signed ones with the top bit flipped, and narrower keys to
// int32 (set_gpu_ops.hpp), so order and values must survive both ways.
TEST_P(CliTest, IntegerExtremesKeepTheirOrderAndValues) {
  for_each_key_type([&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      using limits = std::numeric_limits<T>;
      using U = std::make_unsigned_t<T>;
      const U top_bit = U(U(1) << (8 * sizeof(T) - 1));  // as T: the signed minimum, or 2^(bits - 1)
      const T below = T(U(top_bit - 1)), at = T(top_bit), above = T(U(top_bit + 1));  // wrapping in U
      std::vector<T> a = {limits::min(), T(limits::min() + 1), T(0), T(1), below, at, above, T(limits::max() - 1),
                          limits::max(), limits::max()};
      std::vector<T> b = {limits::min(), T(0), below, at, at, limits::max()};
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      check_all_operations(a, b, "extremes");
    }
  });
}

TEST_P(CliTest, FloatColumnsWithNaNsLast) {
  std::mt19937_64 rng = make_rng();
  check_all_operations(sorted_column<double>(rng, 1000, 30, 7), sorted_column<double>(rng, 900, 30, 3), "NaNs");
  check_all_operations(sorted_column<float>(rng, 500, 30, 20), sorted_column<float>(rng, 600, 30, 20), "NaNs");
  std::vector<double> extremes = {-std::numeric_limits<double>::infinity(), -0.0, 0.0,
                                  std::numeric_limits<double>::infinity(), std::nan("")};
  check_all_operations(extremes, extremes, "infinities and zeros");
}

TEST_P(CliTest, LargerColumnsAcrossManyTiles) {
  std::mt19937_64 rng = make_rng();
  const std::size_t n = corank::test::quick_or(300000, 30000);
  check_all_operations(sorted_column<std::int64_t>(rng, n, 100000), sorted_column<std::int64_t>(rng, n / 3, 100000),
                       "large");
}

// By key: values of every dtype move with their keys, like std:: on (key, value) pairs
// ordered by key, and like corank::host's _by_key forms.
template <class K, class V>
void by_key_case(CliTest& t, std::mt19937_64& rng, std::size_t m, std::size_t n);

TEST_P(CliTest, ByKeyWithEveryValueType) {
  std::mt19937_64 rng = make_rng();
  for_each_key_type([&](auto value_zero) {
    using V = decltype(value_zero);
    by_key_case<std::int32_t, V>(*this, rng, 2000, 1500);
  });
  for_each_key_type([&](auto key_zero) {
    using K = decltype(key_zero);
    by_key_case<K, std::int64_t>(*this, rng, 1200, 1300);
    by_key_case<K, float>(*this, rng, 700, 0);
  });
}

template <class K, class V>
void by_key_case(CliTest& t, std::mt19937_64& rng, std::size_t m, std::size_t n) {
  const std::vector<K> a = sorted_column<K>(rng, m, 40, std::is_floating_point_v<K> ? 3 : 0);
  const std::vector<K> b = sorted_column<K>(rng, n, 40, std::is_floating_point_v<K> ? 2 : 0);
  // Distinct values, so that each output value shows which input element it came from.
  std::vector<V> va(m), vb(n);
  for (std::size_t i = 0; i < m; ++i) va[i] = V(i % 100 + 1);
  for (std::size_t i = 0; i < n; ++i) vb[i] = V(200 + i % 50);
  write_npy(t.path("a.npy"), a);
  write_npy(t.path("b.npy"), b);
  write_npy(t.path("va.npy"), va);
  write_npy(t.path("vb.npy"), vb);

  using pair = std::pair<K, V>;
  std::vector<pair> pa(m), pb(n);
  for (std::size_t i = 0; i < m; ++i) pa[i] = {a[i], va[i]};
  for (std::size_t i = 0; i < n; ++i) pb[i] = {b[i], vb[i]};
  const auto by_key = [](const pair& x, const pair& y) { return order<K>{}(x.first, y.first); };

  for (const char* op : operations) {
    SCOPED_TRACE(std::string(op) + " keys " + name_of<K>() + " values " + name_of<V>());
    fs::remove(t.path("out.npy"));
    fs::remove(t.path("vout.npy"));
    const result r = t.run({op, t.p("a.npy"), t.p("b.npy"), "--values", t.p("va.npy"), t.p("vb.npy"), "-o",
                            t.p("out.npy"), "--values-out", t.p("vout.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<K> keys = read_npy<K>(t.path("out.npy"));
    const std::vector<V> values = read_npy<V>(t.path("vout.npy"));
    const std::vector<pair> expected = std_reference(op, pa, pb, by_key);
    std::vector<K> expected_keys;
    std::vector<V> expected_values;
    for (const pair& x : expected) expected_keys.push_back(x.first), expected_values.push_back(x.second);
    EXPECT_TRUE(same_bits(keys, expected_keys));
    EXPECT_TRUE(same_bits(values, expected_values));

    // corank::host's by-key form gives the same.
    std::vector<K> host_keys(m + n + 1);
    std::vector<V> host_values(m + n + 1);
    const order<K> comp{};
    std::pair<K*, V*> ends;
    const std::string o = op;
    const auto args = std::make_tuple(a.data(), a.data() + m, b.data(), b.data() + n, va.data(), vb.data(),
                                      host_keys.data(), host_values.data(), comp);
    if (o == "merge") ends = std::apply([](auto... x) { return corank::host::merge_by_key(x...); }, args);
    else if (o == "union") ends = std::apply(corank::host::set_union_by_key, args);
    else if (o == "intersect") ends = std::apply(corank::host::set_intersection_by_key, args);
    else if (o == "diff") ends = std::apply(corank::host::set_difference_by_key, args);
    else ends = std::apply(corank::host::set_symmetric_difference_by_key, args);
    host_keys.resize(std::size_t(ends.first - host_keys.data()));
    host_values.resize(std::size_t(ends.second - host_values.data()));
    EXPECT_TRUE(same_bits(keys, host_keys));
    EXPECT_TRUE(same_bits(values, host_values));
  }
}

TEST_P(CliTest, ReadsNpyFormatVersions2And3) {
  const std::vector<std::int32_t> a = {1, 3, 5}, b = {2, 3, 4};
  write_npy(path("a.npy"), a, 2);
  write_npy(path("b.npy"), b, 3);
  const result r = run({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<std::int32_t>(path("out.npy")), (std::vector<std::int32_t>{1, 2, 3, 4, 5}));
}

TEST_P(CliTest, ForceReplacesAnExistingOutput) {
  write_npy(path("a.npy"), std::vector<std::int32_t>{1, 2});
  write_npy(path("b.npy"), std::vector<std::int32_t>{3});
  write_file(path("out.npy"), "old contents");
  expect_failure({"merge", p("a.npy"), p("b.npy"), "-o", p("out.npy")}, 2,
                 "out.npy already exists; pass --force to replace it");
  EXPECT_EQ(read_file(path("out.npy")), "old contents");
  const result r = run({"merge", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--force"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<std::int32_t>(path("out.npy")), (std::vector<std::int32_t>{1, 2, 3}));
}

TEST_P(CliTest, NoCheckSkipsTheSortednessCheck) {
  write_npy(path("a.npy"), std::vector<std::int32_t>{1, 2, 3});
  write_npy(path("b.npy"), std::vector<std::int32_t>{4, 5, 6});
  const result r = run({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--no-check"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("skipped"), std::string::npos) << r.out;
  EXPECT_EQ(read_npy<std::int32_t>(path("out.npy")), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
}

// ---------------------------------------------------------------------------------------
// Bad input: a message, status 2 (1 for failures of the environment), nothing written.

class CliBadInput : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    write_npy(path("a.npy"), std::vector<std::int32_t>{1, 2, 2, 7});
    write_npy(path("b.npy"), std::vector<std::int32_t>{0, 2, 9});
  }
  // `name` as B, into out.npy.
  void expect_bad_b(const std::string& name, int status, const std::string& message) {
    for (const char* op : operations) {
      SCOPED_TRACE(op);
      expect_failure({op, p("a.npy"), p(name), "-o", p("out.npy")}, status, message);
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliBadInput, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliBadInput, MissingFile) { expect_bad_b("missing.npy", 2, "missing.npy: no such file"); }

TEST_P(CliBadInput, UnreadableFile) {
  fs::create_directory(path("dir.npy"));
  expect_bad_b("dir.npy", 2, "dir.npy is a directory, not a .npy file");
  if (geteuid() == 0) return;  // root reads anything: the mode bits test needs a user
  write_npy(path("secret.npy"), std::vector<std::int32_t>{1});
  chmod(path("secret.npy").c_str(), 0);
  expect_bad_b("secret.npy", 2, "cannot read " + p("secret.npy") + ": Permission denied");
}

TEST_P(CliBadInput, NotNpy) {
  write_file(path("text.npy"), "1,2,3\n4,5,6\n");
  expect_bad_b("text.npy", 2, "text.npy: not a .npy file");
  write_file(path("empty.npy"), "");
  expect_bad_b("empty.npy", 2, "empty.npy: not a .npy file");
  write_file(path("garbled.npy"), npy_header("'descr': '<i4', 'fortran_order': False, 'shape': (3,"));
  expect_bad_b("garbled.npy", 2, "garbled.npy: not a valid .npy header");
  write_file(path("v9.npy"), std::string("\x93NUMPY\x09\x00\x10\x00", 10) + std::string(16, ' '));
  expect_bad_b("v9.npy", 2, "v9.npy: .npy format version 9.0 is not supported");
}

TEST_P(CliBadInput, TruncatedData) {
  const std::string header = npy_header(dict_of("<i4", "(1000,)"));
  const std::string full = header + std::string(4000, '\0');
  write_file(path("short.npy"), full.substr(0, full.size() - 1000));
  expect_bad_b("short.npy", 2,
               "short.npy: truncated: the header says 1000 int32 elements (4000 bytes of data), but the file has "
               "3000 bytes after its " + std::to_string(header.size()) + "-byte header");
  write_file(path("header_only.npy"), full.substr(0, 30));
  expect_bad_b("header_only.npy", 2, "header_only.npy: truncated .npy header");
}

TEST_P(CliBadInput, UnsupportedDtype) {
  for (const std::string descr : {"<f2", "|b1", "<c8", "|O", "<U3", "<M8[ns]"}) {
    write_file(path("odd.npy"), npy_header(dict_of(descr, "(2,)")) + std::string(64, '\0'));
    expect_bad_b("odd.npy", 2, "odd.npy: unsupported dtype '" + descr + "'");
  }
  write_file(path("record.npy"),
             npy_header("'descr': [('x', '<i4'), ('y', '<f8')], 'fortran_order': False, 'shape': (2,), ") +
                 std::string(24, '\0'));
  expect_bad_b("record.npy", 2, "record.npy: structured dtype (a record array) is not supported");
}

TEST_P(CliBadInput, DifferentDtypes) {
  write_npy(path("b64.npy"), std::vector<std::int64_t>{0, 2, 9});
  expect_bad_b("b64.npy", 2, "a.npy is int32 but " + p("b64.npy") + " is int64: A and B must have the same dtype");
}

TEST_P(CliBadInput, MoreThanOneDimension) {
  write_file(path("matrix.npy"), npy_header(dict_of("<i4", "(2, 3)")) + std::string(24, '\0'));
  expect_bad_b("matrix.npy", 2, "matrix.npy: shape (2, 3) has 2 dimensions; a column must have exactly 1");
  write_file(path("scalar.npy"), npy_header(dict_of("<i4", "()")) + std::string(4, '\0'));
  expect_bad_b("scalar.npy", 2, "scalar.npy: shape () has 0 dimensions");
}

TEST_P(CliBadInput, FortranOrder) {
  write_file(path("fortran.npy"), npy_header(dict_of("<i4", "(3,)", true)) + std::string(12, '\0'));
  expect_bad_b("fortran.npy", 2, "fortran.npy: stored in Fortran order");
}

TEST_P(CliBadInput, BigEndian) {
  write_file(path("big.npy"), npy_header(dict_of(">i4", "(3,)")) + std::string(12, '\0'));
  expect_bad_b("big.npy", 2, "big.npy: big-endian data ('>i4') is not supported");
}

TEST_P(CliBadInput, UnsortedInputNamesTheFileTheIndexAndTheValues) {
  write_npy(path("unsorted.npy"), std::vector<std::int32_t>{0, 2, 5, 5, 3, 9});
  expect_bad_b("unsorted.npy", 2, p("unsorted.npy") + " is not sorted: element 4 (3) is less than element 3 (5)");
  for (const char* op : operations) {
    expect_failure({op, p("unsorted.npy"), p("b.npy"), "-o", p("out.npy")}, 2,
                   p("unsorted.npy") + " is not sorted: element 4 (3) is less than element 3 (5)");
  }
  write_npy(path("u8.npy"), std::vector<std::uint8_t>{200, 100});
  write_npy(path("u8b.npy"), std::vector<std::uint8_t>{1});
  expect_failure({"merge", p("u8b.npy"), p("u8.npy"), "-o", p("out.npy")}, 2,
                 "element 1 (100) is less than element 0 (200)");
  // A NaN before a number: with NaNs last, that is out of order.
  write_npy(path("nan_first.npy"), std::vector<double>{1.0, std::nan(""), 2.5});
  write_npy(path("f.npy"), std::vector<double>{1.0});
  expect_failure({"union", p("f.npy"), p("nan_first.npy"), "-o", p("out.npy")}, 2,
                 "element 2 (2.5) is less than element 1 (nan) in the order with NaNs last");
  // With values, neither output appears.
  write_npy(path("va.npy"), std::vector<std::int32_t>{1, 2, 3, 4});
  write_npy(path("vu.npy"), std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
  expect_failure({"intersect", p("a.npy"), p("unsorted.npy"), "--values", p("va.npy"), p("vu.npy"), "-o",
                  p("out.npy"), "--values-out", p("vout.npy")},
                 2, "is not sorted");
}

TEST_P(CliBadInput, ValuesOfAnotherLengthOrDtype) {
  write_npy(path("va.npy"), std::vector<double>{1, 2, 3, 4});
  write_npy(path("vb.npy"), std::vector<double>{1, 2});
  write_npy(path("vb32.npy"), std::vector<float>{1, 2, 3});
  for (const char* op : operations) {
    expect_failure({op, p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), "-o", p("out.npy"),
                    "--values-out", p("vout.npy")},
                   2, p("vb.npy") + " has 2 values but " + p("b.npy") + " has 3 keys: each key needs exactly one value");
    expect_failure({op, p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb32.npy"), "-o", p("out.npy"),
                    "--values-out", p("vout.npy")},
                   2, "A's and B's values must have the same dtype");
  }
}

TEST_P(CliBadInput, OutputExists) {
  write_file(path("out.npy"), "keep me");
  expect_bad_b("b.npy", 2, "out.npy already exists; pass --force to replace it");
  EXPECT_EQ(read_file(path("out.npy")), "keep me");
  write_file(path("vout.npy"), "keep me too");
  expect_failure({"merge", p("a.npy"), p("b.npy"), "--values", p("a.npy"), p("b.npy"), "-o", p("new.npy"),
                  "--values-out", p("vout.npy")},
                 2, "vout.npy already exists");
}

TEST_P(CliBadInput, OutputDirectoryMissingOrNotWritable) {
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("nowhere/out.npy")}, 2,
                 "the directory " + p("nowhere") + " does not exist");
  std::string locked;
  if (geteuid() != 0) {
    fs::create_directory(path("locked"));
    chmod(path("locked").c_str(), 0555);
    locked = p("locked");
  } else {
    // Root writes through permission bits; sysfs refuses new files even to root.
    locked = "/sys";
    const std::string probe = locked + "/corank_cli_probe";
    const int fd = open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd >= 0) {
      close(fd);
      unlink(probe.c_str());
      GTEST_SKIP() << "no unwritable directory found (running as root, and /sys is writable)";
    }
  }
  for (const char* op : operations) {
    expect_failure({op, p("a.npy"), p("b.npy"), "-o", locked + "/out.npy"}, 1,
                   "cannot write " + locked + "/out.npy: cannot create a file in " + locked);
  }
  EXPECT_FALSE(fs::exists(locked + "/out.npy"));
}

TEST_P(CliBadInput, WrongCommandLines) {
  expect_failure({"union", p("a.npy"), p("b.npy")}, 2, "no output file: give -o OUT.npy (or --count)");
  expect_failure({"union", p("a.npy"), "-o", p("out.npy")}, 2, "needs two input files");
  expect_failure({"union", p("a.npy"), p("b.npy"), p("b.npy"), "-o", p("out.npy")}, 2, "got 3");
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--bogus"}, 2, "unknown option '--bogus'");
  expect_failure({"union", p("a.npy"), p("b.npy"), "--count", "-o", p("out.npy")}, 2, "--count prints the output size");
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--values", p("a.npy"), p("b.npy")}, 2,
                 "--values needs --values-out");
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--values-out", p("v.npy")}, 2,
                 "--values-out needs --values");
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--values", p("a.npy")}, 2,
                 "--values needs another value");
  const result r = run({"union", p("a.npy"), p("b.npy"), "--device", "tpu"}, false);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--device: 'tpu' is not one of auto|gpu|cpu"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("usage: corank union"), std::string::npos) << "a usage error prints the usage";
}

// Not enough GPU memory: this process holds all but ~512 MiB of the GPU, and the command
// gets inputs and an output of 768 MB. Only with a GPU (its own suite, label gpu, run
// serially).
class CliGpuMemory : public CliTest {};

INSTANTIATE_TEST_SUITE_P(Device, CliGpuMemory, ::testing::Values("gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliGpuMemory, InputsLargerThanTheFreeGpuMemoryStreamThroughIt) {
  const std::size_t n = std::size_t(64) << 20;  // int64: 512 MiB per column; 2 GiB in and out
  std::vector<std::int64_t> a(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = std::int64_t(i / 3);
  write_npy(path("a.npy"), a);
  write_npy(path("b.npy"), a);
  const gpu_memory_hold hold(std::size_t(2) << 30);  // the CLI's context takes some of it
  const result r = run({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("streamed in chunks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the GPU, through its memory in chunks"), std::string::npos) << r.out;
  EXPECT_TRUE(read_npy<std::int64_t>(path("out.npy")) == a) << "the union of a column with itself is the column";
}

// ---------------------------------------------------------------------------------------
// Device-independent: help, and --device gpu without a GPU.

TEST(CliHelp, EveryCommandHasHelpWithItsExitStatuses) {
  for (const char* op : operations) {
    const std::string command = quoted(CORANK_CLI_PATH) + " help " + op + " > /dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << op;
    std::string output;
    {
      const std::string capture = quoted(CORANK_CLI_PATH) + " " + op + " --help";
      std::FILE* pipe = popen(capture.c_str(), "r");
      ASSERT_NE(pipe, nullptr);
      char buffer[4096];
      for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, got);
      EXPECT_EQ(pclose(pipe), 0);
    }
    EXPECT_NE(output.find(std::string("usage: corank ") + op), std::string::npos) << output;
    EXPECT_NE(output.find("exit status:"), std::string::npos) << output;
    EXPECT_NE(output.find("--device auto|gpu|cpu"), std::string::npos) << output;
  }
}

TEST(CliDemo, EveryStrategyByName) {
  const auto [status, output] = run_cli("demo --n 1000 --strategy fastest");
  EXPECT_EQ(status, 2);
  EXPECT_NE(output.find("'fastest' is not one of automatic|naive|tiled|circular|partitioned"), std::string::npos)
      << output;
  if (!corank::test::gpu_available()) GTEST_SKIP() << "no GPU: the strategies themselves were not run";
  for (const char* name : {"automatic", "naive", "tiled", "circular", "partitioned"}) {
    const auto [status, output] = run_cli(std::string("demo --n 300000 --runs 1 --device gpu --strategy ") + name);
    EXPECT_EQ(status, 0) << output;
    EXPECT_NE(output.find(std::string("corank::merge (") + name + ")"), std::string::npos) << output;
  }
}

TEST(CliDevice, GpuWithoutAGpuFailsWithAdvice) {
  if (corank::test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  std::string pattern = (fs::temp_directory_path() / "corank_cli_test_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;
  write_npy(dir / "a.npy", std::vector<std::int32_t>{1, 2});
  const std::string command = quoted(CORANK_CLI_PATH) + " union " + quoted((dir / "a.npy").string()) + " " +
                              quoted((dir / "a.npy").string()) + " -o " + quoted((dir / "out.npy").string()) +
                              " --device gpu 2>" + quoted((dir / "err").string());
  const int raw = std::system(command.c_str());
  EXPECT_EQ(WEXITSTATUS(raw), 1);
  const std::string err = read_file(dir / "err");
  EXPECT_NE(err.find("--device gpu, but no CUDA GPU found"), std::string::npos) << err;
  EXPECT_NE(err.find("use --device cpu"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "out.npy"));
  fs::remove_all(dir);
}

}  // namespace
