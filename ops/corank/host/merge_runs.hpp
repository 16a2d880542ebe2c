#pragma once
// The CPU backend of the k-way merge: k sorted runs into one sorted output, on std::threads.
// Plain C++, no GPU.
//
// The runs are merged two at a time, adjacent ones only (so that ties keep the lower run
// first), along a tree that splits each group of runs where its element count is halved: k
// equal runs make the balanced tree of log2 k rounds, and one huge run among tiny ones sits
// near the root, copied once or twice instead of once per round. Each internal node is one
// host::merge; the two halves of a node run on threads of their own when both are large.
//
// All four forms (merge_runs, merge_runs_by_key, merge_run_list, merge_run_list_by_key):
// - Result: the N elements of the runs in `comp` order, N their total size, stable: among
//   equivalent keys the lower run's come first, each run's in its input order. Returns the
//   end(s) of the output(s). The _by_key forms write values_out[i], the value of the key
//   written to keys_out[i].
// - Runs: merge_runs takes one input, keys_in, with run j = keys_in[offsets[j], offsets[j + 1])
//   for j < runs: `runs` + 1 offsets, nondecreasing, not necessarily starting at 0 (keys_in +
//   offsets[j] is all that is used, so offsets may be negative where keys_in points into an
//   array), and N = offsets[runs] - offsets[0]. merge_run_list takes k (pointer, size) pairs:
//   run j = run_keys[j][0, run_sizes[j]), the values run_values[j][0, run_sizes[j]). Runs may
//   be empty; `runs` may be 0 (nothing is read, not even offsets[0], and nothing written).
// - Preconditions: every run sorted by `comp`, a strict weak order (not checked; see
//   host/check_sorted.hpp). Iterators random-access; the outputs are read back as well as
//   written (a node's output is its parent's input) and several threads use them at once, at
//   distinct positions. The outputs hold N elements and overlap no input and not each other.
//   A raw pointer may be null where its size is 0 (an output where N == 0, offsets and run
//   lists where runs == 0).
// - Memory: O(runs) for the run bounds, and with three nonempty runs or more a scratch
//   buffer of N keys (and N values), of the outputs' value types, default-initialized.
// - Threads: at most `threads` (0: std::thread::hardware_concurrency()) and at most one per
//   2^15 elements of N; the calling thread takes part, new std::threads the rest, all joined
//   before the call returns.
// - Complexity: O(N log k) work for k nonempty runs (O(N) where one run holds nearly all of
//   them), plus O(runs) to read the bounds and O(k log k) to plan the tree; each merge adds
//   co-rank searches of O(log N) per piece.
// - Errors: std::invalid_argument ("corank::host::<name>: <problem>"), before anything is
//   written, for a negative `runs` or run size, decreasing offsets, sizes whose sum does not
//   fit in 64 bits (merge_runs: offsets[runs] - offsets[0]), or a null raw pointer with a
//   nonzero size: an input, an output, a run's pointer, or the offsets or run lists
//   themselves when runs > 0. (Offsets past the end of keys_in cannot be seen: its size is
//   not passed.) Runs found not sorted by `comp` (a node's host::merge finds its two inputs
//   unsorted) throw corank::unsorted_input ("corank::host::<name>: ..."), once every thread
//   has stopped, with the outputs (and scratch) partly written: other nodes may have merged
//   by then. Runs not found unsorted give the N elements in an unspecified order. Either way
//   nothing is written outside the N outputs and the scratch. An exception of `comp` or an
//   iterator, on any thread, reaches the caller once every thread has stopped (the outputs
//   partly written).

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/detail/host/host_partitions.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/error.hpp>
#include <corank/host/merge.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace corank::host {

namespace detail {

using corank::detail::unused;

// it + n, where a keys-only form has no value iterator at all.
template <class Iterator>
Iterator offset_by(Iterator it, index_t n) {
  return it + n;
}
inline unused offset_by(unused, index_t) { return {}; }

// One node of the tree: A and B (with their values, or `unused`) into the output.
template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut, class Compare>
void merge_pair(KeysA a, ValuesA a_values, index_t size_a, KeysB b, ValuesB b_values, index_t size_b,
                KeysOut keys_out, ValuesOut values_out, Compare comp, unsigned threads) {
  if constexpr (corank::detail::is_used_v<ValuesOut>) {
    host::merge_by_key(a, a + size_a, b, b + size_b, a_values, b_values, keys_out, values_out, comp, threads);
  } else {
    host::merge(a, a + size_a, b, b + size_b, keys_out, comp, threads);
  }
}

// Where the tree's nodes write: the root and every even depth into the output, odd depths
// into the scratch, so that each node reads its children from the buffer it does not write
// and the last merge lands in the output.
template <class KeysOut, class ValuesOut, class KeysScratch, class ValuesScratch>
struct ping_pong {
  KeysOut keys_out;
  ValuesOut values_out;
  KeysScratch keys_scratch;
  ValuesScratch values_scratch;

  // Calls f(keys, values) at `position` of the buffer that nodes of `depth` write.
  template <class F>
  void at(int depth, index_t position, F&& f) const {
    if (depth % 2 == 0) {
      f(keys_out + position, offset_by(values_out, position));
    } else {
      f(keys_scratch + position, offset_by(values_scratch, position));
    }
  }
};

template <class Iterator>
using value_of = typename std::iterator_traits<Iterator>::value_type;

// `size` elements, default-initialized (no zeroing pass on one thread before the parallel
// work), or nothing where no node writes them.
template <class T>
std::unique_ptr<T[]> scratch_for(index_t size, bool needed) {
  return needed && size > 0 ? std::unique_ptr<T[]>(new T[static_cast<std::size_t>(size)]) : nullptr;
}

// Calls f(buffers), a ping_pong of the outputs and a scratch of `size` keys (and values) of
// their value types, allocated only where `needed`, freed when f returns.
template <class KeysOut, class ValuesOut, class F>
void with_ping_pong(index_t size, bool needed, KeysOut keys_out, ValuesOut values_out, F&& f) {
  const auto keys = scratch_for<value_of<KeysOut>>(size, needed);
  if constexpr (corank::detail::is_used_v<ValuesOut>) {
    const auto values = scratch_for<value_of<ValuesOut>>(size, needed);
    f(ping_pong<KeysOut, ValuesOut, value_of<KeysOut>*, value_of<ValuesOut>*>{keys_out, values_out, keys.get(),
                                                                                values.get()});
  } else {
    f(ping_pong<KeysOut, unused, value_of<KeysOut>*, unused>{keys_out, {}, keys.get(), {}});
  }
}

// Merges nonempty runs whose output positions are `starts` (one more than the runs,
// starts[0] == 0, strictly increasing): merge(0, runs, 0, threads) writes them all to the
// output. `Leaves` says where run r sits for its parent, a node of depth d - 1:
// leaves.prepare(r, d) is called once before any node reads the run, on whichever thread
// reaches it in the tree, then leaves.visit(r, d, f) calls f(keys, values). The k-way merge
// reads its runs where they are; the sort first sorts each piece into the buffer of its
// depth.
template <class Leaves, class Buffers, class Compare>
class run_tree {
 public:
  run_tree(const index_t* starts, const Leaves& leaves, const Buffers& buffers, Compare comp)
      : starts_(starts), leaves_(leaves), buffers_(buffers), comp_(comp) {}

  // Merges runs [first, last) into the buffer of `depth` with at most `threads` threads.
  void merge(index_t first, index_t last, int depth, unsigned threads) const {
    if (last - first == 1) {
      leaves_.prepare(first, depth);
      return;
    }
    const index_t middle = split(first, last);
    const index_t left = starts_[middle] - starts_[first];
    const index_t right = starts_[last] - starts_[middle];
    // Both halves on threads of their own only when each is worth a thread; otherwise one
    // after the other, each with every thread (the merges inside use them).
    if (threads > 1 && left >= corank::detail::host_min_items_per_thread &&
        right >= corank::detail::host_min_items_per_thread) {
      const double share = double(threads) * double(left) / (double(left) + double(right)) + 0.5;
      const unsigned left_threads = static_cast<unsigned>(std::clamp(share, 1.0, double(threads - 1)));
      corank::detail::for_each_output_piece(2, 2, [&](unsigned half, index_t, index_t) {
        if (half == 0) {
          merge(first, middle, depth + 1, left_threads);
        } else {
          merge(middle, last, depth + 1, threads - left_threads);
        }
      });
    } else {
      merge(first, middle, depth + 1, threads);
      merge(middle, last, depth + 1, threads);
    }
    side(first, middle, depth + 1, [&](auto a, auto a_values) {
      side(middle, last, depth + 1, [&](auto b, auto b_values) {
        buffers_.at(depth, starts_[first], [&](auto keys_out, auto values_out) {
          merge_pair(a, a_values, left, b, b_values, right, keys_out, values_out, comp_, threads);
        });
      });
    });
  }

 private:
  // Where the runs [first, last), merged by a node of `depth`, are: a single run where
  // its leaf put it, more in that depth's buffer.
  template <class F>
  void side(index_t first, index_t last, int depth, F&& f) const {
    if (last - first == 1) {
      leaves_.visit(first, depth, f);
    } else {
      buffers_.at(depth, starts_[first], f);
    }
  }

  // The run boundary in (first, last) nearest the middle element, so each half holds about
  // half of the elements. Equal runs make the balanced tree; a run of half a group's elements
  // or more is alone within two levels, so a run of s elements sits at depth O(log(N / s))
  // and the total work is O(N log k).
  index_t split(index_t first, index_t last) const {
    const index_t half = starts_[first] + (starts_[last] - starts_[first]) / 2;
    index_t cut = std::lower_bound(starts_ + first + 1, starts_ + last, half) - starts_;
    if (cut == last) return last - 1;
    if (cut > first + 1 && half - starts_[cut - 1] < starts_[cut] - half) --cut;
    return cut;
  }

  const index_t* starts_;
  const Leaves& leaves_;
  const Buffers& buffers_;
  Compare comp_;
};

// The k-way merge's leaves: each run read where it is in the caller's input.
template <class RunKeys, class RunValues>
struct input_runs {
  RunKeys keys;      // keys(r): run r's keys
  RunValues values;  // values(r): run r's values, or `unused`

  void prepare(index_t, int) const {}

  template <class F>
  void visit(index_t run, int, F&& f) const {
    f(keys(run), values(run));
  }
};

// What the k-way merge needs of its runs once checked: the nonempty ones, in order, with
// their output positions (starts, one more than runs) and where each begins in the input
// (`begins`: an offset for merge_runs, an index into the run lists for merge_run_list).
struct run_bounds {
  std::vector<index_t> starts{0};
  std::vector<index_t> begins;

  index_t runs() const { return index_t(begins.size()); }
  index_t total() const { return starts.back(); }
};

[[noreturn]] inline void argument_error(const char* name, const std::string& problem) {
  throw std::invalid_argument(std::string(name) + ": " + problem);
}

// Reads offsets[0, runs] once, checking them; empty runs are left out.
template <class Offsets>
run_bounds contiguous_bounds(const char* name, Offsets offsets, index_t runs) {
  if (runs < 0) argument_error(name, "the run count is negative");
  run_bounds bounds;
  if (runs == 0) return bounds;
  if (corank::detail::is_null(offsets)) argument_error(name, "the offsets are a null pointer");
  auto read = [&](index_t j) {
    const auto offset = offsets[j];
    using offset_type = std::decay_t<decltype(offset)>;
    if constexpr (std::is_unsigned_v<offset_type> && sizeof(offset_type) >= sizeof(index_t)) {
      if (offset > offset_type(std::numeric_limits<index_t>::max())) {
        argument_error(name, "offset " + std::to_string(j) + " does not fit in a signed 64-bit index");
      }
    }
    return static_cast<index_t>(offset);
  };
  const index_t first = read(0);
  index_t begin = first;
  for (index_t j = 0; j < runs; ++j) {
    const index_t end = read(j + 1);
    if (end < begin) {
      argument_error(name, "the offsets decrease: run " + std::to_string(j) + " ends before it begins");
    }
    // end >= first here, so the unsigned difference is the true one.
    if (std::uint64_t(end) - std::uint64_t(first) > std::uint64_t(std::numeric_limits<index_t>::max())) {
      argument_error(name, "the runs' total size does not fit in 64 bits");
    }
    if (end > begin) {
      bounds.begins.push_back(begin);
      bounds.starts.push_back(end - first);
    }
    begin = end;
  }
  return bounds;
}

// Checks the run lists (run_values: null for keys-only forms) and keeps the nonempty runs.
template <class Key, class Value>
run_bounds listed_bounds(const char* name, const Key* const* run_keys, const Value* const* run_values,
                         bool with_values, const index_t* run_sizes, index_t runs) {
  if (runs < 0) argument_error(name, "the run count is negative");
  run_bounds bounds;
  if (runs == 0) return bounds;
  if (run_keys == nullptr) argument_error(name, "the run key list is a null pointer");
  if (with_values && run_values == nullptr) argument_error(name, "the run value list is a null pointer");
  if (run_sizes == nullptr) argument_error(name, "the run sizes are a null pointer");
  index_t total = 0;
  for (index_t j = 0; j < runs; ++j) {
    const index_t size = run_sizes[j];
    if (size < 0) argument_error(name, "run " + std::to_string(j) + " has a negative size");
    if (size == 0) continue;
    if (run_keys[j] == nullptr) {
      argument_error(name, "run " + std::to_string(j) + " is a null pointer with a nonzero size");
    }
    if (with_values && run_values[j] == nullptr) {
      argument_error(name, "the values of run " + std::to_string(j) + " are a null pointer with a nonzero size");
    }
    if (size > std::numeric_limits<index_t>::max() - total) {
      argument_error(name, "the runs' total size does not fit in 64 bits");
    }
    total += size;
    bounds.begins.push_back(j);
    bounds.starts.push_back(total);
  }
  return bounds;
}

// A null raw-pointer output is refused where something would be written to it.
template <class KeysOut, class ValuesOut>
void check_outputs(const char* name, index_t total, KeysOut keys_out, ValuesOut values_out) {
  if (total == 0) return;
  if (corank::detail::is_null(keys_out)) argument_error(name, "the output is a null pointer with a nonzero size");
  if constexpr (corank::detail::is_used_v<ValuesOut>) {
    if (corank::detail::is_null(values_out)) {
      argument_error(name, "the value output is a null pointer with a nonzero size");
    }
  }
}

// Every form, once its runs are checked: one run is copied, more go through the tree.
template <class RunKeys, class RunValues, class KeysOut, class ValuesOut, class Compare>
void merge_checked_runs(const char* name, const run_bounds& bounds, RunKeys run_keys, RunValues run_values,
                        KeysOut keys_out, ValuesOut values_out, Compare comp, unsigned threads) {
  const index_t total = bounds.total();
  const index_t runs = bounds.runs();
  if (runs == 0) return;
  const unsigned budget = corank::detail::host_thread_count(total, threads);
  if (runs == 1) {
    const auto keys = run_keys(0);
    const auto values = run_values(0);
    corank::detail::for_each_output_piece(total, budget, [&](unsigned, index_t begin, index_t end) {
      std::copy(keys + begin, keys + end, keys_out + begin);
      if constexpr (corank::detail::is_used_v<ValuesOut>) {
        std::copy(values + begin, values + end, values_out + begin);
      }
    });
    return;
  }
  // Two runs make one node, at depth 0: the scratch is written from three runs on.
  try {
    with_ping_pong(total, runs >= 3, keys_out, values_out, [&](const auto& buffers) {
      const input_runs<RunKeys, RunValues> leaves{run_keys, run_values};
      run_tree(bounds.starts.data(), leaves, buffers, comp).merge(0, runs, 0, budget);
    });
  } catch (const unsorted_input&) {
    throw unsorted_input(name);  // a node's host::merge found it: say which call
  }
}

}  // namespace detail

// Merges run j = keys_in[offsets[j], offsets[j + 1]) for j < runs into keys_out; returns
// keys_out + offsets[runs] - offsets[0].
template <class KeysIn, class Offsets, class KeysOut, class Compare = corank::less>
KeysOut merge_runs(KeysIn keys_in, Offsets offsets, index_t runs, KeysOut keys_out, Compare comp = {},
                   unsigned threads = 0) {
  constexpr const char* name = "corank::host::merge_runs";
  const detail::run_bounds bounds = detail::contiguous_bounds(name, offsets, runs);
  const index_t total = bounds.total();
  if (total > 0 && corank::detail::is_null(keys_in)) {
    detail::argument_error(name, "the input is a null pointer with a nonzero size");
  }
  detail::check_outputs(name, total, keys_out, detail::unused{});
  const index_t* begins = bounds.begins.data();
  detail::merge_checked_runs(
      name, bounds, [&](index_t r) { return keys_in + begins[r]; }, [](index_t) { return detail::unused{}; }, keys_out,
      detail::unused{}, comp, threads);
  return keys_out + total;
}

// The same with values: run j's values are values_in[offsets[j], offsets[j + 1]). Returns
// the ends of the key and value outputs.
template <class KeysIn, class ValuesIn, class Offsets, class KeysOut, class ValuesOut, class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_runs_by_key(KeysIn keys_in, ValuesIn values_in, Offsets offsets, index_t runs,
                                                KeysOut keys_out, ValuesOut values_out, Compare comp = {},
                                                unsigned threads = 0) {
  constexpr const char* name = "corank::host::merge_runs_by_key";
  const detail::run_bounds bounds = detail::contiguous_bounds(name, offsets, runs);
  const index_t total = bounds.total();
  if (total > 0 && corank::detail::is_null(keys_in)) {
    detail::argument_error(name, "the input is a null pointer with a nonzero size");
  }
  if (total > 0 && corank::detail::is_null(values_in)) {
    detail::argument_error(name, "the input values are a null pointer with a nonzero size");
  }
  detail::check_outputs(name, total, keys_out, values_out);
  const index_t* begins = bounds.begins.data();
  detail::merge_checked_runs(
      name, bounds, [&](index_t r) { return keys_in + begins[r]; }, [&](index_t r) { return values_in + begins[r]; },
      keys_out, values_out, comp, threads);
  return {keys_out + total, values_out + total};
}

// Merges run j = run_keys[j][0, run_sizes[j]) for j < runs into keys_out; returns keys_out
// plus the runs' total size.
template <class Key, class KeysOut, class Compare = corank::less>
KeysOut merge_run_list(const Key* const* run_keys, const index_t* run_sizes, index_t runs, KeysOut keys_out,
                       Compare comp = {}, unsigned threads = 0) {
  constexpr const char* name = "corank::host::merge_run_list";
  const detail::run_bounds bounds =
      detail::listed_bounds(name, run_keys, static_cast<const char* const*>(nullptr), false, run_sizes, runs);
  detail::check_outputs(name, bounds.total(), keys_out, detail::unused{});
  const index_t* which = bounds.begins.data();
  detail::merge_checked_runs(
      name, bounds, [&](index_t r) { return run_keys[which[r]]; }, [](index_t) { return detail::unused{}; }, keys_out,
      detail::unused{}, comp, threads);
  return keys_out + bounds.total();
}

// The same with values: run j's values are run_values[j][0, run_sizes[j]). Returns the ends
// of the key and value outputs.
template <class Key, class Value, class KeysOut, class ValuesOut, class Compare = corank::less>
std::pair<KeysOut, ValuesOut> merge_run_list_by_key(const Key* const* run_keys, const Value* const* run_values,
                                                    const index_t* run_sizes, index_t runs, KeysOut keys_out,
                                                    ValuesOut values_out, Compare comp = {},
                                                    unsigned threads = 0) {
  constexpr const char* name = "corank::host::merge_run_list_by_key";
  const detail::run_bounds bounds = detail::listed_bounds(name, run_keys, run_values, true, run_sizes, runs);
  detail::check_outputs(name, bounds.total(), keys_out, values_out);
  const index_t* which = bounds.begins.data();
  detail::merge_checked_runs(
      name, bounds, [&](index_t r) { return run_keys[which[r]]; }, [&](index_t r) { return run_values[which[r]]; },
      keys_out, values_out, comp, threads);
  return {keys_out + bounds.total(), values_out + bounds.total()};
}

}  // namespace corank::host
