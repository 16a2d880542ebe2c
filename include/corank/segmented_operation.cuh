#pragma once
// Running any op (op.hpp) over S segment pairs at once, on the GPU: segment s of A is
// A[a_offsets[s], a_offsets[s + 1]), of B likewise, and the op runs on each pair as the
// runners of operation.cuh run it on two inputs. One launch serves every segment, balanced on
// the total path (segmented_path.hpp), not a block per segment: 2^24 segments of 16 keys, one
// segment holding half the data, and empty segments among huge ones all run alike.
//
//   corank::segmented_keys_operation<corank::ops::set_union_op>{}(
//       a, a_end, a_offsets, b, b_end, b_offsets, segments, out, out_offsets);
//
// ops/corank/segmented.cuh names the merges and set operations as these runners
// (segmented_merge, segmented_set_union_by_key, ...). Runners, in two forms as operation.cuh's:
//   segmented_keys_operation           keys; writes S + 1 output offsets
//   segmented_by_key_operation         keys and values; S + 1 output offsets
//   segmented_count_operation          the S per-segment output sizes, and the total
//   segmented_paired_by_key_operation  values of A and of the matched B; S + 1 output offsets
//
// Every runner, with S segments, A of m elements and B of n:
// - Result: segment s of the output, out[offsets_out[s], offsets_out[s + 1]), is the op's
//   result on A's and B's segment s; offsets_out[0] == 0, offsets_out[S] is the total, which
//   the runners report as operation.cuh's do. count forms write counts_out[s], segment s's size.
// - Preconditions: offsets are S + 1 nondecreasing integers (random-access iterators of 32- or
//   64-bit integers, usable in device code), a_offsets[0] == b_offsets[0] == 0,
//   a_offsets[S] == m and b_offsets[S] == n (not checked). Each segment sorted by `comp`
//   (not checked; see check_sorted.cuh). Outputs as operation.cuh's, and offsets_out holds
//   S + 1 integers (counts_out S), overlapping nothing else. counts_out is a raw pointer to
//   32- or 64-bit integers (the tiles add to it). 0 <= S < 2^63. Ops that see where runs of
//   equal keys start (op.hpp) are not taken yet (a static_assert says so).
// - Complexity: O(m + n) steps of the op and O(S) offsets read and written, plus per tile
//   boundary a search of O(log S) over the segments and a co-rank search inside one.
//   Every input element is read once into a tile; a tile that spans segments stages where
//   they start in shared memory, and writes the output offsets of the segments that start
//   in it.
// - Unsorted segments, a comparator that is not a strict weak order, and offsets that break
//   the preconditions (decreasing, negative, past m or n, not starting at 0 or not ending at
//   m and n: read on the device, not checked) are unsorted composite inputs to the one path:
//   as operation.cuh says, nothing is read outside A, B and the S + 1 offsets of each, or
//   written outside the outputs' bounds (m + n keys, S + 1 offsets, S counts), and every call
//   returns. Where a tile finds its part of the path inconsistent (the split of a diagonal
//   falls outside the segment the offsets give it, or splits go backwards), the two-phase
//   forms write a negative *count_out (merges: m + n, as they cannot say) and the
//   convenience forms throw corank::unsorted_input (input() 0, index() -1); other such inputs
//   give outputs, offsets and counts of unspecified values within those bounds.
// - Errors: as operation.cuh's runners, and cudaErrorInvalidValue (convenience: corank::
//   cuda_error with a sentence) for a negative S or S == 0 with m + n > 0 (in the two-phase
//   query too, as for a negative size), and in the run for null offsets where S > 0 or a
//   null offsets_out (counts_out where S > 0).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <tuple>
#include <utility>

namespace corank {
namespace device {

// The two-phase protocol of operation.cuh: temp_storage == nullptr queries the bytes; a run
// enqueues the kernels on `stream` and returns; the total goes to *count_out in device memory
// (optional, may be null, for ops of known size: the merges; negative where the inputs were
// found unsorted, above). Never allocates, never synchronizes.

template <class Op>
struct segmented_keys_operation {
  Op op{};
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class KeysOut, class OffsetsOut,
            class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                         OffsetsA a_offsets, KeysB keys_b, index_t size_b, OffsetsB b_offsets, index_t segments,
                         KeysOut keys_out, OffsetsOut offsets_out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr) const;
};

template <class Op>
struct segmented_by_key_operation {
  Op op{};
  template <class KeysA, class ValuesA, class OffsetsA, class KeysB, class ValuesB, class OffsetsB, class KeysOut,
            class ValuesOut, class OffsetsOut, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, ValuesA values_a,
                         index_t size_a, OffsetsA a_offsets, KeysB keys_b, ValuesB values_b, index_t size_b,
                         OffsetsB b_offsets, index_t segments, KeysOut keys_out, ValuesOut values_out,
                         OffsetsOut offsets_out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr) const;
};

template <class Op>
struct segmented_count_operation {
  Op op{};
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class Count, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                         OffsetsA a_offsets, KeysB keys_b, index_t size_b, OffsetsB b_offsets, index_t segments,
                         Count* counts_out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr) const;
};

template <class Op>
struct segmented_paired_by_key_operation {
  Op op{};
  template <class KeysA, class ValuesA, class OffsetsA, class KeysB, class ValuesB, class OffsetsB, class KeysOut,
            class ValuesOut, class BValuesOut, class OffsetsOut, class Compare = corank::less>
  cudaError_t operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, ValuesA values_a,
                         index_t size_a, OffsetsA a_offsets, KeysB keys_b, ValuesB values_b, index_t size_b,
                         OffsetsB b_offsets, index_t segments, KeysOut keys_out, ValuesOut values_out,
                         BValuesOut b_values_out, OffsetsOut offsets_out, index_t* count_out, Compare comp = {},
                         cudaStream_t stream = nullptr) const;
};

}  // namespace device

// The convenience runners, as operation.cuh's: check, allocate from corank's pool, run, read
// the total back (so they wait for `stream`), throw corank::cuda_error / out_of_memory /
// unsorted_input.

template <class Op>
struct segmented_keys_operation {
  Op op{};
  const char* name = "corank::segmented_keys_operation";  // says who failed, in errors
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class KeysOut, class OffsetsOut,
            class Compare = corank::less>
  KeysOut operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first, KeysB b_last,
                     OffsetsB b_offsets, index_t segments, KeysOut keys_out, OffsetsOut offsets_out,
                     Compare comp = {}, cudaStream_t stream = nullptr) const;
};

template <class Op>
struct segmented_by_key_operation {
  Op op{};
  const char* name = "corank::segmented_by_key_operation";
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class ValuesA, class ValuesB, class KeysOut,
            class ValuesOut, class OffsetsOut, class Compare = corank::less>
  std::pair<KeysOut, ValuesOut> operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first,
                                           KeysB b_last, OffsetsB b_offsets, index_t segments, ValuesA a_values,
                                           ValuesB b_values, KeysOut keys_out, ValuesOut values_out,
                                           OffsetsOut offsets_out, Compare comp = {},
                                           cudaStream_t stream = nullptr) const;
};

// Returns the total; segment s's size goes to counts_out[s].
template <class Op>
struct segmented_count_operation {
  Op op{};
  const char* name = "corank::segmented_count_operation";
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class Count, class Compare = corank::less>
  index_t operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first, KeysB b_last,
                     OffsetsB b_offsets, index_t segments, Count* counts_out, Compare comp = {},
                     cudaStream_t stream = nullptr) const;
};

template <class Op>
struct segmented_paired_by_key_operation {
  Op op{};
  const char* name = "corank::segmented_paired_by_key_operation";
  template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class ValuesA, class ValuesB, class KeysOut,
            class ValuesOut, class BValuesOut, class OffsetsOut, class Compare = corank::less>
  std::tuple<KeysOut, ValuesOut, BValuesOut> operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets,
                                                        KeysB b_first, KeysB b_last, OffsetsB b_offsets,
                                                        index_t segments, ValuesA a_values, ValuesB b_values,
                                                        KeysOut keys_out, ValuesOut values_out,
                                                        BValuesOut b_values_out, OffsetsOut offsets_out,
                                                        Compare comp = {}, cudaStream_t stream = nullptr) const;
};

template <class Op> segmented_keys_operation(Op) -> segmented_keys_operation<Op>;
template <class Op> segmented_by_key_operation(Op) -> segmented_by_key_operation<Op>;
template <class Op> segmented_count_operation(Op) -> segmented_count_operation<Op>;
template <class Op> segmented_paired_by_key_operation(Op) -> segmented_paired_by_key_operation<Op>;

}  // namespace corank

#include <corank/detail/forms/segmented_operation.inl>
