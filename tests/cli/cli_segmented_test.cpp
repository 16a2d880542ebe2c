// The set commands' segmented form (--segments A_OFFSETS.npy B_OFFSETS.npy, --segments-out)
// end to end: the built binary runs on .npy files of S segment pairs that these tests write
// (keys sorted inside each segment only), and its outputs (keys, values, the output's
// offsets, each segment's size with --count) are compared with std::merge / std::set_*
// applied segment by segment. Then every refusal: its message, its exit status, and nothing
// written.
//
// Device/CliSegmented.../cpu (label cpu) and .../gpu (label gpu, skipped visibly without a
// GPU); the host memory test runs on the CPU backend only, the GPU memory test on the GPU
// only. The seed is printed first ("corank test seed: N"); CORANK_TEST_SEED=N reproduces a run.

#include "cli/cli_support.hpp"

namespace {

using namespace corank::cli_test;
using std::int32_t;
using std::int64_t;

// ---------------------------------------------------------------------------------------
// Segmented inputs and the reference

// S segment pairs: each side's keys, sorted inside each segment, and its S + 1 offsets.
template <class K>
struct segment_pairs {
  std::vector<K> a, b;
  std::vector<int64_t> a_offsets{0}, b_offsets{0};

  std::size_t segments() const { return a_offsets.size() - 1; }
  // Appends a segment pair of these lengths, keys from `distinct` values (negatives too).
  void add(std::mt19937_64& rng, std::size_t m, std::size_t n, int distinct = 20) {
    const std::size_t nans = std::is_floating_point_v<K> ? 2 : 0;
    for (auto [keys, offsets, length] : {std::tuple{&a, &a_offsets, m}, std::tuple{&b, &b_offsets, n}}) {
      const std::vector<K> segment = sorted_column<K>(rng, length, distinct, length > 4 ? nans : 0);
      keys->insert(keys->end(), segment.begin(), segment.end());
      offsets->push_back(int64_t(keys->size()));
    }
  }
};

// Random lengths up to `longest`, a quarter of each side's segments empty, and one pair of a
// few thousand keys (longer than a tile) among them.
template <class K>
segment_pairs<K> random_segment_pairs(std::mt19937_64& rng, std::size_t segments, std::size_t longest) {
  segment_pairs<K> pairs;
  std::uniform_int_distribution<std::size_t> length(0, longest), quarter(0, 3);
  for (std::size_t s = 0; s < segments; ++s) {
    const std::size_t m = quarter(rng) == 0 ? 0 : length(rng);
    const std::size_t n = quarter(rng) == 0 ? 0 : length(rng);
    if (s == segments / 2) pairs.add(rng, 3000, 2500, 300);
    else pairs.add(rng, m, n);
  }
  return pairs;
}

// One side's offsets as the file holds them: int32 or int64.
inline void write_offsets(const fs::path& path, const std::vector<int64_t>& offsets, bool int32) {
  if (!int32) return write_npy(path, offsets);
  write_npy(path, std::vector<int32_t>(offsets.begin(), offsets.end()));
}

// The result of an operation on every segment pair: std:: on (key, value) pairs ordered by
// key, segment by segment; the output's S + 1 offsets, and each segment's size.
template <class K, class V>
struct segmented_result {
  std::vector<K> keys;
  std::vector<V> values;
  std::vector<int64_t> offsets{0};
  std::vector<int64_t> sizes;
};

template <class K, class V>
segmented_result<K, V> segmented_reference(const std::string& op, const segment_pairs<K>& pairs,
                                           const std::vector<V>& va, const std::vector<V>& vb) {
  using pair = std::pair<K, V>;
  const auto by_key = [](const pair& x, const pair& y) { return order<K>{}(x.first, y.first); };
  const auto side = [](const std::vector<K>& keys, const std::vector<V>& values, int64_t from, int64_t to) {
    std::vector<pair> segment;
    for (int64_t i = from; i < to; ++i) segment.push_back({keys[std::size_t(i)], values[std::size_t(i)]});
    return segment;
  };
  segmented_result<K, V> r;
  for (std::size_t s = 0; s < pairs.segments(); ++s) {
    const std::vector<pair> out =
        std_reference(op, side(pairs.a, va, pairs.a_offsets[s], pairs.a_offsets[s + 1]),
                      side(pairs.b, vb, pairs.b_offsets[s], pairs.b_offsets[s + 1]), by_key);
    for (const pair& x : out) r.keys.push_back(x.first), r.values.push_back(x.second);
    r.offsets.push_back(int64_t(r.keys.size()));
    r.sizes.push_back(int64_t(out.size()));
  }
  return r;
}

// Values that tell which input element each output value came from.
template <class V>
std::vector<V> element_tags(std::size_t side, std::size_t n) {
  std::vector<V> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = V(side * 1000000 + i);
  return v;
}

class CliSegmented : public CliTest {
 public:
  // Every operation on the pairs, keys only, with values, and --count with --segments-out,
  // each compared with the reference; offsets written as int32 or int64 per side.
  template <class K, class V = int64_t>
  void check_every_operation(const segment_pairs<K>& pairs, bool int32_a, bool int32_b, const std::string& what) {
    const std::vector<V> va = element_tags<V>(1, pairs.a.size()), vb = element_tags<V>(2, pairs.b.size());
    write_npy(path("a.npy"), pairs.a);
    write_npy(path("b.npy"), pairs.b);
    write_npy(path("va.npy"), va);
    write_npy(path("vb.npy"), vb);
    write_offsets(path("ao.npy"), pairs.a_offsets, int32_a);
    write_offsets(path("bo.npy"), pairs.b_offsets, int32_b);
    const std::vector<std::string> segments = {"--segments", p("ao.npy"), p("bo.npy")};
    for (const char* op : operations) {
      SCOPED_TRACE(std::string(op) + " " + name_of<K>() + ", " + std::to_string(pairs.segments()) + " segments, " +
                   (int32_a ? "int32" : "int64") + "/" + (int32_b ? "int32" : "int64") + " offsets: " + what);
      const segmented_result<K, V> expected = segmented_reference(op, pairs, va, vb);
      for (const char* name : {"out.npy", "vout.npy", "oo.npy"}) fs::remove(path(name));

      const result r = run(args(op, segments, {"-o", p("out.npy"), "--segments-out", p("oo.npy")}));
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_TRUE(r.err.empty()) << r.err;
      EXPECT_NE(r.out.find(std::to_string(pairs.segments()) + " segment"), std::string::npos) << r.out;
      EXPECT_TRUE(same_bits(read_npy<K>(path("out.npy")), expected.keys));
      EXPECT_EQ(read_npy<int64_t>(path("oo.npy")), expected.offsets);

      fs::remove(path("out.npy"));
      fs::remove(path("oo.npy"));
      const result v = run(args(op, segments,
                                {"--values", p("va.npy"), p("vb.npy"), "-o", p("out.npy"), "--values-out",
                                 p("vout.npy"), "--segments-out", p("oo.npy")}));
      ASSERT_EQ(v.status, 0) << v.err;
      EXPECT_TRUE(same_bits(read_npy<K>(path("out.npy")), expected.keys));
      EXPECT_TRUE(same_bits(read_npy<V>(path("vout.npy")), expected.values));
      EXPECT_EQ(read_npy<int64_t>(path("oo.npy")), expected.offsets);

      fs::remove(path("oo.npy"));
      const result c = run(args(op, segments, {"--count", "--segments-out", p("oo.npy")}));
      ASSERT_EQ(c.status, 0) << c.err;
      EXPECT_EQ(c.out, std::to_string(expected.keys.size()) + "\n") << "--count prints only the total";
      EXPECT_EQ(read_npy<int64_t>(path("oo.npy")), expected.sizes) << "--count writes each segment's size";
    }
  }

  // `op A B SEGMENTS... MORE...`.
  std::vector<std::string> args(const char* op, const std::vector<std::string>& segments,
                                std::initializer_list<std::string> more) const {
    std::vector<std::string> all = {op, p("a.npy"), p("b.npy")};
    all.insert(all.end(), segments.begin(), segments.end());
    all.insert(all.end(), more);
    return all;
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliSegmented, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// ---------------------------------------------------------------------------------------
// Results

TEST_P(CliSegmented, EveryOperationOnRandomSegmentsMatchesStdPerSegment) {
  std::mt19937_64 rng = make_rng();
  std::uniform_int_distribution<std::size_t> segments(2, 300);
  check_every_operation(random_segment_pairs<int32_t>(rng, segments(rng), 12), true, true, "random");
  check_every_operation(random_segment_pairs<int64_t>(rng, segments(rng), 40), false, false, "random");
  check_every_operation(random_segment_pairs<std::uint8_t>(rng, segments(rng), 12), true, false, "random");
  check_every_operation(random_segment_pairs<double>(rng, segments(rng), 20), false, true, "random, NaNs");
  check_every_operation(random_segment_pairs<std::uint64_t>(rng, segments(rng), 8), false, false, "random");
}

TEST_P(CliSegmented, ValuesOfNarrowAndFloatTypesMoveWithTheirKeys) {
  std::mt19937_64 rng = make_rng();
  check_every_operation<int32_t, std::uint8_t>(random_segment_pairs<int32_t>(rng, 50, 10), true, true, "uint8 values");
  check_every_operation<float, float>(random_segment_pairs<float>(rng, 50, 10), false, false, "float32 values");
}

// One segment is the two-input operation: the same keys, and offsets [0, its size].
TEST_P(CliSegmented, OneSegmentIsTheTwoInputOperation) {
  std::mt19937_64 rng = make_rng();
  segment_pairs<int32_t> one;
  one.add(rng, 2000, 1500, 60);
  check_every_operation(one, true, false, "S = 1");
  for (const char* op : operations) {
    SCOPED_TRACE(op);
    for (const char* name : {"whole.npy", "out.npy", "oo.npy"}) fs::remove(path(name));
    const result whole = run({op, p("a.npy"), p("b.npy"), "-o", p("whole.npy")});
    ASSERT_EQ(whole.status, 0) << whole.err;
    const result r =
        run(args(op, {"--segments", p("ao.npy"), p("bo.npy")}, {"-o", p("out.npy"), "--segments-out", p("oo.npy")}));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<int32_t> expected = read_npy<int32_t>(path("whole.npy"));
    EXPECT_EQ(read_npy<int32_t>(path("out.npy")), expected);
    EXPECT_EQ(read_npy<int64_t>(path("oo.npy")), (std::vector<int64_t>{0, int64_t(expected.size())}));
  }
}

// S = 0: offsets [0], empty keys; the output's offsets are [0] and there are no sizes.
TEST_P(CliSegmented, NoSegments) {
  check_every_operation(segment_pairs<int64_t>{}, false, true, "S = 0");
  check_every_operation(segment_pairs<float>{}, true, true, "S = 0");
}

// Every segment empty on one side or both, and many segments of one key.
TEST_P(CliSegmented, EmptyAndSingleKeySegments) {
  std::mt19937_64 rng = make_rng();
  segment_pairs<int32_t> shapes;
  for (int s = 0; s < 40; ++s) shapes.add(rng, s % 3 == 0 ? 0 : 1, s % 2 == 0 ? 0 : 1, 3);
  check_every_operation(shapes, false, true, "lengths 0 and 1");
  segment_pairs<int32_t> empty_a;
  for (int s = 0; s < 30; ++s) empty_a.add(rng, 0, std::size_t(s % 7));
  check_every_operation(empty_a, true, true, "A empty");
}

TEST_P(CliSegmented, CountWithoutSegmentsOutPrintsTheTotalAndWritesNothing) {
  std::mt19937_64 rng = make_rng();
  const segment_pairs<int32_t> pairs = random_segment_pairs<int32_t>(rng, 20, 10);
  write_npy(path("a.npy"), pairs.a);
  write_npy(path("b.npy"), pairs.b);
  write_offsets(path("ao.npy"), pairs.a_offsets, false);
  write_offsets(path("bo.npy"), pairs.b_offsets, false);
  const std::vector<std::string> before = files();
  for (const char* op : operations) {
    SCOPED_TRACE(op);
    const auto expected = segmented_reference(op, pairs, std::vector<int32_t>(pairs.a.size()),
                                              std::vector<int32_t>(pairs.b.size()));
    const result c = run(args(op, {"--segments", p("ao.npy"), p("bo.npy")}, {"--count"}));
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_EQ(c.out, std::to_string(expected.keys.size()) + "\n");
    EXPECT_EQ(files(), before);
  }
}

// Sorted inside each segment is enough, though not as a whole (the two-input form refuses
// it); a merge's segment sizes need only the offsets.
TEST_P(CliSegmented, KeysNeedBeSortedOnlyInsideEachSegment) {
  write_npy(path("a.npy"), std::vector<int32_t>{5, 9, 1, 2, 2});
  write_npy(path("b.npy"), std::vector<int32_t>{9, 0, 2, 3});
  write_npy(path("ao.npy"), std::vector<int64_t>{0, 2, 5});
  write_npy(path("bo.npy"), std::vector<int32_t>{0, 1, 4});
  const result whole = run({"union", p("a.npy"), p("b.npy"), "-o", p("whole.npy")});
  EXPECT_EQ(whole.status, 2);
  EXPECT_NE(whole.err.find("is not sorted"), std::string::npos) << whole.err;
  const result r = run({"union", p("a.npy"), p("b.npy"), "--segments", p("ao.npy"), p("bo.npy"), "-o", p("u.npy"),
                        "--segments-out", p("uo.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int32_t>(path("u.npy")), (std::vector<int32_t>{5, 9, 0, 1, 2, 2, 3}));
  EXPECT_EQ(read_npy<int64_t>(path("uo.npy")), (std::vector<int64_t>{0, 2, 7}));
  EXPECT_NE(r.out.find("A and B sorted in each of 2 segments"), std::string::npos) << r.out;
  const result m = run({"merge", p("a.npy"), p("b.npy"), "--segments", p("ao.npy"), p("bo.npy"), "--count",
                        "--segments-out", p("sizes.npy")});
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(m.out, "9\n");
  EXPECT_EQ(read_npy<int64_t>(path("sizes.npy")), (std::vector<int64_t>{3, 6}));
}

TEST_P(CliSegmented, OffsetsToStandardOutputMoveTheReportToStderr) {
  write_npy(path("a.npy"), std::vector<int32_t>{1, 3});
  write_npy(path("b.npy"), std::vector<int32_t>{2});
  write_npy(path("ao.npy"), std::vector<int64_t>{0, 1, 2});
  write_npy(path("bo.npy"), std::vector<int64_t>{0, 1, 1});
  const result r =
      run(args("merge", {"--segments", p("ao.npy"), p("bo.npy")}, {"-o", p("out.npy"), "--segments-out", "-"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_npy<int64_t>(r.out, "stdout"), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(read_npy<int32_t>(path("out.npy")), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_NE(r.err.find("GB/s"), std::string::npos) << r.err;
  const result c = run(args("union", {"--segments", p("ao.npy"), p("bo.npy")}, {"--count", "--segments-out", "-"}));
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(parse_npy<int64_t>(c.out, "stdout"), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(c.err, "3\n") << "the total goes to stderr when the sizes take standard output";
}

// ---------------------------------------------------------------------------------------
// Refusals: one sentence, status 2, nothing written

class CliSegmentedBadInput : public CliSegmented {
 protected:
  void SetUp() override {
    CliSegmented::SetUp();
    if (IsSkipped()) return;
    write_npy(path("a.npy"), std::vector<int32_t>{1, 2, 2, 7, 0, 3});
    write_npy(path("b.npy"), std::vector<int32_t>{0, 2, 9, 1});
    write_npy(path("ao.npy"), std::vector<int64_t>{0, 4, 6});
    write_npy(path("bo.npy"), std::vector<int32_t>{0, 3, 4});
  }
  // Every operation with A_OFFSETS `a_offsets` and B_OFFSETS `b_offsets`, keys and values.
  void expect_bad_offsets(const std::string& a_offsets, const std::string& b_offsets, const std::string& message) {
    for (const char* op : operations) {
      SCOPED_TRACE(op);
      expect_failure(args(op, {"--segments", p(a_offsets), p(b_offsets)},
                          {"-o", p("out.npy"), "--segments-out", p("oo.npy")}),
                     2, message);
      expect_failure(args(op, {"--segments", p(a_offsets), p(b_offsets)},
                          {"--values", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--values-out", p("vout.npy"),
                           "--segments-out", p("oo.npy")}),
                     2, message);
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliSegmentedBadInput, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliSegmentedBadInput, OffsetsOfAnotherDtype) {
  write_npy(path("float.npy"), std::vector<double>{0, 4, 6});
  expect_bad_offsets("float.npy", "bo.npy",
                     p("float.npy") + " is float64: segment offsets must be int32 or int64 (e.g. numpy: "
                                      "offsets.astype(np.int64))");
  write_npy(path("u32.npy"), std::vector<std::uint32_t>{0, 3, 4});
  expect_bad_offsets("ao.npy", "u32.npy", p("u32.npy") + " is uint32: segment offsets must be int32 or int64");
  write_npy(path("i16.npy"), std::vector<std::int16_t>{0, 4, 6});
  expect_bad_offsets("i16.npy", "bo.npy", p("i16.npy") + " is int16");
}

TEST_P(CliSegmentedBadInput, OffsetsThatAreNotOneColumnOrEmpty) {
  write_file(path("matrix.npy"), npy_header(dict_of("<i8", "(1, 3)")) + std::string(24, '\0'));
  expect_bad_offsets("matrix.npy", "bo.npy", "matrix.npy: shape (1, 3) has 2 dimensions");
  write_npy(path("empty.npy"), std::vector<int64_t>{});
  expect_bad_offsets("ao.npy", "empty.npy",
                     p("empty.npy") + " is empty: segment offsets hold S + 1 values, from 0 to the keys' length ([0] "
                                      "for no segments)");
}

TEST_P(CliSegmentedBadInput, DifferentSegmentCounts) {
  write_npy(path("b3.npy"), std::vector<int64_t>{0, 1, 3, 4});
  expect_bad_offsets("ao.npy", "b3.npy",
                     p("ao.npy") + " has 3 offsets (2 segments) but " + p("b3.npy") +
                         " has 4 offsets (3 segments): A and B need the same number of segments");
}

TEST_P(CliSegmentedBadInput, OffsetsThatDoNotStartAtZeroDecreaseOrMissTheKeysLength) {
  write_npy(path("from1.npy"), std::vector<int64_t>{1, 4, 6});
  expect_bad_offsets("from1.npy", "bo.npy", p("from1.npy") + " starts at 1: segment offsets start at 0");
  write_npy(path("down.npy"), std::vector<int32_t>{0, 3, 2, 4});
  write_npy(path("a3.npy"), std::vector<int64_t>{0, 4, 5, 6});
  expect_bad_offsets("a3.npy", "down.npy",
                     p("down.npy") + " decreases at index 2 (2 after 3): segment offsets never decrease");
  write_npy(path("negative.npy"), std::vector<int64_t>{0, -1, 6});
  expect_bad_offsets("negative.npy", "bo.npy", p("negative.npy") + " decreases at index 1 (-1 after 0)");
  write_npy(path("short.npy"), std::vector<int64_t>{0, 4, 5});
  expect_bad_offsets("short.npy", "bo.npy",
                     p("short.npy") + " ends at 5 but " + p("a.npy") +
                         " has 6 keys: the last segment offset is the keys' length");
  write_npy(path("long.npy"), std::vector<int32_t>{0, 3, 5});
  expect_bad_offsets("ao.npy", "long.npy", p("long.npy") + " ends at 5 but " + p("b.npy") + " has 4 keys");
}

TEST_P(CliSegmentedBadInput, AnUnsortedSegmentIsNamedWithItsFileSegmentAndIndex) {
  write_npy(path("a_bad.npy"), std::vector<int32_t>{1, 2, 0, 7, 0, 3});
  write_npy(path("b_bad.npy"), std::vector<int32_t>{0, 2, 9, 5, 1});
  write_npy(path("bo5.npy"), std::vector<int64_t>{0, 3, 5});
  for (const char* op : operations) {
    SCOPED_TRACE(op);
    expect_failure({op, p("a_bad.npy"), p("b.npy"), "--segments", p("ao.npy"), p("bo.npy"), "-o", p("out.npy"),
                    "--segments-out", p("oo.npy")},
                   2,
                   p("a_bad.npy") + " is not sorted in segment 0: element 2 (0) is less than element 1 (2); sort "
                                    "each segment first");
    expect_failure({op, p("a.npy"), p("b_bad.npy"), "--segments", p("ao.npy"), p("bo5.npy"), "--values", p("a.npy"),
                    p("b_bad.npy"), "-o", p("out.npy"), "--values-out", p("vout.npy"), "--segments-out", p("oo.npy")},
                   2, p("b_bad.npy") + " is not sorted in segment 1: element 4 (1) is less than element 3 (5)");
  }
  // A segment start is no break, even after empty segments.
  write_npy(path("ao_empty.npy"), std::vector<int64_t>{0, 0, 4, 4, 6});
  write_npy(path("bo_empty.npy"), std::vector<int64_t>{0, 3, 3, 4, 4});
  const result r = run({"symdiff", p("a.npy"), p("b.npy"), "--segments", p("ao_empty.npy"), p("bo_empty.npy"),
                        "--count", "--segments-out", p("sizes.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int64_t>(path("sizes.npy")), (std::vector<int64_t>{3, 4, 1, 2}));
  // --no-check skips the check.
  const result unchecked = run({"union", p("a_bad.npy"), p("b.npy"), "--segments", p("ao.npy"), p("bo.npy"), "-o",
                                p("out.npy"), "--segments-out", p("oo.npy"), "--no-check"});
  ASSERT_EQ(unchecked.status, 0) << unchecked.err;
  EXPECT_NE(unchecked.out.find("skipped (--no-check)"), std::string::npos) << unchecked.out;
}

TEST_P(CliSegmentedBadInput, WrongCommandLines) {
  const std::vector<std::string> segments = {"--segments", p("ao.npy"), p("bo.npy")};
  expect_failure(args("union", segments, {"-o", p("out.npy")}), 2,
                 "--segments needs --segments-out OUT_OFFSETS.npy: a segmented result is of no use without its "
                 "segment offsets");
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--segments-out", p("oo.npy")}, 2,
                 "--segments-out needs --segments A_OFFSETS.npy B_OFFSETS.npy");
  expect_failure({"union", p("a.npy"), p("b.npy"), "--count", "--segments-out", p("oo.npy")}, 2,
                 "--segments-out needs --segments");
  expect_failure(args("union", segments, {"--count", "-o", p("out.npy"), "--segments-out", p("oo.npy")}), 2,
                 "--count prints the output size and writes no keys: drop -o / --values-out (--segments-out takes "
                 "each segment's size)");
  expect_failure(args("union", {"--segments", p("ao.npy")}, {}), 2, "--segments needs another value");
  expect_failure({"merge", p("a.npy"), p("b.npy"), p("a.npy"), "--segments", p("ao.npy"), p("bo.npy"), "-o",
                  p("out.npy"), "--segments-out", p("oo.npy")},
                 2, "--segments takes two inputs, A and B, got 3: a segmented merge of three inputs or more is not "
                    "built");
  for (const char* option : {"--segments", "--segments-out"}) {
    std::vector<std::string> sort = {"sort", p("a.npy"), "-o", p("out.npy"), option, p("ao.npy")};
    if (std::string(option) == "--segments") sort.push_back(p("bo.npy"));
    expect_failure(sort, 2,
                   "sort has no segmented form (not built): --segments and --segments-out are taken by merge of two "
                   "inputs, union, intersect, diff and symdiff");
  }
}

TEST_P(CliSegmentedBadInput, OutputsThatAreInputsOrOneFileOrExist) {
  const std::vector<std::string> segments = {"--segments", p("ao.npy"), p("bo.npy")};
  expect_failure(args("union", segments, {"-o", p("out.npy"), "--segments-out", p("ao.npy")}), 2,
                 "--segments-out " + p("ao.npy") + " is also input A's offsets (" + p("ao.npy") +
                     "); pass --force to replace it once it has been read");
  expect_failure(args("union", segments, {"-o", p("bo.npy"), "--segments-out", p("oo.npy")}), 2,
                 "-o " + p("bo.npy") + " is also input B's offsets");
  expect_failure(args("union", segments, {"-o", p("out.npy"), "--segments-out", p("./out.npy")}), 2,
                 "-o " + p("out.npy") + " and --segments-out " + p("./out.npy") + " are the same file");
  expect_failure(args("union", segments,
                      {"--values", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--values-out", p("v.npy"),
                       "--segments-out", p("v.npy")}),
                 2, "--values-out " + p("v.npy") + " and --segments-out " + p("v.npy") + " are the same file");
  write_file(path("oo.npy"), "keep me");
  expect_failure(args("union", segments, {"-o", p("out.npy"), "--segments-out", p("oo.npy")}), 2,
                 "oo.npy already exists; pass --force to replace it");
  EXPECT_EQ(read_file(path("oo.npy")), "keep me");
  expect_failure(args("intersect", segments, {"--count", "--segments-out", p("oo.npy")}), 2, "oo.npy already exists");
  // With --force, an offsets input is replaced once read: the union's offsets over A's.
  const result r = run(args("union", segments, {"-o", p("out.npy"), "--segments-out", p("ao.npy"), "--force"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int32_t>(path("out.npy")), (std::vector<int32_t>{0, 1, 2, 2, 7, 9, 0, 1, 3}));
  EXPECT_EQ(read_npy<int64_t>(path("ao.npy")), (std::vector<int64_t>{0, 6, 9}));
}

// ---------------------------------------------------------------------------------------
// Help, host memory (CPU), GPU memory (GPU)

TEST(CliSegmentedHelp, EveryTwoInputCommandSaysHowSegmentsWork) {
  for (const char* op : operations) {
    const auto [status, output] = run_cli(std::string(op) + " --help");
    EXPECT_EQ(status, 0) << output;
    for (const char* text : {"--segments A_OFFSETS.npy B_OFFSETS.npy", "--segments-out OUT_OFFSETS.npy",
                             "int32 or int64", "OUT_OFFSETS is always int64", "sorted only inside each segment",
                             "--segments a_indptr.npy b_indptr.npy -o c.npy --segments-out c_indptr.npy"}) {
      EXPECT_NE(output.find(text), std::string::npos) << op << ": " << text;
    }
  }
}

class CliSegmentedMemory : public CliTest {
 protected:
  // The union of empty keys in `segments` empty segments (its offsets file, int32 or int64,
  // named for A and B): 8 bytes per segment and side on the GPU, and as many out.
  std::vector<std::string> union_of_empty_segments(std::size_t segments, bool int32_offsets) {
    write_npy(path("a.npy"), std::vector<int32_t>{});
    write_offsets(path("offsets.npy"), std::vector<int64_t>(segments + 1, 0), int32_offsets);
    return {"union", p("a.npy"), p("a.npy"), "--segments", p("offsets.npy"), p("offsets.npy"), "-o", p("out.npy"),
            "--segments-out", p("oo.npy")};
  }
};

class CliSegmentedHostMemory : public CliSegmentedMemory {};
INSTANTIATE_TEST_SUITE_P(Device, CliSegmentedHostMemory, ::testing::Values("cpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliSegmentedHostMemory, TheOffsetsCountInTheHostMemoryCheck) {
  const std::vector<std::string> args = union_of_empty_segments(std::size_t(12) << 20, false);
  how h;
  h.shell = "ulimit -v 250000;";  // 244 MiB of address space; the offsets need 288 MiB
  const std::vector<std::string> before = files();
  const result r = run(args, h);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("not enough host memory: the inputs (0.19 GiB) and the output (up to 0.09 GiB) need 0.28 GiB "
                       "in RAM"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(files(), before);
}

class CliSegmentedGpuMemory : public CliSegmentedMemory {};
INSTANTIATE_TEST_SUITE_P(Device, CliSegmentedGpuMemory, ::testing::Values("gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST_P(CliSegmentedGpuMemory, TheOffsetsCountInTheGpuMemoryCheck) {
  // 2 GiB left free: the command's CUDA context fits (512 MiB did not on an H200), and its
  // offsets, 2.25 GiB on the GPU, do not.
  const std::vector<std::string> args = union_of_empty_segments(std::size_t(96) << 20, true);
  const gpu_memory_hold hold(std::size_t(2) << 30);
  // "GPU N has X free": the check before any upload refused it, not an allocation.
  expect_failure(args, 1, "not enough GPU memory: GPU ");
  expect_failure(args, 1,
                 "the inputs (0.00 GiB), the segment offsets (2.25 GiB) and the output (0.00 GiB, at most) must fit "
                 "on the GPU");
}

}  // namespace
