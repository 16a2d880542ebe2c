#pragma once
// The CPU backend's pieces, where they lie on the inputs: the op's path split at every piece
// boundary (host_partitions.hpp cuts them), each split searched once and checked to go
// forward before any piece is walked. Sorted inputs make a path that never goes back in A or
// in B; splits that do are how an operation finds unchecked inputs unsorted.

#include <corank/config.hpp>
#include <corank/detail/host/host_partitions.hpp>
#include <corank/error.hpp>

#include <vector>

namespace corank::detail {

// split_at(k) at every piece boundary k = piece_begin(total, pieces, p), p in [0, pieces]:
// pieces + 1 splits, searched on the calling thread (a few searches cost less than starting
// threads for them) and used by every pass. `position(split)` is where a split lies in A and
// B (a struct with .a and .b). Where they go back, walking between them would read elements
// twice and write past the output's bound: unsorted_input(context) is thrown instead, before
// anything is written.
template <class SplitAt, class Position>
auto forward_splits(const char* context, index_t total, unsigned pieces, SplitAt split_at, Position position) {
  std::vector<decltype(split_at(index_t(0)))> splits;
  splits.reserve(pieces + 1);
  for (unsigned p = 0; p <= pieces; ++p) splits.push_back(split_at(piece_begin(total, pieces, p)));
  for (unsigned p = 0; p < pieces; ++p) {
    const auto from = position(splits[p]), to = position(splits[p + 1]);
    if (to.a < from.a || to.b < from.b) throw unsorted_input(context);
  }
  return splits;
}

// The same for splits that are positions themselves (split<index_t>).
template <class SplitAt>
auto forward_splits(const char* context, index_t total, unsigned pieces, SplitAt split_at) {
  return forward_splits(context, total, pieces, split_at, [](const auto& split) { return split; });
}

}  // namespace corank::detail
