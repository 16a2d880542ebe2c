#pragma once
// Bodies of the merge API declared in merge.cuh: arguments built, then the dispatcher.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/two_phase.hpp>

namespace corank {
namespace detail {

// A convenience merge: checked, then run on the two-phase path; returns without waiting.
template <class Args, class Compare>
void run_merge(const char* context, const Args& args, Compare comp, cudaStream_t stream, strategy kind) {
  throw_on_bad_arguments(args, context);
  run_two_phase(context, stream, [&](void* temp, std::size_t& bytes, index_t*) {
    return dispatch(temp, bytes, ops::merge_op{}, args, nullptr, comp, stream, kind);
  });
}

}  // namespace detail

namespace device {

template <class KeysA, class KeysB, class KeysOut, class Compare>
cudaError_t merge(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                  KeysB keys_b, index_t size_b, KeysOut keys_out, Compare comp, cudaStream_t stream,
                  strategy kind) {
  using detail::unused;
  return detail::dispatch(temp_storage, temp_storage_bytes, ops::merge_op{},
                          detail::make_args(keys_a, size_a, keys_b, size_b, unused{}, unused{}, keys_out, unused{}),
                          nullptr, comp, stream, kind);
}

template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
          class Compare>
cudaError_t merge_by_key(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                         ValuesA values_a, index_t size_a, KeysB keys_b, ValuesB values_b,
                         index_t size_b, KeysOut keys_out, ValuesOut values_out, Compare comp,
                         cudaStream_t stream, strategy kind) {
  return detail::dispatch(temp_storage, temp_storage_bytes, ops::merge_op{},
                          detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out),
                          nullptr, comp, stream, kind);
}

}  // namespace device

template <class KeysA, class KeysB, class KeysOut, class Compare>
KeysOut merge(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out, Compare comp,
              cudaStream_t stream, strategy kind) {
  using detail::unused;
  const index_t size_a = a_last - a_first;
  const index_t size_b = b_last - b_first;
  detail::run_merge("corank::merge",
                    detail::make_args(a_first, size_a, b_first, size_b, unused{}, unused{}, out, unused{}), comp,
                    stream, kind);
  return out + (size_a + size_b);
}

template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class Compare>
std::pair<KeysOut, ValuesOut> merge_by_key(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp, cudaStream_t stream,
                                           strategy kind) {
  const index_t size_a = a_last - a_first;
  const index_t size_b = b_last - b_first;
  detail::run_merge("corank::merge_by_key",
                    detail::make_args(a_first, size_a, b_first, size_b, a_values, b_values, keys_out, values_out),
                    comp, stream, kind);
  return {keys_out + (size_a + size_b), values_out + (size_a + size_b)};
}

}  // namespace corank

#include <corank/detail/merge_instantiations.hpp>
