#pragma once
// The element types of the columns the set commands read and write: NumPy's fixed-size
// integers and floats, their .npy names ('<i4') and a dispatch from the run-time type to a
// template (visit_dtype), so each command body is written once for every type.

#include <corank/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace corank::cli {

// bool is an output's only (search --isin's flags): no input of it is read.
enum class dtype : unsigned char { int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, bool_ };

template <class T>
struct type_tag {
  using type = T;
};

template <class T>
constexpr dtype dtype_of() {
  if constexpr (std::is_same_v<T, std::int8_t>) return dtype::int8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return dtype::uint8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return dtype::int16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return dtype::uint16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtype::int32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return dtype::uint32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtype::int64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return dtype::uint64;
  else if constexpr (std::is_same_v<T, float>) return dtype::float32;
  else {
    static_assert(std::is_same_v<T, double>, "not a column element type");
    return dtype::float64;
  }
}

// Calls f(type_tag<T>{}) for the C++ type T of `type`; every branch must return the same type.
template <class F>
decltype(auto) visit_dtype(dtype type, F&& f) {
  switch (type) {
    case dtype::int8: return f(type_tag<std::int8_t>{});
    case dtype::uint8:
    case dtype::bool_: return f(type_tag<std::uint8_t>{});  // bools are bytes of 0 or 1
    case dtype::int16: return f(type_tag<std::int16_t>{});
    case dtype::uint16: return f(type_tag<std::uint16_t>{});
    case dtype::int32: return f(type_tag<std::int32_t>{});
    case dtype::uint32: return f(type_tag<std::uint32_t>{});
    case dtype::int64: return f(type_tag<std::int64_t>{});
    case dtype::uint64: return f(type_tag<std::uint64_t>{});
    case dtype::float32: return f(type_tag<float>{});
    case dtype::float64: break;
  }
  return f(type_tag<double>{});
}

// "int32", as NumPy names it.
const char* dtype_name(dtype type);
// "<i4", "|u1": the little-endian .npy descr written for the type.
const char* npy_descr(dtype type);
std::size_t dtype_size(dtype type);
// The dtype with this .npy descr ('<i4', '|i1', '<i1', ...); false if there is none.
bool dtype_from_descr(const std::string& descr, dtype& type);

}  // namespace corank::cli
