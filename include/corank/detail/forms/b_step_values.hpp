#pragma once
// B's "values" that are not read from an array but follow from a walk's step: what the search
// operations (ops/corank/search.cuh) write beside each query, through the output that the
// paired forms fill with the matched B element's value (merge_args' b_values_out). They serve
// ops that write A's elements only; for such a step, B's position j is how many of B's
// elements come before it on the path.
//   b_positions  writes j. On the merge path with ties to A, B's elements before an A element
//                are those strictly before it: j is its lower bound in B; with ties sent to B
//                (ops/sorted_search.hpp's ties_to_b), its upper bound.
//   b_matches    writes whether B[j] exists and is equivalent to the step's key (on the
//                lower-bound path, B[j] is the first of B's elements not before it): whether
//                B holds the key. `invert` writes the opposite.
//   b_runs       (GPU only: the join's bound pass, join_dispatch.cuh) writes j and the
//                length of B's run of elements equivalent to the key from j, the key's
//                matches, compactly (bounds_and_runs), and per tile its first query, B start
//                and sum of runs. The tile marks where B's runs start in its staged window of
//                B, which reaches run_lookahead elements past the tile, and reads each run
//                there (past that, in B).
// The walks record j for every step; B[j] may lie past the walk's window (B's next element
// after a piece or a tile), which only b_matches reads: the CPU's walk at the step, the GPU's
// tile at its store (tile_agent.cuh). Plain C++.

#include <corank/config.hpp>

#include <cstdint>
#include <iterator>
#include <type_traits>

namespace corank::detail {

struct b_positions {};

struct b_matches {
  index_t size_b;  // B's whole length: j == size_b means that B has no element there
  bool invert;
};

struct b_runs {};

// A run's length as b_runs writes it: 16 bits, where runs of 0xffff or more read
// `saturated_run` and their whole length is written beside (bounds_and_runs::long_runs).
using run_length = std::uint16_t;
inline constexpr run_length saturated_run = 0xffff;

// Where b_runs writes, each query's at its index and each tile's at the tile's: the query's
// bound as its position in the tile's B window (16 bits: a window is shorter than 2^16; the
// bound is the tile's B start plus it), its run, and for a saturated run its length; the
// tile's first query, B start and sum of runs (-1 as the first query and the sum for a tile
// whose boundaries are inconsistent). 4 bytes a query where most runs are short; where
// `bounds` is not null (the join's lower bounds for its caller), the bound whole there
// instead of its position; where `positions` or `runs` is null, none of those (the count
// alone needs only the tiles').
struct bounds_and_runs {
  index_t* bounds;
  std::uint16_t* positions;
  run_length* runs;
  index_t* long_runs;
  index_t* tile_first;
  index_t* tile_b;
  index_t* tile_sums;
};

// B's elements staged past a tile's window for b_runs, so that a run that goes on past the
// tile is mostly counted in shared memory.
inline constexpr int run_lookahead = 64;

template <class ValuesB>
inline constexpr bool computes_b_values_v =
    std::is_same_v<ValuesB, b_positions> || std::is_same_v<ValuesB, b_matches> || std::is_same_v<ValuesB, b_runs>;

// The value written for a step whose key is `key`, at B's position j in the whole input;
// `front()` reads B[j] (called only where j < B's length).
CORANK_EXEC_CHECK_DISABLE
template <class Key, class Front, class Compare>
CORANK_HOST_DEVICE index_t b_step_value(b_positions, const Key&, index_t j, const Front&, Compare&) {
  return j;
}

CORANK_EXEC_CHECK_DISABLE
template <class Key, class Front, class Compare>
CORANK_HOST_DEVICE bool b_step_value(const b_matches& matches, const Key& key, index_t j, const Front& front,
                                     Compare& comp) {
  // B[j] is not before the key (the path put it after), so "not after" is "equivalent".
  const bool found = j < matches.size_b && !comp(key, front());
  return found != matches.invert;
}

// The type of the values written: the paired forms' B value type, these two's own.
template <class ValuesB>
struct b_value_of {
  using type = typename std::iterator_traits<ValuesB>::value_type;
};
template <>
struct b_value_of<b_positions> {
  using type = index_t;
};
template <>
struct b_value_of<b_matches> {
  using type = bool;
};
template <>
struct b_value_of<b_runs> {
  using type = index_t;
};

}  // namespace corank::detail
