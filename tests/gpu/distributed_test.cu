// The distributed forms (distributed_operation.cuh) with several ranks on one GPU: each rank a
// thread with its own stream, the ranks joined by the in-process transport
// (support/in_process_transport.hpp), which runs every step NCCL would (the search's
// all-gathers, the windows' moves) and checks that the ranks agree. Merge and the four set
// operations, keys, by-key and count forms, against the single-GPU call on the whole inputs
// (support/distributed_cases.hpp): 1 to 5 ranks, even and uneven partitions (empty ones),
// inputs whose windows stay in place or move, the balanced and the owner placement, the moves
// in 1 to 4 stages; the search with one probe per round; what moves (each element of a window
// once, the rest read in place; nothing for disjoint inputs placed by owner); every rank
// throwing the same error for one rank's bad argument or for inputs out of order between ranks.

#include <corank/detail/merge_instantiations.hpp>  // the library's merges, as nccl.cuh's forms link them
#include <corank/distributed_operation.cuh>
#include <corank/error.hpp>
#include <corank/ops/merge.hpp>
#include <corank/ops/set_difference.hpp>
#include <corank/ops/set_intersection.hpp>
#include <corank/ops/set_symmetric_difference.hpp>
#include <corank/ops/set_union.hpp>

#include "support/distributed_cases.hpp"
#include "support/gpu.hpp"
#include "support/in_process_transport.hpp"
#include "support/shared_kernels.hpp"
#include "support/test_env.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace corank::test;
using corank::index_t;

struct stream_guard {
  cudaStream_t stream = nullptr;
  stream_guard() { cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~stream_guard() { cudaStreamDestroy(stream); }
};

// The first rank's error that is not another rank's failure, as a message ("" if none).
std::string first_error(const std::vector<std::exception_ptr>& errors) {
  std::string aborted;
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (!errors[r]) continue;
    try {
      std::rethrow_exception(errors[r]);
    } catch (const hub_aborted&) {
      aborted = "rank " + std::to_string(r) + " aborted";
    } catch (const std::exception& e) {
      return "rank " + std::to_string(r) + ": " + e.what();
    }
  }
  return aborted;
}

// One case on its ranks, checked.
template <class Op, class Key>
void run_case(const distributed_case<Key>& c, const corank::distributed_options& options = {}) {
  using compare = typename key_traits<Key>::compare;
  const int ranks = int(c.a_sizes.size());
  std::vector<rank_outputs<Key>> outs(static_cast<std::size_t>(ranks));
  std::vector<int> peers(static_cast<std::size_t>(ranks), 0);  // the most in one exchange, either way
  const auto errors = run_in_process(ranks, 0, [&](int r, in_process_transport& transport) {
    stream_guard s;
    outs[std::size_t(r)] = run_rank<Op>(c, r, transport, compare{}, s.stream, options);
    peers[std::size_t(r)] = std::max(transport.most_peers_sent_to, transport.most_peers_heard_from);
  });
  const std::string error = first_error(errors);
  ASSERT_EQ(error, "") << c.name;
  check_ranks<Op>(c, outs, compare{});
  for (int r = 0; r < ranks; ++r) {
    EXPECT_LE(peers[std::size_t(r)], 1) << c.name << ": rank " << r << " sent to or heard from several peers in one round";
  }
}

// Every spread on 1 to 5 ranks, both placements, the moves in 1 to 4 stages.
template <class Op, class Key>
void run_every_case() {
  auto rng = make_rng();
  const std::size_t big = quick_or(60000, 3000);
  const std::vector<std::pair<std::size_t, std::size_t>> sizes = {
      {0, 0}, {0, 37}, {513, 1}, {std::size_t(1) << 13, (std::size_t(1) << 12) + 3}, {big, big + big / 3}};
  for (const int ranks : {1, 2, 3, 5}) {
    for (const spread s : all_spreads) {
      for (const auto placement : {corank::distributed_placement::balanced, corank::distributed_placement::owner}) {
        const auto [m, n] = sizes[rng() % sizes.size()];
        corank::distributed_options options;
        options.placement = placement;
        options.stages = int(rng() % 5);  // 0: the default
        auto c = make_distributed_case<Key>(s, m, n, ranks, rng() % 2 == 0, rng);
        c.name += placement == corank::distributed_placement::owner ? " owner" : " balanced";
        c.name += " stages " + std::to_string(options.stages);
        run_case<Op>(c, options);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

template <class Key>
class DistributedInProcess : public gpu_test {};
using key_types = ::testing::Types<std::int64_t, opaque_key>;
TYPED_TEST_SUITE(DistributedInProcess, key_types);

TYPED_TEST(DistributedInProcess, Merge) { run_every_case<corank::ops::merge_op, TypeParam>(); }
TYPED_TEST(DistributedInProcess, SetUnion) { run_every_case<corank::ops::set_union_op, TypeParam>(); }
TYPED_TEST(DistributedInProcess, SetIntersection) { run_every_case<corank::ops::set_intersection_op, TypeParam>(); }
TYPED_TEST(DistributedInProcess, SetDifference) { run_every_case<corank::ops::set_difference_op, TypeParam>(); }
TYPED_TEST(DistributedInProcess, SetSymmetricDifference) {
  run_every_case<corank::ops::set_symmetric_difference_op, TypeParam>();
}

class DistributedInProcessOptions : public gpu_test {};

// One probe per cut and round: the search becomes a binary search of many rounds, and still
// splits where path_split does.
TEST_F(DistributedInProcessOptions, OneProbePerRound) {
  auto rng = make_rng();
  corank::distributed_options options;
  options.samples = 1;
  for (const spread s : {spread::uniform, spread::few_keys}) {
    const auto c = make_distributed_case<std::int64_t>(s, 3000, 2000, 4, true, rng);
    run_case<corank::ops::merge_op>(c, options);
    run_case<corank::ops::set_symmetric_difference_op>(c, options);
  }
}

// What crosses the transport: the plan takes rounds + 1 all-gathers; the run one more (the
// ranks' statuses) and, per stage, an exchange a round (one where nothing moves) in which each
// rank sends to one peer at most and hears from one at most; each rank receives exactly the
// elements of its pieces that other ranks hold. The owner placement moves no more than the
// balanced one where A and B are disjoint or shifted (nothing where they are disjoint).
TEST_F(DistributedInProcessOptions, EachWindowMovesOnce) {
  auto rng = make_rng();
  for (const spread s : {spread::uniform, spread::disjoint, spread::shifted}) {
    const auto c = make_distributed_case<std::int64_t>(s, 20000, 30000, 4, s != spread::uniform, rng);
    std::size_t moved_by[2] = {};
    for (const auto placement : {corank::distributed_placement::balanced, corank::distributed_placement::owner}) {
      corank::distributed_options options;
      options.placement = placement;
      std::vector<corank::distributed_plan> plans(4);
      std::vector<int> plan_gathers(4), run_gathers(4), exchanges(4), peers(4);
      std::vector<std::size_t> received(4);
      const auto errors = run_in_process(4, 0, [&](int r, in_process_transport& t) {
        stream_guard st;
        const std::vector<std::int64_t>& ha = c.a;
        const std::vector<std::int64_t>& hb = c.b;
        index_t a_start = 0, b_start = 0;
        for (int q = 0; q < r; ++q) {
          a_start += c.a_sizes[std::size_t(q)];
          b_start += c.b_sizes[std::size_t(q)];
        }
        const index_t m = c.a_sizes[std::size_t(r)], n = c.b_sizes[std::size_t(r)];
        const device_buffer<std::int64_t> a(std::vector<std::int64_t>(ha.begin() + a_start, ha.begin() + a_start + m));
        const device_buffer<std::int64_t> b(std::vector<std::int64_t>(hb.begin() + b_start, hb.begin() + b_start + n));
        const corank::distributed_keys_operation<corank::ops::set_union_op> run{};
        plans[std::size_t(r)] = run.plan(a.data(), m, b.data(), n, t, corank::less{}, st.stream, options);
        plan_gathers[std::size_t(r)] = t.all_gathers;
        device_buffer<std::int64_t> out(std::size_t(plans[std::size_t(r)].output_bound()) + 1);
        run(plans[std::size_t(r)], a.data(), b.data(), out.data(), t, corank::less{}, st.stream, options);
        run_gathers[std::size_t(r)] = t.all_gathers - plan_gathers[std::size_t(r)];
        exchanges[std::size_t(r)] = t.exchanges;
        peers[std::size_t(r)] = std::max(t.most_peers_sent_to, t.most_peers_heard_from);
        received[std::size_t(r)] = t.bytes_received;
      });
      ASSERT_EQ(first_error(errors), "");
      const bool owner = placement == corank::distributed_placement::owner;
      std::size_t& moved = moved_by[owner ? 1 : 0];
      for (int r = 0; r < 4; ++r) {
        const auto& p = plans[std::size_t(r)];
        EXPECT_EQ(plan_gathers[std::size_t(r)], p.rounds + 1) << to_string(s);
        EXPECT_LE(p.rounds, 10) << to_string(s);  // the search, the owner's counts, the stages' search
        EXPECT_EQ(run_gathers[std::size_t(r)], 1);
        int rounds = 0;  // an exchange a round, one for a stage where nothing moves
        for (const auto& stage : corank::detail::rounds_of_stages(p, sizeof(std::int64_t))) rounds += std::max(1, stage.rounds);
        EXPECT_EQ(exchanges[std::size_t(r)], rounds) << to_string(s);
        EXPECT_LE(rounds, p.stage_count() * 3) << to_string(s);  // 4 ranks: 3 peers at most
        EXPECT_LE(peers[std::size_t(r)], 1) << to_string(s);
        // The elements of its pieces outside this rank's partitions, per input.
        index_t elsewhere = 0;
        for (const bool of_a : {true, false}) {
          const auto& sizes = of_a ? p.a_sizes : p.b_sizes;
          index_t own_begin = 0;
          for (int q = 0; q < r; ++q) own_begin += sizes[std::size_t(q)];
          const index_t own_end = own_begin + sizes[std::size_t(r)];
          for (int x = 0; x < p.pieces(); ++x) {
            if (p.owners[std::size_t(x)] != r) continue;
            const index_t begin = of_a ? p.splits[std::size_t(x)].a : p.splits[std::size_t(x)].b;
            const index_t end = of_a ? p.splits[std::size_t(x) + 1].a : p.splits[std::size_t(x) + 1].b;
            elsewhere += (end - begin) - std::max<index_t>(0, std::min(end, own_end) - std::max(begin, own_begin));
          }
        }
        EXPECT_EQ(received[std::size_t(r)], std::size_t(elsewhere) * sizeof(std::int64_t)) << to_string(s) << " rank " << r;
        moved += received[std::size_t(r)];
      }
      std::cout << to_string(s) << (owner ? " owner" : " balanced") << ": " << moved / sizeof(std::int64_t) << " of "
                << c.a.size() + c.b.size() << " elements moved, " << plans[0].pieces() << " pieces, "
                << plans[0].stage_count() << " stages, search rounds " << plans[0].rounds << "\n";
      if (s == spread::uniform) {  // even partitions of interleaved inputs: only the cuts' neighbourhoods move
        EXPECT_LT(moved, (c.a.size() + c.b.size()) / 20 * sizeof(std::int64_t));
      }
      if (s == spread::disjoint && owner) EXPECT_EQ(moved, 0u);
    }
    if (s != spread::uniform) EXPECT_LE(moved_by[1], moved_by[0]) << to_string(s);
  }
}

// The merge's order needs no collective: with it asked for, the run still takes one all-gather.
// A rank that owns no piece (its partitions empty, or the owner placement giving its elements
// to others) returns 0 and an empty share.
TEST_F(DistributedInProcessOptions, RanksWithNothingToDo) {
  auto rng = make_rng();
  for (const auto placement : {corank::distributed_placement::balanced, corank::distributed_placement::owner}) {
    distributed_case<std::int64_t> c = make_distributed_case<std::int64_t>(spread::shifted, 5000, 0, 4, false, rng);
    c.a_sizes = {0, 5000, 0, 0};  // ranks 0, 2, 3 hold nothing
    c.b_sizes = {0, 0, 0, 0};
    c.name += placement == corank::distributed_placement::owner ? " owner" : " balanced";
    corank::distributed_options options;
    options.placement = placement;
    run_case<corank::ops::merge_op>(c, options);
    run_case<corank::ops::set_union_op>(c, options);
  }
}

// Every rank throws, and none is left waiting, when one rank's argument is wrong or the
// inputs are out of order between ranks; the transport is usable afterwards.
TEST_F(DistributedInProcessOptions, EveryRankThrowsForOneRanksProblem) {
  using merge = corank::distributed_keys_operation<corank::ops::merge_op>;
  using set_union = corank::distributed_keys_operation<corank::ops::set_union_op>;
  std::vector<std::string> said(3);
  const auto errors = run_in_process(3, 0, [&](int r, in_process_transport& t) {
    stream_guard st;
    const std::vector<std::int64_t> ha = r == 2 ? std::vector<std::int64_t>{1, 2} : std::vector<std::int64_t>{10 * r, 10 * r + 5};
    const device_buffer<std::int64_t> a(ha), b(std::vector<std::int64_t>{10 * r + 1});
    device_buffer<std::int64_t> out(16);
    out.fill_poison();  // copied back whole (initcheck)
    std::string& text = said[std::size_t(r)];
    // Rank 1 passes a null A of 2 elements.
    try {
      merge{}.plan(r == 1 ? nullptr : a.data(), 2, b.data(), 1, t, corank::less{}, st.stream);
      text += "no error; ";
    } catch (const corank::cuda_error& e) {
      text += std::string("null: ") + e.what() + "; ";
    }
    // Rank 2's A (1, 2) comes before rank 1's (10, 15).
    try {
      merge{}.plan(a.data(), 2, b.data(), 1, t, corank::less{}, st.stream);
      text += "no error; ";
    } catch (const corank::unsorted_input& e) {
      text += "unsorted " + std::string(1, e.input()) + " at " + std::to_string(e.index()) + "; ";
    }
    // Sorted now: a merge's plan for a set operation, then rank 0's null output.
    const device_buffer<std::int64_t> sorted_a(std::vector<std::int64_t>{10 * r, 10 * r + 5});
    const corank::distributed_plan plan = merge{}.plan(sorted_a.data(), 2, b.data(), 1, t, corank::less{}, st.stream);
    try {
      set_union{}(plan, sorted_a.data(), b.data(), out.data(), t, corank::less{}, st.stream);
      text += "no error; ";
    } catch (const corank::cuda_error&) {
      text += "partitioning; ";
    }
    try {
      merge{}(plan, sorted_a.data(), b.data(), r == 0 ? nullptr : out.data(), t, corank::less{}, st.stream);
      text += "no error; ";
    } catch (const corank::cuda_error& e) {
      text += std::string("output: ") + e.what() + "; ";
    }
    merge{}(plan, sorted_a.data(), b.data(), out.data(), t, corank::less{}, st.stream);  // still works
    cuda_check(cudaStreamSynchronize(st.stream), "merge");
    text += "merged " + std::to_string(out.to_host()[0]);
  });
  ASSERT_EQ(first_error(errors), "");
  for (int r = 0; r < 3; ++r) {
    const std::string& text = said[std::size_t(r)];
    SCOPED_TRACE("rank " + std::to_string(r) + ": " + text);
    EXPECT_NE(text.find("null: corank::distributed operation: rank 1" + std::string(r == 1 ? " (this rank)" : "") +
                        ": input A is a null pointer"),
              std::string::npos);
    EXPECT_NE(text.find("unsorted A at 4;"), std::string::npos);
    EXPECT_NE(text.find("partitioning;"), std::string::npos);
    EXPECT_NE(text.find(": rank 0" + std::string(r == 0 ? " (this rank)" : "") + ": the output is a null pointer"),
              std::string::npos);
    EXPECT_NE(text.find("merged " + std::to_string(10 * r)), std::string::npos);  // 0 1 5 | 10 11 15 | 20 21 25
  }
}

// Disjoint inputs on 2 ranks: each rank's piece is of one input alone and lands in the output
// without a local call. Rank 1's A is out of order inside (5 7 6 8): the merge writes rank 0's
// output as the windows are, the set operations find it, as their local call would have.
TEST_F(DistributedInProcessOptions, PiecesOfOneInputLandInTheOutputAndAreChecked) {
  std::vector<std::string> said(2);
  const auto errors = run_in_process(2, 0, [&](int r, in_process_transport& t) {
    stream_guard st;
    const device_buffer<std::int64_t> a(r == 0 ? std::vector<std::int64_t>{1, 2, 3, 4} : std::vector<std::int64_t>{5, 7, 6, 8});
    const device_buffer<std::int64_t> b(std::vector<std::int64_t>{100 + 4 * r, 101 + 4 * r, 102 + 4 * r, 103 + 4 * r});
    device_buffer<std::int64_t> out(10);
    out.fill_poison();
    std::string& text = said[std::size_t(r)];
    const corank::distributed_keys_operation<corank::ops::merge_op> merge{};
    const index_t merged = merge(a.data(), 4, b.data(), 4, out.data(), t, corank::less{}, st.stream);
    cuda_check(cudaStreamSynchronize(st.stream), "merge");
    const std::vector<std::int64_t> got = out.to_host();
    text += "merge " + std::to_string(merged) + ":";
    for (index_t i = 0; i < merged; ++i) text += " " + std::to_string(got[std::size_t(i)]);
    const corank::distributed_keys_operation<corank::ops::set_union_op> set_union{};
    try {
      text += "; union " + std::to_string(set_union(a.data(), 4, b.data(), 4, out.data(), t, corank::less{}, st.stream));
    } catch (const corank::unsorted_input&) {
      text += "; union unsorted";
    }
  });
  ASSERT_EQ(first_error(errors), "");
  EXPECT_EQ(said[0], "merge 8: 1 2 3 4 5 7 6 8; union unsorted");
  EXPECT_EQ(said[1], "merge 8: 100 101 102 103 104 105 106 107; union 8");
}

}  // namespace
