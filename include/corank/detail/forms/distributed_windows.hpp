#pragma once
// Which parts of an input move between ranks so that every rank holds the windows of its
// pieces (distributed_plan in distributed_co_rank.hpp): the part of a piece's range that lies
// in rank r's partition goes from r to the piece's owner, once. A range inside its owner's
// own partition moves not at all: the owner reads it where it is. Plain C++.

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

// Where each partition of an input starts, from every rank's size: ranks + 1 positions.
inline std::vector<index_t> starts_of(const std::vector<index_t>& sizes) {
  std::vector<index_t> starts(sizes.size() + 1, 0);
  for (std::size_t q = 0; q < sizes.size(); ++q) starts[q + 1] = starts[q] + sizes[q];
  return starts;
}

// One input's part of one plan piece (distributed_plan) for one rank: the piece reads
// [begin, end) of the input and its owner computes it. The owner receives the parts other
// ranks hold (or reads the range in place where it holds all of it); a rank that is not the
// owner sends the part it holds.
struct piece_side {
  index_t begin = 0, end = 0;
  bool in_place = true;                // (owner) nothing to assemble
  index_t kept_begin = 0, kept_end = 0;  // (owner, not in place) the part this rank holds
  std::vector<window_piece> receives;  // (owner) the parts other ranks hold, in peer order
  window_piece send{-1, 0, 0};         // (not the owner) the part this rank holds; peer -1: none
};

// Rank `rank`'s part in moving [begin, end) of an input whose partitions start at `starts`
// (ranks + 1 positions) to `owner`.
inline piece_side piece_side_of(const std::vector<index_t>& starts, index_t begin, index_t end, int owner, int rank) {
  piece_side side;
  side.begin = begin;
  side.end = end;
  const std::size_t r = std::size_t(rank);
  const index_t own_begin = starts[r], own_end = starts[r + 1];
  if (owner != rank) {
    const index_t from = std::max(begin, own_begin), to = std::min(end, own_end);
    if (from < to) side.send = {owner, from, to};
    return side;
  }
  side.in_place = begin == end || (own_begin <= begin && end <= own_end);
  if (side.in_place) return side;
  side.kept_begin = std::max(begin, own_begin);
  side.kept_end = std::max(side.kept_begin, std::min(end, own_end));
  for (std::size_t q = 0; q + 1 < starts.size(); ++q) {
    if (q == r) continue;
    const index_t from = std::max(begin, starts[q]), to = std::min(end, starts[q + 1]);
    if (from < to) side.receives.push_back({int(q), from, to});
  }
  return side;
}

}  // namespace corank::detail
