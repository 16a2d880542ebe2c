#pragma once
// Partition rules: where position k of an op's path splits the inputs, and what that means
// for the pieces a tile and a thread take. The tile agent and the split searches take a rule
// as a parameter; a new way to cut the work (many runs at once, segments) is a new rule.
// Plain C++: the CPU backend cuts its threads' pieces with the same rules.

#include <corank/balanced_path.hpp>
#include <corank/op.hpp>

#include <type_traits>

namespace corank::detail {

// The searches of a rule on the path `Path` (balanced_path.hpp).
template <partitioning Path>
struct path_searches {
  static constexpr partitioning path = Path;

  // The split of diagonal k.
  CORANK_EXEC_CHECK_DISABLE
  template <class SequenceA, class SequenceB, class Index, class Compare>
  CORANK_HOST_DEVICE static split<Index> split_at(Index k, const SequenceA& a, Index m, const SequenceB& b, Index n,
                                                  Compare& comp) {
    return path_split<Path>(k, a, m, b, n, comp);
  }
};

// The merge path (co_rank.hpp): a split of diagonal k has i + j = k, so a piece of the path
// is exactly as long as its diagonals are apart, and a walk needs only its start.
struct merge_path_rule : path_searches<partitioning::merge_path> {
  // Steps a thread walks for `items` diagonals of the path.
  static constexpr int steps(int items) { return items; }
  static constexpr bool piece_ends_at_neighbour = false;
};

// The balanced path: a split that would part the r-th copy of a key in A from the r-th in B
// moves back one step, so a piece may be up to two steps longer than its diagonals are
// apart, and ends where its neighbour's starts.
struct balanced_path_rule : path_searches<partitioning::balanced_path> {
  static constexpr int steps(int items) { return items + 2; }
  static constexpr bool piece_ends_at_neighbour = true;
};

// The rule an op declares (Op::partition).
template <class Op>
using partition_rule_for =
    std::conditional_t<Op::partition == partitioning::balanced_path, balanced_path_rule, merge_path_rule>;

}  // namespace corank::detail
