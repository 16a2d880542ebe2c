// corank merge of three inputs or more on the GPU: merge_run_list for the device key types
// (nothing of it is pre-compiled in the library).

#include "multiway_gpu_ops.hpp"

#include <corank/merge_runs.cuh>

namespace corank::cli {

void run_gpu_merge_runs(const runs_operands& o, cudaStream_t stream) {
  const index_t runs = index_t(o.keys.size());
  const auto run = [&](auto key_tag, auto value_tag) {
    using Key = typename decltype(key_tag)::type;
    using Value = typename decltype(value_tag)::type;
    // The library takes typed host arrays of device pointers.
    std::vector<const Key*> keys(o.keys.size());
    for (std::size_t r = 0; r < keys.size(); ++r) keys[r] = static_cast<const Key*>(o.keys[r]);
    Key* keys_out = static_cast<Key*>(o.keys_out);
    if constexpr (std::is_void_v<Value>) {
      corank::merge_run_list(keys.data(), o.sizes.data(), runs, keys_out, key_order<Key>{}, stream);
    } else {
      std::vector<const Value*> values(o.values.size());
      for (std::size_t r = 0; r < values.size(); ++r) values[r] = static_cast<const Value*>(o.values[r]);
      corank::merge_run_list_by_key(keys.data(), values.data(), o.sizes.data(), runs, keys_out,
                                    static_cast<Value*>(o.values_out), key_order<Key>{}, stream);
    }
  };
  visit_key_and_payload(gpu_key_types{}, gpu_value_payloads{}, o.key_type, o.value_bytes, run);
}

}  // namespace corank::cli
