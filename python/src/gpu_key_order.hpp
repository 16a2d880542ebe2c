#pragma once
// The GPU kernels' key types and orders: the kernels compile per key width and kind, not per
// dtype (visit_gpu_order).

#include "operands.hpp"

#include <corank/config.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace corank::python {

// The order of signed and unsigned integer keys of one width, on the signed type: unsigned
// keys compare with their top bit flipped (0 first), which orders them as unsigned. Keys are
// only compared and copied, never changed, so an unsigned dtype's results are the same bits.
template <class Signed>
struct integer_order {
  Signed flip;  // 0 for signed keys, the minimum (top bit only) for unsigned ones
  CORANK_HOST_DEVICE constexpr bool operator()(Signed a, Signed b) const {
    return Signed(a ^ flip) < Signed(b ^ flip);
  }
};

// Calls f(type_tag<Key>{}, comp) with the kernel key type of `type` and its order: the
// kernels compile per key width, not per dtype (int32 and uint32 share int32's with
// integer_order, int64 and uint64 int64's), floats NaN last (key_order).
template <class F>
index_t visit_gpu_order(dtype type, F&& f) {
  using int32_order = integer_order<std::int32_t>;
  using int64_order = integer_order<std::int64_t>;
  switch (type) {
    case dtype::int32: return f(type_tag<std::int32_t>{}, int32_order{0});
    case dtype::uint32: return f(type_tag<std::int32_t>{}, int32_order{std::numeric_limits<std::int32_t>::min()});
    case dtype::int64: return f(type_tag<std::int64_t>{}, int64_order{0});
    case dtype::uint64: return f(type_tag<std::int64_t>{}, int64_order{std::numeric_limits<std::int64_t>::min()});
    case dtype::float32: return f(type_tag<float>{}, key_order<float>{});
    case dtype::float64: return f(type_tag<double>{}, key_order<double>{});
    default: throw std::invalid_argument("corank: a 1- or 2-byte key type reached the GPU kernels unwidened");
  }
}

}  // namespace corank::python
