#pragma once
// The k-way merge's passes: how many, and how many runs each merges a group at a time
// (multiway_dispatch.cuh launches them). Host only.

#include <corank/config.hpp>
#include <corank/tuning.hpp>

namespace corank::detail {

// Passes and the group of each, for `runs` runs. A group of g runs costs its tiles
// ceil(log2 g) rounds of pairwise merges, so the plan spends exactly ceil(log2 runs) rounds,
// the fewest, in the fewest passes of at most log2(max_group) rounds each. Within its rounds
// a pass takes the larger of the least group that leaves the later passes able to merge the
// rest and the least whose power (the passes left) reaches the runs left: groups as small and
// as even as the rounds allow, since a tile holds the fewer elements the more runs its group
// has (multiway_shape::samples_per_tile). Measured: docs/decisions.md, "The k-way rounds in
// pieces".
struct pass_plan {
  static constexpr int most_passes = 63;  // runs < 2^63
  int passes = 0;
  int group[most_passes] = {};
};

inline pass_plan plan_passes(index_t runs) {
  pass_plan plan;
  int rounds = 0;
  while (rounds < 63 && (index_t(1) << rounds) < runs) ++rounds;
  if (rounds == 0) return plan;
  int per_pass = 0;
  while ((2 << per_pass) <= multiway_max_group) ++per_pass;  // log2(max_group)
  plan.passes = (rounds + per_pass - 1) / per_pass;
  int rounds_of[pass_plan::most_passes] = {};
  for (int p = 0; p < plan.passes; ++p) rounds_of[p] = rounds / plan.passes + (p < rounds % plan.passes ? 1 : 0);
  index_t left = runs;
  for (int p = 0; p < plan.passes; ++p) {
    // The least g with g * (what the later passes can merge) >= left, and the least with
    // g^(passes left) >= left; the larger of the two, at most 2^(this pass's rounds).
    int later = 0;
    for (int q = p + 1; q < plan.passes; ++q) later += rounds_of[q];
    const index_t reach = index_t(1) << later;
    index_t group = left / reach + (left % reach != 0 ? 1 : 0);  // no overflow near 2^63
    auto reaches = [&](index_t g) {  // g^(passes left) >= left, without overflow
      index_t r = 1;
      for (int q = p; q < plan.passes && r < left; ++q) r = r > (left - 1) / g ? left : r * g;
      return r >= left;
    };
    index_t root = 1;
    while (!reaches(root)) ++root;
    group = group > root ? group : root;
    const index_t most = index_t(1) << rounds_of[p];
    group = group < most ? group : most;
    plan.group[p] = int(group < 2 ? 2 : group);
    left = left / plan.group[p] + (left % plan.group[p] != 0 ? 1 : 0);
  }
  return plan;
}

}  // namespace corank::detail
