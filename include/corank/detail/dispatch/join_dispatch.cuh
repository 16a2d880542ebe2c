#pragma once
// The sort-merge join's dispatcher (join.cuh's two-phase forms and the convenience join;
// ops/corank/detail/join.inl builds the bound pass's arguments and checks the caller's): the
// only code that launches the join's kernels. The stages: one pass of the search op through
// the two-input dispatcher (dispatch.cuh: each left key's bound in its tile's B window and its
// run of matches in the right column, b_runs, and each tile's first key, B start and sum of
// runs), the exclusive scan of the tiles' sums and pieces (cub::DeviceScan,
// kernels/join_tile_sums.cuh); then, where the form writes them, the offsets (the pass wrote
// the whole lower bounds; kernels/join_offsets_kernel.cuh), or the pairs straight from the runs
// (kernels/join_runs_expand_kernel.cuh); then the count (kernels/count_words.cuh).
// sorted_join_expand's pairs from the caller's lower bounds and offsets are
// kernels/join_expand_kernels.cuh's.
//
// The storage (temporary_arena.hpp), laid out by the same code that launches, once counting
// (the query) and once placing (the run): the bound pass's results (join_kept: 12 bytes a
// left key, of which 4 are written where no run is saturated, and the tile arrays; on the
// caller's storage where sorted_join_count_and_keep keeps them for the pairs), two words
// (the bound pass's count, the expansion's verdict), then one region used by one stage at a
// time: the bound pass's storage, the scan's, the pieces' tiles.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/dispatch/temporary_arena.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/detail/kernels/count_words.cuh>
#include <corank/detail/kernels/join_expand_kernels.cuh>
#include <corank/detail/kernels/join_offsets_kernel.cuh>
#include <corank/detail/kernels/join_runs_expand_kernel.cuh>
#include <corank/detail/kernels/join_tile_sums.cuh>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace corank::detail {

// The outputs of a join form that writes no pairs (sorted_join_count, sorted_join_offsets).
struct no_pairs {};

// What a join form asks for: with writes_offsets, the caller's `lower` and `offsets`
// (sorted_join_offsets); with output iterators (not no_pairs), `pairs` pairs into left_out
// and right_out. With `keeps`, the bound pass's results stay at `kept` for a later expansion
// (sorted_join_count_and_keep, the convenience join), else on the temporary storage. The
// layout depends on the flags and the sizes, never on the pointers (null in a query). Built
// whole ({...}): the output iterators need not be default-constructible.
template <class LeftOut, class RightOut>
struct join_outputs {
  static constexpr bool expands = !std::is_same_v<LeftOut, no_pairs>;
  bool writes_offsets;
  index_t* lower;
  index_t* offsets;
  index_t pairs;
  LeftOut left_out;
  RightOut right_out;
  index_t* count_out;
  bool keeps = false;
  char* kept = nullptr;
};

// The bound pass's results that the later stages read: b_runs' arrays (bounds_and_runs) and
// the scan of the tiles' sums and pieces (tiles + 1).
struct join_kept {
  bounds_and_runs pass;
  join_tile_prefix* prefix;
};

// What the stages after the bound pass read of its results: the pairs (positions, runs and
// long runs, 12 bytes a left key), the offsets (runs; the long runs go to the caller's offsets,
// whose round of join_offsets_kernel reads them before its scan and stores the offsets after
// it), or the count alone (the tiles' sums).
enum class join_kept_use { pairs, offsets, count };

// Lays join_kept out on `arena` (m left keys, `tiles` tiles of the bound pass) for `use`;
// `offsets`: the caller's, for join_kept_use::offsets.
inline join_kept lay_out_join_kept(temporary_arena& arena, index_t m, index_t tiles,
                                   join_kept_use use = join_kept_use::pairs, index_t* offsets = nullptr) {
  join_kept k;
  k.pass.bounds = nullptr;
  k.pass.positions = use == join_kept_use::pairs ? arena.take<std::uint16_t>(m) : nullptr;
  k.pass.runs = use != join_kept_use::count ? arena.take<run_length>(m) : nullptr;
  // Written only where a run is saturated.
  k.pass.long_runs = use == join_kept_use::pairs     ? arena.take<index_t>(m)
                     : use == join_kept_use::offsets ? offsets
                                                     : nullptr;
  k.pass.tile_first = arena.take<index_t>(tiles + 1);
  k.pass.tile_b = arena.take<index_t>(tiles + 1);
  k.pass.tile_sums = arena.take<index_t>(tiles + 1);
  k.prefix = arena.take<join_tile_prefix>(tiles + 1);
  return k;
}

// The bytes join_kept takes on storage of its own.
inline std::size_t join_kept_bytes(index_t m, index_t tiles) {
  temporary_arena arena;
  lay_out_join_kept(arena, m, tiles);
  return arena.bytes();
}

// Whether the pieces of `pairs` pairs from `tiles` tiles fit one grid (a block each): checked
// before anything is launched.
inline bool join_pieces_fit(index_t tiles, index_t pairs) {
  return join_piece_blocks(tiles, pairs) <= index_t(std::numeric_limits<int>::max());
}

// The scan's input over the tiles' sums: tiles + 1 of them, the last {0, 0}.
inline auto tile_sums_input(const index_t* sums, index_t tiles) {
  return thrust::transform_iterator<tile_sum_of, thrust::counting_iterator<index_t>, join_tile_prefix>(
      thrust::counting_iterator<index_t>(0), tile_sum_of{sums, tiles});
}

// The expansion from the runs: `piece_tile` holds join_piece_blocks(tiles, pairs) index_t,
// at most INT_MAX (join_pieces_fit); *word ends 0, or -1 where a piece found its tile's
// numbers contradicting each other.
template <int Tile, class LeftOut, class RightOut>
cudaError_t launch_join_runs_expansion(const join_kept& k, index_t tiles, index_t m, index_t pairs, LeftOut left_out,
                                       RightOut right_out, index_t* piece_tile, index_t* word, cudaStream_t stream) {
  const index_t blocks = join_piece_blocks(tiles, pairs);
  join_piece_partition_kernel<<<unsigned((tiles + join_piece_threads - 1) / join_piece_threads), join_piece_threads, 0,
                                stream>>>(k.prefix, tiles, blocks, piece_tile, word);
  if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
  if (pairs == 0) return cudaSuccess;
  join_runs_expand_kernel<Tile><<<unsigned(blocks), join_piece_threads, 0, stream>>>(
      k.pass, k.prefix, tiles, m, pairs, piece_tile, left_out, right_out, word);
  return cudaPeekAtLastError();
}

// The expansion from the caller's lower bounds and offsets (sorted_join_expand): `bounds`
// holds join_expand_tiles(m, pairs) + 1 index_t, at most INT_MAX tiles (join_expand_stages
// checks); *word ends 0, or -1 where a tile found the offsets out of order.
template <class LeftOut, class RightOut>
cudaError_t launch_join_expansion(const index_t* lower, const index_t* offsets, index_t m, index_t pairs,
                                  LeftOut left_out, RightOut right_out, index_t* bounds, index_t* word,
                                  cudaStream_t stream) {
  const index_t tiles = join_expand_tiles(m, pairs);
  const unsigned partition_blocks = unsigned((tiles + 1 + 255) / 256);
  join_partition_kernel<<<partition_blocks, 256, 0, stream>>>(offsets, m, pairs, tiles, bounds, word);
  if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
  if (tiles == 0) return cudaSuccess;
  // Many pairs a left element: the walk, else a search per position (join_expand_kernels.cuh).
  // On an H200 the walk took 5% less time with 2 pairs a key (2^24 and 2^28) and 5% more with
  // 1.27 (2^24): the threshold lies between.
  if (pairs >= m + m / 2) {
    join_walk_expand_kernel<<<unsigned(tiles), join_expand_threads, 0, stream>>>(lower, offsets, m, pairs, bounds,
                                                                                 left_out, right_out, word);
  } else {
    join_expand_kernel<<<unsigned(tiles), join_expand_threads, 0, stream>>>(lower, offsets, m, pairs, bounds, left_out,
                                                                            right_out, word);
  }
  return cudaPeekAtLastError();
}

// Every stage of sorted_join_count, sorted_join, sorted_join_count_and_keep and
// sorted_join_offsets, laid out on `temp` and, where it has a base, launched. `args`: the bound
// pass's (the left column as the queries, A; the right as the haystack, B; b_runs), whose
// bounds_and_runs output is filled in here; *out.count_out ends the number of pairs, or -1
// where the inputs were found out of order.
template <class Op, class Args, class LeftOut, class RightOut, class Compare>
cudaError_t join_stages(temporary_arena& temp, const Op& op, const Args& args, const join_outputs<LeftOut, RightOut>& out,
                        Compare comp, cudaStream_t stream, strategy kind) {
  const index_t m = args.size_a;
  if (m < 0 || args.size_b < 0 || out.pairs < 0) return cudaErrorInvalidValue;
  index_t* none = nullptr;
  join_tile_prefix* no_prefix = nullptr;
  std::size_t search_bytes = 0, scan_bytes = 0;
  if (const cudaError_t e = dispatch(nullptr, search_bytes, op, args, none, comp, stream, kind); e != cudaSuccess)
    return e;
  const index_t tiles = agent_tiles<Op>(args);
  if (out.expands && !join_pieces_fit(tiles, out.pairs)) return cudaErrorInvalidValue;
  if (const cudaError_t e = cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, tile_sums_input(none, tiles),
                                                           no_prefix, sticky_sum{}, join_tile_prefix{0, 0},
                                                           tiles + 1, stream);
      e != cudaSuccess)
    return e;
  const std::size_t pieces_bytes =
      out.expands ? std::size_t(join_piece_blocks(tiles, out.pairs)) * sizeof(index_t) : 0;
  std::size_t work_bytes = search_bytes > scan_bytes ? search_bytes : scan_bytes;
  work_bytes = work_bytes > pieces_bytes ? work_bytes : pieces_bytes;

  temporary_arena kept_arena{out.kept};
  const join_kept_use use = out.keeps || out.expands ? join_kept_use::pairs
                            : out.writes_offsets    ? join_kept_use::offsets
                                                    : join_kept_use::count;
  const join_kept k = lay_out_join_kept(out.keeps ? kept_arena : temp, m, tiles, use, out.offsets);
  index_t* words = temp.take<index_t>(2);
  char* work = temp.take<char>(index_t(work_bytes));
  if (!temp.runs()) return cudaSuccess;
  if (tiles > index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;

  // The bounds and runs (words[0]: the pass's count), then the tiles' prefix sums.
  Args pass = args;
  pass.b_values_out = k.pass;
  pass.b_values_out.bounds = out.writes_offsets ? out.lower : nullptr;
  std::size_t given = search_bytes;
  if (const cudaError_t e = dispatch(work, given, op, pass, words, comp, stream, kind); e != cudaSuccess) return e;
  given = scan_bytes;
  if (const cudaError_t e = cub::DeviceScan::ExclusiveScan(work, given, tile_sums_input(k.pass.tile_sums, tiles),
                                                           k.prefix, sticky_sum{}, join_tile_prefix{0, 0}, tiles + 1,
                                                           stream);
      e != cudaSuccess)
    return e;
  constexpr int tile = agent_policy<Op, Args>::items_per_tile;
  if (out.writes_offsets) {
    join_offsets_kernel<tile><<<unsigned(join_offsets_blocks(tiles)), join_offsets_threads, 0, stream>>>(
        k.pass, k.prefix, tiles, m, out.offsets);
    if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
  }
  if constexpr (join_outputs<LeftOut, RightOut>::expands) {
    if (const cudaError_t e = launch_join_runs_expansion<tile>(k, tiles, m, out.pairs, out.left_out, out.right_out,
                                                               reinterpret_cast<index_t*>(work), words + 1, stream);
        e != cudaSuccess)
      return e;
  }
  join_count_kernel<<<1, 1, 0, stream>>>(out.count_out, words, out.expands ? 2 : 1, &k.prefix[tiles].pairs);
  return cudaPeekAtLastError();
}

// sorted_join_from_kept's pairs from the results join_stages kept at `kept` (m left keys,
// `tiles` tiles of Tile): the pieces' tiles and the word on `temp`; *count_out (where not
// null) as join_stages writes it.
template <int Tile, class LeftOut, class RightOut>
cudaError_t join_kept_expand_stages(temporary_arena& temp, char* kept, index_t m, index_t tiles, index_t pairs,
                                    LeftOut left_out, RightOut right_out, index_t* count_out, cudaStream_t stream) {
  if (m < 0 || tiles < 1 || pairs < 0 || !join_pieces_fit(tiles, pairs)) return cudaErrorInvalidValue;
  temporary_arena kept_arena{kept};
  const join_kept k = lay_out_join_kept(kept_arena, m, tiles);
  index_t* word = temp.take<index_t>(1);
  index_t* piece_tile = temp.take<index_t>(join_piece_blocks(tiles, pairs));
  if (!temp.runs()) return cudaSuccess;
  if (const cudaError_t e = launch_join_runs_expansion<Tile>(k, tiles, m, pairs, left_out, right_out, piece_tile, word,
                                                             stream);
      e != cudaSuccess)
    return e;
  if (count_out == nullptr) return cudaSuccess;
  join_count_kernel<<<1, 1, 0, stream>>>(count_out, word, 1, &k.prefix[tiles].pairs);
  return cudaPeekAtLastError();
}

// sorted_join_expand's stages: the expansion's word, then its tile boundaries; *count_out
// (where not null) as join_stages writes it.
template <class LeftOut, class RightOut>
cudaError_t join_expand_stages(temporary_arena& temp, const index_t* lower, const index_t* offsets, index_t m,
                               index_t pairs, LeftOut left_out, RightOut right_out, index_t* count_out,
                               cudaStream_t stream) {
  if (m < 0 || pairs < 0 || join_expand_tiles(m, pairs) >= index_t(std::numeric_limits<int>::max()))
    return cudaErrorInvalidValue;
  index_t* word = temp.take<index_t>(1);
  index_t* bounds = temp.take<index_t>(join_expand_tiles(m, pairs) + 1);
  if (!temp.runs()) return cudaSuccess;
  if (const cudaError_t e = launch_join_expansion(lower, offsets, m, pairs, left_out, right_out, bounds, word, stream);
      e != cudaSuccess)
    return e;
  if (count_out == nullptr) return cudaSuccess;
  join_count_kernel<<<1, 1, 0, stream>>>(count_out, word, 1, offsets + m);
  return cudaPeekAtLastError();
}

// The two-phase forms (temp_storage == nullptr: a query); the caller has checked its
// arguments where temp_storage is not null.
template <class Op, class Args, class LeftOut, class RightOut, class Compare>
cudaError_t dispatch_join(void* temp_storage, std::size_t& temp_storage_bytes, const Op& op, const Args& args,
                          const join_outputs<LeftOut, RightOut>& out, Compare comp, cudaStream_t stream,
                          strategy kind) {
  return lay_out_and_launch(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
    return join_stages(temp, op, args, out, comp, stream, kind);
  });
}

template <int Tile, class LeftOut, class RightOut>
cudaError_t dispatch_join_kept_expand(void* temp_storage, std::size_t& temp_storage_bytes, char* kept, index_t m,
                                      index_t tiles, index_t pairs, LeftOut left_out, RightOut right_out,
                                      index_t* count_out, cudaStream_t stream) {
  return lay_out_and_launch(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
    return join_kept_expand_stages<Tile>(temp, kept, m, tiles, pairs, left_out, right_out, count_out, stream);
  });
}

template <class LeftOut, class RightOut>
cudaError_t dispatch_join_expand(void* temp_storage, std::size_t& temp_storage_bytes, const index_t* lower,
                                 const index_t* offsets, index_t m, index_t pairs, LeftOut left_out,
                                 RightOut right_out, index_t* count_out, cudaStream_t stream) {
  return lay_out_and_launch(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
    return join_expand_stages(temp, lower, offsets, m, pairs, left_out, right_out, count_out, stream);
  });
}

}  // namespace corank::detail
