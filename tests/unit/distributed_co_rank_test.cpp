// The distributed co-rank (distributed_co_rank.hpp) against the single co-rank on the
// concatenated inputs (path_split: co_rank on the merge path, balanced_co_rank on the
// balanced path), with an exchange that reads the arrays directly; the pieces' moves
// (detail/forms/distributed_windows.hpp) against the windows they must assemble; and the owner
// placement's cuts and the stages (detail/forms/distributed_placement.hpp).

#include <corank/detail/forms/distributed_placement.hpp>
#include <corank/detail/forms/distributed_windows.hpp>
#include <corank/distributed_co_rank.hpp>

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using corank::index_t;
using corank::partitioning;

// Sorted A and B held as partitions of the given sizes (partition q: [start_q, start_q + size_q)).
struct distributed_input {
  std::vector<int> a, b;
  std::vector<index_t> a_sizes, b_sizes;
};

corank::partition_table<int> table_of(const std::vector<int>& x, const std::vector<index_t>& sizes) {
  corank::partition_table<int> t;
  t.sizes = sizes;
  index_t start = 0;
  for (const index_t s : sizes) {
    t.first.push_back(s > 0 ? x[std::size_t(start)] : -12345);  // ignored where empty
    t.last.push_back(s > 0 ? x[std::size_t(start + s - 1)] : -12345);
    start += s;
  }
  return t;
}

// `parts` partitions of `size` elements: random cut points, so some partitions are empty (and
// with few distinct keys, boundaries fall inside runs of equal keys).
std::vector<index_t> random_sizes(std::mt19937_64& rng, index_t size, int parts) {
  std::vector<index_t> cuts{0, size};
  for (int q = 1; q < parts; ++q) cuts.push_back(size == 0 ? 0 : index_t(rng() % std::uint64_t(size + 1)));
  std::sort(cuts.begin(), cuts.end());
  std::vector<index_t> sizes;
  for (int q = 0; q < parts; ++q) sizes.push_back(cuts[std::size_t(q) + 1] - cuts[std::size_t(q)]);
  return sizes;
}

template <class Compare>
std::vector<int> sorted_keys(std::mt19937_64& rng, std::size_t size, int range, Compare comp) {
  std::vector<int> x(size);
  for (int& v : x) v = int(rng() % unsigned(range));
  std::sort(x.begin(), x.end(), comp);
  return x;
}

// Reads the arrays: each requested element, each count within its partition. Checks what the
// search promises of its requests: positions sorted, distinct, inside the input, none a
// boundary key; counts of nonempty partitions. Counts the elements read.
template <class Compare>
struct array_exchange {
  const distributed_input& in;
  Compare comp;
  std::size_t* largest_round = nullptr;  // the most elements one side read in one round

  corank::distributed_answers<int> operator()(const corank::distributed_requests<int>& asked) const {
    corank::distributed_answers<int> out;
    read(asked.a_positions, in.a, in.a_sizes, out.a_values);
    read(asked.b_positions, in.b, in.b_sizes, out.b_values);
    count(asked.a_counts, in.a, in.a_sizes, out.a_counts);
    count(asked.b_counts, in.b, in.b_sizes, out.b_counts);
    if (largest_round != nullptr) {
      *largest_round = std::max({*largest_round, asked.a_positions.size(), asked.b_positions.size()});
    }
    return out;
  }

  void read(const std::vector<index_t>& positions, const std::vector<int>& x, const std::vector<index_t>& sizes,
            std::vector<int>& values) const {
    const std::vector<index_t> s = corank::detail::starts_of(sizes);
    EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
    EXPECT_TRUE(std::adjacent_find(positions.begin(), positions.end()) == positions.end());
    for (const index_t p : positions) {
      EXPECT_TRUE(p >= 0 && p < index_t(x.size())) << "position " << p;
      for (std::size_t q = 0; q < sizes.size(); ++q) {
        if (sizes[q] > 0) EXPECT_TRUE(p != s[q] && p != s[q + 1] - 1) << "boundary position " << p << " asked";
      }
      values.push_back(p >= 0 && p < index_t(x.size()) ? x[std::size_t(p)] : 0);
    }
  }
  void count(const std::vector<corank::distributed_count<int>>& asked, const std::vector<int>& x,
             const std::vector<index_t>& sizes, std::vector<index_t>& counts) const {
    const std::vector<index_t> s = corank::detail::starts_of(sizes);
    for (const auto& c : asked) {
      const std::size_t q = std::size_t(c.partition);
      EXPECT_GT(sizes[q], 0) << "a count of an empty partition";
      const auto first = x.begin() + s[q], last = x.begin() + s[q + 1];
      counts.push_back(c.right ? std::upper_bound(first, last, c.key, comp) - first
                               : std::lower_bound(first, last, c.key, comp) - first);
    }
  }
};

// Every diagonal in `diagonals` split as path_split splits the concatenated inputs; returns
// the rounds taken.
template <partitioning Partition, class Compare = corank::less>
int check_splits(const distributed_input& in, const std::vector<index_t>& diagonals, index_t samples,
                 const std::string& where, Compare comp = {}, std::size_t* largest_round = nullptr) {
  const index_t m = index_t(in.a.size()), n = index_t(in.b.size());
  int rounds = 0;
  const auto splits = corank::distributed_path_splits<Partition, int>(
      diagonals, table_of(in.a, in.a_sizes), table_of(in.b, in.b_sizes),
      array_exchange<Compare>{in, comp, largest_round}, comp, samples, &rounds);
  EXPECT_EQ(splits.size(), diagonals.size());
  for (std::size_t x = 0; x < diagonals.size() && x < splits.size(); ++x) {
    const auto expected = corank::path_split<Partition>(diagonals[x], in.a, m, in.b, n, comp);
    EXPECT_EQ(splits[x].a, expected.a) << where << " k " << diagonals[x];
    EXPECT_EQ(splits[x].b, expected.b) << where << " k " << diagonals[x];
    if (::testing::Test::HasFailure()) break;
  }
  return rounds;
}

std::vector<index_t> every_diagonal(const distributed_input& in) {
  std::vector<index_t> k(in.a.size() + in.b.size() + 1);
  for (std::size_t x = 0; x < k.size(); ++x) k[x] = index_t(x);
  return k;
}

// Random small inputs (few distinct keys: runs across partition boundaries), random partitions
// with empty ones, every diagonal, probes from one per round (a binary search) to the default.
template <partitioning Partition>
void check_every_cut(int trials, int max_size, int max_range) {
  auto rng = corank::test::make_rng();
  const index_t samples[] = {0, 1, 2, 3, 5, 64};
  for (int trial = 0; trial < trials && !::testing::Test::HasFailure(); ++trial) {
    const int range = 1 + int(rng() % unsigned(max_range));
    distributed_input in;
    in.a = sorted_keys(rng, rng() % unsigned(max_size), range, corank::less{});
    in.b = sorted_keys(rng, rng() % unsigned(max_size), range, corank::less{});
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), 1 + int(rng() % 7));
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), 1 + int(rng() % 7));
    const index_t s = samples[rng() % std::size(samples)];
    check_splits<Partition>(in, every_diagonal(in),
                            s, "trial " + std::to_string(trial) + " m " + std::to_string(in.a.size()) + " n " +
                                   std::to_string(in.b.size()) + " samples " + std::to_string(s));
  }
}

TEST(DistributedCoRank, MergePathEveryCut) { check_every_cut<partitioning::merge_path>(300, 60, 12); }
TEST(DistributedCoRank, BalancedPathEveryCut) { check_every_cut<partitioning::balanced_path>(300, 60, 12); }

// Long runs of equal keys across many partitions: boundaries inside runs, the balanced path's
// counts in the partition that holds a run's end.
TEST(DistributedCoRank, LongRunsAcrossPartitions) {
  check_every_cut<partitioning::merge_path>(20, 2000, 3);
  check_every_cut<partitioning::balanced_path>(20, 2000, 3);
}

TEST(DistributedCoRank, AllKeysEqual) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 30 && !HasFailure(); ++trial) {
    distributed_input in;
    in.a.assign(rng() % 300, 7);
    in.b.assign(rng() % 300, 7);
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), 1 + int(rng() % 5));
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), 1 + int(rng() % 5));
    const index_t s = index_t(rng() % 4);
    check_splits<partitioning::merge_path>(in, every_diagonal(in), s, "merge trial " + std::to_string(trial));
    check_splits<partitioning::balanced_path>(in, every_diagonal(in), s, "balanced trial " + std::to_string(trial));
  }
}

TEST(DistributedCoRank, OnePartitionAndEmptyInputs) {
  auto rng = corank::test::make_rng();
  for (const auto& [m, n] : {std::pair<int, int>{0, 0}, {0, 50}, {50, 0}, {1, 1}, {200, 130}}) {
    distributed_input in;
    in.a = sorted_keys(rng, std::size_t(m), 20, corank::less{});
    in.b = sorted_keys(rng, std::size_t(n), 20, corank::less{});
    for (const int parts : {1, 3}) {
      in.a_sizes = random_sizes(rng, m, parts);
      in.b_sizes = random_sizes(rng, n, parts);
      const std::string where = "m " + std::to_string(m) + " n " + std::to_string(n) + " parts " + std::to_string(parts);
      check_splits<partitioning::merge_path>(in, every_diagonal(in), 0, where);
      check_splits<partitioning::balanced_path>(in, every_diagonal(in), 0, where);
    }
  }
}

// The comparator is the caller's: keys sorted by std::greater.
TEST(DistributedCoRank, CallersComparator) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 100 && !HasFailure(); ++trial) {
    distributed_input in;
    in.a = sorted_keys(rng, rng() % 80, 10, std::greater<int>{});
    in.b = sorted_keys(rng, rng() % 80, 10, std::greater<int>{});
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), 1 + int(rng() % 5));
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), 1 + int(rng() % 5));
    const std::string where = "trial " + std::to_string(trial);
    check_splits<partitioning::merge_path>(in, every_diagonal(in), 2, where, std::greater<int>{});
    check_splits<partitioning::balanced_path>(in, every_diagonal(in), 2, where, std::greater<int>{});
  }
}

// Rounds are few: 2^20 keys a side in 4 partitions each, cut at the 4 ranks' diagonals, settle
// in three rounds on the merge path and at most four on the balanced path (counts), each round
// reading at most the budget per side.
TEST(DistributedCoRank, FewRoundsOnLargeInputs) {
  auto rng = corank::test::make_rng();
  for (const int range : {1 << 30, 1000, 2}) {  // distinct keys, short runs, two long runs
    distributed_input in;
    in.a = sorted_keys(rng, std::size_t(1) << 20, range, corank::less{});
    in.b = sorted_keys(rng, std::size_t(1) << 20, range, corank::less{});
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), 4);
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), 4);
    const index_t total = index_t(in.a.size() + in.b.size());
    std::vector<index_t> diagonals;
    for (int q = 0; q <= 4; ++q) diagonals.push_back(total / 4 * q);
    const std::string where = "range " + std::to_string(range);
    std::size_t largest = 0;
    const int merge_rounds = check_splits<partitioning::merge_path>(in, diagonals, 0, where, corank::less{}, &largest);
    EXPECT_LE(merge_rounds, 3) << where;
    const int balanced_rounds =
        check_splits<partitioning::balanced_path>(in, diagonals, 0, where, corank::less{}, &largest);
    EXPECT_LE(balanced_rounds, 4) << where;
    // 3 cuts: samples = 2^12 / 3 per cut, plus 2 settling neighbours each.
    EXPECT_LE(largest, std::size_t(3 * ((1 << 12) / 3 + 2))) << where;
    std::cout << where << ": merge path " << merge_rounds << " rounds, balanced path " << balanced_rounds
              << " rounds, at most " << largest << " elements per side in a round\n";
  }
}

// Unsorted inputs give meaningless splits, but the search ends.
TEST(DistributedCoRank, UnsortedInputsEnd) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 200; ++trial) {
    distributed_input in;
    in.a.resize(rng() % 100);
    in.b.resize(rng() % 100);
    for (int& v : in.a) v = int(rng() % 10);
    for (int& v : in.b) v = int(rng() % 10);
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), 1 + int(rng() % 4));
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), 1 + int(rng() % 4));
    const auto a = table_of(in.a, in.a_sizes), b = table_of(in.b, in.b_sizes);
    const auto reads = [&](const corank::distributed_requests<int>& asked) {
      corank::distributed_answers<int> out;
      for (const index_t p : asked.a_positions) out.a_values.push_back(in.a[std::size_t(p)]);
      for (const index_t p : asked.b_positions) out.b_values.push_back(in.b[std::size_t(p)]);
      out.a_counts.assign(asked.a_counts.size(), 1);
      out.b_counts.assign(asked.b_counts.size(), 0);
      return out;
    };
    int rounds = 0;
    corank::distributed_path_splits<partitioning::balanced_path, int>(every_diagonal(in), a, b, reads, corank::less{},
                                                                       2, &rounds);
    EXPECT_LE(rounds, 12) << "trial " << trial;
  }
}

// The pieces' moves: every element of every piece arrives at its owner once, from the rank
// that holds it, or is read in place; what r sends q is what q receives from r.
TEST(DistributedWindows, EveryElementMovesOnceFromItsHolder) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 500; ++trial) {
    const int ranks = 1 + int(rng() % 6), pieces = 1 + int(rng() % 8);
    const index_t size = index_t(rng() % 50);
    const std::vector<index_t> sizes = random_sizes(rng, size, ranks);
    const std::vector<index_t> cuts = corank::detail::starts_of(random_sizes(rng, size, pieces));
    const std::vector<index_t> starts = corank::detail::starts_of(sizes);
    for (int p = 0; p < pieces; ++p) {
      const int owner = int(rng() % unsigned(ranks));
      const index_t begin = cuts[std::size_t(p)], end = cuts[std::size_t(p) + 1];
      std::vector<corank::detail::piece_side> parts;
      for (int r = 0; r < ranks; ++r) parts.push_back(corank::detail::piece_side_of(starts, begin, end, owner, r));
      const auto& mine = parts[std::size_t(owner)];
      std::vector<int> times(std::size_t(end - begin), 0);
      const auto mark = [&](index_t from, index_t to, int holder) {
        for (index_t x = from; x < to; ++x) {
          ASSERT_TRUE(x >= starts[std::size_t(holder)] && x < starts[std::size_t(holder) + 1]) << "trial " << trial;
          ++times[std::size_t(x - begin)];
        }
      };
      EXPECT_EQ(mine.send.peer, -1);
      if (mine.in_place) {
        mark(begin, end, owner);
        EXPECT_TRUE(mine.receives.empty());
      } else {
        mark(mine.kept_begin, mine.kept_end, owner);
        for (const auto& piece : mine.receives) {
          EXPECT_NE(piece.peer, owner);
          mark(piece.begin, piece.end, piece.peer);
          const auto& sent = parts[std::size_t(piece.peer)].send;  // the holder sends exactly this
          EXPECT_EQ(sent.peer, owner) << "trial " << trial;
          EXPECT_EQ(sent.begin, piece.begin);
          EXPECT_EQ(sent.end, piece.end);
        }
      }
      for (const int t : times) ASSERT_EQ(t, 1) << "trial " << trial << " piece " << p;
      for (int r = 0; r < ranks; ++r) {  // every send is the owner's receive
        const auto& send = parts[std::size_t(r)].send;
        if (send.peer < 0) continue;
        EXPECT_NE(r, owner);
        EXPECT_TRUE(std::any_of(mine.receives.begin(), mine.receives.end(),
                                [&](const auto& g) { return g.peer == r && g.begin == send.begin && g.end == send.end; }));
      }
    }
  }
}

// The owner placement's diagonals are where the merge starts and ends each nonempty
// partition of A and of B; between two of them the merge path reads one partition of A and
// one of B.
TEST(DistributedPlacement, OwnerDiagonalsCrossPartitionBoundaries) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 400; ++trial) {
    distributed_input in;
    const int ranks = 1 + int(rng() % 5), range = 1 + int(rng() % 20);
    in.a = sorted_keys(rng, rng() % 40, range, corank::less{});
    in.b = sorted_keys(rng, rng() % 40, range, corank::less{});
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), ranks);
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), ranks);
    const index_t m = index_t(in.a.size()), n = index_t(in.b.size());
    int rounds = 0;
    const auto diagonals = corank::detail::owner_diagonals(table_of(in.a, in.a_sizes), table_of(in.b, in.b_sizes),
                                                           corank::less{}, array_exchange<corank::less>{in, {}}, rounds);
    EXPECT_LE(rounds, 1);
    // The stable merge's position of A[i] is i + |B < A[i]|, of B[j] j + |A <= B[j]|.
    const auto position = [&](int side, index_t i) {
      const auto& own = side == 0 ? in.a : in.b;
      const auto& other = side == 0 ? in.b : in.a;
      const int key = own[std::size_t(i)];
      return i + index_t(side == 0 ? std::lower_bound(other.begin(), other.end(), key) - other.begin()
                                   : std::upper_bound(other.begin(), other.end(), key) - other.begin());
    };
    std::vector<index_t> expected{0, m + n};
    for (int side = 0; side < 2; ++side) {
      index_t at = 0;
      for (const index_t s : side == 0 ? in.a_sizes : in.b_sizes) {
        if (s > 0) {
          expected.push_back(position(side, at));
          expected.push_back(position(side, at + s - 1) + 1);
        }
        at += s;
      }
    }
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    if (expected.size() == 1) expected.push_back(0);  // empty inputs: one empty piece
    ASSERT_EQ(diagonals, expected) << "trial " << trial;
    const std::vector<index_t> a_starts = corank::detail::starts_of(in.a_sizes), b_starts = corank::detail::starts_of(in.b_sizes);
    for (std::size_t x = 0; x + 1 < diagonals.size(); ++x) {
      const auto from = corank::path_split<partitioning::merge_path>(diagonals[x], in.a, m, in.b, n, corank::less{});
      const auto to = corank::path_split<partitioning::merge_path>(diagonals[x + 1], in.a, m, in.b, n, corank::less{});
      const auto partitions_read = [](const std::vector<index_t>& starts, index_t begin, index_t end) {
        int count = 0;
        for (std::size_t q = 0; q + 1 < starts.size(); ++q) count += corank::detail::overlap(begin, end, starts[q], starts[q + 1]) > 0;
        return count;
      };
      EXPECT_LE(partitions_read(a_starts, from.a, to.a), 1) << "trial " << trial << " piece " << x;
      EXPECT_LE(partitions_read(b_starts, from.b, to.b), 1) << "trial " << trial << " piece " << x;
    }
  }
}

// Stages: each moving piece cut into at most 2 * `stages` parts, part t in stage t mod
// `stages`; the others whole, stage 0; owners kept.
TEST(DistributedPlacement, StagesCutMovingPiecesOnly) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 300; ++trial) {
    const int pieces = 1 + int(rng() % 6), stages = 1 + int(rng() % 5);
    const int parts_of_moving = corank::detail::parts_per_stage * stages;
    std::vector<index_t> diagonals = corank::detail::starts_of(random_sizes(rng, index_t(rng() % 40), pieces));
    std::vector<corank::split<index_t>> splits;
    for (const index_t k : diagonals) splits.push_back({k, 0});  // only A: the split is the diagonal
    std::vector<int> owners;
    std::vector<bool> moving;
    for (int p = 0; p < pieces; ++p) {
      owners.push_back(p % 3);
      moving.push_back(rng() % 2 == 0);
    }
    const auto cuts = corank::detail::stage_diagonals(diagonals, moving, parts_of_moving);
    std::vector<corank::split<index_t>> cut_splits;
    for (const index_t k : cuts) cut_splits.push_back({k, 0});
    auto d = diagonals;
    auto sp = splits;
    auto o = owners;
    std::vector<int> st;
    corank::detail::add_stages(d, sp, o, st, cuts, cut_splits, stages);
    ASSERT_EQ(d.size(), o.size() + 1);
    ASSERT_EQ(st.size(), o.size());
    EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
    std::size_t x = 0;
    for (int p = 0; p < pieces; ++p) {
      const index_t length = diagonals[std::size_t(p) + 1] - diagonals[std::size_t(p)];
      const int parts = moving[std::size_t(p)] ? std::max(1, int(std::min<index_t>(parts_of_moving, length))) : 1;
      EXPECT_EQ(d[x], diagonals[std::size_t(p)]) << "trial " << trial << " piece " << p;
      for (int t = 0; t < parts; ++t, ++x) {
        ASSERT_LT(x, o.size()) << "trial " << trial;
        EXPECT_EQ(o[x], owners[std::size_t(p)]);
        EXPECT_EQ(st[x], t % stages);
        EXPECT_EQ(sp[x].a, d[x]);
        EXPECT_LT(d[x], d[x + 1] + (length == 0 ? 1 : 0));
      }
      EXPECT_EQ(d[x], diagonals[std::size_t(p) + 1]) << "trial " << trial << " piece " << p;
    }
    EXPECT_EQ(x, o.size());
  }
}

// The cuts inside pieces, searched within the brackets that the pieces' merge path splits
// give, split where path_split does; a part of one input alone needs no round.
TEST(DistributedPlacement, BracketedCutsSplitAsPathSplit) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < 300; ++trial) {
    distributed_input in;
    const int ranks = 1 + int(rng() % 5), range = 1 + int(rng() % 30);
    in.a = sorted_keys(rng, rng() % 60, range, corank::less{});
    in.b = sorted_keys(rng, rng() % 60, range, corank::less{});
    if (trial % 3 == 0) {
      for (int& key : in.b) key += range;  // disjoint: B after A
    }
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), ranks);
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), ranks);
    const index_t m = index_t(in.a.size()), n = index_t(in.b.size());
    const std::vector<index_t> diagonals = corank::detail::starts_of(random_sizes(rng, m + n, 1 + int(rng() % 4)));
    std::vector<corank::split<index_t>> splits;
    for (const index_t k : diagonals) splits.push_back(corank::path_split<partitioning::merge_path>(k, in.a, m, in.b, n, corank::less{}));
    const auto cuts = corank::detail::stage_diagonals(diagonals, std::vector<bool>(diagonals.size() - 1, true), 8);
    const auto brackets = corank::detail::cut_brackets(diagonals, splits, cuts);
    ASSERT_EQ(brackets.size(), cuts.size());
    int rounds = 0;
    const auto got = corank::distributed_path_splits<partitioning::merge_path, int>(
        cuts, table_of(in.a, in.a_sizes), table_of(in.b, in.b_sizes), array_exchange<corank::less>{in, {}},
        corank::less{}, 0, &rounds, &brackets);
    ASSERT_EQ(got.size(), cuts.size());
    for (std::size_t x = 0; x < cuts.size(); ++x) {
      const auto expected = corank::path_split<partitioning::merge_path>(cuts[x], in.a, m, in.b, n, corank::less{});
      EXPECT_LE(brackets[x].first, expected.a) << "trial " << trial;
      EXPECT_GE(brackets[x].second, expected.a) << "trial " << trial;
      EXPECT_EQ(got[x].a, expected.a) << "trial " << trial << " k " << cuts[x];
      EXPECT_EQ(got[x].b, expected.b) << "trial " << trial << " k " << cuts[x];
    }
    bool one_input = true;  // every piece reads one input alone: the brackets settle every cut
    for (std::size_t p = 0; p + 1 < splits.size(); ++p) {
      one_input = one_input && (splits[p].a == splits[p + 1].a || splits[p].b == splits[p + 1].b);
    }
    if (one_input) EXPECT_EQ(rounds, 0) << "trial " << trial;
  }
}

// A whole plan's pieces (cut_pieces) for both placements and paths, 1 to 5 stages: the pieces
// cover the path, split where path_split splits at their diagonals, the balanced placement's
// ranks take diagonals [q N / P, (q + 1) N / P), the owner placement's pieces go to the rank
// holding most of them and move nothing for disjoint inputs, and the op on the pieces in path
// order, each on windows assembled from its holders, is the op on the whole inputs.
template <partitioning Partition>
void check_plans(int trials) {
  auto rng = corank::test::make_rng();
  for (int trial = 0; trial < trials; ++trial) {
    distributed_input in;
    const int ranks = 1 + int(rng() % 5), range = 1 + int(rng() % 40);
    in.a = sorted_keys(rng, rng() % 80, range, corank::less{});
    in.b = sorted_keys(rng, rng() % 80, range, corank::less{});
    const bool disjoint = trial % 4 == 0;
    if (disjoint) {
      for (int& key : in.b) key += range;
    }
    in.a_sizes = random_sizes(rng, index_t(in.a.size()), ranks);
    in.b_sizes = random_sizes(rng, index_t(in.b.size()), ranks);
    const index_t m = index_t(in.a.size()), n = index_t(in.b.size()), total = m + n;
    const auto placement = trial % 2 == 0 ? corank::distributed_placement::owner : corank::distributed_placement::balanced;
    const int stages = 1 + int(rng() % 5);
    corank::distributed_plan plan;
    plan.partition = Partition;
    plan.placement = placement;
    ASSERT_TRUE(corank::detail::cut_pieces<Partition>(plan, table_of(in.a, in.a_sizes), table_of(in.b, in.b_sizes),
                                                     array_exchange<corank::less>{in, {}}, corank::less{}, 0, stages));
    plan.a_sizes = in.a_sizes;
    plan.b_sizes = in.b_sizes;
    const std::string where = "trial " + std::to_string(trial);
    ASSERT_GE(plan.pieces(), 1) << where;
    ASSERT_EQ(plan.splits.size(), std::size_t(plan.pieces()) + 1) << where;
    ASSERT_EQ(plan.diagonals.size(), plan.splits.size()) << where;
    ASSERT_EQ(plan.stages.size(), std::size_t(plan.pieces())) << where;
    EXPECT_EQ(plan.diagonals.front(), 0);
    EXPECT_EQ(plan.diagonals.back(), total);
    EXPECT_LE(plan.stage_count(), stages);
    for (std::size_t x = 0; x < plan.splits.size(); ++x) {
      const auto expected = corank::path_split<Partition>(plan.diagonals[x], in.a, m, in.b, n, corank::less{});
      ASSERT_EQ(plan.splits[x].a, expected.a) << where << " split " << x;
      ASSERT_EQ(plan.splits[x].b, expected.b) << where << " split " << x;
    }
    const std::vector<index_t> a_starts = corank::detail::starts_of(in.a_sizes), b_starts = corank::detail::starts_of(in.b_sizes);
    if (placement == corank::distributed_placement::balanced) {
      EXPECT_TRUE(std::is_sorted(plan.owners.begin(), plan.owners.end())) << where;
      for (int q = 0; q <= ranks; ++q) {
        const std::size_t x = std::size_t(std::find_if(plan.owners.begin(), plan.owners.end(), [&](int o) { return o >= q; }) -
                                          plan.owners.begin());
        EXPECT_EQ(plan.diagonals[x], corank::detail::scaled(total, q, ranks)) << where << " rank " << q;
      }
    } else if (plan.stage_count() == 1) {
      for (int x = 0; x < plan.pieces(); ++x) {
        EXPECT_EQ(plan.owners[std::size_t(x)], corank::detail::majority_owner(a_starts, b_starts, plan.splits[std::size_t(x)],
                                                                               plan.splits[std::size_t(x) + 1]))
            << where << " piece " << x;
      }
    }
    // The moves: each piece's windows assembled on its owner from what every rank holds.
    std::vector<int> result;
    index_t moved = 0;
    for (int x = 0; x < plan.pieces(); ++x) {
      const int owner = plan.owners[std::size_t(x)];
      std::vector<int> window[2];
      for (int side = 0; side < 2; ++side) {
        const auto& keys = side == 0 ? in.a : in.b;
        const auto& starts = side == 0 ? a_starts : b_starts;
        const index_t begin = side == 0 ? plan.splits[std::size_t(x)].a : plan.splits[std::size_t(x)].b;
        const index_t end = side == 0 ? plan.splits[std::size_t(x) + 1].a : plan.splits[std::size_t(x) + 1].b;
        const auto mine = corank::detail::piece_side_of(starts, begin, end, owner, owner);
        window[side].assign(std::size_t(end - begin), -1);
        const auto copy = [&](index_t from, index_t to) {
          for (index_t p = from; p < to; ++p) window[side][std::size_t(p - begin)] = keys[std::size_t(p)];
        };
        if (mine.in_place) {
          copy(begin, end);
        } else {
          copy(mine.kept_begin, mine.kept_end);
          for (const auto& piece : mine.receives) {
            const auto sent = corank::detail::piece_side_of(starts, begin, end, owner, piece.peer).send;
            ASSERT_EQ(sent.peer, owner) << where;
            ASSERT_EQ(sent.begin, piece.begin) << where;
            ASSERT_EQ(sent.end, piece.end) << where;
            copy(piece.begin, piece.end);
            moved += piece.size();
          }
        }
        for (const int k : window[side]) ASSERT_NE(k, -1) << where << " piece " << x;
      }
      if (Partition == partitioning::merge_path) {
        std::merge(window[0].begin(), window[0].end(), window[1].begin(), window[1].end(), std::back_inserter(result));
      } else {
        std::set_union(window[0].begin(), window[0].end(), window[1].begin(), window[1].end(), std::back_inserter(result));
      }
    }
    if (disjoint && placement == corank::distributed_placement::owner) EXPECT_EQ(moved, 0) << where;
    std::vector<int> expected;
    if (Partition == partitioning::merge_path) {
      std::merge(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), std::back_inserter(expected));
    } else {
      std::set_union(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), std::back_inserter(expected));
    }
    ASSERT_EQ(result, expected) << where;
  }
}

TEST(DistributedPlacement, MergePlansPieceTogether) { check_plans<partitioning::merge_path>(600); }
TEST(DistributedPlacement, BalancedPathPlansPieceTogether) { check_plans<partitioning::balanced_path>(600); }

}  // namespace
