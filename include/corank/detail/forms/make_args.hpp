#pragma once
// Turns the public API's iterators into the kernels' argument block: contiguous device
// iterators become raw pointers (inputs const), `unused` stays as it is.

#include <corank/detail/forms/iterators.hpp>
#include <corank/detail/forms/merge_args.hpp>

namespace corank::detail {

template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class BValuesOut = unused>
auto make_args(KeysA keys_a, index_t size_a, KeysB keys_b, index_t size_b, ValuesA values_a,
               ValuesB values_b, KeysOut keys_out, ValuesOut values_out, BValuesOut b_values_out = {}) {
  auto a = unwrap_input(keys_a);
  auto b = unwrap_input(keys_b);
  auto va = unwrap_input(values_a);
  auto vb = unwrap_input(values_b);
  auto out = unwrap(keys_out);
  auto vout = unwrap(values_out);
  auto bout = unwrap(b_values_out);
  return merge_args<decltype(a), decltype(b), decltype(va), decltype(vb), decltype(out), decltype(vout),
                    decltype(bout)>{a, size_a, b, size_b, va, vb, out, vout, bout};
}

}  // namespace corank::detail
