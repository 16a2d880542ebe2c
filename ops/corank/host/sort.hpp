#pragma once
// The CPU backend of the merge sort: stable, on std::threads. Plain C++, no GPU.
//
// The keys are cut into one equal piece per thread, each piece is sorted by std::stable_sort
// on its own thread, and the sorted pieces are merged by the k-way merge's tree
// (host/merge_runs.hpp): for equal pieces, rounds of pairwise host::merge of adjacent pieces,
// ties to the left one. A piece is sorted straight into the buffer its first merge reads, so
// the last merge lands in the output and nothing is copied back.
//
// All four forms (stable_sort, stable_sort_copy, stable_sort_by_key, stable_sort_by_key_copy),
// with [first, last) of n keys:
// - Result: the keys in `comp` order, stable: equivalent keys keep their input order. The
//   _by_key forms carry each value with its key. stable_sort and stable_sort_by_key sort
//   [first, last) (and values[0, n)) in place; the _copy forms leave the input alone, write
//   out[0, n) (and values_out[0, n)) and return the end(s).
// - Preconditions: `comp` a strict weak order, and deterministic (its answer depends on its
//   arguments alone): std::stable_sort, which sorts the pieces, may step outside a piece
//   with a comparator that answers differently for the same keys. Iterators random-access; the outputs (the
//   in-place forms' ranges) are read back as well as written, by several threads at once at
//   distinct positions. The _copy forms' outputs hold n elements and overlap no input and not
//   each other. Key and value types default-constructible and copyable. A raw pointer may be
//   null where n == 0.
// - Memory: with more than one piece, a scratch buffer of n keys (and n values) of the
//   outputs' value types, default-initialized, plus what std::stable_sort takes for each
//   piece; the _by_key forms sort each piece as (key, value) pairs, n pairs in all at once.
// - Threads: one piece per thread, at most `threads` (0: std::thread::hardware_concurrency())
//   and at most one per 2^15 keys; the calling thread takes part, new std::threads the rest,
//   all joined before the call returns. One piece is std::stable_sort on the calling thread.
// - Complexity: O(n log n) comparisons, for p pieces O(n log(n / p)) sorting them in parallel
//   and O(n log p) merging them, each merge itself parallel.
// - Errors: std::invalid_argument ("corank::host::<name>: <problem>"), before anything is
//   written, for a negative size (last before first) or a null raw pointer with a nonzero
//   size. A deterministic `comp` that is not a strict weak order gives the keys in an
//   unspecified order, or std::invalid_argument ("...: the comparator is not a strict weak
//   order ...") where the merges find the sorted pieces out of order, and is never a write
//   outside the outputs and the scratch. An exception of `comp`, an iterator or a copy, or
//   that std::invalid_argument, on any thread, reaches the caller once every thread has
//   stopped (the outputs, or the in-place forms' ranges, in an unspecified state).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/detail/host/host_partitions.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/error.hpp>
#include <corank/host/merge_runs.hpp>

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

namespace corank::host {

namespace detail {

// Sorts size keys (and their values) from `keys` into `to_keys` (and `to_values`).
template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
void sort_piece(KeysIn keys, ValuesIn values, index_t size, KeysOut to_keys, ValuesOut to_values, Compare comp) {
  if constexpr (corank::detail::is_used_v<ValuesOut>) {
    // Keys and values move together as pairs, compared by key alone.
    using pair = std::pair<value_of<KeysOut>, value_of<ValuesOut>>;
    std::vector<pair> pairs;
    pairs.reserve(static_cast<std::size_t>(size));
    for (index_t i = 0; i < size; ++i) pairs.emplace_back(keys[i], values[i]);
    std::stable_sort(pairs.begin(), pairs.end(),
                     [&comp](const pair& x, const pair& y) { return comp(x.first, y.first); });
    for (index_t i = 0; i < size; ++i) {
      to_keys[i] = pairs[std::size_t(i)].first;
      to_values[i] = pairs[std::size_t(i)].second;
    }
  } else {
    // The in-place form's pieces of even depth are sorted where they are.
    bool in_place = false;
    if constexpr (std::is_same_v<KeysIn, KeysOut>) in_place = keys == to_keys;
    if (!in_place) std::copy(keys, keys + size, to_keys);
    std::stable_sort(to_keys, to_keys + size, comp);
  }
}

// The sort's leaves: a piece is sorted, on the thread that reaches it in the tree, from the
// input into the buffer that nodes of its depth write, which is where its parent reads it.
template <class KeysIn, class ValuesIn, class Buffers, class Compare>
struct sorted_pieces {
  KeysIn keys;
  ValuesIn values;
  const index_t* starts;
  const Buffers& buffers;
  Compare comp;

  void prepare(index_t piece, int depth) const {
    const index_t begin = starts[piece];
    buffers.at(depth, begin, [&](auto to_keys, auto to_values) {
      sort_piece(keys + begin, offset_by(values, begin), starts[piece + 1] - begin, to_keys, to_values, comp);
    });
  }

  template <class F>
  void visit(index_t piece, int depth, F&& f) const {
    buffers.at(depth, starts[piece], f);
  }
};

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut>
void check_sort(const char* name, index_t size, KeysIn keys, ValuesIn values, KeysOut keys_out,
                ValuesOut values_out) {
  if (size < 0) argument_error(name, "the size is negative");
  if (size == 0) return;
  if (corank::detail::is_null(keys)) argument_error(name, "the input is a null pointer with a nonzero size");
  if constexpr (corank::detail::is_used_v<ValuesIn>) {
    if (corank::detail::is_null(values)) argument_error(name, "the values are a null pointer with a nonzero size");
  }
  check_outputs(name, size, keys_out, values_out);
}

// Every form once checked: the in-place ones are the copying ones with the input as output.
template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare>
void sort_checked(const char* name, index_t size, KeysIn keys, ValuesIn values, KeysOut keys_out,
                  ValuesOut values_out, Compare comp, unsigned threads) {
  if (size == 0) return;
  const unsigned pieces = corank::detail::host_thread_count(size, threads);
  // Equal pieces, cut as for_each_output_piece cuts; each holds 2^15 keys or more.
  std::vector<index_t> starts(pieces + 1);
  for (unsigned p = 0; p <= pieces; ++p) starts[p] = corank::detail::piece_begin(size, pieces, p);
  try {
    with_ping_pong(size, pieces > 1, keys_out, values_out, [&](const auto& buffers) {
      using buffers_type = std::decay_t<decltype(buffers)>;
      const sorted_pieces<KeysIn, ValuesIn, buffers_type, Compare> leaves{keys, values, starts.data(), buffers,
                                                                           comp};
      run_tree(starts.data(), leaves, buffers, comp).merge(0, index_t(pieces), 0, pieces);
    });
  } catch (const unsorted_input&) {
    // Pieces that std::stable_sort sorted are out of order for a merge only if comp is not
    // a strict weak order.
    argument_error(name, "the comparator is not a strict weak order (merging the sorted pieces found them out of "
                         "order)");
  }
}

}  // namespace detail

// Sorts [first, last) in place.
template <class Keys, class Compare = corank::less>
void stable_sort(Keys first, Keys last, Compare comp = {}, unsigned threads = 0) {
  const index_t size = last - first;
  constexpr const char* name = "corank::host::stable_sort";
  detail::check_sort(name, size, first, detail::unused{}, first, detail::unused{});
  detail::sort_checked(name, size, first, detail::unused{}, first, detail::unused{}, comp, threads);
}

// Writes [first, last) sorted to out; returns out + n.
template <class KeysIn, class KeysOut, class Compare = corank::less>
KeysOut stable_sort_copy(KeysIn first, KeysIn last, KeysOut out, Compare comp = {}, unsigned threads = 0) {
  const index_t size = last - first;
  constexpr const char* name = "corank::host::stable_sort_copy";
  detail::check_sort(name, size, first, detail::unused{}, out, detail::unused{});
  detail::sort_checked(name, size, first, detail::unused{}, out, detail::unused{}, comp, threads);
  return out + size;
}

// Sorts [first, last) in place, values[0, n) along with it.
template <class Keys, class Values, class Compare = corank::less>
void stable_sort_by_key(Keys first, Keys last, Values values, Compare comp = {}, unsigned threads = 0) {
  const index_t size = last - first;
  constexpr const char* name = "corank::host::stable_sort_by_key";
  detail::check_sort(name, size, first, values, first, values);
  detail::sort_checked(name, size, first, values, first, values, comp, threads);
}

// Writes [first, last) sorted to keys_out and values[0, n) along with it to values_out;
// returns the ends of both outputs.
template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Compare = corank::less>
std::pair<KeysOut, ValuesOut> stable_sort_by_key_copy(KeysIn first, KeysIn last, ValuesIn values, KeysOut keys_out,
                                                      ValuesOut values_out, Compare comp = {},
                                                      unsigned threads = 0) {
  const index_t size = last - first;
  constexpr const char* name = "corank::host::stable_sort_by_key_copy";
  detail::check_sort(name, size, first, values, keys_out, values_out);
  detail::sort_checked(name, size, first, values, keys_out, values_out, comp, threads);
  return {keys_out + size, values_out + size};
}

}  // namespace corank::host
