#pragma once
// The sort-merge join's expansion straight from the bound pass's compact results (join.cuh's
// sorted_join, device and convenience, and sorted_join_from_kept; launched by
// dispatch/join_dispatch.cuh; here rather than in ops/ for the reason join_offsets_kernel.cuh
// gives). No offsets are written or read: each tile of the bound pass is cut into pieces of at
// most join_piece_positions pairs (join_tile_sums.cuh), a block per piece, so a key with 10^4
// copies a side (10^8 pairs) is spread over many blocks, and a block reads one tile's runs,
// however few pairs it has. The
// block stages its tile's runs and bound positions (4 bytes a key), scans the runs into the
// offsets in shared memory, finds each of its positions' left key there (a search a position
// where the piece has fewer positions than keys, else a walk a warp at a time) and stores
// both output columns 32 positions to a warp's store, coalesced. Between the bound pass and
// the pairs it moves 8 bytes a left key where the offsets and their expansion
// (join_offsets_kernel.cuh, join_expand_kernels.cuh) move 36, and it launches one kernel
// fewer.

#include <corank/config.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/detail/kernels/join_tile_sums.cuh>
#include <corank/detail/thread/last_not_after.hpp>

#include <cub/block/block_scan.cuh>

#include <cstdint>

namespace corank::detail {

// The blocks launched for `pairs` pairs from `tiles` tiles: at least the pieces (a tile's
// pieces number its pairs over join_piece_positions, rounded up). No overflow for any
// nonnegative pairs (tiles below 2^31).
inline index_t join_piece_blocks(index_t tiles, index_t pairs) {
  return tiles + pairs / join_piece_positions + (pairs % join_piece_positions != 0 ? 1 : 0);
}

// piece_tile[w] (w < blocks): the tile that piece w cuts, the last t with
// prefix[t].pieces <= w; -1 past the last piece. A block per join_piece_threads tiles: it
// stages their prefixes and writes their pieces' entries, each found by a search in shared
// memory (a search of the whole prefix in global memory, a thread an entry, waited out 14
// loads from L2 one after another: 7.5 us at 2^24). Thread 0 also clears the expansion's word.
// Prefixes that are no scan (sorted_join_from_kept's storage holding other numbers) leave
// entries unwritten, never written outside [0, blocks); the pieces check what they read.
template <int = 0>
__global__ void __launch_bounds__(join_piece_threads)
    join_piece_partition_kernel(const join_tile_prefix* prefix, index_t tiles, index_t blocks, index_t* piece_tile,
                                index_t* word) {
  constexpr int threads = join_piece_threads;
  __shared__ index_t pieces[threads + 1];
  const int tid = threadIdx.x;
  if (blockIdx.x == 0 && tid == 0) *word = 0;
  const index_t total = prefix[tiles].pieces;  // -1 where a tile was inconsistent: no pieces then
  const index_t t0 = index_t(blockIdx.x) * threads;
  const int count = int(tiles - t0 < threads ? tiles - t0 : threads);
  for (int k = tid; k <= count; k += threads) pieces[k] = prefix[t0 + k].pieces;
  __syncthreads();
  if (total >= 0) {
    const index_t begin = pieces[0] > 0 ? pieces[0] : 0;
    const index_t end = pieces[count] < blocks ? pieces[count] : blocks;
    for (index_t w = begin + tid; w < end; w += threads) {
      piece_tile[w] = t0 + last_not_after(pieces, 0, count - 1, w);
    }
  }
  // Past the last piece (all of them where there is none): -1.
  for (index_t w = (total < 0 ? 0 : total) + t0 + tid; w < blocks; w += index_t(gridDim.x) * threads) {
    piece_tile[w] = -1;
  }
}

// A piece's stores where it holds fewer positions than its tile has keys (few pairs a key):
// each thread's positions, in strides of the block, found by a search of the offsets each;
// its positions rise, so each search starts where the last one ended (offsets[0] <= q0).
template <class LeftOut, class RightOut>
__device__ __forceinline__ void join_piece_by_search(const index_t* offsets, const std::uint16_t* positions, int count,
                                                     index_t first, index_t window, index_t q0, index_t q1,
                                                     LeftOut left_out, RightOut right_out) {
  int found = 0;
  for (index_t p = q0 + threadIdx.x; p < q1; p += join_piece_threads) {
    found = last_not_after(offsets, found, count - 1, p);
    left_out[p] = first + found;
    right_out[p] = window + positions[found] + (p - offsets[found]);
  }
}

// A piece's stores where it holds at least as many positions as keys: each warp takes an
// eighth of the positions, 32 * Words at a time (a chunk), lane l the positions P + l + 32w,
// each of which belongs to the last key whose offset is not past it. The warp knows the key
// of P (`key`, after one search for the warp's first position); of the next 32 keys, the last
// of those starting at each position of the chunk writes itself to `marks` there, an OR over
// the lanes of the positions marked tells each lane the last marked position at or before
// each of its own, and the key there is its key. Where all 32 keys start inside the chunk
// (short runs, keys without pairs), the next 32 are taken: chunks of 128 positions (Words 4)
// where a tile has 4 pairs a key or more, of 32 where fewer (H200, 2^28 int32 with 2 pairs a
// key: the join 5.44 ms with chunks of 32, 5.65 with 128; 2^24 with 16 pairs a key: 1.64 and
// 1.60 ms).
constexpr int join_piece_most_words = 4;

template <int Words, class LeftOut, class RightOut>
__device__ __forceinline__ void join_piece_by_warps(const index_t* offsets, const std::uint16_t* positions, int count,
                                                    index_t first, index_t window, index_t q0, index_t q1, int* marks,
                                                    LeftOut left_out, RightOut right_out) {
  constexpr int warps = join_piece_threads / 32, words = Words, chunk_size = 32 * Words;
  const int lane = threadIdx.x % 32;
  const index_t span = ((q1 - q0 + warps - 1) / warps + chunk_size - 1) / chunk_size * chunk_size;
  const index_t w0 = q0 + index_t(threadIdx.x / 32) * span;
  const index_t w1 = w0 + span < q1 ? w0 + span : q1;
  if (w0 >= w1) return;
  int key = last_not_after(offsets, 0, count - 1, w0);
  const unsigned at_or_before = 0xffffffffu >> (31 - lane);
  for (index_t chunk = w0; chunk < w1; chunk += chunk_size) {
    int mine[words];
    CORANK_PRAGMA_UNROLL
    for (int w = 0; w < words; ++w) mine[w] = key;
    for (int batch = key + 1;; batch += 32) {
      // Where key `batch + lane` starts, from the chunk's first position (chunk_size: past it).
      const int j = batch + lane;
      const index_t from_chunk = j < count ? offsets[j] - chunk : index_t(chunk_size);
      const int start = from_chunk < chunk_size ? int(from_chunk) : chunk_size;
      const int after = __shfl_down_sync(0xffffffffu, start, 1);
      const bool marks_start = 0 <= start && start < chunk_size && (lane == 31 || after != start);
      if (marks_start) marks[start] = j;
      unsigned marked[words];
      CORANK_PRAGMA_UNROLL
      for (int w = 0; w < words; ++w) {
        marked[w] = __reduce_or_sync(0xffffffffu, marks_start && start / 32 == w ? 1u << (start % 32) : 0u);
      }
      __syncwarp();
      // The last key marked in the words before (the same in every lane), then each lane's.
      int before = -1;
      CORANK_PRAGMA_UNROLL
      for (int w = 0; w < words; ++w) {
        const unsigned upto = marked[w] & at_or_before;
        if (upto != 0) {
          mine[w] = marks[32 * w + 31 - __clz(upto)];
        } else if (before >= 0) {
          mine[w] = before;
        }
        if (marked[w] != 0) before = marks[32 * w + 31 - __clz(marked[w])];
      }
      __syncwarp();  // the marks read before the next batch writes them
      if (!__all_sync(0xffffffffu, start < chunk_size)) break;
    }
    CORANK_PRAGMA_UNROLL
    for (int w = 0; w < words; ++w) {
      const index_t p = chunk + 32 * w + lane;
      if (p < w1) {
        left_out[p] = first + mine[w];
        right_out[p] = window + positions[mine[w]] + (p - offsets[mine[w]]);
      }
    }
    key = __shfl_sync(0xffffffffu, mine[words - 1], 31);
  }
}

// Piece blockIdx.x: positions [q0, q1) of tile t's pairs, whose left keys are the tile's
// [first, last). A piece whose tile's numbers contradict each other (the pass found the
// inputs out of order), or whose entry names no tile, poisons *word and stores nothing;
// every store lies in [0, pairs).
template <int Tile, class LeftOut, class RightOut>
__global__ void __launch_bounds__(join_piece_threads, 5)
    join_runs_expand_kernel(bounds_and_runs pass, const join_tile_prefix* prefix, index_t tiles, index_t m,
                            index_t pairs, const index_t* piece_tile, LeftOut left_out, RightOut right_out,
                            index_t* word) {
  constexpr int threads = join_piece_threads;
  constexpr int items = (Tile + threads - 1) / threads;
  using scan_t = cub::BlockScan<index_t, threads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ index_t offsets[Tile + 1];
  __shared__ typename scan_t::TempStorage scan;
  __shared__ std::uint16_t positions[Tile];
  __shared__ int warp_marks[threads / 32][32 * join_piece_most_words];
  const int tid = threadIdx.x;
  const index_t t = piece_tile[blockIdx.x];
  if (t == -1) return;      // past the last piece
  if (t < 0 || t >= tiles) {  // an entry the partition left unwritten (prefixes that are no scan)
    if (tid == 0) *word = -1;
    return;
  }
  const join_tile_prefix at = prefix[t], next = prefix[t + 1];
  const index_t first = pass.tile_first[t], last = t + 1 < tiles ? pass.tile_first[t + 1] : m;
  const index_t q0 = at.pairs + (index_t(blockIdx.x) - at.pieces) * join_piece_positions;
  const index_t end = next.pairs < pairs ? next.pairs : pairs;
  const index_t q1 = q0 + join_piece_positions < end ? q0 + join_piece_positions : end;
  if (!(0 <= at.pairs && at.pairs <= next.pairs && 0 <= at.pieces && at.pieces <= index_t(blockIdx.x) &&
        0 <= first && first < last && last <= m && last - first <= Tile)) {
    if (tid == 0) *word = -1;
    return;
  }
  if (q1 <= q0) return;  // only where `pairs` is less than the count
  const int count = int(last - first);
  const index_t window = pass.tile_b[t];
  for (int s = tid; s < count; s += threads) {
    const run_length run = pass.runs[first + s];
    offsets[s] = run != saturated_run ? index_t(run) : pass.long_runs[first + s];
    positions[s] = pass.positions[first + s];
  }
  __syncthreads();
  // Each thread's runs, then their exclusive sums in place: a thread reads and writes only
  // its own, so only the scan's barrier lies between.
  index_t runs[items];
  index_t sum = 0;
  CORANK_PRAGMA_UNROLL
  for (int k = 0; k < items; ++k) {
    const int s = tid * items + k;
    runs[k] = s < count ? offsets[s] : 0;
    sum += runs[k];
  }
  index_t running;
  scan_t(scan).ExclusiveSum(sum, running);
  running += at.pairs;
  CORANK_PRAGMA_UNROLL
  for (int k = 0; k < items; ++k) {
    const int s = tid * items + k;
    if (s < count) offsets[s] = running;
    running += runs[k];
  }
  __syncthreads();
  if (count > q1 - q0) {
    join_piece_by_search(offsets, positions, count, first, window, q0, q1, left_out, right_out);
  } else if (next.pairs - at.pairs >= 4 * index_t(count)) {
    join_piece_by_warps<join_piece_most_words>(offsets, positions, count, first, window, q0, q1, warp_marks[tid / 32],
                                               left_out, right_out);
  } else {
    join_piece_by_warps<1>(offsets, positions, count, first, window, q0, q1, warp_marks[tid / 32], left_out,
                           right_out);
  }
}

}  // namespace corank::detail
