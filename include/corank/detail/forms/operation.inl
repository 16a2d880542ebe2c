#pragma once
// Bodies of operation.cuh: arguments built, then the dispatcher.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/two_phase.hpp>

namespace corank {
namespace detail {

// A convenience form of an operation: checked, run on the two-phase path, and its output
// size read back (which waits for the stream). Forms that write store the size once (the
// last tile's look-back), straight into the pinned host word; count-only forms add to it.
template <class Op, class Args, class Compare>
index_t run_counted(const char* context, const Op& op, const Args& args, Compare comp, cudaStream_t stream,
                    strategy kind) {
  throw_on_bad_arguments(args, context);
  constexpr result_word where = Args::writes_keys ? result_word::host : result_word::device;
  const index_t count =
      run_two_phase_for_result<where>(context, stream, [&](void* temp, std::size_t& bytes, index_t* count) {
        return dispatch(temp, bytes, op, args, count, comp, stream, kind);
      });
  if (count < 0) throw unsorted_input(context);  // the kernels found the inputs unsorted
  return count;
}

}  // namespace detail

namespace device {

template <class Op>
template <class KeysA, class KeysB, class KeysOut, class Compare>
cudaError_t keys_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                                           index_t size_a, KeysB keys_b, index_t size_b, KeysOut keys_out,
                                           index_t* count_out, Compare comp, cudaStream_t stream,
                                           strategy kind) const {
  using detail::unused;
  return detail::dispatch(temp_storage, temp_storage_bytes, op,
                          detail::make_args(keys_a, size_a, keys_b, size_b, unused{}, unused{}, keys_out, unused{}),
                          count_out, comp, stream, kind);
}

template <class Op>
template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut, class Compare>
cudaError_t by_key_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                                             ValuesA values_a, index_t size_a, KeysB keys_b, ValuesB values_b,
                                             index_t size_b, KeysOut keys_out, ValuesOut values_out,
                                             index_t* count_out, Compare comp, cudaStream_t stream,
                                             strategy kind) const {
  return detail::dispatch(temp_storage, temp_storage_bytes, op,
                          detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out),
                          count_out, comp, stream, kind);
}

template <class Op>
template <class KeysA, class KeysB, class Compare>
cudaError_t count_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                                            index_t size_a, KeysB keys_b, index_t size_b, index_t* count_out,
                                            Compare comp, cudaStream_t stream, strategy kind) const {
  using detail::unused;
  return detail::dispatch(temp_storage, temp_storage_bytes, op,
                          detail::make_args(keys_a, size_a, keys_b, size_b, unused{}, unused{}, unused{}, unused{}),
                          count_out, comp, stream, kind);
}

template <class Op>
template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
          class BValuesOut, class Compare>
cudaError_t paired_by_key_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes,
                                                    KeysA keys_a, ValuesA values_a, index_t size_a,
                                                    KeysB keys_b, ValuesB values_b, index_t size_b,
                                                    KeysOut keys_out, ValuesOut values_out,
                                                    BValuesOut b_values_out, index_t* count_out,
                                                    Compare comp, cudaStream_t stream, strategy kind) const {
  return detail::dispatch(
      temp_storage, temp_storage_bytes, op,
      detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out, b_values_out),
      count_out, comp, stream, kind);
}

}  // namespace device

template <class Op>
template <class KeysA, class KeysB, class KeysOut, class Compare>
KeysOut keys_operation<Op>::operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
                                       Compare comp, cudaStream_t stream, strategy kind) const {
  using detail::unused;
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      unused{}, unused{}, out, unused{});
  return out + detail::run_counted(name, op, args, comp, stream, kind);
}

template <class Op>
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut, class Compare>
std::pair<KeysOut, ValuesOut> by_key_operation<Op>::operator()(KeysA a_first, KeysA a_last, KeysB b_first,
                                                               KeysB b_last, ValuesA a_values, ValuesB b_values,
                                                               KeysOut keys_out, ValuesOut values_out,
                                                               Compare comp, cudaStream_t stream,
                                                               strategy kind) const {
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      a_values, b_values, keys_out, values_out);
  const index_t count = detail::run_counted(name, op, args, comp, stream, kind);
  return {keys_out + count, values_out + count};
}

template <class Op>
template <class KeysA, class KeysB, class Compare>
index_t count_operation<Op>::operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp,
                                        cudaStream_t stream, strategy kind) const {
  using detail::unused;
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      unused{}, unused{}, unused{}, unused{});
  return detail::run_counted(name, op, args, comp, stream, kind);
}

template <class Op>
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class BValuesOut, class Compare>
std::tuple<KeysOut, ValuesOut, BValuesOut> paired_by_key_operation<Op>::operator()(
    KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, ValuesA a_values, ValuesB b_values,
    KeysOut keys_out, ValuesOut values_out, BValuesOut b_values_out, Compare comp, cudaStream_t stream,
    strategy kind) const {
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      a_values, b_values, keys_out, values_out, b_values_out);
  const index_t count = detail::run_counted(name, op, args, comp, stream, kind);
  return {keys_out + count, values_out + count, b_values_out + count};
}

}  // namespace corank
