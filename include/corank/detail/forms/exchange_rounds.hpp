#pragma once
// The windows' moves of one exchange, in rounds in which every rank sends to one peer at most
// and receives from one at most. NCCL runs a group's point-to-point transfers in turns by the
// distance between the ranks (peer = rank + d), so a rank that sends to two peers and receives
// from two others at other distances waits for turns: on 4 x H200 the disjoint inputs' moves
// took 14.7 ms in one group and 12.25 ms in two such rounds (bench/RESULTS.md, "Four GPUs").
// The rounds colour the pairs (sender, receiver) as the edges of a bipartite graph, with as
// many colours as the most pairs one rank sends in or receives in (König's theorem: where the
// sender's first free colour is taken at the receiver, the path of that colour and one free
// at the receiver, from the receiver on, swaps the two), the largest pairs first. Every rank
// computes the same rounds from the plan, so their exchanges match. Plain C++.

#include <corank/distributed_co_rank.hpp>
#include <corank/detail/forms/distributed_windows.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace corank::detail {

struct exchange_rounds {
  int ranks = 0, rounds = 0;
  std::vector<int> round_of;  // [from * ranks + to]: the pair's round, -1 where nothing moves
  int round(int from, int to) const { return round_of[std::size_t(from) * std::size_t(ranks) + std::size_t(to)]; }
};

// bytes[from * ranks + to]: what rank `from` sends rank `to` (0: nothing; a rank's own entry
// is ignored).
inline exchange_rounds rounds_of(const std::vector<std::size_t>& bytes, int ranks) {
  const std::size_t p = std::size_t(ranks);
  exchange_rounds r;
  r.ranks = ranks;
  r.round_of.assign(p * p, -1);
  std::vector<std::size_t> pairs;
  std::vector<int> sends(p, 0), receives(p, 0);
  for (std::size_t f = 0; f < p; ++f) {
    for (std::size_t t = 0; t < p; ++t) {
      if (f == t || bytes[f * p + t] == 0) continue;
      pairs.push_back(f * p + t);
      r.rounds = std::max({r.rounds, ++sends[f], ++receives[t]});
    }
  }
  const std::size_t c = std::size_t(r.rounds);
  // In round k, sender f sends to to_of[f * c + k] and receiver t hears from from_of[t * c + k] (-1: none).
  std::vector<int> to_of(p * c, -1), from_of(p * c, -1);
  const auto set = [&](int f, int t, int k) {
    to_of[std::size_t(f) * c + std::size_t(k)] = t;
    from_of[std::size_t(t) * c + std::size_t(k)] = f;
    r.round_of[std::size_t(f) * p + std::size_t(t)] = k;
  };
  const auto free_round = [&](const std::vector<int>& of, std::size_t v) {
    int k = 0;
    while (of[v * c + std::size_t(k)] >= 0) ++k;  // one is free: v is in fewer than c pairs so far
    return k;
  };
  std::stable_sort(pairs.begin(), pairs.end(), [&](std::size_t x, std::size_t y) { return bytes[x] > bytes[y]; });
  for (const std::size_t pair : pairs) {
    const int f = int(pair / p), t = int(pair % p);
    const int a = free_round(to_of, std::size_t(f)), b = free_round(from_of, std::size_t(t));
    if (from_of[std::size_t(t) * c + std::size_t(a)] >= 0) {
      // a is taken at t (b is free there): the path from t along rounds a, b, a, ... (t's
      // sender in round a, that sender's receiver in round b, ...) swaps the two. It cannot
      // reach f, which sends in no round a; afterwards a is free at t and still at f.
      std::vector<std::pair<int, int>> path;  // (sender, receiver) in order, rounds a, b, a, ...
      int receiver = t;
      for (;;) {
        const int sender = from_of[std::size_t(receiver) * c + std::size_t(a)];
        if (sender < 0) break;
        path.push_back({sender, receiver});
        const int next = to_of[std::size_t(sender) * c + std::size_t(b)];
        if (next < 0) break;
        path.push_back({sender, next});
        receiver = next;
      }
      for (std::size_t i = 0; i < path.size(); ++i) {  // clear, then set swapped
        const int k = i % 2 == 0 ? a : b;
        to_of[std::size_t(path[i].first) * c + std::size_t(k)] = -1;
        from_of[std::size_t(path[i].second) * c + std::size_t(k)] = -1;
      }
      for (std::size_t i = 0; i < path.size(); ++i) set(path[i].first, path[i].second, i % 2 == 0 ? b : a);
    }
    set(f, t, a);
  }
  return r;
}

// Each stage's rounds for a plan (distributed_co_rank.hpp) whose elements take
// `element_bytes` each (a key and its value): what every rank sends each piece's owner, as
// each of them finds it (piece_side_of, distributed_windows.hpp).
inline std::vector<exchange_rounds> rounds_of_stages(const distributed_plan& plan, std::size_t element_bytes) {
  const int ranks = plan.ranks();
  const std::size_t p = std::size_t(ranks);
  const std::vector<index_t> starts[2] = {starts_of(plan.a_sizes), starts_of(plan.b_sizes)};
  std::vector<std::vector<std::size_t>> moved(std::size_t(plan.stage_count()), std::vector<std::size_t>(p * p, 0));
  for (int piece = 0; piece < plan.pieces(); ++piece) {
    const split<index_t> from = plan.splits[std::size_t(piece)], to = plan.splits[std::size_t(piece) + 1];
    const int owner = plan.owners[std::size_t(piece)];
    std::vector<std::size_t>& bytes = moved[std::size_t(plan.stages[std::size_t(piece)])];
    for (int side = 0; side < 2; ++side) {
      const index_t begin = side == 0 ? from.a : from.b, end = side == 0 ? to.a : to.b;
      for (int q = 0; q < ranks; ++q) {
        const window_piece sent = piece_side_of(starts[side], begin, end, owner, q).send;
        if (sent.peer >= 0) bytes[std::size_t(q) * p + std::size_t(owner)] += std::size_t(sent.size()) * element_bytes;
      }
    }
  }
  std::vector<exchange_rounds> rounds;
  for (const std::vector<std::size_t>& bytes : moved) rounds.push_back(rounds_of(bytes, ranks));
  return rounds;
}

}  // namespace corank::detail
