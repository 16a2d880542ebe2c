// corank.merge on the GPU: keys and by key, under every strategy. The merges the library
// pre-compiles (src/instantiate_merge_*.cu) are linked from it; the others compile here.

#include "gpu_dispatch.cuh"

#include <corank/merge.cuh>

namespace corank::python {

index_t run_gpu_merge(const operands& o, cudaStream_t stream) {
  return visit_gpu_key(o.key_type, [&](auto key_tag) -> index_t {
    using Key = typename decltype(key_tag)::type;
    const key_order<Key> comp{};
    const Key* a = static_cast<const Key*>(o.a);
    const Key* b = static_cast<const Key*>(o.b);
    Key* out = static_cast<Key*>(o.keys_out);
    const index_t m = o.size_a, n = o.size_b;
    if (o.a_value_bytes == 0) {
      corank::detail::run_two_phase("corank.merge", stream, [&](void* t, std::size_t& bytes, index_t*) {
        return device::merge(t, bytes, a, m, b, n, out, comp, stream, o.kind);
      });
    } else {
      visit_payload(o.a_value_bytes, [&](auto tag) {
        using Value = typename decltype(tag)::type;
        const auto* va = static_cast<const Value*>(o.a_values);
        const auto* vb = static_cast<const Value*>(o.b_values);
        auto* v_out = static_cast<Value*>(o.values_out);
        corank::detail::run_two_phase("corank.merge", stream, [&](void* t, std::size_t& bytes, index_t*) {
          return device::merge_by_key(t, bytes, a, va, m, b, vb, n, out, v_out, comp, stream, o.kind);
        });
        return 0;
      });
    }
    return m + n;
  });
}

}  // namespace corank::python
