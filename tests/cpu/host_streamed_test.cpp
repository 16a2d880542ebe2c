// corank::host's streamed forms (streamed_merge, streamed_set_union, ... and their _by_key
// and _count forms), chunk by chunk into arrays and sinks, against the std algorithms
// (support/streamed_cases.hpp, shared with the GPU test); the chunk cutter's windows; the
// argument checks; a sink's or a progress callback's exception stopping the call.

#include <corank/host/streamed.hpp>
#include <corank/streamed_chunks.hpp>

#include "support/streamed_cases.hpp"
#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

// The named runners of corank::host, chosen by `op`.
struct host_backend {
  template <class... Args>
  static auto keys(streamed_op op, Args&&... args) {
    switch (op) {
      case streamed_op::merge: return corank::host::streamed_merge(args...);
      case streamed_op::set_union: return corank::host::streamed_set_union(args...);
      case streamed_op::set_intersection: return corank::host::streamed_set_intersection(args...);
      case streamed_op::set_difference: return corank::host::streamed_set_difference(args...);
      case streamed_op::set_symmetric_difference: break;
    }
    return corank::host::streamed_set_symmetric_difference(args...);
  }
  template <class... Args>
  static auto by_key(streamed_op op, Args&&... args) {
    switch (op) {
      case streamed_op::merge: return corank::host::streamed_merge_by_key(args...);
      case streamed_op::set_union: return corank::host::streamed_set_union_by_key(args...);
      case streamed_op::set_intersection: return corank::host::streamed_set_intersection_by_key(args...);
      case streamed_op::set_difference: return corank::host::streamed_set_difference_by_key(args...);
      case streamed_op::set_symmetric_difference: break;
    }
    return corank::host::streamed_set_symmetric_difference_by_key(args...);
  }
  template <class... Args>
  static index_t count(streamed_op op, Args&&... args) {
    switch (op) {
      case streamed_op::set_union: return corank::host::streamed_set_union_count(args...);
      case streamed_op::set_intersection: return corank::host::streamed_set_intersection_count(args...);
      case streamed_op::set_difference: return corank::host::streamed_set_difference_count(args...);
      default: break;
    }
    return corank::host::streamed_set_symmetric_difference_count(args...);
  }
};

TEST(HostStreamed, EveryOperationAndFormMatchesStdOnEveryShapeAndChunk) {
  std::mt19937_64 rng = make_rng();
  for (const streamed_case& c : streamed_cases(quick_or(3000, 600), rng)) {
    check_streamed_case<host_backend, std::int32_t>(c, rng);
    if (HasFailure()) return;  // the first failing case says enough
  }
}

TEST(HostStreamed, SixtyFourBitKeysAndThreadedChunks) {
  std::mt19937_64 rng = make_rng();
  // 300k elements: each chunk of 2^17 runs on several threads.
  for (set_distribution shape : {set_distribution::uniform, set_distribution::one_key_run}) {
    check_streamed_case<host_backend, std::uint64_t>({shape, 300000, 200000, index_t(1) << 17}, rng);
  }
}

TEST(HostStreamed, ChunkWindowsTileThePathAndKeepRunsPaired) {
  // Every key 5 times in A and 3 in B: balanced-path windows never part the r-th copies.
  std::vector<int> a, b;
  for (int k = 0; k < 50; ++k) {
    a.insert(a.end(), 5, k);
    b.insert(b.end(), 3, k);
  }
  for (index_t chunk : {1, 3, 7, 100}) {
    corank::detail::chunk_cutter<corank::partitioning::balanced_path, int, int, corank::less> cutter(
        a.data(), index_t(a.size()), b.data(), index_t(b.size()), chunk, {});
    ASSERT_EQ(cutter.count(), (index_t(a.size() + b.size()) + chunk - 1) / chunk);
    index_t a_at = 0, b_at = 0;
    for (index_t c = 0; c < cutter.count(); ++c) {
      const corank::detail::chunk_window w = cutter.next();
      EXPECT_EQ(w.a_begin, a_at);
      EXPECT_EQ(w.b_begin, b_at);
      EXPECT_LE(w.size_a() + w.size_b(), chunk + 1);
      a_at = w.a_end;
      b_at = w.b_end;
      // Copy r < 3 of a key in A is left of the split exactly when copy r in B is.
      for (index_t key = 0; key < 50; ++key) {
        const index_t a_copies = std::clamp<index_t>(a_at - 5 * key, 0, 5);
        const index_t b_copies = std::clamp<index_t>(b_at - 3 * key, 0, 3);
        EXPECT_EQ(std::min<index_t>(a_copies, 3), b_copies) << "chunk " << chunk << " parts a pair of key " << key;
      }
    }
    EXPECT_EQ(a_at, index_t(a.size()));
    EXPECT_EQ(b_at, index_t(b.size()));
  }
}

TEST(HostStreamed, BadArgumentsAreRefusedBeforeAnythingIsWritten) {
  std::vector<int> a{1, 2, 3}, b{2, 4}, out(5, -1);
  corank::streamed_options negative;
  negative.chunk = -1;
  auto expect_refused = [](auto call, const std::string& sentence) {
    try {
      call();
      ADD_FAILURE() << "accepted: " << sentence;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(sentence), std::string::npos) << e.what();
    }
  };
  expect_refused([&] { corank::host::streamed_merge(a.data(), a.data() + 3, b.data(), b.data() + 2, out.data(), {}, negative); },
                 "corank::host::streamed_merge: the chunk size is negative");
  expect_refused([&] { corank::host::streamed_set_union(static_cast<const int*>(nullptr), static_cast<const int*>(nullptr) + 2, b.data(), b.data() + 2, out.data()); },
                 "input A is a null pointer with a nonzero size");
  expect_refused([&] { corank::host::streamed_merge(a.data(), a.data() + 3, b.data(), b.data() + 2, static_cast<int*>(nullptr)); },
                 "the output is a null pointer with a nonzero size");
  expect_refused([&] { corank::host::streamed_set_difference(a.data() + 3, a.data(), b.data(), b.data() + 2, out.data()); },
                 "a size is negative");
  const std::vector<double> values(3, 1.0);
  std::vector<int> keys_out(5);
  expect_refused([&] {
    corank::host::streamed_merge_by_key(a.data(), a.data() + 3, b.data(), b.data() + 2, values.data(),
                                        static_cast<const double*>(nullptr), keys_out.data(),
                                        std::vector<double>(5).data());
  }, "values of B are a null pointer with a nonzero size");
  EXPECT_EQ(out, std::vector<int>(5, -1)) << "a refused call wrote";
}

TEST(HostStreamed, ASinkThatThrowsStopsTheCallWithTheChunksBeforeItDelivered) {
  std::vector<int> a(1000), b(1000);
  for (int i = 0; i < 1000; ++i) a[i] = b[i] = i;
  corank::streamed_options options;
  options.chunk = 100;
  int calls = 0;
  auto sink = [&](const int*, index_t) {
    if (++calls == 3) throw std::runtime_error("disk full");
  };
  EXPECT_THROW(corank::host::streamed_merge(a.data(), a.data() + 1000, b.data(), b.data() + 1000, sink, {}, options),
               std::runtime_error);
  EXPECT_EQ(calls, 3) << "no chunk after the failing one";

  int reports = 0;
  options.progress = [&](index_t, index_t) {
    if (++reports == 2) throw std::runtime_error("cancelled");
  };
  std::vector<int> out(2000);
  EXPECT_THROW(corank::host::streamed_set_union(a.data(), a.data() + 1000, b.data(), b.data() + 1000, out.data(), {}, options),
               std::runtime_error);
  EXPECT_EQ(reports, 2) << "a progress callback can cancel";
}

}  // namespace
