// `corank merge` of three inputs or more (a k-way merge) and `corank sort`, end to end: the
// built binary runs on .npy files these tests write, and its outputs are compared with a
// reference that concatenates the inputs and runs std::stable_sort on (key, value) pairs.
// The values tag each element's file and position, so stability is checked, not assumed.
// Then bad inputs and wrong command lines (a message, an exit status, no file left), and the
// output safety of an in-place sort.
//
// Device/CliMultiway.../cpu (label cpu) and .../gpu (label gpu, skipped visibly without a
// GPU); the safety tests run on the CPU backend only, as cli_safety_test.cpp's do. The
// seed is printed first ("corank test seed: N"); CORANK_TEST_SEED=N reproduces a run.

#include "cli/cli_support.hpp"

#include <sys/resource.h>

namespace {

using namespace corank::cli_test;
using std::int32_t;
using std::int64_t;

// ---------------------------------------------------------------------------------------
// References

template <class K, class V>
struct tagged {
  K key;
  V value;
};

// The stable sort of (key, value) pairs by key in the command's order: the reference of a
// k-way merge (the runs concatenated in file order) and of a sort.
template <class K, class V>
void stable_sort_pairs(const std::vector<K>& keys, const std::vector<V>& values, std::vector<K>& sorted_keys,
                       std::vector<V>& sorted_values) {
  std::vector<tagged<K, V>> pairs(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) pairs[i] = {keys[i], values[i]};
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return order<K>{}(x.key, y.key); });
  sorted_keys.clear();
  sorted_values.clear();
  for (const auto& p : pairs) sorted_keys.push_back(p.key), sorted_values.push_back(p.value);
}

// A tag per element: its file and its position there, as V can hold them (narrow types
// wrap, and then only the keys' order and the values' bits are checked, not uniqueness).
template <class V>
std::vector<V> tags(std::size_t file, std::size_t n) {
  std::vector<V> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = V(file * 100000 + i);
  return v;
}

template <class T>
std::vector<T> unsorted_column(std::mt19937_64& rng, std::size_t n, int distinct, std::size_t nans = 0) {
  std::vector<T> v = sorted_column<T>(rng, n, distinct, nans);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// Floats with NaNs, -0.0 and 0.0 (equal: stability decides their order), infinities.
template <class T>
std::vector<T> special_floats() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  return {T(-0.0), nan, T(1.5), T(0.0), -inf, T(-0.0), nan, inf, T(0.0), T(-2), T(-0.0), nan};
}

class CliMultiway : public CliTest {
 public:
  // `corank merge` of the runs (each sorted), keys only, with values tagging each element,
  // and --count; each compared with the concatenation stable-sorted.
  template <class K, class V = int64_t>
  void check_merge(const std::vector<std::vector<K>>& runs, const std::string& what) {
    SCOPED_TRACE(std::string("merge of ") + std::to_string(runs.size()) + " " + name_of<K>() + " files, values " +
                 name_of<V>() + ": " + what);
    std::vector<std::string> args = {"merge"}, values_args = {"--values"};
    std::vector<K> all_keys;
    std::vector<V> all_values;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const std::string name = "r" + std::to_string(r);
      const std::vector<V> values = tags<V>(r, runs[r].size());
      write_npy(path(name + ".npy"), runs[r]);
      write_npy(path(name + "_values.npy"), values);
      args.push_back(p(name + ".npy"));
      values_args.push_back(p(name + "_values.npy"));
      all_keys.insert(all_keys.end(), runs[r].begin(), runs[r].end());
      all_values.insert(all_values.end(), values.begin(), values.end());
    }
    std::vector<K> expected_keys;
    std::vector<V> expected_values;
    stable_sort_pairs(all_keys, all_values, expected_keys, expected_values);

    fs::remove(path("out.npy"));
    std::vector<std::string> keys_only = args;
    keys_only.insert(keys_only.end(), {"-o", p("out.npy")});
    const result r = run(keys_only);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("GB/s"), std::string::npos) << r.out;
    EXPECT_TRUE(same_bits(read_npy<K>(path("out.npy")), expected_keys));

    fs::remove(path("out.npy"));
    fs::remove(path("vout.npy"));
    std::vector<std::string> by_key = args;
    by_key.insert(by_key.end(), values_args.begin(), values_args.end());
    by_key.insert(by_key.end(), {"-o", p("out.npy"), "--values-out", p("vout.npy")});
    const result v = run(by_key);
    ASSERT_EQ(v.status, 0) << v.err;
    EXPECT_TRUE(same_bits(read_npy<K>(path("out.npy")), expected_keys));
    EXPECT_TRUE(same_bits(read_npy<V>(path("vout.npy")), expected_values));

    std::vector<std::string> count = args;
    count.push_back("--count");
    const result c = run(count);
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_EQ(c.out, std::to_string(all_keys.size()) + "\n");
  }

  // `corank sort` of the keys, alone and with values tagging each position.
  template <class K, class V = int64_t>
  void check_sort(const std::vector<K>& keys, const std::string& what) {
    SCOPED_TRACE(std::string("sort of ") + std::to_string(keys.size()) + " " + name_of<K>() + ", values " +
                 name_of<V>() + ": " + what);
    const std::vector<V> values = tags<V>(0, keys.size());
    write_npy(path("in.npy"), keys);
    write_npy(path("values.npy"), values);
    std::vector<K> expected_keys;
    std::vector<V> expected_values;
    stable_sort_pairs(keys, values, expected_keys, expected_values);

    fs::remove(path("out.npy"));
    const result r = run({"sort", p("in.npy"), "-o", p("out.npy")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("GB/s"), std::string::npos) << r.out;
    EXPECT_TRUE(same_bits(read_npy<K>(path("out.npy")), expected_keys));

    fs::remove(path("out.npy"));
    fs::remove(path("vout.npy"));
    const result v =
        run({"sort", p("in.npy"), "--values", p("values.npy"), "-o", p("out.npy"), "--values-out", p("vout.npy")});
    ASSERT_EQ(v.status, 0) << v.err;
    EXPECT_TRUE(same_bits(read_npy<K>(path("out.npy")), expected_keys));
    EXPECT_TRUE(same_bits(read_npy<V>(path("vout.npy")), expected_values));
    EXPECT_TRUE(same_bits(read_npy<K>(path("in.npy")), keys)) << "the input is left as it was";
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliMultiway, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// Runs of random sizes (some empty) and many duplicates.
template <class K>
std::vector<std::vector<K>> random_runs(std::mt19937_64& rng, std::size_t k, std::size_t max_size) {
  std::vector<std::vector<K>> runs;
  std::uniform_int_distribution<std::size_t> size(0, max_size);
  for (std::size_t r = 0; r < k; ++r) {
    const std::size_t n = r % 4 == 1 ? 0 : size(rng);
    runs.push_back(sorted_column<K>(rng, n, 40, std::is_floating_point_v<K> ? n / 10 : 0));
  }
  return runs;
}

// ---------------------------------------------------------------------------------------
// k-way merge

TEST_P(CliMultiway, MergeOfKFilesOfEveryKeyTypeIsTheStableSortOfTheirConcatenation) {
  std::mt19937_64 rng = make_rng();
  for_each_key_type([&](auto zero) {
    using K = decltype(zero);
    for (const std::size_t k : {3, 5, 17}) check_merge<K>(random_runs<K>(rng, k, 400), "random");
  });
}

TEST_P(CliMultiway, MergeMovesValuesOfEveryDtype) {
  std::mt19937_64 rng = make_rng();
  for_each_key_type([&](auto zero) {
    using V = decltype(zero);
    check_merge<int32_t, V>(random_runs<int32_t>(rng, 4, 300), "int32 keys");
    check_merge<double, V>(random_runs<double>(rng, 3, 300), "float64 keys");
  });
}

TEST_P(CliMultiway, MergeShapes) {
  std::mt19937_64 rng = make_rng();
  check_merge<int32_t>(std::vector<std::vector<int32_t>>(5, std::vector<int32_t>(300, 7)), "all keys equal");
  check_merge<uint64_t>(std::vector<std::vector<uint64_t>>(3), "every file empty");
  check_merge<int16_t>({{}, {}, {1, 2, 3}}, "two empty files first");
  // One big file among tiny ones, before, amid and after them.
  const std::size_t big = corank::test::quick_or(200000, 20000);
  std::vector<std::vector<int64_t>> runs;
  std::uniform_int_distribution<std::size_t> tiny(0, 3);
  for (std::size_t r = 0; r < 17; ++r) {
    runs.push_back(sorted_column<int64_t>(rng, r == 6 ? big : tiny(rng), r == 6 ? 50000 : 100));
  }
  check_merge<int64_t>(runs, "one big file among 16 tiny ones");
  // More runs than one pass merges on the GPU (64).
  check_merge<uint32_t>(random_runs<uint32_t>(rng, 70, 50), "70 files");
  // NaNs last, -0.0 equal to 0.0: ties in file order.
  for (const std::size_t k : {3, 5}) {
    std::vector<std::vector<float>> floats(k, special_floats<float>());
    std::vector<std::vector<double>> doubles(k, special_floats<double>());
    for (auto& run : floats) std::stable_sort(run.begin(), run.end(), order<float>{});
    for (auto& run : doubles) std::stable_sort(run.begin(), run.end(), order<double>{});
    check_merge<float>(floats, "NaN, -0.0, infinities");
    check_merge<double>(doubles, "NaN, -0.0, infinities");
  }
}

TEST_P(CliMultiway, TheSameFileNamedMoreThanOnceIsMergedWithItself) {
  const std::vector<int32_t> a = {1, 2, 2, 5};
  write_npy(path("a.npy"), a);
  write_npy(path("va.npy"), std::vector<int32_t>{10, 20, 21, 50});
  const result r = run({"merge", p("a.npy"), p("a.npy"), p("./a.npy"), "--values", p("va.npy"), p("va.npy"),
                        p("va.npy"), "-o", p("out.npy"), "--values-out", p("vout.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int32_t>(path("out.npy")), (std::vector<int32_t>{1, 1, 1, 2, 2, 2, 2, 2, 2, 5, 5, 5}));
  EXPECT_EQ(read_npy<int32_t>(path("vout.npy")),
            (std::vector<int32_t>{10, 10, 10, 20, 21, 20, 21, 20, 21, 50, 50, 50}));
  EXPECT_EQ(read_npy<int32_t>(path("a.npy")), a);
}

TEST_P(CliMultiway, StandardInputIsOneOfTheInputs) {
  write_npy(path("a.npy"), std::vector<int32_t>{1, 4});
  write_npy(path("b.npy"), std::vector<int32_t>{2, 4});
  write_npy(path("c.npy"), std::vector<int32_t>{3, 4});
  how h;
  h.input = p("b.npy");
  const result r = run({"merge", p("a.npy"), "-", p("c.npy"), "-o", "-"}, h);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_npy<int32_t>(r.out, "stdout"), (std::vector<int32_t>{1, 2, 3, 4, 4, 4}));
  EXPECT_NE(r.err.find("3 inputs sorted"), std::string::npos) << "the report goes to stderr: " << r.err;
}

// ---------------------------------------------------------------------------------------
// Sort

TEST_P(CliMultiway, SortOfEveryKeyTypeIsStdStableSort) {
  std::mt19937_64 rng = make_rng();
  for_each_key_type([&](auto zero) {
    using K = decltype(zero);
    check_sort<K>(unsorted_column<K>(rng, 3000, 50, std::is_floating_point_v<K> ? 40 : 0), "random, duplicates");
  });
}

TEST_P(CliMultiway, SortMovesValuesOfEveryDtype) {
  std::mt19937_64 rng = make_rng();
  for_each_key_type([&](auto zero) {
    using V = decltype(zero);
    check_sort<int64_t, V>(unsorted_column<int64_t>(rng, 2000, 100), "int64 keys");
    check_sort<uint8_t, V>(unsorted_column<uint8_t>(rng, 700, 5), "uint8 keys");
  });
}

TEST_P(CliMultiway, SortShapes) {
  std::mt19937_64 rng = make_rng();
  check_sort<int32_t>({}, "empty");
  check_sort<double>({}, "empty");
  check_sort<int8_t>({-5}, "one key");
  check_sort<uint16_t>(std::vector<uint16_t>(5000, 9), "all keys equal");
  std::vector<int64_t> ascending = sorted_column<int64_t>(rng, 4000, 1000);
  check_sort<int64_t>(ascending, "sorted already");
  std::reverse(ascending.begin(), ascending.end());
  check_sort<int64_t>(ascending, "descending");
  for (int copies = 1; copies <= 300; copies *= 17) {
    std::vector<float> floats;
    std::vector<double> doubles;
    for (int i = 0; i < copies; ++i) {
      for (const float x : special_floats<float>()) floats.push_back(x);
      for (const double x : special_floats<double>()) doubles.push_back(x);
    }
    std::shuffle(floats.begin(), floats.end(), rng);
    std::shuffle(doubles.begin(), doubles.end(), rng);
    check_sort<float>(floats, "NaN, -0.0, infinities");
    check_sort<double>(doubles, "NaN, -0.0, infinities");
  }
  // Large enough for many CPU pieces and several GPU tiles and passes.
  const std::size_t n = corank::test::quick_or(300000, 30000);
  check_sort<int32_t>(unsorted_column<int32_t>(rng, n, 1000), "large");
  check_sort<uint64_t, uint8_t>(unsorted_column<uint64_t>(rng, n, 1 << 20), "large, narrow values");
}

TEST_P(CliMultiway, SortFromStandardInputToStandardOutput) {
  write_npy(path("in.npy"), std::vector<int16_t>{3, -1, 2, -1});
  how h;
  h.input = p("in.npy");
  const result r = run({"sort", "-", "-o", "-"}, h);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_npy<int16_t>(r.out, "stdout"), (std::vector<int16_t>{-1, -1, 2, 3}));
  EXPECT_NE(r.err.find("GB/s"), std::string::npos) << "the report goes to stderr: " << r.err;
}

// ---------------------------------------------------------------------------------------
// Bad input and wrong command lines: a message, status 2, nothing written.

class CliMultiwayBadInput : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    write_npy(path("a.npy"), std::vector<int32_t>{1, 2, 2, 7});
    write_npy(path("b.npy"), std::vector<int32_t>{0, 2, 9});
    write_npy(path("c.npy"), std::vector<int32_t>{3, 4, 5});
    write_npy(path("va.npy"), std::vector<int64_t>{1, 2, 3, 4});
    write_npy(path("vb.npy"), std::vector<int64_t>{1, 2, 3});
    write_npy(path("vc.npy"), std::vector<int64_t>{1, 2, 3});
  }
  // merge a.npy b.npy NAME (with values when `values` names the third values file).
  void expect_bad_c(const std::string& name, const std::string& message, const std::string& values = "") {
    std::vector<std::string> args = {"merge", p("a.npy"), p("b.npy"), p(name), "-o", p("out.npy")};
    if (!values.empty()) args.insert(args.end(), {"--values", p("va.npy"), p("vb.npy"), p(values), "--values-out",
                                                  p("vout.npy")});
    expect_failure(args, 2, message);
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliMultiwayBadInput, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliMultiwayBadInput, AnUnsortedInputIsNamedWithItsIndexAndValues) {
  write_npy(path("unsorted.npy"), std::vector<int32_t>{0, 2, 5, 5, 3, 9});
  const std::string message = p("unsorted.npy") + " is not sorted: element 4 (3) is less than element 3 (5)";
  expect_bad_c("unsorted.npy", message);
  write_npy(path("vu.npy"), std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  expect_bad_c("unsorted.npy", message, "vu.npy");  // neither output appears
  // The first of 17 files: each file is checked, not only the last ones.
  std::vector<std::string> args = {"merge", p("unsorted.npy")};
  for (int i = 0; i < 16; ++i) args.push_back(p("c.npy"));
  args.insert(args.end(), {"-o", p("out.npy")});
  expect_failure(args, 2, message);
  // A NaN before a number: with NaNs last, that is out of order.
  write_npy(path("f.npy"), std::vector<double>{1.0});
  write_npy(path("nan_first.npy"), std::vector<double>{1.0, std::nan(""), 2.5});
  expect_failure({"merge", p("f.npy"), p("f.npy"), p("nan_first.npy"), "-o", p("out.npy")}, 2,
                 "element 2 (2.5) is less than element 1 (nan) in the order with NaNs last");
  // --no-check skips it.
  const result r = run({"merge", p("a.npy"), p("b.npy"), p("unsorted.npy"), "-o", p("out.npy"), "--no-check"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("skipped (--no-check)"), std::string::npos) << r.out;
}

TEST_P(CliMultiwayBadInput, DtypesMustAgreeAcrossTheInputsAndAcrossTheValues) {
  write_npy(path("c64.npy"), std::vector<int64_t>{3, 4, 5});
  expect_bad_c("c64.npy", p("c64.npy") + " is int64 but " + p("a.npy") + " is int32: every input must have the "
                          "same dtype");
  write_npy(path("vc32.npy"), std::vector<float>{1, 2, 3});
  expect_bad_c("c.npy", p("vc32.npy") + " is float32 but " + p("va.npy") + " is int64: every values file must "
                        "have the same dtype", "vc32.npy");
}

TEST_P(CliMultiwayBadInput, ValuesOfAnotherLength) {
  write_npy(path("vc2.npy"), std::vector<int64_t>{1, 2});
  expect_bad_c("c.npy", p("vc2.npy") + " has 2 values but " + p("c.npy") + " has 3 keys: each key needs exactly one "
                        "value", "vc2.npy");
  expect_failure({"sort", p("c.npy"), "--values", p("va.npy"), "-o", p("out.npy"), "--values-out", p("vout.npy")},
                 2, p("va.npy") + " has 4 values but " + p("c.npy") + " has 3 keys: each key needs exactly one value");
}

TEST_P(CliMultiwayBadInput, OneValuesFilePerInput) {
  const std::vector<std::string> three = {"merge", p("a.npy"), p("b.npy"), p("c.npy")};
  const auto with = [&](std::vector<std::string> args, std::initializer_list<std::string> more) {
    args.insert(args.end(), more);
    return args;
  };
  expect_failure(with(three, {"--values", p("va.npy"), p("vb.npy"), "-o", p("o.npy"), "--values-out", p("v.npy")}),
                 2, "--values names 2 files for 3 input files: give one values file per input, in the inputs' order");
  expect_failure(with(three, {"--values", p("va.npy"), p("vb.npy"), p("vc.npy"), p("vc.npy"), "-o", p("o.npy"),
                              "--values-out", p("v.npy")}),
                 2, "--values names 4 files for 3 input files");
  expect_failure({"merge", "--values", p("va.npy"), p("vb.npy"), p("a.npy"), p("b.npy"), "-o", p("o.npy"),
                  "--values-out", p("v.npy")},
                 2, "(--values takes the files up to the next option: name the inputs before it)");
  for (const char* op : {"union", "intersect", "diff", "symdiff"}) {
    SCOPED_TRACE(op);
    expect_failure({op, p("a.npy"), p("b.npy"), p("c.npy"), "-o", p("o.npy")}, 2,
                   "needs two input files, got 3 (the third is '" + p("c.npy") + "'); only merge takes more");
    expect_failure({op, p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), p("vc.npy"), "-o", p("o.npy"),
                    "--values-out", p("v.npy")},
                   2, "--values names 3 files for 2 input files");
  }
  // Two inputs take two values files, as before.
  const result r = run({"merge", p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), "-o", p("o.npy"),
                        "--values-out", p("v.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int64_t>(path("v.npy")), (std::vector<int64_t>{1, 1, 2, 3, 2, 4, 3}));
}

TEST_P(CliMultiwayBadInput, BadFiles) {
  expect_bad_c("missing.npy", "missing.npy: no such file");
  write_file(path("text.npy"), "1,2,3\n");
  expect_bad_c("text.npy", "text.npy: not a .npy file");
  const std::string full = npy_header(dict_of("<i4", "(100,)")) + std::string(400, '\0');
  write_file(path("short.npy"), full.substr(0, full.size() - 100));
  expect_bad_c("short.npy", "short.npy: truncated: the header says 100 int32 elements");
  write_file(path("matrix.npy"), npy_header(dict_of("<i4", "(2, 3)")) + std::string(24, '\0'));
  expect_bad_c("matrix.npy", "matrix.npy: shape (2, 3) has 2 dimensions");
  for (const std::string name : {"missing.npy", "text.npy", "short.npy", "matrix.npy"}) {
    expect_failure({"sort", p(name), "-o", p("out.npy")}, 2, name);
  }
  write_file(path("big.npy"), npy_header(dict_of(">i4", "(3,)")) + std::string(12, '\0'));
  expect_failure({"sort", p("big.npy"), "-o", p("out.npy")}, 2, "big.npy: big-endian data ('>i4') is not supported");
}

TEST_P(CliMultiwayBadInput, StandardInputIsReadOnce) {
  how h;
  h.input = p("b.npy");
  const std::vector<std::string> before = files();
  const result r = run({"merge", p("a.npy"), "-", "-", "-o", p("out.npy")}, h);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("inputs B and C are both standard input, which can be read only once"), std::string::npos)
      << r.err;
  EXPECT_EQ(files(), before);
  const result s = run({"sort", "-", "--values", "-", "-o", p("out.npy"), "--values-out", p("v.npy")}, h);
  EXPECT_EQ(s.status, 2);
  EXPECT_NE(s.err.find("inputs IN and VALUES are both standard input"), std::string::npos) << s.err;
  EXPECT_EQ(files(), before);
}

TEST_P(CliMultiwayBadInput, SortCommandLines) {
  expect_failure({"sort", "-o", p("out.npy")}, 2, "needs an input file, IN.npy");
  expect_failure({"sort", p("a.npy"), p("b.npy"), "-o", p("out.npy")}, 2,
                 "sorts one input file, got 2 (the second is '" + p("b.npy") + "')");
  expect_failure({"sort", p("a.npy")}, 2, "no output file: give -o OUT.npy");
  expect_failure({"sort", p("a.npy"), "-o", p("out.npy"), "--count"}, 2,
                 "unknown option '--count'; the options are -o/--output, --values, --values-out, --device, --threads, "
                 "--force, -h/--help");
  expect_failure({"sort", p("a.npy"), "-o", p("out.npy"), "--values", p("va.npy")}, 2,
                 "--values needs --values-out OUT_VALUES.npy");
  expect_failure({"sort", p("a.npy"), "-o", p("out.npy"), "--values-out", p("v.npy")}, 2,
                 "--values-out needs --values VALUES.npy");
  expect_failure({"sort", p("a.npy"), "-o", p("out.npy"), "--values", p("va.npy"), "--values-out", p("out.npy")}, 2,
                 "are the same file");
  write_file(path("out.npy"), "keep me");
  expect_failure({"sort", p("a.npy"), "-o", p("out.npy")}, 2, "out.npy already exists; pass --force to replace it");
  EXPECT_EQ(read_file(path("out.npy")), "keep me");
  const result r = run({"sort", p("a.npy"), "--device", "tpu"}, false);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("usage: corank sort"), std::string::npos) << "a usage error prints the usage: " << r.err;
}

// ---------------------------------------------------------------------------------------
// Output safety: an output that is an input; sorting a file into itself

class CliMultiwaySafety : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    std::signal(SIGPIPE, SIG_IGN);
    write_npy(path("a.npy"), std::vector<int32_t>{1, 5});
    write_npy(path("b.npy"), std::vector<int32_t>{2, 5});
    write_npy(path("c.npy"), c_);
    write_npy(path("x.npy"), x_);
    write_npy(path("xv.npy"), xv_);
  }
  const std::vector<int32_t> c_{0, 5, 6};
  const std::vector<int32_t> x_{3, 1, 2, 1, 3};
  const std::vector<int64_t> xv_{30, 10, 20, 11, 31};
  const std::vector<int32_t> x_sorted_{1, 1, 2, 3, 3};
  const std::vector<int64_t> xv_sorted_{10, 11, 20, 30, 31};
};

INSTANTIATE_TEST_SUITE_P(Device, CliMultiwaySafety, ::testing::Values("cpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliMultiwaySafety, AnOutputThatIsOneOfKInputsNeedsForce) {
  const std::vector<std::string> args = {"merge", p("a.npy"), p("b.npy"), p("c.npy"), "-o", p("./c.npy")};
  expect_failure(args, 2, "-o " + p("./c.npy") + " is also input C (" + p("c.npy") +
                              "); pass --force to replace it once it has been read");
  EXPECT_EQ(read_npy<int32_t>(path("c.npy")), c_);
  std::vector<std::string> forced = args;
  forced.push_back("--force");
  const result r = run(forced);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int32_t>(path("c.npy")), (std::vector<int32_t>{0, 1, 2, 5, 5, 5, 6}));
}

TEST_P(CliMultiwaySafety, SortInPlaceNeedsForceAndThenReplacesTheFileWhole) {
  expect_failure({"sort", p("x.npy"), "-o", p("x.npy")}, 2,
                 "-o " + p("x.npy") + " is also input IN (" + p("x.npy") + "); pass --force to replace it");
  expect_failure({"sort", p("x.npy"), "--values", p("xv.npy"), "-o", p("k.npy"), "--values-out", p("xv.npy")}, 2,
                 "--values-out " + p("xv.npy") + " is also input VALUES (" + p("xv.npy") + ")");
  EXPECT_EQ(read_npy<int32_t>(path("x.npy")), x_);
  EXPECT_EQ(read_npy<int64_t>(path("xv.npy")), xv_);
  const std::vector<std::string> before = files();
  const result r =
      run({"sort", p("x.npy"), "--values", p("xv.npy"), "-o", p("x.npy"), "--values-out", p("xv.npy"), "--force"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int32_t>(path("x.npy")), x_sorted_);
  EXPECT_EQ(read_npy<int64_t>(path("xv.npy")), xv_sorted_);
  EXPECT_EQ(files(), before) << "no temporary file is left";
  // Keys alone, out through a symbolic link to the input: the file it points to is replaced,
  // the link stays.
  write_npy(path("x.npy"), x_);
  fs::create_symlink(path("x.npy"), path("link.npy"));
  const result l = run({"sort", p("x.npy"), "-o", p("link.npy"), "--force"});
  ASSERT_EQ(l.status, 0) << l.err;
  EXPECT_EQ(read_npy<int32_t>(path("x.npy")), x_sorted_);
  EXPECT_TRUE(fs::is_symlink(path("link.npy")));
}

TEST_P(CliMultiwaySafety, ASortInPlaceThatFailsLosesNothing) {
  std::mt19937_64 rng = make_rng();
  const std::vector<int64_t> big = unsorted_column<int64_t>(rng, 100000, 1000);
  write_npy(path("big.npy"), big);
  const std::string original = read_file(path("big.npy"));
  for (const char* mode : {"", "export CORANK_CLI_NO_TMPFILE=1;"}) {
    SCOPED_TRACE(*mode ? "named temporary files" : "O_TMPFILE");
    how h;
    h.shell = std::string(mode) + " ulimit -f 64;";  // 64 KiB: the output is 800 kB
    const std::vector<std::string> before = files();
    const result r = run({"sort", p("big.npy"), "-o", p("big.npy"), "--force"}, h);
    EXPECT_EQ(r.status, 128 + SIGXFSZ) << r.err;
    EXPECT_EQ(files(), before);
    EXPECT_TRUE(read_file(path("big.npy")) == original) << "the input changed";
  }
}

TEST_P(CliMultiwaySafety, InPlaceKeysArePutBackWhenTheirValuesCannotBePublished) {
  // The values come through a FIFO; once the command waits for their data, their output's
  // name becomes a directory, so their rename fails after the keys' succeeded.
  ASSERT_EQ(mkfifo(path("v.fifo").c_str(), 0666), 0);
  const std::string original = read_file(path("x.npy"));
  const std::string values = npy_bytes(xv_);
  const std::size_t header = values.size() - xv_.size() * sizeof(int64_t);
  const std::vector<std::string> before = files();
  const pid_t pid = spawn({"sort", p("x.npy"), "--values", p("v.fifo"), "-o", p("x.npy"), "--values-out",
                           p("vout.npy"), "--force"},
                          {});
  const int fd = open_fifo_for_writing(path("v.fifo"));
  ASSERT_GE(fd, 0) << "the command never opened v.fifo";
  EXPECT_TRUE(write_all(fd, values.substr(0, header)));
  EXPECT_TRUE(wait_until_blocked_reading(pid));
  fs::create_directory(path("vout.npy"));
  write_all(fd, values.substr(header));
  close(fd);
  const result r = wait_for(pid);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("no output was changed"), std::string::npos) << r.err;
  EXPECT_TRUE(read_file(path("x.npy")) == original) << "the keys' file was not put back";
  fs::remove(path("vout.npy"));
  EXPECT_EQ(files(), before) << "a temporary or backup file was left behind";
}

TEST_P(CliMultiwaySafety, NotEnoughHostMemoryForASortIsRefusedUpFront) {
  std::vector<int32_t> big(std::size_t(32) << 20);  // 128 MiB; the CPU sort needs 1.5 times that more
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = int32_t(big.size() - i);
  write_npy(path("big.npy"), big);
  big = {};
  how h;
  h.shell = "ulimit -v 250000;";
  const std::vector<std::string> before = files();
  const result r = run({"sort", p("big.npy"), "-o", p("out.npy")}, h);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("not enough host memory: the inputs ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("and the backend's buffers ("), std::string::npos) << r.err;
  EXPECT_EQ(files(), before);
}

// ---------------------------------------------------------------------------------------
// Device-independent: help, and --device gpu without a GPU.

TEST(CliMultiwayHelp, SortAndMergeSayWhatTheyTake) {
  const auto [status, sort_help] = run_cli("sort --help");
  EXPECT_EQ(status, 0) << sort_help;
  for (const char* promise : {"usage: corank sort IN.npy -o OUT.npy", "exit status:", "--device auto|gpu|cpu",
                              "NaNs last", "both files are published together", "IN itself with --force"}) {
    EXPECT_NE(sort_help.find(promise), std::string::npos) << promise;
  }
  const auto [merge_status, merge_help] = run_cli("help merge");
  EXPECT_EQ(merge_status, 0);
  EXPECT_NE(merge_help.find("corank merge A.npy B.npy [C.npy ...] --values A_VALUES.npy B_VALUES.npy "
                            "[C_VALUES.npy ...]"),
            std::string::npos)
      << merge_help;
  const auto [list_status, list] = run_cli("--help");
  EXPECT_EQ(list_status, 0);
  EXPECT_NE(list.find("  sort       stable sort of a .npy column"), std::string::npos) << list;
}

TEST(CliMultiwayDevice, GpuWithoutAGpuFailsWithAdvice) {
  if (corank::test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  std::string pattern = (fs::temp_directory_path() / "corank_cli_test_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;
  write_npy(dir / "a.npy", std::vector<int32_t>{2, 1});
  for (const std::string& args : {"sort " + quoted((dir / "a.npy").string()),
                                  "merge " + quoted((dir / "a.npy").string()) + " " +
                                      quoted((dir / "a.npy").string()) + " " + quoted((dir / "a.npy").string())}) {
    const auto [status, output] = run_cli(args + " -o " + quoted((dir / "out.npy").string()) + " --device gpu");
    EXPECT_EQ(status, 1) << output;
    EXPECT_NE(output.find("--device gpu, but no CUDA GPU found"), std::string::npos) << output;
    EXPECT_FALSE(fs::exists(dir / "out.npy"));
  }
  fs::remove_all(dir);
}

}  // namespace
