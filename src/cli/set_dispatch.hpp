#pragma once
// One body for every key type and backend: picks the key type and the value payload of a
// job at run time and calls a backend's runners (corank:: on the GPU, corank::host:: on the
// CPU) with raw pointers and the key type's order. Plain C++, so both g++ and nvcc use it.
// Each backend names the key types and payloads it compiles for: the CPU every dtype, the
// GPU fewer (set_gpu_ops.hpp), mapping the others onto them.

#include "dtype.hpp"

#include <corank/comparators.hpp>
#include <corank/config.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace corank::cli {

// Float columns may hold NaN: NumPy sorts them last, and so does nan_last_less.
template <class Key>
using key_order = std::conditional_t<std::is_floating_point_v<Key>, corank::nan_last_less, corank::less>;

// Raw pointers of one job, in device or host memory.
struct operation_operands {
  dtype key_type = dtype::int32;
  std::size_t value_bytes = 0;  // 0: keys only; else the values' width, moved as that many bytes
  const void* a = nullptr;
  index_t size_a = 0;
  const void* b = nullptr;
  index_t size_b = 0;
  const void* a_values = nullptr;
  const void* b_values = nullptr;
  void* keys_out = nullptr;
  void* values_out = nullptr;
  bool count_only = false;
  // Segmented jobs (segmented_runners): S + 1 int64 offsets of A and of B, and where the
  // S + 1 output offsets (count_only: the S sizes) go.
  const std::int64_t* a_offsets = nullptr;
  const std::int64_t* b_offsets = nullptr;
  index_t segments = 0;
  std::int64_t* segments_out = nullptr;
};

// The three forms of one operation, as callables with the library's argument order and a
// trailing backend argument (a cudaStream_t, or a thread count):
//   keys(a, a_end, b, b_end, out, comp, extra) -> out end
//   by_key(a, a_end, b, b_end, a_values, b_values, keys_out, values_out, comp, extra) -> pair of ends
//   count(a, a_end, b, b_end, comp, extra) -> index_t
template <class Keys, class ByKey, class Count>
struct operation_runners {
  Keys keys;
  ByKey by_key;
  Count count;
};
template <class Keys, class ByKey, class Count>
operation_runners(Keys, ByKey, Count) -> operation_runners<Keys, ByKey, Count>;

// The segmented forms of one operation (segmented_set_union, segmented_set_union_by_key,
// segmented_set_union_count, ... of corank:: or corank::host::) as the runners above, each
// call given o's offsets and where the segments' offsets or sizes go, so that run_operation
// runs them as it runs the two-input forms.
template <class Keys, class ByKey, class Count>
auto segmented_runners(Keys keys, ByKey by_key, Count count, const operation_operands& o) {
  const std::int64_t* a_offsets = o.a_offsets;
  const std::int64_t* b_offsets = o.b_offsets;
  const index_t segments = o.segments;
  std::int64_t* segments_out = o.segments_out;
  return operation_runners{
      [=](auto a, auto a_end, auto b, auto b_end, auto out, auto comp, auto extra) {
        return keys(a, a_end, a_offsets, b, b_end, b_offsets, segments, out, segments_out, comp, extra);
      },
      [=](auto a, auto a_end, auto b, auto b_end, auto a_values, auto b_values, auto keys_out, auto values_out,
          auto comp, auto extra) {
        return by_key(a, a_end, a_offsets, b, b_end, b_offsets, segments, a_values, b_values, keys_out, values_out,
                      segments_out, comp, extra);
      },
      [=](auto a, auto a_end, auto b, auto b_end, auto comp, auto extra) {
        return count(a, a_end, a_offsets, b, b_end, b_offsets, segments, segments_out, comp, extra);
      }};
}

// The count runner of segmented_runners for the merges, which have no count form: the total
// only. The command answers merge --count from the headers and offsets (segments.hpp's
// merge_segment_sizes) and never runs it; run_operation needs one.
inline constexpr auto segmented_merge_size = [](auto a, auto a_end, auto, auto b, auto b_end, auto, auto, auto, auto,
                                                auto) { return index_t((a_end - a) + (b_end - b)); };

// The key types a backend compiles for.
template <class... Keys>
struct key_types {};
using all_key_types = key_types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                                std::int64_t, std::uint64_t, float, double>;

// The payload types a backend moves values as, one per width it takes.
template <class... Payloads>
struct value_payloads {};
using all_value_payloads = value_payloads<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;

// Calls f(type_tag<Key>{}, type_tag<Payload>{}) for the Key of `key_type` and the Payload of
// `value_bytes` bytes, Payload void where value_bytes is 0 (keys only). key_type must be
// one of Keys, and value_bytes 0 or the size of one of Payloads. The multiway commands
// (multiway_*.cpp/.cu) dispatch with it too.
template <class... Keys, class... Payloads, class F>
void visit_key_and_payload(key_types<Keys...>, value_payloads<Payloads...>, dtype key_type, std::size_t value_bytes,
                           F&& f) {
  const auto for_key = [&](auto key_tag) {
    if (value_bytes == 0) {
      f(key_tag, type_tag<void>{});
    } else {
      ((value_bytes == sizeof(Payloads) ? void(f(key_tag, type_tag<Payloads>{})) : void()), ...);
    }
  };
  ((key_type == dtype_of<Keys>() ? void(for_key(type_tag<Keys>{})) : void()), ...);
}

// Whether a backend compiles for keys of `key_type` and values of `value_bytes` (0: keys only).
template <class... Keys, class... Payloads>
bool compiles_for(key_types<Keys...>, value_payloads<Payloads...>, dtype key_type, std::size_t value_bytes) {
  return ((key_type == dtype_of<Keys>()) || ...) && (value_bytes == 0 || ((value_bytes == sizeof(Payloads)) || ...));
}

// Runs the operation; returns the output size. o.key_type must be one of Keys, and
// o.value_bytes the size of one of Payloads.
template <class... Keys, class... Payloads, class Runners, class Extra>
index_t run_operation(key_types<Keys...> keys, value_payloads<Payloads...> payloads, const Runners& run,
                      const operation_operands& o, Extra extra) {
  index_t count = -1;
  // Counting moves no values: the keys-only dispatch.
  const std::size_t value_bytes = o.count_only ? 0 : o.value_bytes;
  visit_key_and_payload(keys, payloads, o.key_type, value_bytes, [&](auto key_tag, auto value_tag) {
    using Key = typename decltype(key_tag)::type;
    using Value = typename decltype(value_tag)::type;
    const key_order<Key> comp{};
    const Key* a = static_cast<const Key*>(o.a);
    const Key* b = static_cast<const Key*>(o.b);
    Key* out = static_cast<Key*>(o.keys_out);
    if constexpr (std::is_void_v<Value>) {
      if (o.count_only) {
        count = index_t(run.count(a, a + o.size_a, b, b + o.size_b, comp, extra));
      } else {
        count = index_t(run.keys(a, a + o.size_a, b, b + o.size_b, out, comp, extra) - out);
      }
    } else {
      const auto ends = run.by_key(a, a + o.size_a, b, b + o.size_b, static_cast<const Value*>(o.a_values),
                                   static_cast<const Value*>(o.b_values), out, static_cast<Value*>(o.values_out),
                                   comp, extra);
      count = index_t(ends.first - out);
    }
  });
  return count;
}

}  // namespace corank::cli
