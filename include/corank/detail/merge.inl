#pragma once
// Bodies of the merge API declared in merge.cuh.

#include <corank/detail/dispatch_merge.cuh>
#include <corank/detail/make_args.hpp>
#include <corank/detail/serial_walk.hpp>
#include <corank/detail/two_phase.hpp>

#include <string>

namespace corank {
namespace detail {

// Convenience forms check first, so that a bad argument gets a sentence, not just a code.
template <class Args>
void throw_on_bad_merge_arguments(const Args& args, const char* context) {
  if (const char* problem = merge_argument_error(args)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  }
}

}  // namespace detail

namespace device {

template <class KeysA, class KeysB, class KeysOut, class Compare>
cudaError_t merge(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a, index_t size_a,
                  KeysB keys_b, index_t size_b, KeysOut keys_out, Compare comp, cudaStream_t stream,
                  strategy kind) {
  return detail::dispatch_merge(temp_storage, temp_storage_bytes, ops::merge_op{},
                                detail::make_args(keys_a, size_a, keys_b, size_b, detail::unused{}, detail::unused{}, keys_out, detail::unused{}),
                                comp, stream, kind);
}

template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
          class Compare>
cudaError_t merge_by_key(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                         ValuesA values_a, index_t size_a, KeysB keys_b, ValuesB values_b,
                         index_t size_b, KeysOut keys_out, ValuesOut values_out, Compare comp,
                         cudaStream_t stream, strategy kind) {
  return detail::dispatch_merge(
      temp_storage, temp_storage_bytes, ops::merge_op{},
      detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out),
      comp, stream, kind);
}

}  // namespace device

template <class KeysA, class KeysB, class KeysOut, class Compare>
KeysOut merge(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out, Compare comp,
              cudaStream_t stream, strategy kind) {
  constexpr const char* context = "corank::merge";
  const index_t size_a = a_last - a_first;
  const index_t size_b = b_last - b_first;
  const auto args = detail::make_args(a_first, size_a, b_first, size_b, detail::unused{}, detail::unused{}, out,
                                      detail::unused{});
  detail::throw_on_bad_merge_arguments(args, context);
  detail::run_two_phase(context, stream, [&](void* temp, std::size_t& bytes) {
    return detail::dispatch_merge(temp, bytes, ops::merge_op{}, args, comp, stream, kind);
  });
  return out + (size_a + size_b);
}

template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class Compare>
std::pair<KeysOut, ValuesOut> merge_by_key(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last,
                                           ValuesA a_values, ValuesB b_values, KeysOut keys_out,
                                           ValuesOut values_out, Compare comp, cudaStream_t stream,
                                           strategy kind) {
  constexpr const char* context = "corank::merge_by_key";
  const index_t size_a = a_last - a_first;
  const index_t size_b = b_last - b_first;
  const auto args = detail::make_args(a_first, size_a, b_first, size_b, a_values, b_values, keys_out, values_out);
  detail::throw_on_bad_merge_arguments(args, context);
  detail::run_two_phase(context, stream, [&](void* temp, std::size_t& bytes) {
    return detail::dispatch_merge(temp, bytes, ops::merge_op{}, args, comp, stream, kind);
  });
  return {keys_out + (size_a + size_b), values_out + (size_a + size_b)};
}

}  // namespace corank

#include <corank/detail/merge_instantiations.hpp>
