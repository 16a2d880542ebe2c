#pragma once
// One body for every GPU operation: picks the key type (4- and 8-byte integers and floats)
// and value payloads of a call at run time and runs the operation's two-phase runner
// (corank::device) with temporary storage from corank's pool. The output size is read back
// (waiting for the stream) or left in o.count_out on the device.

#include "distinct_ops.hpp"
#include "gpu_operations.hpp"

#include <corank/detail/forms/two_phase.hpp>
#include <corank/operation.cuh>
#include <corank/ops/set_intersection.hpp>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace corank::python {

// Calls f(type_tag<Key>{}) for a kernel key type.
template <class F>
index_t visit_gpu_key(dtype type, F&& f) {
  switch (type) {
    case dtype::int32: return f(type_tag<std::int32_t>{});
    case dtype::uint32: return f(type_tag<std::uint32_t>{});
    case dtype::int64: return f(type_tag<std::int64_t>{});
    case dtype::uint64: return f(type_tag<std::uint64_t>{});
    case dtype::float32: return f(type_tag<float>{});
    case dtype::float64: return f(type_tag<double>{});
    default: throw std::invalid_argument("corank: a 1- or 2-byte key type reached the GPU kernels unwidened");
  }
}

// Runs `call(temp, bytes, count_out)`, a two-phase call, as o asks: the size to o.count_out
// (returns -1), or read back. Forms that write keys store the size once, straight into the
// pinned host word; count-only forms add to a device word.
template <class TwoPhaseCall>
index_t run_two_phase_call(const char* name, const operands& o, cudaStream_t stream, TwoPhaseCall call) {
  if (o.count_out != nullptr) {
    corank::detail::run_two_phase(name, stream, [&](void* temp, std::size_t& bytes, index_t*) {
      return call(temp, bytes, temp == nullptr ? nullptr : o.count_out);
    });
    return -1;
  }
  using corank::detail::result_word;
  if (o.count_only) return corank::detail::run_two_phase_for_result<result_word::device>(name, stream, call);
  return corank::detail::run_two_phase_for_result<result_word::host>(name, stream, call);
}

// Runs o with the runners of Op (set operations and the distinct ones).
template <class Op>
index_t run_gpu_operation(const char* name, const operands& o, cudaStream_t stream) {
  return visit_gpu_key(o.key_type, [&](auto key_tag) -> index_t {
    using Key = typename decltype(key_tag)::type;
    const key_order<Key> comp{};
    const Key* a = static_cast<const Key*>(o.a);
    const Key* b = static_cast<const Key*>(o.b);
    Key* out = static_cast<Key*>(o.keys_out);
    const index_t m = o.size_a, n = o.size_b;
    const auto run = [&](auto two_phase) { return run_two_phase_call(name, o, stream, two_phase); };
    if constexpr (is_distinct_op<Op>) {
      return run([&](void* t, std::size_t& bytes, index_t* count) {
        return device::keys_operation<Op>{}(t, bytes, a, m, b, n, out, count, comp, stream, o.kind);
      });
    } else {
      if (o.count_only) {
        return run([&](void* t, std::size_t& bytes, index_t* count) {
          return device::count_operation<Op>{}(t, bytes, a, m, b, n, count, comp, stream, o.kind);
        });
      }
      if (o.a_value_bytes == 0) {
        return run([&](void* t, std::size_t& bytes, index_t* count) {
          return device::keys_operation<Op>{}(t, bytes, a, m, b, n, out, count, comp, stream, o.kind);
        });
      }
      return visit_payload(o.a_value_bytes, [&](auto a_tag) -> index_t {
        using ValueA = typename decltype(a_tag)::type;
        const auto* va = static_cast<const ValueA*>(o.a_values);
        auto* va_out = static_cast<ValueA*>(o.values_out);
        if constexpr (std::is_same_v<Op, ops::set_intersection_op>) {
          if (o.paired()) {
            return visit_payload(o.b_value_bytes, [&](auto b_tag) -> index_t {
              using ValueB = typename decltype(b_tag)::type;
              const auto* vb = static_cast<const ValueB*>(o.b_values);
              auto* vb_out = static_cast<ValueB*>(o.b_values_out);
              return run([&](void* t, std::size_t& bytes, index_t* count) {
                return device::paired_by_key_operation<Op>{}(t, bytes, a, va, m, b, vb, n, out, va_out, vb_out, count,
                                                             comp, stream, o.kind);
              });
            });
          }
        }
        const auto* vb = static_cast<const ValueA*>(o.b_values);
        return run([&](void* t, std::size_t& bytes, index_t* count) {
          return device::by_key_operation<Op>{}(t, bytes, a, va, m, b, vb, n, out, va_out, count, comp, stream,
                                                o.kind);
        });
      });
    }
  });
}

}  // namespace corank::python
