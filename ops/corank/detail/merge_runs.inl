#pragma once
// Bodies of merge_runs.cuh: the runs described, then the passes (multiway_dispatch.cuh).

#include <corank/detail/iterators.hpp>
#include <corank/detail/multiway_dispatch.cuh>
#include <corank/detail/temporary_pool.hpp>
#include <corank/detail/two_phase.hpp>

#include <limits>
#include <string>
#include <type_traits>

namespace corank {
namespace detail {

// The passes over runs whose positions in the output are `relative` (runs + 1 entries);
// `keys` and `values` read the first pass's input. Value is `unused` for keys only.
template <class KeyRuns, class ValueRuns, class Key, class Value, class Compare>
cudaError_t merge_run_passes(temporary_arena& temp, const KeyRuns& keys, const ValueRuns& values,
                             const index_t* relative, index_t runs, index_t size, Key* keys_out, Value* values_out,
                             Compare comp, cudaStream_t stream) {
  pass_plan plan = plan_passes(runs);
  if (plan.passes == 0) plan = {1, 1};  // one run: a copy, by the same tiles
  const int stages = plan.passes;
  Key* key_buffer = stages > 1 ? temp.take<Key>(size) : nullptr;
  Value* value_buffer = nullptr;
  if constexpr (is_used_v<Value>) value_buffer = stages > 1 ? temp.take<Value>(size) : nullptr;
  const std::size_t start = temp.used;
  cudaError_t e = cudaSuccess;
  if constexpr (is_used_v<Value>) {
    e = merge_groups(temp, keys, values, relative, runs, size, plan.group, stage_output(stages, 0, keys_out, key_buffer),
                     stage_output(stages, 0, values_out, value_buffer), comp, stream);
  } else {
    e = merge_groups(temp, keys, unused{}, relative, runs, size, plan.group,
                     stage_output(stages, 0, keys_out, key_buffer), unused{}, comp, stream);
  }
  if (e != cudaSuccess) return e;
  const std::size_t high = temp.used;
  temp.used = start;  // the first pass's samples are dead once it has run
  e = later_passes(temp, plan, stages, 0, 1, relative, runs, size, keys_out, key_buffer, values_out, value_buffer,
                   comp, stream);
  temp.used = temp.used > high ? temp.used : high;
  return e;
}

// What is wrong with a k-way merge's sizes, or nullptr; pointers are checked in a run only.
inline const char* merge_runs_size_error(index_t runs, index_t size) {
  if (runs < 0) return "the number of runs is negative";
  if (size < 0) return "the size is negative";
  if (runs >= index_t(std::numeric_limits<int>::max()) * max_group) return "too many runs";
  return nullptr;
}

template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare>
cudaError_t merge_runs_two_phase(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                                 ValuesIn values_in, Offsets offsets, index_t runs, index_t size, KeysOut keys_out,
                                 ValuesOut values_out, Compare comp, cudaStream_t stream) {
  if (merge_runs_size_error(runs, size)) return cudaErrorInvalidValue;
  const auto in = unwrap_input(keys_in);
  const auto offsets_in = unwrap_input(offsets);
  auto out = contiguous_output(keys_out);
  if (temp_storage != nullptr) {
    if (runs > 0 && is_null(offsets_in)) return cudaErrorInvalidValue;
    if (size > 0 && (is_null(in) || is_null(out))) return cudaErrorInvalidValue;
  }
  auto stages = [&](temporary_arena& temp, auto values, auto values_to) -> cudaError_t {
    if (size == 0 || runs == 0) return cudaSuccess;
    index_t* absolute = temp.take<index_t>(runs + 1);
    index_t* relative = temp.take<index_t>(runs + 1);
    if (temp.runs()) launch_caller_offsets(offsets_in, runs, size, absolute, relative, stream);
    const contiguous_runs<std::remove_const_t<decltype(in)>> key_runs{in, absolute};
    if constexpr (is_used_v<decltype(values)>) {
      return merge_run_passes(temp, key_runs, contiguous_runs<decltype(values)>{values, absolute}, relative, runs,
                              size, out, values_to, comp, stream);
    } else {
      return merge_run_passes(temp, key_runs, unused{}, relative, runs, size, out, values_to, comp, stream);
    }
  };
  if constexpr (is_used_v<ValuesIn>) {
    const auto values = unwrap_input(values_in);
    auto values_to = contiguous_output(values_out);
    if (temp_storage != nullptr && size > 0 && (is_null(values) || is_null(values_to))) return cudaErrorInvalidValue;
    return run_in_arena(temp_storage, temp_storage_bytes,
                        [&](temporary_arena& temp) { return stages(temp, values, values_to); });
  } else {
    return run_in_arena(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
      return stages(temp, unused{}, static_cast<unused*>(nullptr));
    });
  }
}

template <class Key, class Value, class Sizes, class KeysOut, class ValuesOut, class Compare>
cudaError_t merge_run_list_two_phase(void* temp_storage, std::size_t& temp_storage_bytes, const Key* const* run_keys,
                                     const Value* const* run_values, Sizes run_sizes, index_t runs, index_t size,
                                     KeysOut keys_out, ValuesOut values_out, Compare comp, cudaStream_t stream) {
  if (merge_runs_size_error(runs, size)) return cudaErrorInvalidValue;
  const auto sizes = unwrap_input(run_sizes);
  auto out = contiguous_output(keys_out);
  constexpr bool with_values = !std::is_same_v<Value, unused>;
  if (temp_storage != nullptr) {
    if (runs > 0 && (run_keys == nullptr || is_null(sizes))) return cudaErrorInvalidValue;
    if (size > 0 && is_null(out)) return cudaErrorInvalidValue;
    if (with_values && runs > 0 && run_values == nullptr) return cudaErrorInvalidValue;
  }
  auto values_to = [&] {
    if constexpr (with_values) {
      return contiguous_output(values_out);
    } else {
      return static_cast<unused*>(nullptr);
    }
  }();
  if constexpr (with_values) {
    if (temp_storage != nullptr && size > 0 && is_null(values_to)) return cudaErrorInvalidValue;
  }
  return run_in_arena(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) -> cudaError_t {
    if (size == 0 || runs == 0) return cudaSuccess;
    index_t* relative = temp.take<index_t>(runs + 1);
    // Negative sizes count as empty runs and the sums stop at `size`: runs within the output
    // whatever the device's sizes hold.
    if (temp.runs())
      launch_exclusive_sums(listed_size<std::remove_const_t<decltype(sizes)>>{sizes}, runs, relative, stream, size);
    if constexpr (with_values) {
      return merge_run_passes(temp, listed_runs<Key>{run_keys}, listed_runs<Value>{run_values}, relative, runs, size,
                              out, values_to, comp, stream);
    } else {
      return merge_run_passes(temp, listed_runs<Key>{run_keys}, unused{}, relative, runs, size, out, values_to, comp,
                              stream);
    }
  });
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
      run_two_phase(context, stream, [&](void* temp, std::size_t& bytes, index_t*) {
        return merge_run_list_two_phase(temp, bytes, keys_on_device, with_values ? values_on_device : nullptr,
                                        static_cast<const index_t*>(sizes_on_device), runs, size, keys_out,
                                        values_out, comp, stream);
      });
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
  return detail::merge_runs_two_phase(temp_storage, temp_storage_bytes, keys_in, detail::unused{}, offsets, runs,
                                      size, keys_out, detail::unused{}, comp, stream);
}

template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare>
cudaError_t merge_runs_by_key(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                              ValuesIn values_in, Offsets offsets, index_t runs, index_t size, KeysOut keys_out,
                              ValuesOut values_out, Compare comp, cudaStream_t stream) {
  return detail::merge_runs_two_phase(temp_storage, temp_storage_bytes, keys_in, values_in, offsets, runs, size,
                                      keys_out, values_out, comp, stream);
}

template <class Key, class Sizes, class KeysOut, class Compare>
cudaError_t merge_run_list(void* temp_storage, std::size_t& temp_storage_bytes, const Key* const* run_keys,
                           Sizes run_sizes, index_t runs, index_t size, KeysOut keys_out, Compare comp,
                           cudaStream_t stream) {
  return detail::merge_run_list_two_phase(temp_storage, temp_storage_bytes, run_keys,
                                          static_cast<const detail::unused* const*>(nullptr), run_sizes, runs, size,
                                          keys_out, detail::unused{}, comp, stream);
}

template <class Key, class Value, class Sizes, class KeysOut, class ValuesOut, class Compare>
cudaError_t merge_run_list_by_key(void* temp_storage, std::size_t& temp_storage_bytes, const Key* const* run_keys,
                                  const Value* const* run_values, Sizes run_sizes, index_t runs, index_t size,
                                  KeysOut keys_out, ValuesOut values_out, Compare comp, cudaStream_t stream) {
  return detail::merge_run_list_two_phase(temp_storage, temp_storage_bytes, run_keys, run_values, run_sizes, runs,
                                          size, keys_out, values_out, comp, stream);
}

}  // namespace device

template <class KeysIn, class Offsets, class KeysOut, class Compare>
KeysOut merge_runs(KeysIn keys_in, Offsets offsets, index_t runs, index_t size, KeysOut keys_out, Compare comp,
                   cudaStream_t stream) {
  constexpr const char* context = "corank::merge_runs";
  detail::throw_on_bad_runs(context, runs, size,
                            (runs > 0 && detail::is_null(offsets)) || (size > 0 && detail::is_null(keys_in)),
                            size > 0 && detail::is_null(detail::unwrap(keys_out)));
  detail::run_two_phase(context, stream, [&](void* temp, std::size_t& bytes, index_t*) {
    return device::merge_runs(temp, bytes, keys_in, offsets, runs, size, keys_out, comp, stream);
  });
  return keys_out + size;
}

template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare>
std::pair<KeysOut, ValuesOut> merge_runs_by_key(KeysIn keys_in, ValuesIn values_in, Offsets offsets, index_t runs,
                                                index_t size, KeysOut keys_out, ValuesOut values_out, Compare comp,
                                                cudaStream_t stream) {
  constexpr const char* context = "corank::merge_runs_by_key";
  detail::throw_on_bad_runs(
      context, runs, size,
      (runs > 0 && detail::is_null(offsets)) ||
          (size > 0 && (detail::is_null(keys_in) || detail::is_null(values_in))),
      size > 0 && (detail::is_null(detail::unwrap(keys_out)) || detail::is_null(detail::unwrap(values_out))));
  detail::run_two_phase(context, stream, [&](void* temp, std::size_t& bytes, index_t*) {
    return device::merge_runs_by_key(temp, bytes, keys_in, values_in, offsets, runs, size, keys_out, values_out, comp,
                                     stream);
  });
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
