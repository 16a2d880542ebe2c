// `corank search` and `corank join`, end to end: the built binary runs on .npy files these
// tests write, and its outputs are compared with the standard library (std::lower_bound,
// std::upper_bound, std::binary_search, and a join built from them) on random sorted columns
// of every key type and the usual shapes. Then bad inputs and wrong command lines (a message,
// an exit status, no file left), and the files the arguments name.
//
// Device/CliSearch.../cpu (label cpu) and .../gpu (label gpu, skipped visibly without a GPU).
// The seed is printed first ("corank test seed: N"); CORANK_TEST_SEED=N reproduces a run.

#include "cli/cli_support.hpp"

namespace {

using namespace corank::cli_test;
using std::int32_t;
using std::int64_t;

// A bool .npy written by the command ('|b1'), as bytes of 0 or 1.
std::vector<std::uint8_t> read_flags(const fs::path& path) {
  const std::string bytes = read_file(path);
  EXPECT_GE(bytes.size(), 10u) << path;
  if (bytes.size() < 10) return {};
  const std::size_t length = std::size_t(std::uint8_t(bytes[8])) | (std::size_t(std::uint8_t(bytes[9])) << 8);
  const std::string dict = bytes.substr(10, length);
  EXPECT_NE(dict.find("'descr': '|b1'"), std::string::npos) << dict;
  const std::string data = bytes.substr(10 + length);
  EXPECT_NE(dict.find("'shape': (" + std::to_string(data.size()) + ",)"), std::string::npos) << dict;
  return std::vector<std::uint8_t>(data.begin(), data.end());
}

// The references: each query's bounds, membership, and the join's pairs in (i, j) order.
template <class T>
struct references {
  std::vector<int64_t> lower, upper;
  std::vector<std::uint8_t> found;
  std::vector<int64_t> left, right;  // the join of the queries (left) with the haystack (right)
};

template <class T>
references<T> reference(const std::vector<T>& haystack, const std::vector<T>& queries) {
  references<T> r;
  const order<T> comp{};
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const T& q = queries[i];
    const int64_t lo = std::lower_bound(haystack.begin(), haystack.end(), q, comp) - haystack.begin();
    const int64_t hi = std::upper_bound(haystack.begin(), haystack.end(), q, comp) - haystack.begin();
    r.lower.push_back(lo);
    r.upper.push_back(hi);
    r.found.push_back(lo < hi ? 1 : 0);
    for (int64_t j = lo; j < hi; ++j) r.left.push_back(int64_t(i)), r.right.push_back(j);
  }
  return r;
}

// The command lines check() runs, one process each.
enum runs : unsigned {
  lower = 1,       // search (lower bounds, the default)
  side_left = 2,   // search --side left
  upper = 4,       // search --side=right
  isin = 8,        // search --isin
  invert = 16,     // search --isin --invert
  join = 32,       // join -o
  count = 64,      // join --count --threads 3
  every_run = 127,
};

class CliSearch : public CliTest {
 protected:
  // Runs `which` of search's forms and join on (haystack, queries) and compares each with the
  // references.
  template <class T>
  void check(const std::vector<T>& haystack, const std::vector<T>& queries, const std::string& what,
             unsigned which = every_run) {
    SCOPED_TRACE(std::string(name_of<T>()) + " " + what + ": " + std::to_string(haystack.size()) + " keys, " +
                 std::to_string(queries.size()) + " queries");
    write_npy(path("h.npy"), haystack);
    write_npy(path("q.npy"), queries);
    const references<T> expected = reference(haystack, queries);
    const std::vector<std::tuple<unsigned, std::vector<std::string>, const std::vector<int64_t>*>> bounds = {
        {lower, {}, &expected.lower}, {side_left, {"--side", "left"}, &expected.lower},
        {upper, {"--side=right"}, &expected.upper}};
    for (const auto& [run_it, options, want] : bounds) {
      if (!(which & run_it)) continue;
      std::vector<std::string> args = {"search", p("h.npy"), p("q.npy"), "-o", p("pos.npy"), "--force"};
      args.insert(args.end(), options.begin(), options.end());
      const result r = run(args);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_NE(r.out.find("GB/s"), std::string::npos) << r.out;
      EXPECT_EQ(read_npy<int64_t>(path("pos.npy")), *want) << (options.empty() ? "" : options[0]);
    }
    if (which & isin) {
      const result in = run({"search", p("h.npy"), p("q.npy"), "-o", p("in.npy"), "--isin", "--force"});
      ASSERT_EQ(in.status, 0) << in.err;
      EXPECT_EQ(read_flags(path("in.npy")), expected.found);
    }
    if (which & invert) {
      const result out = run({"search", p("h.npy"), p("q.npy"), "-o", p("in.npy"), "--isin", "--invert", "--force"});
      ASSERT_EQ(out.status, 0) << out.err;
      std::vector<std::uint8_t> not_found = expected.found;
      for (std::uint8_t& f : not_found) f = f ? 0 : 1;
      EXPECT_EQ(read_flags(path("in.npy")), not_found);
    }
    if (which & join) {
      const result j = run({"join", p("q.npy"), p("h.npy"), "-o", p("li.npy"), p("ri.npy"), "--force"});
      ASSERT_EQ(j.status, 0) << j.err;
      EXPECT_NE(j.out.find(std::to_string(expected.left.size()) + " pair"), std::string::npos) << j.out;
      EXPECT_EQ(read_npy<int64_t>(path("li.npy")), expected.left);
      EXPECT_EQ(read_npy<int64_t>(path("ri.npy")), expected.right);
    }
    if (which & count) {
      const result c = run({"join", p("q.npy"), p("h.npy"), "--count", "--threads", "3"});
      ASSERT_EQ(c.status, 0) << c.err;
      EXPECT_EQ(c.out, std::to_string(expected.left.size()) + "\n") << "--count prints only the number of pairs";
    }
  }

  // The first shape with `first` of the runs, the others with `others` (none: skipped).
  template <class T>
  void check_shapes(std::mt19937_64& rng, unsigned first = every_run, unsigned others = every_run) {
    const std::size_t nans = std::is_floating_point_v<T> ? 7 : 0;
    check(sorted_column<T>(rng, 3000, 50, nans), sorted_column<T>(rng, 2000, 60, nans), "random, many duplicates",
          first);
    if (others == 0) return;
    check(std::vector<T>{}, sorted_column<T>(rng, 100, 10), "empty haystack", others);
    check(sorted_column<T>(rng, 100, 10), std::vector<T>{}, "no queries", others);
    check(std::vector<T>(700, T(3)), std::vector<T>(300, T(3)), "all equal", others);
    std::vector<T> low(500, T(1)), high(400, T(5));
    check(low, high, "disjoint, queries above", others);
    check(high, low, "disjoint, queries below", others);
    check(sorted_column<T>(rng, 4099, 120), sorted_column<T>(rng, 1, 120), "one query", others);
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliSearch, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// The CPU runs every form on every key type and shape. A GPU process costs a device's start
// (most of a second), so the GPU runs each operation's kernels once per key type (bounds both
// ways, isin, the join) on the first shape, and every shape and form on int32 keys.
TEST_P(CliSearch, EveryKeyTypeAndShapeAgreesWithTheStandardLibrary) {
  std::mt19937_64 rng = make_rng();
  if (device() == "gpu") {
    for_each_key_type([&](auto zero) { check_shapes<decltype(zero)>(rng, lower | upper | isin | join, 0); });
    check_shapes<int32_t>(rng, side_left | invert | count, lower | upper | join);
  } else {
    for_each_key_type([&](auto zero) { check_shapes<decltype(zero)>(rng); });
  }
}

TEST_P(CliSearch, LongRunsOfOneKeyAcrossManyTilesJoinToTheirProduct) {
  std::vector<int64_t> left(900, 7), right(800, 7);
  left.insert(left.begin(), 5000, 1);  // and a long run that matches nothing
  right.push_back(9);
  check(right, left, "one key 900 x 800 times");
}

TEST_P(CliSearch, NaNQueriesFindTheHaystacksNaNs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  write_npy(path("h.npy"), std::vector<double>{1.0, 2.0, nan, nan});
  write_npy(path("q.npy"), std::vector<double>{2.0, nan});
  ASSERT_EQ(run({"search", p("h.npy"), p("q.npy"), "-o", p("pos.npy")}).status, 0);
  EXPECT_EQ(read_npy<int64_t>(path("pos.npy")), (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(run({"join", p("q.npy"), p("h.npy"), "-o", p("li.npy"), p("ri.npy")}).status, 0);
  EXPECT_EQ(read_npy<int64_t>(path("li.npy")), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(read_npy<int64_t>(path("ri.npy")), (std::vector<int64_t>{1, 2, 3}));
}

TEST_P(CliSearch, AFileNamedTwiceIsSearchedOrJoinedWithItself) {
  write_npy(path("k.npy"), std::vector<int32_t>{1, 1, 4});
  ASSERT_EQ(run({"join", p("k.npy"), p("k.npy"), "-o", p("li.npy"), p("ri.npy")}).status, 0);
  EXPECT_EQ(read_npy<int64_t>(path("li.npy")), (std::vector<int64_t>{0, 0, 1, 1, 2}));
  EXPECT_EQ(read_npy<int64_t>(path("ri.npy")), (std::vector<int64_t>{0, 1, 0, 1, 2}));
  ASSERT_EQ(run({"search", p("k.npy"), p("k.npy"), "-o", p("pos.npy"), "--side", "right"}).status, 0);
  EXPECT_EQ(read_npy<int64_t>(path("pos.npy")), (std::vector<int64_t>{2, 2, 3}));
}

TEST_P(CliSearch, StandardInputAndOutput) {
  write_npy(path("h.npy"), std::vector<int32_t>{1, 3, 5});
  write_npy(path("q.npy"), std::vector<int32_t>{0, 3, 6});
  how h;
  h.input = p("q.npy");
  const result r = run({"search", p("h.npy"), "-", "-o", "-"}, h);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_npy<int64_t>(r.out, "standard output"), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_NE(r.err.find("corank search"), std::string::npos) << "the report goes to stderr: " << r.err;
}

class CliSearchBadInput : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    write_npy(path("a.npy"), std::vector<int32_t>{1, 2, 2, 7});
    write_npy(path("b.npy"), std::vector<int32_t>{0, 2, 9});
    write_npy(path("unsorted.npy"), std::vector<int32_t>{0, 2, 5, 5, 3, 9});
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliSearchBadInput, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliSearchBadInput, AnUnsortedInputIsNamedWithItsIndexAndValues) {
  const std::string message = p("unsorted.npy") + " is not sorted: element 4 (3) is less than element 3 (5)";
  expect_failure({"search", p("unsorted.npy"), p("b.npy"), "-o", p("out.npy")}, 2, message);
  expect_failure({"search", p("a.npy"), p("unsorted.npy"), "-o", p("out.npy"), "--isin"}, 2, message);
  expect_failure({"join", p("unsorted.npy"), p("b.npy"), "-o", p("l.npy"), p("r.npy")}, 2, message);
  expect_failure({"join", p("a.npy"), p("unsorted.npy"), "--count"}, 2, message);
}

TEST_P(CliSearchBadInput, UncheckedUnsortedInputGivesAnAnswerOrStatusTwoAndNeverAPartialFile) {
  std::mt19937_64 rng = make_rng();
  // Small: a join of unsorted columns that is not found so writes up to m * n pairs.
  std::vector<int64_t> random(1500), sorted = sorted_column<int64_t>(rng, 1000, 50);
  std::uniform_int_distribution<int64_t> pick(0, 49);
  for (int64_t& x : random) x = pick(rng);
  write_npy(path("r.npy"), random);
  write_npy(path("s.npy"), sorted);
  for (const auto& [x, y] : {std::pair{"r.npy", "s.npy"}, std::pair{"s.npy", "r.npy"}, std::pair{"r.npy", "r.npy"}}) {
    SCOPED_TRACE(std::string(x) + " " + y);
    for (const std::vector<std::string>& form :
         {std::vector<std::string>{"search", p(x), p(y), "-o", p("out.npy")},
          {"search", p(x), p(y), "-o", p("out.npy"), "--isin"},
          {"join", p(x), p(y), "-o", p("out.npy"), p("out2.npy")}}) {
      std::vector<std::string> args = form;
      args.insert(args.end(), {"--no-check", "--force"});
      fs::remove(path("out.npy")), fs::remove(path("out2.npy"));
      const result r = run(args);
      EXPECT_TRUE(r.status == 0 || r.status == 2) << "status " << r.status << ": " << r.err;
      if (r.status == 2) {
        EXPECT_NE(r.err.find("is not sorted"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(path("out.npy"))) << "no partial output";
      } else if (form[0] == "join") {
        EXPECT_EQ(read_npy<int64_t>(path("out.npy")).size(), read_npy<int64_t>(path("out2.npy")).size());
      } else {
        const std::size_t queries = std::string(y) == "r.npy" ? random.size() : sorted.size();
        EXPECT_EQ(form.size() == 6 ? read_flags(path("out.npy")).size() : read_npy<int64_t>(path("out.npy")).size(),
                  queries)
            << "one answer per query";
      }
    }
  }
}

TEST_P(CliSearchBadInput, DtypesMustAgree) {
  write_npy(path("b64.npy"), std::vector<int64_t>{0, 2, 9});
  expect_failure({"search", p("a.npy"), p("b64.npy"), "-o", p("out.npy")}, 2,
                 p("a.npy") + " is int32 but " + p("b64.npy") + " is int64: A and V must have the same dtype");
  expect_failure({"join", p("a.npy"), p("b64.npy"), "--count"}, 2,
                 " is int64: LEFT and RIGHT must have the same dtype");
}

TEST_P(CliSearchBadInput, BadFiles) {
  write_file(path("text.npy"), "1,2,3\n");
  const std::string full = npy_header(dict_of("<i4", "(100,)")) + std::string(400, '\0');
  write_file(path("short.npy"), full.substr(0, full.size() - 100));
  write_file(path("flags.npy"), npy_header(dict_of("|b1", "(3,)")) + std::string(3, '\1'));
  for (const auto& [name, message] :
       {std::pair<std::string, std::string>{"missing.npy", "missing.npy: no such file"},
        {"text.npy", "text.npy: not a .npy file"},
        {"short.npy", "short.npy: truncated: the header says 100 int32 elements"},
        {"flags.npy", "flags.npy"}}) {
    SCOPED_TRACE(name);
    expect_failure({"search", p("a.npy"), p(name), "-o", p("out.npy")}, 2, message);
    expect_failure({"join", p(name), p("a.npy"), "-o", p("l.npy"), p("r.npy")}, 2, message);
  }
}

TEST_P(CliSearchBadInput, FilesTheArgumentsName) {
  // An output that is an input: only with --force, and replaced once read.
  expect_failure({"search", p("a.npy"), p("b.npy"), "-o", p("b.npy")}, 2,
                 "-o " + p("b.npy") + " is also input V (" + p("b.npy") + "); pass --force");
  expect_failure({"join", p("a.npy"), p("b.npy"), "-o", p("l.npy"), p("a.npy")}, 2, "is also input LEFT");
  // Two outputs that are one file, however they are spelled.
  expect_failure({"join", p("a.npy"), p("b.npy"), "-o", p("l.npy"), (path(".") / "l.npy").string()}, 2,
                 "are the same file");
  // An existing output is kept.
  write_file(path("out.npy"), "keep me");
  expect_failure({"search", p("a.npy"), p("b.npy"), "-o", p("out.npy")}, 2, "already exists; pass --force");
  EXPECT_EQ(read_file(path("out.npy")), "keep me");
  fs::remove(path("out.npy"));
  // Standard input is read once.
  how h;
  h.input = p("b.npy");
  const result r = run({"join", "-", "-", "--count"}, h);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("inputs LEFT and RIGHT are both standard input"), std::string::npos) << r.err;
  // With --force, an input is replaced by the answer once it is read.
  const result f = run({"search", p("a.npy"), p("b.npy"), "-o", p("b.npy"), "--force"});
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(read_npy<int64_t>(path("b.npy")), (std::vector<int64_t>{0, 1, 4}));
}

TEST_P(CliSearchBadInput, AJoinWhosePairsDoNotFitIsRefusedOnceCountedWithTheFigures) {
  if (device() == "gpu") GTEST_SKIP() << "an address-space limit leaves a CUDA context none: the CPU backend's case";
  write_npy(path("ones.npy"), std::vector<int32_t>(6000, 1));  // 36 million pairs, 0.54 GiB of positions
  how h;
  h.shell = "ulimit -v 250000;";
  const std::vector<std::string> before = files();
  const result r = run({"join", p("ones.npy"), p("ones.npy"), "-o", p("l.npy"), p("r.npy")}, h);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("not enough host memory: the inputs (0.00 GiB), the output (up to 0.54 GiB)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(files(), before);
  const result c = run({"join", p("ones.npy"), p("ones.npy"), "--count"}, h);
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, "36000000\n");
}

TEST_P(CliSearchBadInput, CommandLines) {
  expect_failure({"search", p("a.npy"), "-o", p("out.npy")}, 2, "needs two input files, A.npy (sorted) and V.npy");
  expect_failure({"search", p("a.npy"), p("b.npy")}, 2, "no output file: give -o OUT.npy");
  expect_failure({"search", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--invert"}, 2,
                 "--invert inverts --isin's flags: give --isin too");
  expect_failure({"search", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--isin", "--side", "right"}, 2,
                 "--isin writes flags, not positions: drop --side");
  expect_failure({"search", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--side", "middle"}, 2, "--side");
  expect_failure({"search", p("a.npy"), p("b.npy"), "--count"}, 2, "its size is V's length");
  expect_failure({"search", p("a.npy"), p("b.npy"), "-o", p("o.npy"), "--values", p("a.npy"), p("b.npy")}, 2,
                 "they take no --values");
  expect_failure({"join", p("a.npy"), p("b.npy"), p("a.npy"), "--count"}, 2, "needs two input files");
  expect_failure({"join", p("a.npy"), p("b.npy")}, 2, "no output files: give -o LEFT_OUT.npy RIGHT_OUT.npy");
  expect_failure({"join", p("a.npy"), p("b.npy"), "--count", "-o", p("l.npy"), p("r.npy")}, 2,
                 "--count prints the number of pairs and writes no file: drop -o");
  expect_failure({"join", p("a.npy"), p("b.npy"), "--segments", p("a.npy"), p("b.npy"), "--count"}, 2,
                 "no segmented form");
  const result r = run({"join", p("a.npy"), "--device", "tpu"}, false);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("usage: corank join"), std::string::npos) << "a usage error prints the usage: " << r.err;
}

TEST(CliSearchHelp, TheCommandsAreListedAndDescribed) {
  const auto [status, list] = run_cli("help");
  ASSERT_EQ(status, 0) << list;
  EXPECT_NE(list.find("  search "), std::string::npos) << list;
  EXPECT_NE(list.find("  join "), std::string::npos) << list;
  for (const char* command : {"search", "join"}) {
    const auto [s, text] = run_cli(std::string("help ") + command);
    ASSERT_EQ(s, 0) << text;
    for (const char* promise : {"usage: corank ", "--no-check", "published together", "NaNs last", "examples:"}) {
      EXPECT_NE(text.find(promise), std::string::npos) << command << ": " << promise;
    }
    const auto [h, same] = run_cli(std::string(command) + " --help");
    EXPECT_EQ(h, 0);
    EXPECT_EQ(same, text);
  }
}

}  // namespace
