#pragma once
// What a sort or a k-way merge reads and writes, as the multiway dispatcher takes it
// (multiway_dispatch.cuh): the input in one of three forms, the sizes, and the outputs. The
// public forms (sort.inl, merge_runs.inl) build one and call dispatch_multiway, as merge.inl
// builds merge_args and calls dispatch. Iterators arrive unwrapped (iterators.hpp); outputs
// are raw pointers, since the passes read them back.

#include <corank/config.hpp>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/tuning.hpp>

#include <limits>

namespace corank::detail {

// A sort's input: `size` elements in any order; the block sort makes the runs.
template <class KeysIn, class ValuesIn>
struct sort_input {
  KeysIn keys;
  ValuesIn values;  // unused: keys only
};

// Runs in one sequence: run j is keys[offsets[j], offsets[j + 1]) (a caller's offsets, of any
// integer type; made nondecreasing and within `size` on the device before any pass reads them).
template <class KeysIn, class ValuesIn, class Offsets>
struct offset_runs_input {
  KeysIn keys;
  ValuesIn values;  // unused: keys only
  Offsets offsets;
};

// Runs anywhere: run j is keys[j][0, sizes[j]) (device arrays of pointers and sizes).
template <class Key, class Value, class Sizes>
struct run_list_input {
  const Key* const* keys;
  const Value* const* values;  // null (of unused): keys only
  Sizes sizes;
};

template <class Input>
inline constexpr bool is_sort_input_v = false;
template <class KeysIn, class ValuesIn>
inline constexpr bool is_sort_input_v<sort_input<KeysIn, ValuesIn>> = true;

template <class Input>
inline constexpr bool is_run_list_input_v = false;
template <class Key, class Value, class Sizes>
inline constexpr bool is_run_list_input_v<run_list_input<Key, Value, Sizes>> = true;

template <class Input, class Key, class Value>
struct multiway_args {
  Input input;
  index_t runs;  // the input's runs (a sort: 0; its runs are the block sort's tiles)
  index_t size;  // elements in all
  Key* keys_out;
  Value* values_out;  // Value unused: keys only
  static constexpr bool with_values = is_used_v<Value>;
};

template <class Input, class Key, class Value>
multiway_args<Input, Key, Value> make_multiway_args(Input input, index_t runs, index_t size, Key* keys_out,
                                                   Value* values_out) {
  return {input, runs, size, keys_out, values_out};
}

// What is wrong with a k-way merge's sizes, or nullptr.
inline const char* merge_runs_size_error(index_t runs, index_t size) {
  if (runs < 0) return "the number of runs is negative";
  if (size < 0) return "the size is negative";
  if (runs >= index_t(std::numeric_limits<int>::max()) * multiway_max_group) return "too many runs";
  return nullptr;
}

// What is wrong with the arguments, or nullptr: the sizes always, the pointers where `run`
// (a query looks at sizes only). The sentences are the convenience forms' messages.
template <class Input, class Key, class Value>
const char* multiway_argument_error(const multiway_args<Input, Key, Value>& args, bool run) {
  constexpr bool with_values = multiway_args<Input, Key, Value>::with_values;
  const Input& in = args.input;
  if constexpr (is_sort_input_v<Input>) {
    if (args.size < 0) return "the size is negative";
    if (!run || args.size == 0) return nullptr;
    if (is_null(in.keys)) return "the keys are a null pointer with a nonzero size";
    if (is_null(args.keys_out)) return "the key output is a null pointer with a nonzero size";
    if constexpr (with_values) {
      if (is_null(in.values)) return "the values are a null pointer with a nonzero size";
      if (is_null(args.values_out)) return "the value output is a null pointer with a nonzero size";
    }
    return nullptr;
  } else {
    if (const char* problem = merge_runs_size_error(args.runs, args.size)) return problem;
    if (!run) return nullptr;
    bool null_input = false;
    if constexpr (is_run_list_input_v<Input>) {
      null_input = args.runs > 0 && (in.keys == nullptr || is_null(in.sizes) || (with_values && in.values == nullptr));
    } else {
      null_input = (args.runs > 0 && is_null(in.offsets)) ||
                   (args.size > 0 && (is_null(in.keys) || (with_values && is_null(in.values))));
    }
    if (null_input) return "an input is a null pointer where there is something to read";
    if (args.size > 0 && (is_null(args.keys_out) || (with_values && is_null(args.values_out))))
      return "an output is a null pointer with a nonzero size";
    return nullptr;
  }
}

}  // namespace corank::detail
