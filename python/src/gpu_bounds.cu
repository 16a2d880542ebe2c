// corank.searchsorted on the GPU: lower and upper bounds of sorted queries in a sorted array;
// and corank.join, whose count is the same bound pass (one source, so they compile once).

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

namespace {

// The bytes sorted_join_count_and_keep keeps for these sizes and Key (its query).
template <class Key>
std::size_t join_kept_bytes_for(index_t m, index_t n) {
  std::size_t temp_bytes = 0, kept_bytes = 0;
  const Key* none = nullptr;
  CORANK_TRY(device::sorted_join_count_and_keep(nullptr, temp_bytes, nullptr, kept_bytes, none, m, none, n, nullptr,
                                                key_order<Key>{}),
             "corank.join");
  return kept_bytes;
}

}  // namespace

std::size_t gpu_join_kept_bytes(dtype key_type, index_t m, index_t n) {
  return std::size_t(visit_gpu_key(kernel_key_type(key_type), [&](auto key_tag) -> index_t {
    return index_t(join_kept_bytes_for<typename decltype(key_tag)::type>(m, n));
  }));
}

// The count (keeping the bound pass's results where o.join_kept is set), or the pairs, from
// those results where it is set (the keys are not read then) or from the keys.
index_t run_gpu_join(const operands& o, cudaStream_t stream) {
  auto* left_out = static_cast<index_t*>(o.keys_out);
  auto* right_out = static_cast<index_t*>(o.values_out);
  return visit_gpu_key(o.key_type, [&](auto key_tag) -> index_t {
    using Key = typename decltype(key_tag)::type;
    const key_order<Key> comp{};
    const Key* left = static_cast<const Key*>(o.a);
    const Key* right = static_cast<const Key*>(o.b);
    const std::size_t kept_bytes = o.join_kept != nullptr ? join_kept_bytes_for<Key>(o.size_a, o.size_b) : 0;
    return run_two_phase_call("corank.join", o, stream, [&](void* t, std::size_t& bytes, index_t* count) {
      if (o.join_kept != nullptr && o.count_only) {
        std::size_t given = kept_bytes;
        return device::sorted_join_count_and_keep(t, bytes, o.join_kept, given, left, o.size_a, right, o.size_b,
                                                  count, comp, stream, o.kind);
      }
      if (o.join_kept != nullptr) {
        return device::sorted_join_from_kept(t, bytes, o.join_kept, kept_bytes, left, o.size_a, right, o.size_b,
                                             o.pairs, left_out, right_out, count, stream, o.kind);
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
