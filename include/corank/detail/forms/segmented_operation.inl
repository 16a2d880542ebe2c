#pragma once
// Bodies of segmented_operation.cuh: the two-input arguments, the segments added
// (segmented_args.hpp), then the dispatcher, as operation.inl does.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/segmented_args.hpp>
#include <corank/operation.cuh>

namespace corank {
namespace detail {

// Segmented forms run one kernel whatever the strategy: the split pass and a block per tile.
inline constexpr strategy segmented_strategy = strategy::partitioned;

template <class Base, class OffsetsA, class OffsetsB, class SegmentsOut>
auto make_segmented(const Base& base, OffsetsA a_offsets, OffsetsB b_offsets, index_t segments,
                    SegmentsOut segments_out) {
  return make_segmented_args(base, unwrap_input(a_offsets), unwrap_input(b_offsets), segments, unwrap(segments_out));
}

// The two-phase forms: the segment count checked in the query as in the run (the dispatcher's
// query looks at the two inputs' sizes only), then the dispatcher.
template <class Op, class Args, class Compare>
cudaError_t dispatch_segmented(void* temp_storage, std::size_t& temp_storage_bytes, const Op& op, const Args& args,
                               index_t* count_out, Compare comp, cudaStream_t stream) {
  if (args.segment_count_error() != nullptr) return cudaErrorInvalidValue;
  return dispatch(temp_storage, temp_storage_bytes, op, args, count_out, comp, stream, segmented_strategy);
}

}  // namespace detail

namespace device {

template <class Op>
template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class KeysOut, class OffsetsOut, class Compare>
cudaError_t segmented_keys_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes,
                                                     KeysA keys_a, index_t size_a, OffsetsA a_offsets, KeysB keys_b,
                                                     index_t size_b, OffsetsB b_offsets, index_t segments,
                                                     KeysOut keys_out, OffsetsOut offsets_out, index_t* count_out,
                                                     Compare comp, cudaStream_t stream) const {
  using detail::unused;
  const auto base = detail::make_args(keys_a, size_a, keys_b, size_b, unused{}, unused{}, keys_out, unused{});
  return detail::dispatch_segmented(temp_storage, temp_storage_bytes, op,
                                    detail::make_segmented(base, a_offsets, b_offsets, segments, offsets_out),
                                    count_out, comp, stream);
}

template <class Op>
template <class KeysA, class ValuesA, class OffsetsA, class KeysB, class ValuesB, class OffsetsB, class KeysOut,
          class ValuesOut, class OffsetsOut, class Compare>
cudaError_t segmented_by_key_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes,
                                                       KeysA keys_a, ValuesA values_a, index_t size_a,
                                                       OffsetsA a_offsets, KeysB keys_b, ValuesB values_b,
                                                       index_t size_b, OffsetsB b_offsets, index_t segments,
                                                       KeysOut keys_out, ValuesOut values_out,
                                                       OffsetsOut offsets_out, index_t* count_out, Compare comp,
                                                       cudaStream_t stream) const {
  const auto base = detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out);
  return detail::dispatch_segmented(temp_storage, temp_storage_bytes, op,
                                    detail::make_segmented(base, a_offsets, b_offsets, segments, offsets_out),
                                    count_out, comp, stream);
}

template <class Op>
template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class Count, class Compare>
cudaError_t segmented_count_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes,
                                                      KeysA keys_a, index_t size_a, OffsetsA a_offsets, KeysB keys_b,
                                                      index_t size_b, OffsetsB b_offsets, index_t segments,
                                                      Count* counts_out, index_t* count_out, Compare comp,
                                                      cudaStream_t stream) const {
  using detail::unused;
  const auto base = detail::make_args(keys_a, size_a, keys_b, size_b, unused{}, unused{}, unused{}, unused{});
  return detail::dispatch_segmented(temp_storage, temp_storage_bytes, op,
                                    detail::make_segmented(base, a_offsets, b_offsets, segments, counts_out),
                                    count_out, comp, stream);
}

template <class Op>
template <class KeysA, class ValuesA, class OffsetsA, class KeysB, class ValuesB, class OffsetsB, class KeysOut,
          class ValuesOut, class BValuesOut, class OffsetsOut, class Compare>
cudaError_t segmented_paired_by_key_operation<Op>::operator()(
    void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, ValuesA values_a, index_t size_a,
    OffsetsA a_offsets, KeysB keys_b, ValuesB values_b, index_t size_b, OffsetsB b_offsets, index_t segments,
    KeysOut keys_out, ValuesOut values_out, BValuesOut b_values_out, OffsetsOut offsets_out, index_t* count_out,
    Compare comp, cudaStream_t stream) const {
  const auto base =
      detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out, b_values_out);
  return detail::dispatch_segmented(temp_storage, temp_storage_bytes, op,
                                    detail::make_segmented(base, a_offsets, b_offsets, segments, offsets_out),
                                    count_out, comp, stream);
}

}  // namespace device

template <class Op>
template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class KeysOut, class OffsetsOut, class Compare>
KeysOut segmented_keys_operation<Op>::operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first,
                                                 KeysB b_last, OffsetsB b_offsets, index_t segments,
                                                 KeysOut keys_out, OffsetsOut offsets_out, Compare comp,
                                                 cudaStream_t stream) const {
  using detail::unused;
  const auto base = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      unused{}, unused{}, keys_out, unused{});
  const auto args = detail::make_segmented(base, a_offsets, b_offsets, segments, offsets_out);
  return keys_out + detail::run_counted(name, op, args, comp, stream, detail::segmented_strategy);
}

template <class Op>
template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class ValuesA, class ValuesB, class KeysOut,
          class ValuesOut, class OffsetsOut, class Compare>
std::pair<KeysOut, ValuesOut> segmented_by_key_operation<Op>::operator()(
    KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first, KeysB b_last, OffsetsB b_offsets,
    index_t segments, ValuesA a_values, ValuesB b_values, KeysOut keys_out, ValuesOut values_out,
    OffsetsOut offsets_out, Compare comp, cudaStream_t stream) const {
  const auto base = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      a_values, b_values, keys_out, values_out);
  const auto args = detail::make_segmented(base, a_offsets, b_offsets, segments, offsets_out);
  const index_t count = detail::run_counted(name, op, args, comp, stream, detail::segmented_strategy);
  return {keys_out + count, values_out + count};
}

template <class Op>
template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class Count, class Compare>
index_t segmented_count_operation<Op>::operator()(KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first,
                                                  KeysB b_last, OffsetsB b_offsets, index_t segments,
                                                  Count* counts_out, Compare comp, cudaStream_t stream) const {
  using detail::unused;
  const auto base = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      unused{}, unused{}, unused{}, unused{});
  const auto args = detail::make_segmented(base, a_offsets, b_offsets, segments, counts_out);
  return detail::run_counted(name, op, args, comp, stream, detail::segmented_strategy);
}

template <class Op>
template <class KeysA, class OffsetsA, class KeysB, class OffsetsB, class ValuesA, class ValuesB, class KeysOut,
          class ValuesOut, class BValuesOut, class OffsetsOut, class Compare>
std::tuple<KeysOut, ValuesOut, BValuesOut> segmented_paired_by_key_operation<Op>::operator()(
    KeysA a_first, KeysA a_last, OffsetsA a_offsets, KeysB b_first, KeysB b_last, OffsetsB b_offsets,
    index_t segments, ValuesA a_values, ValuesB b_values, KeysOut keys_out, ValuesOut values_out,
    BValuesOut b_values_out, OffsetsOut offsets_out, Compare comp, cudaStream_t stream) const {
  const auto base = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      a_values, b_values, keys_out, values_out, b_values_out);
  const auto args = detail::make_segmented(base, a_offsets, b_offsets, segments, offsets_out);
  const index_t count = detail::run_counted(name, op, args, comp, stream, detail::segmented_strategy);
  return {keys_out + count, values_out + count, b_values_out + count};
}

}  // namespace corank
