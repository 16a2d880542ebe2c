#pragma once
// Which pieces of an input move between ranks so that every rank holds its windows
// (distributed_plan in distributed_co_rank.hpp): the part of rank q's window that lies in rank
// r's partition goes from r to q, once. A window inside its rank's own partition moves not at
// all: the rank reads it where it is. Plain C++.

#include <corank/config.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace corank::detail {

// Positions [begin, end) of one input between this rank and `peer`.
struct window_piece {
  int peer;
  index_t begin, end;
  index_t size() const { return end - begin; }
};

// One input's moves for one rank.
struct side_moves {
  index_t window_begin = 0, window_end = 0;  // this rank's window
  index_t own_begin = 0, own_end = 0;        // this rank's partition
  bool in_place = true;                      // the window lies in the partition: nothing to assemble
  std::vector<window_piece> sends;           // parts of the partition in peers' windows, in peer order
  std::vector<window_piece> receives;        // parts of the window in peers' partitions, in peer order

  // Where the window is assembled (not in_place), the part of it this rank holds itself.
  index_t kept_begin() const { return std::max(window_begin, own_begin); }
  index_t kept_end() const { return std::max(kept_begin(), std::min(window_end, own_end)); }
};

// Where each partition of an input starts, from every rank's size: ranks + 1 positions.
inline std::vector<index_t> starts_of(const std::vector<index_t>& sizes) {
  std::vector<index_t> starts(sizes.size() + 1, 0);
  for (std::size_t q = 0; q < sizes.size(); ++q) starts[q + 1] = starts[q] + sizes[q];
  return starts;
}

// Rank `rank`'s moves of one input whose partitions have `sizes` (every rank's, none
// negative) and whose windows start at `cuts` (ranks + 1 positions, from 0 to the input's
// size, not decreasing: run_distributed checks a plan's so, plan_in_order, before it calls
// this). Then every piece has a positive size and lies in both the sender's partition and the
// receiver's window.
inline side_moves side_moves_of(const std::vector<index_t>& sizes, const std::vector<index_t>& cuts, int rank) {
  const std::size_t ranks = sizes.size(), r = std::size_t(rank);
  const std::vector<index_t> starts = starts_of(sizes);
  side_moves moves;
  moves.window_begin = cuts[r];
  moves.window_end = cuts[r + 1];
  moves.own_begin = starts[r];
  moves.own_end = starts[r + 1];
  moves.in_place = moves.window_begin == moves.window_end ||
                   (moves.own_begin <= moves.window_begin && moves.window_end <= moves.own_end);
  for (std::size_t q = 0; q < ranks; ++q) {
    if (q == r) continue;
    const index_t send_begin = std::max(cuts[q], moves.own_begin), send_end = std::min(cuts[q + 1], moves.own_end);
    if (send_begin < send_end) moves.sends.push_back({int(q), send_begin, send_end});
    const index_t receive_begin = std::max(moves.window_begin, starts[q]);
    const index_t receive_end = std::min(moves.window_end, starts[q + 1]);
    if (receive_begin < receive_end) moves.receives.push_back({int(q), receive_begin, receive_end});
  }
  return moves;
}

}  // namespace corank::detail
