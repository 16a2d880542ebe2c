#pragma once
// The distributed forms' cases (distributed_operation.cuh), shared by the in-process test (P
// ranks on one GPU, gpu/distributed_test.cu) and the NCCL test (gpu/nccl_test.cu): sorted
// inputs cut into ranks' partitions; on every rank, an op's keys form (plan, then run), by-key
// form (one call) and count form (one call), each asked for the result's order; then, on the
// test's thread, the checks against the single-GPU call (operation.cuh) on the whole inputs:
// the ranks' pieces put in the order each form returned are its output (in the balanced
// placement, the ranks' outputs in rank order, merge ranks getting equal shares), every rank
// got the same plan, whose splits are path_split's on the whole inputs at its diagonals.

#include <corank/balanced_path.hpp>
#include <corank/distributed_operation.cuh>
#include <corank/operation.cuh>

#include "support/gpu.hpp"
#include "support/inputs.hpp"
#include "support/keys.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace corank::test {

// How the inputs' keys are drawn (as uint64, then key_traits<K>::from_u64).
enum class spread {
  uniform,    // distinct keys, A and B interleaved: windows mostly in place
  few_keys,   // four keys: long runs across ranks
  all_equal,  // one key
  disjoint,   // every key of A before every key of B: half the data moves
  shifted,    // B's keys a quarter of the range above A's
};
inline constexpr spread all_spreads[] = {spread::uniform, spread::few_keys, spread::all_equal, spread::disjoint,
                                         spread::shifted};
inline const char* to_string(spread s) {
  switch (s) {
    case spread::uniform: return "uniform";
    case spread::few_keys: return "few_keys";
    case spread::all_equal: return "all_equal";
    case spread::disjoint: return "disjoint";
    default: return "shifted";
  }
}

template <class Key>
struct distributed_case {
  std::string name;
  std::vector<Key> a, b;
  std::vector<index_t> a_sizes, b_sizes;  // rank r's partitions, in rank order
};

// `ranks` partition sizes of `size` elements: equal, or (uneven) at random cut points, so
// some are empty.
inline std::vector<index_t> rank_sizes(std::size_t size, int ranks, bool uneven, std::mt19937_64& rng) {
  std::vector<index_t> cuts{0, index_t(size)};
  for (int q = 1; q < ranks; ++q) {
    cuts.push_back(uneven ? index_t(rng() % (size + 1)) : index_t(size * std::size_t(q) / std::size_t(ranks)));
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<index_t> sizes;
  for (int q = 0; q < ranks; ++q) sizes.push_back(cuts[std::size_t(q) + 1] - cuts[std::size_t(q)]);
  return sizes;
}

template <class Key>
distributed_case<Key> make_distributed_case(spread s, std::size_t m, std::size_t n, int ranks, bool uneven,
                                            std::mt19937_64& rng) {
  const auto draw = [&](std::size_t size, std::uint64_t low, std::uint64_t high) {
    std::vector<std::uint64_t> u(size);
    for (auto& x : u) {
      if (s == spread::few_keys) x = (rng() % 4) << 61;
      else if (s == spread::all_equal) x = std::uint64_t(1) << 62;
      else x = low + (high == low ? 0 : rng() % (high - low));
    }
    std::sort(u.begin(), u.end());
    std::vector<Key> keys;
    for (const auto x : u) keys.push_back(key_traits<Key>::from_u64(x));
    return keys;
  };
  const std::uint64_t quarter = std::uint64_t(1) << 62, top = ~std::uint64_t(0);
  distributed_case<Key> c;
  c.a = draw(m, 0, s == spread::uniform ? top : s == spread::shifted ? 3 * quarter : 2 * quarter);
  c.b = draw(n, s == spread::uniform ? 0 : s == spread::shifted ? quarter : 2 * quarter, top);
  c.a_sizes = rank_sizes(m, ranks, uneven, rng);
  c.b_sizes = rank_sizes(n, ranks, uneven, rng);
  c.name = key_name<Key>() + " " + to_string(s) + " m " + std::to_string(m) + " n " + std::to_string(n) + " ranks " +
           std::to_string(ranks) + (uneven ? " uneven" : " even");
  return c;
}

// A's values are their index in A, B's -1 - their index in B: where each output came from.
inline std::vector<std::int32_t> source_values(std::size_t size, bool of_a) {
  std::vector<std::int32_t> v(size);
  for (std::size_t x = 0; x < size; ++x) v[x] = of_a ? std::int32_t(x) : -1 - std::int32_t(x);
  return v;
}

template <class Key>
struct rank_outputs {
  distributed_plan plan;
  std::vector<Key> keys;               // keys form
  std::vector<Key> by_key_keys;        // by-key form
  std::vector<std::int32_t> by_key_values;
  index_t count = 0;                   // count form
  // The result's pieces in order, as each form returned them (distributed_options::order).
  std::vector<distributed_piece> keys_order, by_key_order, count_order;
  std::string guard_problem;           // an output written outside its bound
};

// An output of `bound` elements between poisoned guards; its first `count` after the call.
template <class T>
std::vector<T> take_output(const guarded_output<T>& out, index_t count, std::string& problem) {
  const std::vector<T> host = out.buffer.to_host();
  if (const auto guards = guards_intact(host, guard_elements, out.count); !guards) problem = guards.message();
  if (count < 0 || std::size_t(count) > out.count) {
    problem = "count " + std::to_string(count) + " beyond the bound " + std::to_string(out.count);
    return {};
  }
  return std::vector<T>(host.begin() + guard_elements, host.begin() + guard_elements + count);
}

// Rank `rank`'s part of case c: its partitions uploaded, the op's three forms run on
// `stream` through `comm` (a transport or an ncclComm_t).
template <class Op, class Key, class Compare, class Comm>
rank_outputs<Key> run_rank(const distributed_case<Key>& c, int rank, Comm& comm, Compare comp, cudaStream_t stream,
                           const distributed_options& options) {
  index_t a_start = 0, b_start = 0;
  for (int q = 0; q < rank; ++q) {
    a_start += c.a_sizes[std::size_t(q)];
    b_start += c.b_sizes[std::size_t(q)];
  }
  const index_t m = c.a_sizes[std::size_t(rank)], n = c.b_sizes[std::size_t(rank)];
  const device_buffer<Key> a(std::vector<Key>(c.a.begin() + a_start, c.a.begin() + a_start + m));
  const device_buffer<Key> b(std::vector<Key>(c.b.begin() + b_start, c.b.begin() + b_start + n));
  const auto all_a_values = source_values(c.a.size(), true), all_b_values = source_values(c.b.size(), false);
  const device_buffer<std::int32_t> a_values(
      std::vector<std::int32_t>(all_a_values.begin() + a_start, all_a_values.begin() + a_start + m));
  const device_buffer<std::int32_t> b_values(
      std::vector<std::int32_t>(all_b_values.begin() + b_start, all_b_values.begin() + b_start + n));

  rank_outputs<Key> out;
  const distributed_keys_operation<Op> keys{};
  distributed_options with_order = options;
  out.plan = keys.plan(a.data(), m, b.data(), n, comm, comp, stream, options);
  {
    guarded_output<Key> keys_out(std::size_t(out.plan.output_bound()));
    with_order.order = &out.keys_order;
    const index_t count = keys(out.plan, a.data(), b.data(), keys_out.first(), comm, comp, stream, with_order);
    cuda_check(cudaStreamSynchronize(stream), "keys form");
    out.keys = take_output(keys_out, count, out.guard_problem);
  }
  // The one-call forms, into outputs of the bound that holds any rank's balanced share, or
  // (the owner placement, whose shares follow the data) the plan's bound: the same plan.
  const std::size_t total = c.a.size() + c.b.size(), ranks = c.a_sizes.size();
  const std::size_t bound = options.placement == distributed_placement::owner
                                ? std::size_t(out.plan.output_bound())
                                : (total + ranks - 1) / ranks + 1;
  {
    guarded_output<Key> keys_out(bound);
    guarded_output<std::int32_t> values_out(bound);
    with_order.order = &out.by_key_order;
    const index_t count = distributed_by_key_operation<Op>{}(a.data(), a_values.data(), m, b.data(), b_values.data(), n,
                                                             keys_out.first(), values_out.first(), comm, comp, stream,
                                                             with_order);
    cuda_check(cudaStreamSynchronize(stream), "by-key form");
    out.by_key_keys = take_output(keys_out, count, out.guard_problem);
    out.by_key_values = take_output(values_out, count, out.guard_problem);
  }
  with_order.order = &out.count_order;
  out.count = distributed_count_operation<Op>{}(a.data(), m, b.data(), n, comm, comp, stream, with_order);
  return out;
}

// The ranks' outputs against the single-GPU call on the whole inputs: the plans alike on
// every rank and cut where path_split cuts, the pieces put in the result's order (each form's
// distributed_options::order) giving the single call's output.
template <class Op, class Key, class Compare>
void check_ranks(const distributed_case<Key>& c, const std::vector<rank_outputs<Key>>& outs, Compare comp) {
  SCOPED_TRACE(c.name);
  const index_t m = index_t(c.a.size()), n = index_t(c.b.size()), total = m + n;
  const int ranks = int(c.a_sizes.size());
  ASSERT_EQ(int(outs.size()), ranks);

  // The plans: the same on every rank, splitting the path where path_split does.
  const std::vector<index_t> a_starts = detail::starts_of(c.a_sizes), b_starts = detail::starts_of(c.b_sizes);
  for (int r = 0; r < ranks; ++r) {
    const distributed_plan& p = outs[std::size_t(r)].plan;
    const distributed_plan& first = outs[0].plan;
    EXPECT_EQ(p.rank, r);
    EXPECT_EQ(p.partition, Op::partition);
    EXPECT_EQ(p.a_sizes, c.a_sizes);
    EXPECT_EQ(p.b_sizes, c.b_sizes);
    EXPECT_EQ(p.rounds, first.rounds);
    EXPECT_EQ(p.diagonals, first.diagonals) << "rank " << r;
    EXPECT_EQ(p.owners, first.owners) << "rank " << r;
    EXPECT_EQ(p.stages, first.stages) << "rank " << r;
    ASSERT_GE(p.pieces(), 1);
    ASSERT_EQ(p.splits.size(), std::size_t(p.pieces()) + 1);
    ASSERT_EQ(p.diagonals.size(), p.splits.size());
    EXPECT_EQ(p.diagonals.front(), 0);
    EXPECT_EQ(p.diagonals.back(), total);
    for (std::size_t x = 0; x < p.splits.size(); ++x) {
      const auto expected = path_split<Op::partition>(p.diagonals[x], c.a, m, c.b, n, comp);
      EXPECT_EQ(p.splits[x].a, expected.a) << "rank " << r << " split " << x;
      EXPECT_EQ(p.splits[x].b, expected.b) << "rank " << r << " split " << x;
      if (x > 0) EXPECT_LE(p.diagonals[x - 1], p.diagonals[x]);
    }
    if (p.placement == distributed_placement::balanced) {
      // Rank q's pieces are consecutive and cover diagonals [q N / P, (q + 1) N / P).
      for (int q = 0; q <= ranks; ++q) {
        const auto first_of = std::find_if(p.owners.begin(), p.owners.end(), [&](int o) { return o >= q; });
        const std::size_t x = std::size_t(first_of - p.owners.begin());
        EXPECT_EQ(p.diagonals[x], detail::scaled(total, q, ranks)) << "rank " << r << " owner " << q;
      }
      EXPECT_TRUE(std::is_sorted(p.owners.begin(), p.owners.end()));
    } else if (p.stage_count() == 1) {  // (stages cut pieces into parts of one owner)
      // Each piece's owner holds at least as many of its elements as any other rank.
      for (int x = 0; x < p.pieces(); ++x) {
        EXPECT_EQ(p.owners[std::size_t(x)], detail::majority_owner(a_starts, b_starts, p.splits[std::size_t(x)],
                                                                   p.splits[std::size_t(x) + 1]))
            << "piece " << x;
        if (x > 0) EXPECT_NE(p.owners[std::size_t(x)], p.owners[std::size_t(x) - 1]) << "piece " << x;
      }
    }
    // Stages: 0, 1, ... round robin along each moving piece's parts.
    for (int x = 0; x < p.pieces(); ++x) {
      const int stage = p.stages[std::size_t(x)];
      if (stage > 0) {
        EXPECT_EQ(p.owners[std::size_t(x) - 1], p.owners[std::size_t(x)]);
        EXPECT_EQ(p.stages[std::size_t(x) - 1], stage - 1);
      }
    }
    EXPECT_EQ(outs[std::size_t(r)].guard_problem, "") << "rank " << r;
  }

  // The single call, and the ranks' outputs in rank order.
  const device_buffer<Key> a(c.a), b(c.b);
  const device_buffer<std::int32_t> a_values(source_values(c.a.size(), true)), b_values(source_values(c.b.size(), false));
  device_buffer<Key> keys_out(std::size_t(std::max<index_t>(total, 1))), by_key_out(std::size_t(std::max<index_t>(total, 1)));
  device_buffer<std::int32_t> values_out(std::size_t(std::max<index_t>(total, 1)));
  // Poisoned, not left uninitialized: the whole buffers are copied back, past the outputs too
  // (compute-sanitizer's initcheck).
  keys_out.fill_poison();
  by_key_out.fill_poison();
  values_out.fill_poison();
  const Key* end = keys_operation<Op>{}(a.data(), a.data() + m, b.data(), b.data() + n, keys_out.data(), comp);
  const auto by_key_end = by_key_operation<Op>{}(a.data(), a.data() + m, b.data(), b.data() + n, a_values.data(),
                                                 b_values.data(), by_key_out.data(), values_out.data(), comp);
  const index_t expected_count = end - keys_out.data();
  std::vector<Key> expected_keys = keys_out.to_host(), expected_by_key = by_key_out.to_host();
  std::vector<std::int32_t> expected_values = values_out.to_host();
  expected_keys.resize(std::size_t(expected_count));
  expected_by_key.resize(std::size_t(by_key_end.first - by_key_out.data()));
  expected_values.resize(std::size_t(by_key_end.second - values_out.data()));

  // Each form's order: the same on every rank, each rank's pieces one after the other in its
  // output, covering it; the merge's as the plan says.
  for (int r = 0; r < ranks; ++r) {
    const auto& o = outs[std::size_t(r)];
    EXPECT_EQ(o.keys_order.size(), outs[0].keys_order.size());
    for (const auto* order : {&o.keys_order, &o.by_key_order, &o.count_order}) {
      ASSERT_EQ(order->size(), outs[0].keys_order.size()) << "rank " << r;
      for (std::size_t x = 0; x < order->size(); ++x) {
        EXPECT_EQ((*order)[x].rank, outs[0].keys_order[x].rank) << "rank " << r << " piece " << x;
        EXPECT_EQ((*order)[x].offset, outs[0].keys_order[x].offset) << "rank " << r << " piece " << x;
        EXPECT_EQ((*order)[x].size, outs[0].keys_order[x].size) << "rank " << r << " piece " << x;
      }
    }
    if (Op::output_size_is_input_size) {
      const auto planned = o.plan.merge_order();
      ASSERT_EQ(planned.size(), o.keys_order.size());
      for (std::size_t x = 0; x < planned.size(); ++x) EXPECT_EQ(planned[x].size, o.keys_order[x].size);
    }
  }
  std::vector<index_t> filled(std::size_t(ranks), 0);
  for (const distributed_piece& piece : outs[0].keys_order) {
    ASSERT_GE(piece.rank, 0);
    ASSERT_LT(piece.rank, ranks);
    EXPECT_GT(piece.size, 0);
    EXPECT_EQ(piece.offset, filled[std::size_t(piece.rank)]) << "rank " << piece.rank;
    filled[std::size_t(piece.rank)] += piece.size;
  }
  if (outs[0].plan.placement == distributed_placement::balanced) {
    for (std::size_t x = 1; x < outs[0].keys_order.size(); ++x) EXPECT_LT(outs[0].keys_order[x - 1].rank, outs[0].keys_order[x].rank);
  }

  std::vector<Key> keys, by_key_keys;
  std::vector<std::int32_t> values;
  index_t counted = 0;
  for (int r = 0; r < ranks; ++r) {
    const auto& o = outs[std::size_t(r)];
    if (Op::output_size_is_input_size && o.plan.placement == distributed_placement::balanced) {  // equal shares
      EXPECT_EQ(index_t(o.keys.size()), detail::scaled(total, r + 1, ranks) - detail::scaled(total, r, ranks))
          << "rank " << r;
    }
    EXPECT_LE(index_t(o.keys.size()), o.plan.output_bound()) << "rank " << r;
    EXPECT_EQ(o.count, index_t(o.keys.size())) << "rank " << r;
    EXPECT_EQ(o.by_key_keys.size(), o.keys.size()) << "rank " << r;
    EXPECT_EQ(filled[std::size_t(r)], o.count) << "rank " << r;
    counted += o.count;
  }
  // The result, piece by piece in the order's sequence.
  for (const distributed_piece& piece : outs[0].keys_order) {
    const auto& o = outs[std::size_t(piece.rank)];
    if (piece.offset + piece.size > index_t(o.keys.size()) || piece.offset + piece.size > index_t(o.by_key_keys.size())) {
      ADD_FAILURE() << "piece beyond rank " << piece.rank << "'s output";
      return;
    }
    const auto from = std::size_t(piece.offset), to = std::size_t(piece.offset + piece.size);
    keys.insert(keys.end(), o.keys.begin() + from, o.keys.begin() + to);
    by_key_keys.insert(by_key_keys.end(), o.by_key_keys.begin() + from, o.by_key_keys.begin() + to);
    values.insert(values.end(), o.by_key_values.begin() + from, o.by_key_values.begin() + to);
  }
  EXPECT_EQ(counted, expected_count);
  EXPECT_EQ(keys.size(), expected_keys.size());
  EXPECT_EQ(by_key_keys.size(), expected_by_key.size());
  EXPECT_TRUE(equal_bits(expected_keys, keys)) << "keys form";
  EXPECT_TRUE(equal_bits(expected_by_key, by_key_keys)) << "by-key form, keys";
  EXPECT_TRUE(equal_bits(expected_values, values)) << "by-key form, values";
}

}  // namespace corank::test
