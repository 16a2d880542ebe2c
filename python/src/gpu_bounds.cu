// corank.searchsorted on the GPU: lower and upper bounds of sorted queries in a sorted array;
// and corank.join, whose counts are the same bounds (one source, so they compile once).

#include "gpu_dispatch.cuh"

#include <corank/join.cuh>
#include <corank/search.cuh>

namespace corank::python {

index_t run_gpu_bounds(const operands& o, cudaStream_t stream) {
  return visit_gpu_key(o.key_type, [&](auto key_tag) -> index_t {
    using Key = typename decltype(key_tag)::type;
    const key_order<Key> comp{};
    const Key* queries = static_cast<const Key*>(o.a);
    const Key* haystack = static_cast<const Key*>(o.b);
    auto* out = static_cast<index_t*>(o.keys_out);
    return run_two_phase_call("corank.searchsorted", o, stream, [&](void* t, std::size_t& bytes, index_t* count) {
      if (o.op == operation::upper_bound) {
        return device::sorted_upper_bound(t, bytes, haystack, o.size_b, queries, o.size_a, out, count, comp, stream,
                                          o.kind);
      }
      return device::sorted_lower_bound(t, bytes, haystack, o.size_b, queries, o.size_a, out, count, comp, stream,
                                        o.kind);
    });
  });
}

index_t run_gpu_join(const operands& o, cudaStream_t stream) {
  auto* left_out = static_cast<index_t*>(o.keys_out);
  auto* right_out = static_cast<index_t*>(o.values_out);
  if (!o.count_only && o.join_offsets != nullptr) {  // the pairs from the kept counts
    return run_two_phase_call("corank.join", o, stream, [&](void* t, std::size_t& bytes, index_t* count) {
      return device::sorted_join_expand(t, bytes, static_cast<const index_t*>(o.join_lower),
                                        static_cast<const index_t*>(o.join_offsets), o.size_a, o.pairs, left_out,
                                        right_out, count, stream, o.kind);
    });
  }
  return visit_gpu_key(o.key_type, [&](auto key_tag) -> index_t {
    using Key = typename decltype(key_tag)::type;
    const key_order<Key> comp{};
    const Key* left = static_cast<const Key*>(o.a);
    const Key* right = static_cast<const Key*>(o.b);
    return run_two_phase_call("corank.join", o, stream, [&](void* t, std::size_t& bytes, index_t* count) {
      if (o.count_only && o.join_offsets != nullptr) {
        return device::sorted_join_offsets(t, bytes, left, o.size_a, right, o.size_b, o.join_lower, o.join_offsets,
                                           count, comp, stream, o.kind);
      }
      if (o.count_only) {
        return device::sorted_join_count(t, bytes, left, o.size_a, right, o.size_b, count, comp, stream, o.kind);
      }
      return device::sorted_join(t, bytes, left, o.size_a, right, o.size_b, o.pairs, left_out, right_out, count, comp,
                                 stream, o.kind);
    });
  });
}

}  // namespace corank::python
