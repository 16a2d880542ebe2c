// corank sort on the GPU: stable_sort in place for the device key types (nothing of it is
// pre-compiled in the library).

#include "multiway_gpu_ops.hpp"

#include <corank/sort.cuh>

namespace corank::cli {

void run_gpu_sort(dtype key_type, std::size_t value_bytes, void* keys, void* values, index_t n, cudaStream_t stream) {
  const auto run = [&](auto key_tag, auto value_tag) {
    using Key = typename decltype(key_tag)::type;
    using Value = typename decltype(value_tag)::type;
    Key* first = static_cast<Key*>(keys);
    if constexpr (std::is_void_v<Value>) {
      corank::stable_sort(first, first + n, key_order<Key>{}, stream);
    } else {
      corank::stable_sort_by_key(first, first + n, static_cast<Value*>(values), key_order<Key>{}, stream);
    }
  };
  visit_key_and_payload(gpu_key_types{}, gpu_value_payloads{}, key_type, value_bytes, run);
}

}  // namespace corank::cli
