#pragma once
// The thread-level piece: one worker walks its partition of A and B in path order,
// asking the op at each step what to write and which inputs advance. The CPU backend and
// the GPU's `naive` strategy use this walk directly on the inputs; the tiled GPU
// strategies run the same steps on shared-memory tiles (block_walk.cuh).

#include <corank/config.hpp>
#include <corank/op.hpp>

#include <type_traits>

namespace corank::detail {

// Stands in for an iterator an operation does not use: the values of a keys-only
// operation, the outputs of a count-only one.
struct unused {};

template <class Iterator>
inline constexpr bool is_used_v = !std::is_same_v<Iterator, unused>;

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

// Walks A[i, i_end) and B[j, j_end) to the end and returns the number of outputs. Keys go
// to `keys_out`, values to `values_out`, and (paired forms) the matched B element's value to
// `partner_out`; any of them may be `unused` (a count-only walk writes nothing).
CORANK_EXEC_CHECK_DISABLE
template <class Op, class Compare, class KeysA, class KeysB, class ValuesA, class ValuesB,
          class KeysOut, class ValuesOut, class PartnerOut = unused>
CORANK_HOST_DEVICE index_t walk_partition(const Op& op, Compare comp, KeysA keys_a, index_t i,
                                          index_t i_end, KeysB keys_b, index_t j, index_t j_end,
                                          ValuesA values_a, ValuesB values_b, KeysOut keys_out,
                                          ValuesOut values_out, PartnerOut partner_out = {}) {
  index_t written = 0;
  while (i < i_end || j < j_end) {
    const relation r = i >= i_end   ? relation::b_first
                       : j >= j_end ? relation::a_first
                                    : relate<Op::partition>(keys_a[i], keys_b[j], comp);
    const action act = op(r);
    if (act.write != emit::nothing) {
      const bool take_b = act.write == emit::b;
      if constexpr (is_used_v<KeysOut>) {
        if (take_b) keys_out[written] = keys_b[j]; else keys_out[written] = keys_a[i];
      }
      if constexpr (is_used_v<ValuesOut>) {
        if (act.write == emit::combined) {
          values_out[written] = combine_values(op, values_a[i], values_b[j]);
        } else if (take_b) {
          values_out[written] = values_b[j];
        } else {
          values_out[written] = values_a[i];
        }
      }
      if constexpr (is_used_v<PartnerOut>) partner_out[written] = values_b[j];
      ++written;
    }
    i += act.step != advance::b;
    j += act.step != advance::a;
  }
  return written;
}

}  // namespace corank::detail
