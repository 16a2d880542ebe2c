// The CPU backend of the Python package: corank::host's runners on threads, for every key
// dtype and for values of 4 or 8 bytes (run_on_host widens narrower ones).

#include "distinct_ops.hpp"
#include "operands.hpp"

#include <corank/error.hpp>
#include <corank/host/check_sorted.hpp>
#include <corank/host/join.hpp>
#include <corank/host/merge.hpp>
#include <corank/host/search.hpp>
#include <corank/host/set_operations.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace corank::python {
namespace {

// One operation's runners: keys, by key, count, and the paired form (intersection only).
template <class Op>
struct host_runners {
  host::keys_operation<Op> keys;
  host::by_key_operation<Op> by_key;
  host::count_operation<Op> count;
};

template <class Key, class Op>
index_t run_op(const host_runners<Op>& run, const operands& o, unsigned threads) {
  const key_order<Key> comp{};
  const Key* a = static_cast<const Key*>(o.a);
  const Key* a_end = a + o.size_a;
  const Key* b = static_cast<const Key*>(o.b);
  const Key* b_end = b + o.size_b;
  Key* out = static_cast<Key*>(o.keys_out);
  if constexpr (is_distinct_op<Op>) {
    return run.keys(a, a_end, b, b_end, out, comp, threads) - out;
  } else {
    if (o.count_only) return run.count(a, a_end, b, b_end, comp, threads);
    if (o.a_value_bytes == 0) return run.keys(a, a_end, b, b_end, out, comp, threads) - out;
    return visit_payload(o.a_value_bytes, [&](auto a_tag) -> index_t {
      using ValueA = typename decltype(a_tag)::type;
      const auto* va = static_cast<const ValueA*>(o.a_values);
      auto* va_out = static_cast<ValueA*>(o.values_out);
      if constexpr (std::is_same_v<Op, ops::set_intersection_op>) {
        if (o.paired()) {
          return visit_payload(o.b_value_bytes, [&](auto b_tag) -> index_t {
            using ValueB = typename decltype(b_tag)::type;
            const host::paired_by_key_operation<Op> paired{{}, "corank.set_intersection_paired"};
            const auto ends = paired(a, a_end, b, b_end, va, static_cast<const ValueB*>(o.b_values), out, va_out,
                                     static_cast<ValueB*>(o.b_values_out), comp, threads);
            return std::get<0>(ends) - out;
          });
        }
      }
      const auto ends = run.by_key(a, a_end, b, b_end, va, static_cast<const ValueA*>(o.b_values), out, va_out,
                                   comp, threads);
      return ends.first - out;
    });
  }
}

template <class Op>
index_t run_typed(const host_runners<Op>& run, const operands& o, unsigned threads) {
  return visit_dtype(o.key_type, [&](auto tag) { return run_op<typename decltype(tag)::type>(run, o, threads); });
}

template <class Op>
host_runners<Op> named(const char* keys, const char* by_key, const char* count) {
  return {{{}, keys}, {{}, by_key}, {{}, count}};
}

// A search: the queries are A, the haystack B; one output per query.
index_t run_search(const operands& o, unsigned threads) {
  return visit_dtype(o.key_type, [&](auto tag) -> index_t {
    using Key = typename decltype(tag)::type;
    const key_order<Key> comp{};
    const Key* q = static_cast<const Key*>(o.a);
    const Key* h = static_cast<const Key*>(o.b);
    auto* positions = static_cast<index_t*>(o.keys_out);
    auto* flags = static_cast<bool*>(o.keys_out);
    switch (o.op) {
      case operation::lower_bound:
        return host::sorted_bound<false>{"corank.searchsorted"}(h, h + o.size_b, q, q + o.size_a, positions, comp,
                                                                threads) - positions;
      case operation::upper_bound:
        return host::sorted_bound<true>{"corank.searchsorted"}(h, h + o.size_b, q, q + o.size_a, positions, comp,
                                                               threads) - positions;
      case operation::contains:
        return host::sorted_membership<false>{"corank.isin"}(h, h + o.size_b, q, q + o.size_a, flags, comp,
                                                             threads) - flags;
      default:
        return host::sorted_membership<true>{"corank.isin"}(h, h + o.size_b, q, q + o.size_a, flags, comp,
                                                            threads) - flags;
    }
  });
}

// The join: its count, or its pairs (as many as the count, which the caller sized them by).
// With join_kept (operands.hpp) the count keeps its bounds and offsets there and the pairs
// come from them, not counted again.
index_t run_join(const operands& o, unsigned threads) {
  auto* lower = static_cast<index_t*>(o.join_kept);
  index_t* offsets = lower == nullptr ? nullptr : lower + o.size_a;
  if (!o.count_only && lower != nullptr) {
    if (offsets[o.size_a] != o.pairs) {
      throw std::invalid_argument("corank.join: the kept counts hold another number of pairs than the outputs");
    }
    host::detail::write_pairs("corank.join", lower, offsets, o.size_a,
                              static_cast<index_t*>(o.keys_out), static_cast<index_t*>(o.values_out), threads);
    return o.pairs;
  }
  return visit_dtype(o.key_type, [&](auto tag) -> index_t {
    using Key = typename decltype(tag)::type;
    const key_order<Key> comp{};
    const Key* left = static_cast<const Key*>(o.a);
    const Key* right = static_cast<const Key*>(o.b);
    if (o.count_only && lower != nullptr) {
      return host::detail::count_matches_into("corank.join", left, left + o.size_a, right, right + o.size_b, lower,
                                              offsets, comp, threads);
    }
    if (o.count_only) {
      return host::sorted_join_count_runner{"corank.join"}(left, left + o.size_a, right, right + o.size_b, comp,
                                                           threads);
    }
    // Counted again, and written only where the outputs hold that many.
    const auto counts =
        host::detail::count_matches("corank.join", left, left + o.size_a, right, right + o.size_b, comp, threads);
    if (counts.offsets.back() != o.pairs) {
      throw std::invalid_argument("corank.join: the inputs hold another number of pairs than counted before");
    }
    host::detail::write_pairs("corank.join", counts, static_cast<index_t*>(o.keys_out),
                              static_cast<index_t*>(o.values_out), threads);
    return o.pairs;
  });
}

index_t run_native(const operands& o, unsigned threads) {
  if (o.check_sorted) {
    visit_dtype(o.key_type, [&](auto tag) {
      using Key = typename decltype(tag)::type;
      const Key* a = static_cast<const Key*>(o.a);
      const Key* b = static_cast<const Key*>(o.b);
      host::check_sorted(a, a + o.size_a, b, b + o.size_b, key_order<Key>{});
    });
  }
  if (is_search(o.op)) return run_search(o, threads);
  if (o.op == operation::join) return run_join(o, threads);
  switch (o.op) {
    case operation::merge:
      return run_typed(named<ops::merge_op>("corank.merge", "corank.merge", "corank.merge"), o, threads);
    case operation::set_union:
      return run_typed(named<ops::set_union_op>("corank.set_union", "corank.set_union", "corank.set_union_count"),
                       o, threads);
    case operation::set_intersection:
      return run_typed(named<ops::set_intersection_op>("corank.set_intersection", "corank.set_intersection",
                                                       "corank.set_intersection_count"),
                       o, threads);
    case operation::set_difference:
      return run_typed(named<ops::set_difference_op>("corank.set_difference", "corank.set_difference",
                                                     "corank.set_difference_count"),
                       o, threads);
    case operation::set_symmetric_difference:
      return run_typed(named<ops::set_symmetric_difference_op>("corank.set_symmetric_difference",
                                                               "corank.set_symmetric_difference",
                                                               "corank.set_symmetric_difference_count"),
                       o, threads);
    case operation::union_distinct:
      return run_typed(named<union_distinct_op>("corank.union1d", "corank.union1d", "corank.union1d"), o, threads);
    case operation::intersection_distinct:
      return run_typed(named<intersection_distinct_op>("corank.intersect1d", "corank.intersect1d",
                                                       "corank.intersect1d"),
                       o, threads);
    case operation::difference_distinct:
      return run_typed(named<difference_distinct_op>("corank.setdiff1d", "corank.setdiff1d", "corank.setdiff1d"), o,
                       threads);
    case operation::symmetric_difference_distinct:
      return run_typed(named<symmetric_difference_distinct_op>("corank.setxor1d", "corank.setxor1d",
                                                               "corank.setxor1d"),
                       o, threads);
  }
  throw std::invalid_argument("corank: unknown operation");
}

// n values of 1 or 2 bytes as uint32, and back.
std::vector<std::uint32_t> widen(const void* from, index_t n, std::size_t bytes) {
  std::vector<std::uint32_t> wide(std::size_t(std::max<index_t>(n, 1)));
  const auto copy = [&](auto tag) {
    const auto* narrow = static_cast<const typename decltype(tag)::type*>(from);
    std::copy(narrow, narrow + n, wide.begin());
  };
  bytes == 1 ? copy(type_tag<std::uint8_t>{}) : copy(type_tag<std::uint16_t>{});
  return wide;
}

void narrow(const std::vector<std::uint32_t>& wide, void* to, index_t n, std::size_t bytes) {
  const auto copy = [&](auto tag) {
    using Narrow = typename decltype(tag)::type;
    std::transform(wide.begin(), wide.begin() + n, static_cast<Narrow*>(to), [](std::uint32_t v) { return Narrow(v); });
  };
  bytes == 1 ? copy(type_tag<std::uint8_t>{}) : copy(type_tag<std::uint16_t>{});
}

}  // namespace

index_t find_unsorted_on_host(dtype key_type, const void* keys, index_t n) {
  return visit_dtype(key_type, [&](auto tag) {
    using Key = typename decltype(tag)::type;
    const Key* first = static_cast<const Key*>(keys);
    return host::find_unsorted(first, first + n, key_order<Key>{});
  });
}

// Values of 1 and 2 bytes travel as 4 (the runners compile for payloads of 4 and 8 bytes).
index_t run_on_host(const operands& given, unsigned threads) {
  const std::size_t a_bytes = given.a_value_bytes, b_bytes = given.b_value_bytes;
  const bool widen_a = !given.count_only && a_bytes > 0 && a_bytes < 4;
  const bool widen_b = !given.count_only && b_bytes > 0 && b_bytes < 4;
  const auto checked = [&](index_t count) {
    if (!possible_size(given, count)) throw corank::unsorted_input("corank");
    return count;
  };
  if (!widen_a && !widen_b) return checked(run_native(given, threads));
  operands o = given;
  const index_t bound = output_bound(o.op, o.size_a, o.size_b, o.pairs);
  const std::size_t room = std::size_t(std::max<index_t>(bound, 1));
  std::vector<std::uint32_t> a_values, b_values, values_out, b_values_out;
  if (widen_a) {
    values_out.resize(room);
    a_values = widen(o.a_values, o.size_a, a_bytes);
    o.a_values = a_values.data();
    o.values_out = values_out.data();
    o.a_value_bytes = 4;
  }
  if (widen_b) {
    b_values = widen(o.b_values, o.size_b, b_bytes);
    o.b_values = b_values.data();
    o.b_value_bytes = 4;
    if (o.paired()) {
      b_values_out.resize(room);
      o.b_values_out = b_values_out.data();
    }
  }
  const index_t count = checked(run_native(o, threads));  // before it sizes the copies back
  if (widen_a) narrow(values_out, given.values_out, count, a_bytes);
  if (widen_b && given.paired()) narrow(b_values_out, given.b_values_out, count, b_bytes);
  return count;
}

}  // namespace corank::python
