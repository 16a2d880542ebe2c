#pragma once
// Bodies of sort.cuh: the block sort, then the k-way passes (multiway_dispatch.cuh).

#include <corank/detail/iterators.hpp>
#include <corank/detail/multiway_dispatch.cuh>
#include <corank/detail/two_phase.hpp>

#include <iterator>
#include <string>
#include <type_traits>

namespace corank {
namespace detail {

// The block sort into stage 0's output, then the passes; Value is `unused` for keys only.
template <class KeysIn, class ValuesIn, class Key, class Value, class Compare>
cudaError_t sort_stages(temporary_arena& temp, KeysIn keys_in, ValuesIn values_in, Key* keys_out, Value* values_out,
                        index_t n, Compare comp, cudaStream_t stream) {
  using shape = multiway_shape<Key, Value>;
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const index_t runs = (n + shape::tile - 1) / shape::tile;
  if (runs >= index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
  const pass_plan plan = plan_passes(runs);
  const int stages = 1 + plan.passes;
  Key* key_buffer = plan.passes > 0 ? temp.take<Key>(n) : nullptr;
  Value* value_buffer = nullptr;
  if constexpr (is_used_v<Value>) value_buffer = plan.passes > 0 ? temp.take<Value>(n) : nullptr;
  index_t* offsets = plan.passes > 0 ? temp.take<index_t>(runs + 1) : nullptr;
  if (temp.runs()) {
    constexpr std::size_t shared_bytes = sizeof(block_sort_storage<shape, Key, Value>);
    Key* const keys_to = stage_output(stages, 0, keys_out, key_buffer);
    if constexpr (is_used_v<Value>) {
      Value* const values_to = stage_output(stages, 0, values_out, value_buffer);
      constexpr auto kernel = block_sort_kernel<shape, Key, Value, KeysIn, ValuesIn, Key*, Value*, Compare>;
      if (const cudaError_t e = fit_tile<kernel, shape::threads, shared_bytes>(); e != cudaSuccess) return e;
      kernel<<<unsigned(runs), shape::threads, shared_bytes, stream>>>(keys_in, values_in, keys_to, values_to, n,
                                                                       comp);
    } else {
      constexpr auto kernel = block_sort_kernel<shape, Key, unused, KeysIn, unused, Key*, unused, Compare>;
      if (const cudaError_t e = fit_tile<kernel, shape::threads, shared_bytes>(); e != cudaSuccess) return e;
      kernel<<<unsigned(runs), shape::threads, shared_bytes, stream>>>(keys_in, unused{}, keys_to, unused{}, n,
                                                                       comp);
    }
    if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
    if (plan.passes > 0)
      uniform_offsets_kernel<index_t><<<blocks_for(runs + 1), 256, 0, stream>>>(offsets, runs, shape::tile, n);
  }
  return later_passes(temp, plan, stages, 1, 0, offsets, runs, n, keys_out, key_buffer, values_out, value_buffer,
                      comp, stream);
}

// What is wrong with a sort's arguments (pointers looked at in a run only), or nullptr.
template <class KeysIn, class KeysOut, class ValuesIn, class ValuesOut>
const char* sort_argument_error(index_t n, bool run, const KeysIn& keys_in, const KeysOut& keys_out,
                                const ValuesIn& values_in, const ValuesOut& values_out) {
  if (n < 0) return "the size is negative";
  if (!run || n == 0) return nullptr;
  if (is_null(keys_in)) return "the keys are a null pointer with a nonzero size";
  if (is_null(keys_out)) return "the key output is a null pointer with a nonzero size";
  if constexpr (is_used_v<ValuesIn>) {
    if (is_null(values_in)) return "the values are a null pointer with a nonzero size";
    if (is_null(values_out)) return "the value output is a null pointer with a nonzero size";
  }
  return nullptr;
}

// Every sort form: unwrapped, checked, laid out and run (two-phase).
template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
cudaError_t sort_two_phase(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in, ValuesIn values_in,
                           KeysOut keys_out, ValuesOut values_out, index_t n, Compare comp, cudaStream_t stream) {
  const auto in = unwrap_input(keys_in);
  auto out = contiguous_output(keys_out);
  if constexpr (is_used_v<ValuesIn>) {
    const auto values = unwrap_input(values_in);
    auto values_to = contiguous_output(values_out);
    if (sort_argument_error(n, temp_storage != nullptr, in, out, values, values_to)) return cudaErrorInvalidValue;
    return run_in_arena(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
      return sort_stages(temp, in, values, out, values_to, n, comp, stream);
    });
  } else {
    if (sort_argument_error(n, temp_storage != nullptr, in, out, unused{}, unused{})) return cudaErrorInvalidValue;
    return run_in_arena(temp_storage, temp_storage_bytes, [&](temporary_arena& temp) {
      return sort_stages(temp, in, unused{}, out, static_cast<unused*>(nullptr), n, comp, stream);
    });
  }
}

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
void run_sort(const char* context, KeysIn keys_in, ValuesIn values_in, KeysOut keys_out, ValuesOut values_out,
              index_t n, Compare comp, cudaStream_t stream) {
  if (const char* problem = sort_argument_error(n, true, keys_in, keys_out, values_in, values_out))
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  run_two_phase(context, stream, [&](void* temp, std::size_t& bytes, index_t*) {
    return sort_two_phase(temp, bytes, keys_in, values_in, keys_out, values_out, n, comp, stream);
  });
}

}  // namespace detail

namespace device {

template <class Keys, class Compare>
cudaError_t stable_sort(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys, index_t n, Compare comp,
                        cudaStream_t stream) {
  return detail::sort_two_phase(temp_storage, temp_storage_bytes, keys, detail::unused{}, keys, detail::unused{}, n,
                                comp, stream);
}

template <class KeysIn, class KeysOut, class Compare>
cudaError_t stable_sort_copy(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in, KeysOut keys_out,
                             index_t n, Compare comp, cudaStream_t stream) {
  return detail::sort_two_phase(temp_storage, temp_storage_bytes, keys_in, detail::unused{}, keys_out,
                                detail::unused{}, n, comp, stream);
}

template <class Keys, class Values, class Compare>
cudaError_t stable_sort_by_key(void* temp_storage, std::size_t& temp_storage_bytes, Keys keys, Values values,
                               index_t n, Compare comp, cudaStream_t stream) {
  return detail::sort_two_phase(temp_storage, temp_storage_bytes, keys, values, keys, values, n, comp, stream);
}

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
cudaError_t stable_sort_by_key_copy(void* temp_storage, std::size_t& temp_storage_bytes, KeysIn keys_in,
                                    ValuesIn values_in, KeysOut keys_out, ValuesOut values_out, index_t n,
                                    Compare comp, cudaStream_t stream) {
  return detail::sort_two_phase(temp_storage, temp_storage_bytes, keys_in, values_in, keys_out, values_out, n, comp,
                                stream);
}

}  // namespace device

template <class Keys, class Compare>
void stable_sort(Keys first, Keys last, Compare comp, cudaStream_t stream) {
  detail::run_sort("corank::stable_sort", first, detail::unused{}, first, detail::unused{}, index_t(last - first),
                   comp, stream);
}

template <class KeysIn, class KeysOut, class Compare>
KeysOut stable_sort_copy(KeysIn first, KeysIn last, KeysOut out, Compare comp, cudaStream_t stream) {
  const index_t n = last - first;
  detail::run_sort("corank::stable_sort_copy", first, detail::unused{}, out, detail::unused{}, n, comp, stream);
  return out + n;
}

template <class Keys, class Values, class Compare>
void stable_sort_by_key(Keys first, Keys last, Values values, Compare comp, cudaStream_t stream) {
  detail::run_sort("corank::stable_sort_by_key", first, values, first, values, index_t(last - first), comp, stream);
}

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
std::pair<KeysOut, ValuesOut> stable_sort_by_key_copy(KeysIn first, KeysIn last, ValuesIn values, KeysOut keys_out,
                                                      ValuesOut values_out, Compare comp, cudaStream_t stream) {
  const index_t n = last - first;
  detail::run_sort("corank::stable_sort_by_key_copy", first, values, keys_out, values_out, n, comp, stream);
  return {keys_out + n, values_out + n};
}

}  // namespace corank
