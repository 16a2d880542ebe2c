#pragma once
// What one merge-like operation reads and writes, the argument checks that every backend
// applies before touching it, and the walk of one output range straight from the inputs
// (the CPU backend's threads and the GPU's naive strategy). Plain C++.

#include <corank/co_rank.hpp>
#include <corank/config.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/detail/thread/serial_walk.hpp>

#include <iterator>
#include <limits>
#include <type_traits>

namespace corank::detail {

// What an operation reads and writes. Values are `unused` for keys only, the key output for
// count-only forms, and B's values output (the matched B element's value, written beside
// A's by the paired forms) everywhere else.
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class BValuesOut = unused>
struct merge_args {
  KeysA keys_a;
  index_t size_a;
  KeysB keys_b;
  index_t size_b;
  ValuesA values_a;
  ValuesB values_b;
  KeysOut keys_out;
  ValuesOut values_out;
  BValuesOut b_values_out = {};

  using key_type = typename std::iterator_traits<KeysA>::value_type;
  static constexpr bool with_values = is_used_v<ValuesA>;
  static constexpr bool writes_keys = is_used_v<KeysOut>;
  static constexpr bool writes_b_values = is_used_v<BValuesOut>;
  static constexpr bool segmented = false;  // segmented_args.hpp's are
  using value_type = typename std::conditional_t<with_values, std::iterator_traits<ValuesA>,
                                                 std::iterator_traits<const char*>>::value_type;
  // B's values are computed (b_step_values.hpp) where the search operations write them.
  static constexpr bool computes_b_values = writes_b_values && computes_b_values_v<ValuesB>;
  using b_value_type =
      typename std::conditional_t<writes_b_values, b_value_of<ValuesB>, b_value_of<const char*>>::type;
};

// Describes what is wrong with the arguments, or returns nullptr.
template <class Args>
const char* merge_argument_error(const Args& args) {
  if (args.size_a < 0 || args.size_b < 0) return "a size is negative";
  if (args.size_a > std::numeric_limits<index_t>::max() - args.size_b)
    return "the output size does not fit in 64 bits";
  if (args.size_a > 0 && is_null(args.keys_a)) return "input A is a null pointer with a nonzero size";
  if (args.size_b > 0 && is_null(args.keys_b)) return "input B is a null pointer with a nonzero size";
  const bool any = args.size_a + args.size_b > 0;
  if (any && is_null(args.keys_out)) return "the output is a null pointer with a nonzero size";
  if constexpr (Args::with_values) {
    if (args.size_a > 0 && is_null(args.values_a)) return "values of A are a null pointer with a nonzero size";
    if (args.size_b > 0 && is_null(args.values_b)) return "values of B are a null pointer with a nonzero size";
    if (any && is_null(args.values_out)) return "the value output is a null pointer with a nonzero size";
  }
  if constexpr (Args::writes_b_values) {
    if (any && is_null(args.b_values_out)) return "the B value output is a null pointer with a nonzero size";
  }
  if constexpr (Args::segmented) return args.segments_error();
  return nullptr;
}

// Writes outputs [begin, end) of a merge-like op: co-rank both ends, walk between them.
CORANK_EXEC_CHECK_DISABLE
template <class Op, class Args, class Compare>
CORANK_HOST_DEVICE void walk_output_range(const Op& op, const Args& args, Compare comp, index_t begin,
                                          index_t end) {
  const index_t i = co_rank(begin, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
  const index_t i_end = co_rank(end, args.keys_a, args.size_a, args.keys_b, args.size_b, comp);
  // Only unsorted inputs give splits that go backwards; such a range would walk more than
  // end - begin steps, into its neighbour's outputs or past the end: it writes nothing.
  if (i > i_end || begin - i > end - i_end) return;
  auto values_out = [&] {
    if constexpr (Args::with_values) {
      return args.values_out + begin;
    } else {
      return unused{};
    }
  }();
  walk_partition(op, comp, args.keys_a, i, i_end, args.keys_b, begin - i, end - i_end, args.values_a,
                 args.values_b, args.keys_out + begin, values_out);
}

}  // namespace corank::detail
