#pragma once
// The join's bound-pass tiles as its later stages read them (dispatch/join_dispatch.cuh): each
// tile's sum of runs, scanned (cub::DeviceScan) with the number of pieces its pairs are cut
// into for the expansion from the runs (join_runs_expand_kernel.cuh): at most
// join_piece_positions a piece, a tile with no pairs none. A tile whose boundaries the pass
// found inconsistent sums -1, which the scan's operator carries to every later prefix sum: the
// number of pairs comes out negative (a key out of order inside a consistent tile sets the
// pass's count word instead).

#include <corank/config.hpp>

namespace corank::detail {

// The positions a piece of the expansion from the runs holds at most: a block's.
constexpr int join_piece_threads = 256;
constexpr int join_piece_positions = join_piece_threads * 16;

// The pairs of the tiles before, and the pieces they are cut into.
struct join_tile_prefix {
  index_t pairs;
  index_t pieces;
};

// A sum in which -1 (inputs out of order) is sticky. Associative, with {0, 0} its identity.
struct sticky_sum {
  __host__ __device__ index_t operator()(index_t a, index_t b) const { return a < 0 || b < 0 ? -1 : a + b; }
  __host__ __device__ join_tile_prefix operator()(const join_tile_prefix& a, const join_tile_prefix& b) const {
    return {(*this)(a.pairs, b.pairs), (*this)(a.pieces, b.pieces)};
  }
};

// Tile t's sum of runs and pieces ({0, 0} past the last tile, so that an exclusive scan of
// tiles + 1 ends with the number of pairs and of pieces).
struct tile_sum_of {
  const index_t* sums;
  index_t tiles;
  __host__ __device__ join_tile_prefix operator()(index_t t) const {
    const index_t sum = t < tiles ? sums[t] : 0;
    return {sum, sum < 0 ? -1 : (sum + join_piece_positions - 1) / join_piece_positions};
  }
};

}  // namespace corank::detail
