#include "dtype.hpp"

namespace corank::cli {

const char* dtype_name(dtype type) {
  switch (type) {
    case dtype::int8: return "int8";
    case dtype::uint8: return "uint8";
    case dtype::int16: return "int16";
    case dtype::uint16: return "uint16";
    case dtype::int32: return "int32";
    case dtype::uint32: return "uint32";
    case dtype::int64: return "int64";
    case dtype::uint64: return "uint64";
    case dtype::float32: return "float32";
    case dtype::bool_: return "bool";
    case dtype::float64: break;
  }
  return "float64";
}

const char* npy_descr(dtype type) {
  switch (type) {
    case dtype::int8: return "|i1";
    case dtype::uint8: return "|u1";
    case dtype::int16: return "<i2";
    case dtype::uint16: return "<u2";
    case dtype::int32: return "<i4";
    case dtype::uint32: return "<u4";
    case dtype::int64: return "<i8";
    case dtype::uint64: return "<u8";
    case dtype::float32: return "<f4";
    case dtype::bool_: return "|b1";
    case dtype::float64: break;
  }
  return "<f8";
}

std::size_t dtype_size(dtype type) {
  return visit_dtype(type, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

bool dtype_from_descr(const std::string& descr, dtype& type) {
  static constexpr dtype all[] = {dtype::int8,   dtype::uint8,  dtype::int16, dtype::uint16,  dtype::int32,
                                  dtype::uint32, dtype::int64,  dtype::uint64, dtype::float32, dtype::float64};
  for (const dtype t : all) {
    const std::string written = npy_descr(t);
    // NumPy writes '|' for one-byte types, where byte order means nothing; '<' is accepted too.
    if (descr == written || (written[0] == '|' && descr == "<" + written.substr(1))) {
      type = t;
      return true;
    }
  }
  return false;
}

}  // namespace corank::cli
