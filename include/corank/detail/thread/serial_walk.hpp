#pragma once
// The thread-level piece: one worker walks its partition of A and B in path order,
// asking the op at each step what to write and which inputs advance. The CPU backend and
// the GPU's `naive` strategy use this walk directly on the inputs; the tiled GPU
// strategies run the same steps on shared-memory tiles (block_walk.cuh).

#include <corank/config.hpp>
#include <corank/detail/forms/b_step_values.hpp>
#include <corank/op.hpp>

#include <iterator>
#include <type_traits>

namespace corank::detail {

// Stands in for an iterator an operation does not use: the values of a keys-only
// operation, the outputs of a count-only one.
struct unused {};

template <class Iterator>
inline constexpr bool is_used_v = !std::is_same_v<Iterator, unused>;

// An output whose writes are dropped: the keys of the search operations, which write only
// what b_step_values.hpp computes beside them. The form still writes (it is not count-only).
struct discard {
  struct sink {
    template <class T>
    CORANK_HOST_DEVICE constexpr const sink& operator=(const T&) const { return *this; }
  };
  CORANK_HOST_DEVICE constexpr sink operator[](index_t) const { return {}; }
  CORANK_HOST_DEVICE constexpr discard operator+(index_t) const { return {}; }
};

// Whether writes to an output of this type are kept.
template <class Iterator>
inline constexpr bool is_stored_v = is_used_v<Iterator> && !std::is_same_v<Iterator, discard>;

// Stands in for a walk's cap on its outputs where it has none (the GPU's walks, and the CPU
// walks whose output size the partition fixes).
struct no_limit {};

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

// What a run-aware op needs across steps: the last key consumed on the path.
template <class Key>
struct run_tracker {
  bool has_previous;
  Key previous;

  template <class Op, class Compare>
  CORANK_HOST_DEVICE action ask(const Op& op, relation r, const Key& front, Compare& comp) {
    const bool new_key = !has_previous || comp(previous, front);
    has_previous = true;
    previous = front;
    return op(r, new_key);
  }
};

// The last key consumed before (i, j) on the path: the larger of A[i - 1] and B[j - 1].
// `a_before`/`b_before` say whether those elements exist.
CORANK_EXEC_CHECK_DISABLE
template <class Key, class KeysA, class KeysB, class Index, class Compare>
CORANK_HOST_DEVICE Key key_before(const KeysA& a, Index i, bool a_before, const KeysB& b, Index j, bool b_before,
                                  Compare& comp) {
  if (!a_before) return b_before ? Key(b[j - 1]) : Key{};
  if (!b_before) return Key(a[i - 1]);
  return comp(a[i - 1], b[j - 1]) ? Key(b[j - 1]) : Key(a[i - 1]);
}

// Walks A[i, i_end) and B[j, j_end) to the end and returns the number of outputs. Keys go
// to `keys_out`, values to `values_out`, and (paired forms) the matched B element's value to
// `partner_out` (or, where values_b is b_positions or b_matches, what b_step_values.hpp says);
// any of them may be `unused` (a count-only walk writes nothing). Each step
// consumes an element and writes at most one, whatever the keys' order. An index_t `limit`
// stops the walk before a write past `limit` outputs: the CPU backend's writing walk is
// capped at what its counting walk found, so a comparator that answers otherwise the second
// time cannot write into the next piece's outputs.
CORANK_EXEC_CHECK_DISABLE
template <class Op, class Compare, class KeysA, class KeysB, class ValuesA, class ValuesB,
          class KeysOut, class ValuesOut, class PartnerOut = unused, class Limit = no_limit>
CORANK_HOST_DEVICE index_t walk_partition(const Op& op, Compare comp, KeysA keys_a, index_t i,
                                          index_t i_end, KeysB keys_b, index_t j, index_t j_end,
                                          ValuesA values_a, ValuesB values_b, KeysOut keys_out,
                                          ValuesOut values_out, PartnerOut partner_out = {},
                                          Limit limit = {}) {
  using key_type = std::decay_t<decltype(keys_a[i])>;  // anything indexable, not only iterators
  run_tracker<key_type> runs{i > 0 || j > 0, {}};
  if constexpr (sees_run_starts_v<Op>) runs.previous = key_before<key_type>(keys_a, i, i > 0, keys_b, j, j > 0, comp);
  index_t written = 0;
  while (i < i_end || j < j_end) {
    const relation r = i >= i_end   ? relation::b_first
                       : j >= j_end ? relation::a_first
                                    : relate<Op::partition>(keys_a[i], keys_b[j], comp);
    action act;
    if constexpr (sees_run_starts_v<Op>) {
      act = runs.ask(op, r, r == relation::b_first ? key_type(keys_b[j]) : key_type(keys_a[i]), comp);
    } else {
      act = op(r);
    }
    if (act.write != emit::nothing) {
      if constexpr (!std::is_same_v<Limit, no_limit>) {
        if (written == limit) break;
      }
      const bool take_b = act.write == emit::b;
      if constexpr (is_stored_v<KeysOut>) {
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
      if constexpr (is_used_v<PartnerOut>) {
        if constexpr (computes_b_values_v<ValuesB>) {
          partner_out[written] = b_step_value(values_b, keys_a[i], j, [&] { return keys_b[j]; }, comp);
        } else {
          partner_out[written] = values_b[j];
        }
      }
      ++written;
    }
    i += act.step != advance::b;
    j += act.step != advance::a;
  }
  return written;
}

}  // namespace corank::detail
