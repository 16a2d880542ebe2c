#pragma once
// Running any merge-path op on CPU threads chunk by chunk (streamed_chunks.hpp), so that its
// output can go to a sink as it is made, in memory of a chunk's size: the CPU backend of
// streamed_operation.cuh, with the same runners, options and results. Inputs may be larger
// than memory (memory-mapped files: each chunk reads its windows once, in order).
//
// Every runner, with A = [a_first, a_last) of m elements and B = [b_first, b_last) of n,
// raw pointers:
// - Result: host/operation.hpp's for the same op; the output either in an array
//   (keys_out[, values_out]), or handed to a sink chunk by chunk, in output order, on the
//   calling thread: sink(keys, count) for keys, sink(keys, values, count) with values, where
//   the pointers hold the next `count` outputs (count > 0) until the sink returns.
// - Preconditions: host/operation.hpp's. Ops that see run starts (op.hpp) are refused at
//   compile time, as chunks do not see the key before their windows.
// - Work: each chunk is one host/operation.hpp call on options.threads threads (0: every
//   hardware thread) over its windows; chunks of options.chunk path steps (0:
//   streamed_options::default_chunk); options.progress after each.
// - Errors: std::invalid_argument ("<name>: <problem>"), before anything is read or written,
//   for host/operation.hpp's argument problems and a negative chunk. Inputs found not sorted
//   by `comp` (a chunk's windows, or its pieces' splits, go back in A or in B) throw
//   corank::unsorted_input before that chunk is written or handed to the sink; unsorted
//   inputs not found so give an unspecified result within host/operation.hpp's bounds, and
//   nothing is written outside the output. Chunks are found as the stream goes, so this and
//   an exception of the sink, the progress callback, `comp` or the op stop the call and reach
//   the caller with the chunks before it delivered.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/detail/thread/serial_walk.hpp>
#include <corank/error.hpp>
#include <corank/host/operation.hpp>
#include <corank/op.hpp>
#include <corank/streamed_chunks.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace corank::host {

namespace detail {

using corank::detail::chunk_window;
using corank::detail::is_used_v;
using corank::detail::unused;

// Where a chunk's output goes: the caller's arrays, at the output's running offset...
template <class KeysOut, class ValuesOut>
struct array_output {
  KeysOut keys;
  ValuesOut values;  // or unused
  KeysOut keys_at(index_t offset) const { return keys + offset; }
  ValuesOut values_at(index_t offset) const {
    if constexpr (is_used_v<ValuesOut>) return values + offset; else return {};
  }
  void deliver(index_t) const {}
};

// ... or buffers of one chunk, handed to the sink. Value is unused for keys only.
template <class Key, class Value, class Sink>
struct sink_output {
  Sink& sink;
  std::vector<Key> keys;
  std::vector<std::conditional_t<is_used_v<Value>, Value, char>> values;
  void reserve(index_t size) {
    keys.resize(static_cast<std::size_t>(size));
    if constexpr (is_used_v<Value>) values.resize(static_cast<std::size_t>(size));
  }
  Key* keys_at(index_t) { return keys.data(); }
  auto values_at(index_t) {
    if constexpr (is_used_v<Value>) return values.data(); else return unused{};
  }
  void deliver(index_t count) {
    if (count == 0) return;
    const Key* chunk_keys = keys.data();
    if constexpr (is_used_v<Value>) {
      const Value* chunk_values = values.data();
      sink(chunk_keys, chunk_values, count);
    } else {
      sink(chunk_keys, count);
    }
  }
};

template <class Output>
inline constexpr bool is_staged_v = false;
template <class Key, class Value, class Sink>
inline constexpr bool is_staged_v<sink_output<Key, Value, Sink>> = true;

template <class Sink, class... Outputs>
inline constexpr bool is_sink_v = std::is_invocable_v<Sink&, Outputs..., index_t>;

// The op on every chunk, in order, each chunk's output written through `output` (unused:
// counted only); returns the output size. Checks the arguments first.
template <class Op, class Key, class ValuesIn, class Output, class Compare>
index_t run_streamed(const char* name, const Op& op, const Key* a_first, const Key* a_last, const Key* b_first,
                     const Key* b_last, ValuesIn a_values, ValuesIn b_values, Output& output, Compare comp,
                     const streamed_options& options) {
  static_assert(!sees_run_starts_v<Op>, "the streamed forms do not take ops that see run starts (op.hpp)");
  const auto args = [&] {
    if constexpr (is_used_v<Output> && !is_staged_v<Output>) {
      return make_args(a_first, a_last, b_first, b_last, a_values, b_values, output.keys, output.values);
    } else {
      return make_args(a_first, a_last, b_first, b_last, a_values, b_values, unused{}, unused{});
    }
  }();
  if (const char* problem = corank::detail::streamed_argument_error(args, options)) {
    throw std::invalid_argument(std::string(name) + ": " + problem);
  }
  const index_t chunk = options.chunk != 0 ? options.chunk : streamed_options::default_chunk;
  if constexpr (is_staged_v<Output>) output.reserve(std::min(chunk + 1, args.size_a + args.size_b));
  corank::detail::chunk_cutter<Op::partition, Key, Key, Compare> chunks(a_first, args.size_a, b_first, args.size_b,
                                                                       chunk, comp);
  index_t written = 0;
  for (index_t c = 0; c < chunks.count(); ++c) {
    const chunk_window w = chunks.next();
    if (!w.ordered()) throw unsorted_input(name);  // only unsorted inputs give such windows
    const Key *a = a_first + w.a_begin, *a_end = a_first + w.a_end;
    const Key *b = b_first + w.b_begin, *b_end = b_first + w.b_end;
    index_t count;
    if constexpr (!is_used_v<Output>) {
      count = count_operation<Op>{op, name}(a, a_end, b, b_end, comp, options.threads);
    } else if constexpr (is_used_v<ValuesIn>) {
      const auto keys_out = output.keys_at(written);
      count = by_key_operation<Op>{op, name}(a, a_end, b, b_end, a_values + w.a_begin, b_values + w.b_begin,
                                             keys_out, output.values_at(written), comp, options.threads)
                  .first -
              keys_out;
    } else {
      const auto keys_out = output.keys_at(written);
      count = keys_operation<Op>{op, name}(a, a_end, b, b_end, keys_out, comp, options.threads) - keys_out;
    }
    if constexpr (is_used_v<Output>) output.deliver(count);
    written += count;
    if (options.progress) options.progress(chunks.end_of(c), chunks.total());
  }
  return written;
}

}  // namespace detail

// Writes the keys the op emits to out (returns its end), or hands them to sink(keys, count)
// (returns the output size).
template <class Op>
struct streamed_keys_operation {
  Op op{};
  const char* name = "corank::host::streamed_keys_operation";  // says who failed, in errors

  template <class Key, class Compare = corank::less>
  Key* operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last, Key* out,
                  Compare comp = {}, const streamed_options& options = {}) const {
    detail::array_output<Key*, detail::unused> output{out, {}};
    return out + detail::run_streamed(name, op, a_first, a_last, b_first, b_last, detail::unused{},
                                      detail::unused{}, output, comp, options);
  }

  template <class Key, class Sink, class Compare = corank::less,
            std::enable_if_t<detail::is_sink_v<Sink, const Key*>, int> = 0>
  index_t operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last, Sink&& sink,
                     Compare comp = {}, const streamed_options& options = {}) const {
    detail::sink_output<Key, detail::unused, Sink> output{sink, {}, {}};
    return detail::run_streamed(name, op, a_first, a_last, b_first, b_last, detail::unused{}, detail::unused{},
                                output, comp, options);
  }
};

// As streamed_keys_operation, with values: writes keys_out and values_out (returns their
// ends), or hands them to sink(keys, values, count) (returns the output size).
template <class Op>
struct streamed_by_key_operation {
  Op op{};
  const char* name = "corank::host::streamed_by_key_operation";  // says who failed, in errors

  template <class Key, class Value, class Compare = corank::less>
  std::pair<Key*, Value*> operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last,
                                     const Value* a_values, const Value* b_values, Key* keys_out, Value* values_out,
                                     Compare comp = {}, const streamed_options& options = {}) const {
    detail::array_output<Key*, Value*> output{keys_out, values_out};
    const index_t count = detail::run_streamed(name, op, a_first, a_last, b_first, b_last, a_values, b_values,
                                               output, comp, options);
    return {keys_out + count, values_out + count};
  }

  template <class Key, class Value, class Sink, class Compare = corank::less,
            std::enable_if_t<detail::is_sink_v<Sink, const Key*, const Value*>, int> = 0>
  index_t operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last,
                     const Value* a_values, const Value* b_values, Sink&& sink, Compare comp = {},
                     const streamed_options& options = {}) const {
    detail::sink_output<Key, Value, Sink> output{sink, {}, {}};
    return detail::run_streamed(name, op, a_first, a_last, b_first, b_last, a_values, b_values, output, comp,
                                options);
  }
};

// Returns the output size; writes nothing.
template <class Op>
struct streamed_count_operation {
  Op op{};
  const char* name = "corank::host::streamed_count_operation";  // says who failed, in errors

  template <class Key, class Compare = corank::less>
  index_t operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last,
                     Compare comp = {}, const streamed_options& options = {}) const {
    detail::unused output;
    return detail::run_streamed(name, op, a_first, a_last, b_first, b_last, detail::unused{}, detail::unused{},
                                output, comp, options);
  }
};

template <class Op> streamed_keys_operation(Op) -> streamed_keys_operation<Op>;
template <class Op> streamed_by_key_operation(Op) -> streamed_by_key_operation<Op>;
template <class Op> streamed_count_operation(Op) -> streamed_count_operation<Op>;

}  // namespace corank::host
