#pragma once
// The thread-level piece: one worker walks its partition of A and B in path order,
// asking the op at each step what to write and which inputs advance. The CPU backend and
// the GPU's `naive` strategy use this walk directly on the inputs; the tiled GPU
// strategies run the same steps on shared-memory tiles (block_walk.cuh).

#include <corank/config.hpp>
#include <corank/op.hpp>

#include <type_traits>

namespace corank::detail {

// Stands in for the value iterators of a keys-only operation.
struct no_values {};

template <class Values>
inline constexpr bool has_values_v = !std::is_same_v<Values, no_values>;

// How the fronts relate. Merge-path ops never see `equal`: equivalent keys are ordered
// A first, which is what makes the merge stable.
CORANK_EXEC_CHECK_DISABLE
template <partitioning Partition, class KeyA, class KeyB, class Compare>
CORANK_HOST_DEVICE relation relate(const KeyA& a, const KeyB& b, Compare& comp) {
  if (comp(b, a)) return relation::b_first;
  if constexpr (Partition == partitioning::balanced_path) {
    if (!comp(a, b)) return relation::equal;
  }
  return relation::a_first;
}

// Walks A[i, i_end) and B[j, j_end) to the end, writing through `keys_out` and
// `values_out`. Returns the number of elements written.
CORANK_EXEC_CHECK_DISABLE
template <class Op, class Compare, class KeysA, class KeysB, class ValuesA, class ValuesB,
          class KeysOut, class ValuesOut>
CORANK_HOST_DEVICE index_t walk_partition(const Op& op, Compare comp, KeysA keys_a, index_t i,
                                          index_t i_end, KeysB keys_b, index_t j, index_t j_end,
                                          ValuesA values_a, ValuesB values_b, KeysOut keys_out,
                                          ValuesOut values_out) {
  constexpr bool with_values = has_values_v<ValuesA>;
  index_t written = 0;
  while (i < i_end || j < j_end) {
    const relation r = i >= i_end   ? relation::b_first
                       : j >= j_end ? relation::a_first
                                    : relate<Op::partition>(keys_a[i], keys_b[j], comp);
    const action act = op(r);
    switch (act.write) {
      case emit::a:
        keys_out[written] = keys_a[i];
        if constexpr (with_values) values_out[written] = values_a[i];
        ++written;
        break;
      case emit::b:
        keys_out[written] = keys_b[j];
        if constexpr (with_values) values_out[written] = values_b[j];
        ++written;
        break;
      case emit::combined:
        keys_out[written] = keys_a[i];
        if constexpr (with_values) values_out[written] = combine_values(op, values_a[i], values_b[j]);
        ++written;
        break;
      case emit::nothing:
        break;
    }
    i += act.step != advance::b;
    j += act.step != advance::a;
  }
  return written;
}

}  // namespace corank::detail
