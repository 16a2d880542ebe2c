// corank.isin on the GPU: whether a sorted array holds each of the sorted queries (or not).

#include "gpu_dispatch.cuh"

#include <corank/search.cuh>

namespace corank::python {

index_t run_gpu_contains(const operands& o, cudaStream_t stream) {
  return visit_gpu_key(o.key_type, [&](auto key_tag) -> index_t {
    using Key = typename decltype(key_tag)::type;
    const key_order<Key> comp{};
    const Key* queries = static_cast<const Key*>(o.a);
    const Key* haystack = static_cast<const Key*>(o.b);
    auto* out = static_cast<bool*>(o.keys_out);
    return run_two_phase_call("corank.isin", o, stream, [&](void* t, std::size_t& bytes, index_t* count) {
      if (o.op == operation::not_contains) {
        return device::sorted_not_contains(t, bytes, haystack, o.size_b, queries, o.size_a, out, count, comp, stream,
                                           o.kind);
      }
      return device::sorted_contains(t, bytes, haystack, o.size_b, queries, o.size_a, out, count, comp, stream,
                                     o.kind);
    });
  });
}

}  // namespace corank::python
