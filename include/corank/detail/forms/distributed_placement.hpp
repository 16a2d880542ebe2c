#pragma once
// How a distributed plan cuts the path into pieces and gives each to a rank
// (distributed_plan in distributed_co_rank.hpp): the owner placement's cuts where the merge
// path crosses a partition boundary, each piece's owner, and the stages of the pieces whose
// elements move. Plain C++; the search that turns diagonals into splits is
// distributed_co_rank.hpp's.

#include <corank/config.hpp>
#include <corank/detail/forms/distributed_windows.hpp>
#include <corank/distributed_co_rank.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace corank::detail {

// A bound of a key in one input from its partitions' boundary keys: the elements of the
// partitions wholly before it, and the partition that must count its own (-1: none).
struct table_bound {
  index_t before = 0;
  int partition = -1;
};

// The elements of the input before `key` (right: not after it), as far as the boundary keys
// tell: partitions in order, the first one not wholly before `key` counted on its rank where
// some of it is.
template <class Key, class Compare>
table_bound bound_in_table(const partition_table<Key>& t, const Key& key, bool right, Compare comp) {
  table_bound bound;
  for (std::size_t q = 0; q < t.sizes.size(); ++q) {
    if (t.sizes[q] == 0) continue;
    const bool whole = right ? !comp(key, t.last[q]) : comp(t.last[q], key);
    if (whole) {
      bound.before += t.sizes[q];
      continue;
    }
    if (right ? !comp(key, t.first[q]) : comp(t.first[q], key)) bound.partition = int(q);
    return bound;
  }
  return bound;
}

// The owner placement's diagonals: 0, m + n, and where the merge path starts and ends each
// nonempty partition: A[s] is the merge's element s + |B < A[s]|, B[s] its s + |A <= B[s]|
// (the merge takes A's first among equal keys), so a partition [s, e) of A is read between
// diagonals s + |B < A[s]| and e + |B < A[e - 1]|, one of B likewise. Between two consecutive
// diagonals the path reads one partition of A and one of B at most. `count(requests)` answers
// the counts that the boundary keys leave open (one exchange, only where there are any);
// `rounds` counts it.
template <class Key, class Compare, class Count>
std::vector<index_t> owner_diagonals(const partition_table<Key>& ta, const partition_table<Key>& tb, Compare comp,
                                     Count&& count, int& rounds) {
  struct crossing {
    int side;    // 0: a partition of A, counted in B; 1: the reverse
    index_t at;  // the position the count adds to
    table_bound bound;
    std::size_t query;
  };
  std::vector<crossing> crossings;
  distributed_requests<Key> asked;
  index_t total = 0;
  for (int side = 0; side < 2; ++side) {
    const partition_table<Key>& own = side == 0 ? ta : tb;
    const partition_table<Key>& other = side == 0 ? tb : ta;
    index_t start = 0;
    for (std::size_t q = 0; q < own.sizes.size(); ++q) {
      const index_t end = start + own.sizes[q];
      if (own.sizes[q] > 0) {
        for (const bool at_end : {false, true}) {
          const Key& key = at_end ? own.last[q] : own.first[q];
          crossing c{side, at_end ? end : start, bound_in_table(other, key, side == 1, comp), 0};
          if (c.bound.partition >= 0) {
            auto& counts = side == 0 ? asked.b_counts : asked.a_counts;
            c.query = counts.size();
            counts.push_back({c.bound.partition, key, side == 1});
          }
          crossings.push_back(c);
        }
      }
      start = end;
    }
    total += start;
  }
  distributed_answers<Key> answers;
  if (!asked.a_counts.empty() || !asked.b_counts.empty()) {
    answers = count(asked);
    ++rounds;
  }
  std::vector<index_t> diagonals{0, total};
  for (const crossing& c : crossings) {
    index_t k = c.at + c.bound.before;
    if (c.bound.partition >= 0) k += c.side == 0 ? answers.b_counts[c.query] : answers.a_counts[c.query];
    diagonals.push_back(std::min(std::max<index_t>(k, 0), total));  // within the path, whatever the input
  }
  std::sort(diagonals.begin(), diagonals.end());
  diagonals.erase(std::unique(diagonals.begin(), diagonals.end()), diagonals.end());
  if (diagonals.size() == 1) diagonals.push_back(total);  // empty inputs: one empty piece
  return diagonals;
}

// The elements of [begin, end) inside [low, high).
inline index_t overlap(index_t begin, index_t end, index_t low, index_t high) {
  return std::max<index_t>(0, std::min(end, high) - std::max(begin, low));
}

// The rank holding most of the piece from `from` to `to` (ties: the lower rank).
inline int majority_owner(const std::vector<index_t>& a_starts, const std::vector<index_t>& b_starts,
                          split<index_t> from, split<index_t> to) {
  int best = 0;
  index_t most = -1;
  for (std::size_t q = 0; q + 1 < a_starts.size(); ++q) {
    const index_t held = overlap(from.a, to.a, a_starts[q], a_starts[q + 1]) + overlap(from.b, to.b, b_starts[q], b_starts[q + 1]);
    if (held > most) {
      most = held;
      best = int(q);
    }
  }
  return best;
}

// Whether the piece's elements all lie in its owner's partitions: nothing of it moves.
inline bool piece_in_place(const std::vector<index_t>& a_starts, const std::vector<index_t>& b_starts,
                           split<index_t> from, split<index_t> to, int owner) {
  const std::size_t q = std::size_t(owner);
  return (from.a == to.a || (a_starts[q] <= from.a && to.a <= a_starts[q + 1])) &&
         (from.b == to.b || (b_starts[q] <= from.b && to.b <= b_starts[q + 1]));
}

// Drops the cuts between consecutive pieces of one owner: each rank's run of pieces becomes one.
inline void join_owners(std::vector<index_t>& diagonals, std::vector<split<index_t>>& splits, std::vector<int>& owners) {
  std::vector<index_t> d{diagonals.front()};
  std::vector<split<index_t>> s{splits.front()};
  std::vector<int> o;
  for (std::size_t p = 0; p < owners.size(); ++p) {
    if (!o.empty() && o.back() == owners[p]) {
      d.back() = diagonals[p + 1];
      s.back() = splits[p + 1];
      continue;
    }
    o.push_back(owners[p]);
    d.push_back(diagonals[p + 1]);
    s.push_back(splits[p + 1]);
  }
  diagonals = std::move(d);
  splits = std::move(s);
  owners = std::move(o);
}

// Each moving piece (not piece_in_place) is cut into parts_per_stage * stages parts, part t
// moving in stage t mod stages: each stage carries about 1 / stages of every pair's traffic
// (cut along the path in order instead, the first stages would carry all of one sender's
// share and the last another's, and the stages would take turns rather than share the links).
inline constexpr int parts_per_stage = 2;

// The diagonals that cut each moving piece into `parts` of about equal length, strictly inside
// it, in order.
inline std::vector<index_t> stage_diagonals(const std::vector<index_t>& diagonals, const std::vector<bool>& moving,
                                            int parts) {
  std::vector<index_t> cuts;
  for (std::size_t p = 0; p < moving.size(); ++p) {
    if (!moving[p]) continue;
    const index_t low = diagonals[p], length = diagonals[p + 1] - low;
    for (int t = 1; t < parts; ++t) {
      const index_t k = low + scaled(length, t, parts);
      if (k > low && k < low + length && (cuts.empty() || cuts.back() < k)) cuts.push_back(k);
    }
  }
  return cuts;
}

// For each cut inside a piece (stage_diagonals' order), the range that holds its merge path
// co-rank, from the merge path's splits at the piece's ends: the co-rank and the diagonal
// minus it grow along the path.
inline std::vector<std::pair<index_t, index_t>> cut_brackets(const std::vector<index_t>& diagonals,
                                                             const std::vector<split<index_t>>& splits,
                                                             const std::vector<index_t>& cuts) {
  std::vector<std::pair<index_t, index_t>> brackets;
  std::size_t p = 0;
  for (const index_t k : cuts) {
    while (p + 2 < diagonals.size() && diagonals[p + 1] <= k) ++p;
    const split<index_t> from = splits[p], to = splits[p + 1];
    brackets.emplace_back(std::max(from.a, k - to.b), std::min(to.a, k - from.b));
  }
  return brackets;
}

// The pieces with their parts (`cuts`, stage_diagonals' order, and their splits): part t of a
// moving piece gets stage t mod `stages`; the others stage 0.
inline void add_stages(std::vector<index_t>& diagonals, std::vector<split<index_t>>& splits, std::vector<int>& owners,
                       std::vector<int>& stages, const std::vector<index_t>& cuts,
                       const std::vector<split<index_t>>& cut_splits, int stage_count) {
  std::vector<index_t> d{diagonals.front()};
  std::vector<split<index_t>> s{splits.front()};
  std::vector<int> o, st;
  std::size_t next = 0;
  for (std::size_t p = 0; p < owners.size(); ++p) {
    int part = 0;
    while (next < cuts.size() && cuts[next] < diagonals[p + 1]) {
      if (cuts[next] > diagonals[p]) {
        o.push_back(owners[p]);
        st.push_back(part++ % stage_count);
        d.push_back(cuts[next]);
        s.push_back(cut_splits[next]);
      }
      ++next;
    }
    o.push_back(owners[p]);
    st.push_back(part % stage_count);
    d.push_back(diagonals[p + 1]);
    s.push_back(splits[p + 1]);
  }
  diagonals = std::move(d);
  splits = std::move(s);
  owners = std::move(o);
  stages = std::move(st);
}

// The plan's pieces (diagonals, splits, owners, stages) and rounds, as plan.placement says,
// from the partitions' tables, `exchange(requests)` answering the search's rounds: the cuts
// (the ranks' diagonals, or the owner placement's crossings), their splits, the owners
// (consecutive pieces of one owner joined), then the moving pieces' parts in `stage_count`
// stages. False where the splits go backwards (inputs unsorted inside a partition).
template <partitioning Partition, class Key, class Exchange, class Compare>
bool cut_pieces(distributed_plan& plan, const partition_table<Key>& ta, const partition_table<Key>& tb,
                Exchange&& exchange, Compare comp, index_t samples, int stage_count) {
  const int ranks = int(ta.sizes.size());
  const std::vector<index_t> a_starts = starts_of(ta.sizes), b_starts = starts_of(tb.sizes);
  const index_t total = a_starts.back() + b_starts.back();
  const auto search = [&](const std::vector<index_t>& diagonals,
                          const std::vector<std::pair<index_t, index_t>>* brackets = nullptr) {
    int rounds = 0;
    auto splits = distributed_path_splits<Partition>(diagonals, ta, tb, exchange, comp, samples, &rounds, brackets);
    plan.rounds += rounds;
    return splits;
  };
  const auto in_order = [](const std::vector<split<index_t>>& splits) {
    for (std::size_t p = 0; p + 1 < splits.size(); ++p) {
      if (splits[p + 1].a < splits[p].a || splits[p + 1].b < splits[p].b) return false;
    }
    return true;
  };
  const bool owner = plan.placement == distributed_placement::owner;
  plan.diagonals.clear();
  if (owner) {
    plan.diagonals = owner_diagonals(ta, tb, comp, exchange, plan.rounds);
  } else {
    for (int q = 0; q <= ranks; ++q) plan.diagonals.push_back(scaled(total, q, ranks));
  }
  plan.splits = search(plan.diagonals);
  if (!in_order(plan.splits)) return false;
  plan.owners.clear();
  for (std::size_t p = 0; p + 1 < plan.splits.size(); ++p) {
    plan.owners.push_back(owner ? majority_owner(a_starts, b_starts, plan.splits[p], plan.splits[p + 1]) : int(p));
  }
  if (owner) join_owners(plan.diagonals, plan.splits, plan.owners);
  // The pieces that move, cut into parts in stages: one more search, where any move and a
  // piece reads both inputs. On the merge path the pieces' splits bracket the cuts'; the
  // balanced path's need not bracket its merge path.
  std::vector<bool> moving;
  for (std::size_t p = 0; p < plan.owners.size(); ++p) {
    moving.push_back(!piece_in_place(a_starts, b_starts, plan.splits[p], plan.splits[p + 1], plan.owners[p]));
  }
  const std::vector<index_t> cuts =
      stage_count > 1 ? stage_diagonals(plan.diagonals, moving, parts_per_stage * stage_count) : std::vector<index_t>{};
  plan.stages.assign(plan.owners.size(), 0);
  if (!cuts.empty()) {
    // A cut of a piece that reads one input alone lies on its straight path (as with disjoint
    // inputs); the others are searched.
    std::vector<split<index_t>> cut_splits(cuts.size());
    std::vector<index_t> searched;
    std::vector<std::size_t> searched_at;
    std::size_t p = 0;
    for (std::size_t x = 0; x < cuts.size(); ++x) {
      while (p + 2 < plan.diagonals.size() && plan.diagonals[p + 1] <= cuts[x]) ++p;
      const split<index_t> from = plan.splits[p], to = plan.splits[p + 1];
      const index_t step = cuts[x] - (from.a + from.b);
      if (from.b == to.b && step >= 0 && step <= to.a - from.a) {
        cut_splits[x] = {from.a + step, from.b};
      } else if (from.a == to.a && step >= 0 && step <= to.b - from.b) {
        cut_splits[x] = {from.a, from.b + step};
      } else {
        searched.push_back(cuts[x]);
        searched_at.push_back(x);
      }
    }
    if (!searched.empty()) {
      const auto brackets = cut_brackets(plan.diagonals, plan.splits, searched);
      const auto found = search(searched, Partition == partitioning::merge_path ? &brackets : nullptr);
      for (std::size_t y = 0; y < found.size(); ++y) cut_splits[searched_at[y]] = found[y];
    }
    add_stages(plan.diagonals, plan.splits, plan.owners, plan.stages, cuts, cut_splits, stage_count);
    if (!in_order(plan.splits)) return false;
  }
  return true;
}

}  // namespace corank::detail
