#include "column.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>
#include <type_traits>

namespace corank::cli {

void column::resize(index_t size) {
  const std::size_t bytes = std::max<std::size_t>(1, std::size_t(size) * dtype_size(type_));  // never null
  void* grown = std::realloc(bytes_.get(), bytes);
  if (grown == nullptr) throw std::bad_alloc();
  bytes_.release();
  bytes_.reset(grown);
  size_ = size;
}

std::string format_element(const column& c, index_t i) { return format_element(c.type(), c.data(), i); }

std::string format_element(dtype type, const void* data, index_t i) {
  return visit_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = static_cast<const T*>(data)[i];
    if constexpr (std::is_floating_point_v<T>) {
      return fmt::format("{}", value);
    } else {
      return fmt::format("{}", +value);  // + : int8 as a number, not a character
    }
  });
}

std::string format_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{} B", bytes);
}

}  // namespace corank::cli
