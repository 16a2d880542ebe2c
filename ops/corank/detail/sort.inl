#pragma once
// Bodies of sort.cuh: the arguments built, then the multiway dispatcher (multiway_dispatch.cuh).

#include <corank/detail/dispatch/multiway_dispatch.cuh>
#include <corank/detail/forms/iterators.hpp>
#include <corank/detail/forms/multiway_args.hpp>
#include <corank/detail/forms/two_phase.hpp>

#include <string>

namespace corank {
namespace detail {

// A sort's arguments: iterators unwrapped, outputs as raw pointers (contiguous_output).
template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut>
auto make_sort_args(KeysIn keys_in, ValuesIn values_in, KeysOut keys_out, ValuesOut values_out, index_t n) {
  if constexpr (is_used_v<ValuesIn>) {
    return make_multiway_args(sort_input<decltype(unwrap_input(keys_in)), decltype(unwrap_input(values_in))>{
                                  unwrap_input(keys_in), unwrap_input(values_in)},
                              0, n, contiguous_output(keys_out), contiguous_output(values_out));
  } else {
    return make_multiway_args(sort_input<decltype(unwrap_input(keys_in)), unused>{unwrap_input(keys_in), unused{}}, 0,
                              n, contiguous_output(keys_out), static_cast<unused*>(nullptr));
  }
}

// A convenience sort: checked, then run with storage from the pool; returns without waiting.
template <class Args, class Compare>
void run_sort(const char* context, const Args& args, Compare comp, cudaStream_t stream) {
  if (const char* problem = multiway_argument_error(args, true))
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  run_from_pool(context, stream,
                [&](pool_storage& storage) { return dispatch_multiway(storage, args, comp, stream); });
}

}  // namespace detail

namespace device {

template <class Keys, class Compare>
cudaError_t stable_sort(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys, index_t n, Compare comp,
                        cudaStream_t stream) {
  return detail::dispatch_multiway(temp_storage, temp_storage_bytes,
                                   detail::make_sort_args(keys, detail::unused{}, keys, detail::unused{}, n), comp,
                                   stream);
}

template <class KeysIn, class KeysOut, class Compare>
cudaError_t stable_sort_copy(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in, KeysOut keys_out,
                             index_t n, Compare comp, cudaStream_t stream) {
  return detail::dispatch_multiway(temp_storage, temp_storage_bytes,
                                   detail::make_sort_args(keys_in, detail::unused{}, keys_out, detail::unused{}, n),
                                   comp, stream);
}

template <class Keys, class Values, class Compare>
cudaError_t stable_sort_by_key(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys, Values values,
                               index_t n, Compare comp, cudaStream_t stream) {
  return detail::dispatch_multiway(temp_storage, temp_storage_bytes,
                                   detail::make_sort_args(keys, values, keys, values, n), comp, stream);
}

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
cudaError_t stable_sort_by_key_copy(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                                    ValuesIn values_in, KeysOut keys_out, ValuesOut values_out, index_t n,
                                    Compare comp, cudaStream_t stream) {
  return detail::dispatch_multiway(temp_storage, temp_storage_bytes,
                                   detail::make_sort_args(keys_in, values_in, keys_out, values_out, n), comp, stream);
}

}  // namespace device

template <class Keys, class Compare>
void stable_sort(Keys first, Keys last, Compare comp, cudaStream_t stream) {
  const index_t n = last - first;
  detail::run_sort("corank::stable_sort", detail::make_sort_args(first, detail::unused{}, first, detail::unused{}, n),
                   comp, stream);
}

template <class KeysIn, class KeysOut, class Compare>
KeysOut stable_sort_copy(KeysIn first, KeysIn last, KeysOut out, Compare comp, cudaStream_t stream) {
  const index_t n = last - first;
  detail::run_sort("corank::stable_sort_copy", detail::make_sort_args(first, detail::unused{}, out, detail::unused{}, n),
                   comp, stream);
  return out + n;
}

template <class Keys, class Values, class Compare>
void stable_sort_by_key(Keys first, Keys last, Values values, Compare comp, cudaStream_t stream) {
  const index_t n = last - first;
  detail::run_sort("corank::stable_sort_by_key", detail::make_sort_args(first, values, first, values, n), comp, stream);
}

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
std::pair<KeysOut, ValuesOut> stable_sort_by_key_copy(KeysIn first, KeysIn last, ValuesIn values, KeysOut keys_out,
                                                      ValuesOut values_out, Compare comp, cudaStream_t stream) {
  const index_t n = last - first;
  detail::run_sort("corank::stable_sort_by_key_copy", detail::make_sort_args(first, values, keys_out, values_out, n),
                   comp, stream);
  return {keys_out + n, values_out + n};
}

}  // namespace corank
