#pragma once
// Which kernel runs an operation (corank::strategy), and the choice strategy::automatic makes.

#include <corank/config.hpp>

namespace corank {

// Which kernel runs an operation. All strategies give identical results. naive, tiled and
// circular are the merge kernels of the documents corank grew from, kept as references;
// operations whose output size depends on the data run the tile kernels under every
// strategy (docs/design.md, "The dispatcher and the strategies").
enum class strategy : unsigned char {
  automatic,  // the default: the strategy measured fastest for the operation and its size
              // (see merge_strategy_for)
  naive,      // each thread finds its co-rank in global memory and walks global memory
  tiled,      // a block streams tiles through one shared-memory buffer, reloading it whole
              // (loads up to 2T elements to produce T outputs)
  circular,    // a block streams tiles through ring buffers, loading only what the last
               // tile consumed (T loads for T outputs)
  partitioned  // one tile per block: a first pass finds every tile's input windows by
               // co-rank, then each block loads exactly its windows (T loads for T outputs)
};

inline constexpr strategy default_strategy = strategy::automatic;

// strategy::automatic runs a merge of at most this many elements (both inputs together)
// naive, a single kernel, and everything else partitioned. Measured on an H100
// (bench/RESULTS.md, "Naive or partitioned"): below, where launches rather than bytes set
// the time, naive's one kernel beats partitioned's two; int32 and int64 keys up to 2^17
// elements per input, int32 pairs up to 2^16.
inline constexpr index_t automatic_naive_merge_max_keys = index_t(1) << 18;
inline constexpr index_t automatic_naive_merge_max_pairs = index_t(1) << 17;

// The strategy a merge of m + n elements (with values or not) runs under `kind`: `kind`
// itself unless it is automatic; under automatic naive where m, n >= 0 and m + n is at most
// the threshold above, else partitioned.
constexpr strategy merge_strategy_for(strategy kind, index_t m, index_t n, bool with_values) {
  if (kind != strategy::automatic) return kind;
  const index_t most = with_values ? automatic_naive_merge_max_pairs : automatic_naive_merge_max_keys;
  const bool small = m >= 0 && n >= 0 && m <= most && n <= most - m;
  return small ? strategy::naive : strategy::partitioned;
}

// The strategy's name ("automatic", "naive", ...); "unknown" for a value outside the enum.
inline const char* to_string(strategy s) {
  switch (s) {
    case strategy::automatic: return "automatic";
    case strategy::naive: return "naive";
    case strategy::tiled: return "tiled";
    case strategy::circular: return "circular";
    case strategy::partitioned: return "partitioned";
  }
  return "unknown";
}

}  // namespace corank
