#pragma once
// Bodies of merge_runs.cuh: the arguments built, then the multiway dispatcher
// (multiway_dispatch.cuh).

#include <corank/detail/dispatch/multiway_dispatch.cuh>
#include <corank/detail/forms/iterators.hpp>
#include <corank/detail/forms/multiway_args.hpp>
#include <corank/detail/forms/temporary_pool.hpp>
#include <corank/detail/forms/two_phase.hpp>

#include <limits>
#include <string>
#include <type_traits>

namespace corank {
namespace detail {

// A k-way merge's arguments over runs by offsets: iterators unwrapped, outputs as raw
// pointers (contiguous_output); Values `unused`: keys only.
template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut>
auto make_offset_runs_args(KeysIn keys_in, ValuesIn values_in, Offsets offsets, index_t runs, index_t size,
                           KeysOut keys_out, ValuesOut values_out) {
  using keys_t = decltype(unwrap_input(keys_in));
  using offsets_t = decltype(unwrap_input(offsets));
  if constexpr (is_used_v<ValuesIn>) {
    using values_t = decltype(unwrap_input(values_in));
    return make_multiway_args(
        offset_runs_input<keys_t, values_t, offsets_t>{unwrap_input(keys_in), unwrap_input(values_in),
                                                        unwrap_input(offsets)},
        runs, size, contiguous_output(keys_out), contiguous_output(values_out));
  } else {
    return make_multiway_args(
        offset_runs_input<keys_t, unused, offsets_t>{unwrap_input(keys_in), unused{}, unwrap_input(offsets)}, runs,
        size, contiguous_output(keys_out), static_cast<unused*>(nullptr));
  }
}

// A k-way merge's arguments over a list of runs (device arrays); Value `unused`: keys only.
template <class Key, class Value, class Sizes, class KeysOut, class ValuesOut>
auto make_run_list_args(const Key* const* run_keys, const Value* const* run_values, Sizes run_sizes, index_t runs,
                        index_t size, KeysOut keys_out, ValuesOut values_out) {
  using sizes_t = decltype(unwrap_input(run_sizes));
  const run_list_input<Key, Value, sizes_t> input{run_keys, run_values, unwrap_input(run_sizes)};
  if constexpr (is_used_v<Value>) {
    return make_multiway_args(input, runs, size, contiguous_output(keys_out), contiguous_output(values_out));
  } else {
    return make_multiway_args(input, runs, size, contiguous_output(keys_out), static_cast<unused*>(nullptr));
  }
}

// A convenience k-way merge: checked, then run with storage from the pool; returns without waiting.
template <class Args, class Compare>
void run_merge_runs(const char* context, const Args& args, Compare comp, cudaStream_t stream) {
  if (const char* problem = multiway_argument_error(args, true))
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  run_from_pool(context, stream,
                [&](pool_storage& storage) { return dispatch_multiway(storage, args, comp, stream); });
}

inline void throw_on_bad_runs(const char* context, index_t runs, index_t size, bool null_input, bool null_output) {
  const char* problem = merge_runs_size_error(runs, size);
  if (problem == nullptr && null_input) problem = "an input is a null pointer where there is something to read";
  if (problem == nullptr && null_output) problem = "an output is a null pointer with a nonzero size";
  if (problem != nullptr) throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
}

// The convenience merge_run_list: the host's lists copied to device memory, then the two
// phases; everything freed in stream order.
template <class Key, class Value, class KeysOut, class ValuesOut, class Compare>
void run_merge_run_list(const char* context, const Key* const* run_keys, const Value* const* run_values,
                        const index_t* run_sizes, index_t runs, KeysOut keys_out, ValuesOut values_out,
                        Compare comp, cudaStream_t stream, index_t& size) {
  constexpr bool with_values = !std::is_same_v<Value, unused>;
  const bool lists_missing = runs > 0 && (run_keys == nullptr || run_sizes == nullptr ||
                                          (with_values && run_values == nullptr));
  throw_on_bad_runs(context, runs, 0, lists_missing, false);
  size = 0;
  for (index_t j = 0; j < runs; ++j) {
    if (run_sizes[j] < 0) throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": a run's size is negative");
    if (run_sizes[j] > std::numeric_limits<index_t>::max() - size)
      throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": the sizes' sum does not fit in 64 bits");
    if (run_sizes[j] > 0 && (run_keys[j] == nullptr || (with_values && run_values[j] == nullptr)))
      throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": a run is a null pointer with a nonzero size");
    size += run_sizes[j];
  }
  bool null_output = size > 0 && is_null(unwrap(keys_out));
  if constexpr (with_values) null_output = null_output || (size > 0 && is_null(unwrap(values_out)));
  throw_on_bad_runs(context, runs, size, false, null_output);
  if (runs == 0 || size == 0) return;
  const std::size_t list_bytes = std::size_t(runs) * sizeof(void*);
  void* lists = nullptr;
  CORANK_TRY(allocate_temporary(&lists, (with_values ? 3 : 2) * list_bytes, stream), context);
  auto* keys_on_device = static_cast<const Key**>(lists);
  auto* sizes_on_device = reinterpret_cast<index_t*>(static_cast<char*>(lists) + list_bytes);
  auto* values_on_device = reinterpret_cast<const Value**>(static_cast<char*>(lists) + 2 * list_bytes);
  cudaError_t e = cudaMemcpyAsync(keys_on_device, run_keys, list_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(sizes_on_device, run_sizes, list_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess && with_values)
    e = cudaMemcpyAsync(values_on_device, run_values, list_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    try {
      run_merge_runs(context,
                     make_run_list_args(static_cast<const Key* const*>(keys_on_device),
                                        static_cast<const Value* const*>(with_values ? values_on_device : nullptr),
                                        static_cast<const index_t*>(sizes_on_device), runs, size, keys_out,
                                        values_out),
                     comp, stream);
    } catch (...) {
      cudaFreeAsync(lists, stream);
      throw;
    }
  }
  const cudaError_t freed = cudaFreeAsync(lists, stream);
  CORANK_TRY(e, context);
  CORANK_TRY(freed, context);
}

}  // namespace detail

namespace device {

template <class KeysIn, class Offsets, class KeysOut, class Compare>
cudaError_t merge_runs(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in, Offsets offsets,
                       index_t runs, index_t size, KeysOut keys_out, Compare comp, cudaStream_t stream) {
  return detail::dispatch_multiway(
      temp_storage, temp_storage_bytes,
      detail::make_offset_runs_args(keys_in, detail::unused{}, offsets, runs, size, keys_out, detail::unused{}), comp,
      stream);
}

template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare>
cudaError_t merge_runs_by_key(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                              ValuesIn values_in, Offsets offsets, index_t runs, index_t size, KeysOut keys_out,
                              ValuesOut values_out, Compare comp, cudaStream_t stream) {
  return detail::dispatch_multiway(
      temp_storage, temp_storage_bytes,
      detail::make_offset_runs_args(keys_in, values_in, offsets, runs, size, keys_out, values_out), comp, stream);
}

template <class Key, class Sizes, class KeysOut, class Compare>
cudaError_t merge_run_list(void* temp_storage, std::size_t& temp_storage_bytes, const Key* const* run_keys,
                           Sizes run_sizes, index_t runs, index_t size, KeysOut keys_out, Compare comp,
                           cudaStream_t stream) {
  return detail::dispatch_multiway(temp_storage, temp_storage_bytes,
                                   detail::make_run_list_args(run_keys,
                                                              static_cast<const detail::unused* const*>(nullptr),
                                                              run_sizes, runs, size, keys_out, detail::unused{}),
                                   comp, stream);
}

template <class Key, class Value, class Sizes, class KeysOut, class ValuesOut, class Compare>
cudaError_t merge_run_list_by_key(void* temp_storage, std::size_t& temp_storage_bytes, const Key* const* run_keys,
                                  const Value* const* run_values, Sizes run_sizes, index_t runs, index_t size,
                                  KeysOut keys_out, ValuesOut values_out, Compare comp, cudaStream_t stream) {
  return detail::dispatch_multiway(
      temp_storage, temp_storage_bytes,
      detail::make_run_list_args(run_keys, run_values, run_sizes, runs, size, keys_out, values_out), comp, stream);
}

}  // namespace device

template <class KeysIn, class Offsets, class KeysOut, class Compare>
KeysOut merge_runs(KeysIn keys_in, Offsets offsets, index_t runs, index_t size, KeysOut keys_out, Compare comp,
                   cudaStream_t stream) {
  detail::run_merge_runs(
      "corank::merge_runs",
      detail::make_offset_runs_args(keys_in, detail::unused{}, offsets, runs, size, keys_out, detail::unused{}), comp,
      stream);
  return keys_out + size;
}

template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare>
std::pair<KeysOut, ValuesOut> merge_runs_by_key(KeysIn keys_in, ValuesIn values_in, Offsets offsets, index_t runs,
                                                index_t size, KeysOut keys_out, ValuesOut values_out, Compare comp,
                                                cudaStream_t stream) {
  detail::run_merge_runs("corank::merge_runs_by_key",
                         detail::make_offset_runs_args(keys_in, values_in, offsets, runs, size, keys_out, values_out),
                         comp, stream);
  return {keys_out + size, values_out + size};
}

template <class Key, class KeysOut, class Compare>
KeysOut merge_run_list(const Key* const* run_keys, const index_t* run_sizes, index_t runs, KeysOut keys_out,
                       Compare comp, cudaStream_t stream) {
  index_t size = 0;
  detail::run_merge_run_list("corank::merge_run_list", run_keys, static_cast<const detail::unused* const*>(nullptr),
                             run_sizes, runs, keys_out, detail::unused{}, comp, stream, size);
  return keys_out + size;
}

template <class Key, class Value, class KeysOut, class ValuesOut, class Compare>
std::pair<KeysOut, ValuesOut> merge_run_list_by_key(const Key* const* run_keys, const Value* const* run_values,
                                                    const index_t* run_sizes, index_t runs, KeysOut keys_out,
                                                    ValuesOut values_out, Compare comp, cudaStream_t stream) {
  index_t size = 0;
  detail::run_merge_run_list("corank::merge_run_list_by_key", run_keys, run_values, run_sizes, runs, keys_out,
                             values_out, comp, stream, size);
  return {keys_out + size, values_out + size};
}

}  // namespace corank
