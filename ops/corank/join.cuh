#pragma once
// The sort-merge inner join of two sorted key columns on the GPU: every pair of positions
// (i, j) whose keys are equivalent, left[i] ~ right[j], in the order of i, then j (a key a
// times on the left and b times on the right gives its a * b pairs). The CPU backend is
// host/join.hpp.
//
//   const index_t pairs = corank::sorted_join_count(l.begin(), l.end(), r.begin(), r.end());
//   corank::sorted_join(l.begin(), l.end(), r.begin(), r.end(), left_out, right_out);
//
// corank:: (convenience; both synchronize `stream`):
//   index_t sorted_join_count(left_first, left_last, right_first, right_last, comp = {},
//                             stream = nullptr, kind = default_strategy)
//   std::pair<LeftOut, RightOut> sorted_join(left_first, left_last, right_first, right_last,
//       left_out, right_out, comp = {}, stream = nullptr, kind = default_strategy)
//     writes the sorted_join_count pairs (which it counts again, once) and returns the outputs' ends.
// corank::device:: (two-phase; the protocol of operation.cuh):
//   cudaError_t sorted_join_count(temp_storage, temp_storage_bytes, left, m, right, n,
//                                 count_out, comp = {}, stream = nullptr, kind = default_strategy)
//     *count_out: the number of pairs, or negative where the kernels found the inputs unsorted.
//   cudaError_t sorted_join(temp_storage, temp_storage_bytes, left, m, right, n, pairs,
//                           left_out, right_out, count_out, comp = {}, stream = nullptr,
//                           kind = default_strategy)
//     writes `pairs` outputs, what sorted_join_count gave for these inputs (the temporary
//     storage depends on it), and *count_out as sorted_join_count does.
//   The two halves, for a caller that sizes the outputs by the count in between (the Python
//   package, the command) without running the bound pass twice, as the convenience
//   sorted_join does: the count keeps the pass's results at `kept`, storage of the caller's
//   that lives from one call to the other, and the pairs come from them:
//   cudaError_t sorted_join_count_and_keep(temp_storage, temp_storage_bytes, kept, kept_bytes,
//                                          left, m, right, n, count_out, comp = {},
//                                          stream = nullptr, kind = default_strategy)
//     a query (temp_storage null) writes both sizes (about 12 bytes a left element for
//     kept_bytes); a run needs `kept` of kept_bytes, aligned as temp_storage is and
//     overlapping neither it nor the columns, and writes *count_out as sorted_join_count does.
//   cudaError_t sorted_join_from_kept(temp_storage, temp_storage_bytes, kept, kept_bytes, left,
//                                     m, right, n, pairs, left_out, right_out, count_out,
//                                     stream = nullptr, kind = default_strategy)
//     writes `pairs` outputs as sorted_join does, from what sorted_join_count_and_keep left at
//     `kept` for the same left, m, right and n (whose types and sizes set the layout; the
//     columns are not read, and may be freed in between); count_out may be null, else it
//     receives the count. Whatever `kept` holds, nothing is read outside it or written
//     outside the outputs' `pairs` elements; where its numbers contradict each other as the
//     kernels read them, the count is negative (numbers that agree, another join's of the
//     same sizes, give that join's pairs).
//   Or the offsets and their expansion, for a caller that wants the offsets (a value gather
//   by key); they move the bounds and offsets through memory (16 bytes a left element where
//   the kept results take 4 from the count to the pairs, so they take more time):
//   cudaError_t sorted_join_offsets(temp_storage, temp_storage_bytes, left, m, right, n,
//                                   lower_out, offsets_out, count_out, comp = {}, stream = nullptr,
//                                   kind = default_strategy)
//     lower_out (m index_t): each left element's lower bound in the right column; offsets_out
//     (m + 1 index_t): the exclusive prefix sums of the match counts, the last the number of
//     pairs; *count_out as sorted_join_count's.
//   cudaError_t sorted_join_expand(temp_storage, temp_storage_bytes, lower, offsets, m, pairs,
//                                  left_out, right_out, count_out, stream = nullptr,
//                                  kind = default_strategy)
//     the pairs from them (pairs = offsets[m]); count_out may be null, else it receives pairs.
//
// - How (detail/dispatch/join_dispatch.cuh): one bound pass (search.cuh's sorted search) finds
//   each left element's lower bound in the right column and its run of matches, read from a
//   bit per staged right element that marks where runs start (those comparisons also check
//   the right column's order), and each tile's sum of runs; CUB scans the tile sums. The forms
//   that write pairs (sorted_join, sorted_join_from_kept, and the convenience form, which keeps
//   the pass's results from its count to its pairs) take them from the pass's compact results: 4
//   bytes a left element (the bound's position in its tile's right window and the run, 16
//   bits each; a run of 0xffff or more also written whole), each tile of the pass cut into
//   pieces of at most 4096 pairs, a block per piece, which scans its tile's runs into the
//   offsets in shared memory and gives each position its left element by a search of them or,
//   with as many positions as keys, by a walk a warp at a time; a piece's stores are
//   coalesced, and a key with 10^4 copies on each side is 10^8 outputs over many blocks, not
//   one thread's loop. sorted_join_offsets has the pass write the whole bounds and a warp per
//   tile turn the runs into the offsets; sorted_join_expand cuts the merge path of the offsets
//   and the output positions into tiles of 2048 steps, each staged in shared memory, a
//   position's left element found by a binary search of the staged offsets, or, with 1.5
//   pairs or more a left element, by a walk of the tile's merge path. O(m + n + pairs) work;
//   temporary storage about 12 bytes a left element for sorted_join (device and convenience)
//   and sorted_join_count_and_keep's `kept`, 2 for sorted_join_offsets (besides the caller's
//   bounds and offsets, which also hold the pass's runs of 0xffff or more until the offsets
//   overwrite them), and about 64 bytes a tile of the pass (2176 elements) for the counts.
// - Outputs: positions as index_t, converted to the outputs' value types; left_out and
//   right_out hold `pairs` elements and overlap nothing else. With a `pairs` other than the
//   count, nothing is written past `pairs`: sorted_join and sorted_join_from_kept write the
//   first `pairs` pairs (and none past the count), sorted_join_expand exactly `pairs` outputs, of unspecified contents
//   past the count.
// - Preconditions, errors and unsorted inputs as search.cuh's, with the left column as the
//   queries and the right as the haystack (the counts also find either column going down
//   anywhere, where the left one is not empty; the expansion, offsets that go backwards): the
//   two-phase forms return cudaErrorInvalidValue for bad arguments (negative sizes or pairs,
//   null pointers with nonzero sizes, too little temporary or kept storage or storage not
//   aligned to 256 bytes, a null count_out), the convenience forms throw
//   corank::cuda_error with a sentence for them and corank::unsorted_input where the kernels
//   found the inputs unsorted (before any pair is written, for sorted_join: it counts first).
//   Nothing is ever read outside the inputs or written outside the outputs' `pairs` elements
//   (and sorted_join_count_and_keep's `kept`).
// - Left, outer and anti joins are not built yet: they are the same counts with each
//   unmatched left (right) element given one pair (with a missing partner).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>
#include <corank/strategy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace corank {
namespace device {

template <class Left, class Right, class Compare = corank::less>
cudaError_t sorted_join_count(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                              index_t n, index_t* count_out, Compare comp = {}, cudaStream_t stream = nullptr,
                              strategy kind = default_strategy);

template <class Left, class Right, class LeftOut, class RightOut, class Compare = corank::less>
cudaError_t sorted_join(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                        index_t n, index_t pairs, LeftOut left_out, RightOut right_out, index_t* count_out,
                        Compare comp = {}, cudaStream_t stream = nullptr, strategy kind = default_strategy);


template <class Left, class Right, class Compare = corank::less>
cudaError_t sorted_join_count_and_keep(void* temp_storage, std::size_t& temp_storage_bytes, void* kept,
                                       std::size_t& kept_bytes, Left left, index_t m, Right right, index_t n,
                                       index_t* count_out, Compare comp = {}, cudaStream_t stream = nullptr,
                                       strategy kind = default_strategy);

template <class Left, class Right, class LeftOut, class RightOut>
cudaError_t sorted_join_from_kept(void* temp_storage, std::size_t& temp_storage_bytes, const void* kept,
                                  std::size_t kept_bytes, Left left, index_t m, Right right, index_t n, index_t pairs,
                                  LeftOut left_out, RightOut right_out, index_t* count_out,
                                  cudaStream_t stream = nullptr, strategy kind = default_strategy);

template <class Left, class Right, class Compare = corank::less>
cudaError_t sorted_join_offsets(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                                index_t n, index_t* lower_out, index_t* offsets_out, index_t* count_out,
                                Compare comp = {}, cudaStream_t stream = nullptr, strategy kind = default_strategy);

template <class LeftOut, class RightOut>
cudaError_t sorted_join_expand(void* temp_storage, std::size_t& temp_storage_bytes, const index_t* lower,
                               const index_t* offsets, index_t m, index_t pairs, LeftOut left_out, RightOut right_out,
                               index_t* count_out, cudaStream_t stream = nullptr, strategy kind = default_strategy);

}  // namespace device

template <class Left, class Right, class Compare = corank::less>
index_t sorted_join_count(Left left_first, Left left_last, Right right_first, Right right_last, Compare comp = {},
                          cudaStream_t stream = nullptr, strategy kind = default_strategy);

template <class Left, class Right, class LeftOut, class RightOut, class Compare = corank::less>
std::pair<LeftOut, RightOut> sorted_join(Left left_first, Left left_last, Right right_first, Right right_last,
                                         LeftOut left_out, RightOut right_out, Compare comp = {},
                                         cudaStream_t stream = nullptr, strategy kind = default_strategy);

}  // namespace corank

#include <corank/detail/join.inl>
