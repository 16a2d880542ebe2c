#pragma once
// A column in host memory: a dtype and that many elements, uninitialized until read or
// written (a multi-GB input is not zeroed first).

#include "dtype.hpp"

#include <corank/config.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>

namespace corank::cli {

class column {
 public:
  column() = default;
  column(dtype type, index_t size)
      : type_(type), size_(size), bytes_(new std::byte[std::max<std::size_t>(1, std::size_t(size) * dtype_size(type))]) {}

  dtype type() const { return type_; }
  index_t size() const { return size_; }
  std::size_t bytes() const { return std::size_t(size_) * dtype_size(type_); }
  void* data() { return bytes_.get(); }
  const void* data() const { return bytes_.get(); }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(bytes_.get());
  }
  template <class T>
  const T* as() const {
    return reinterpret_cast<const T*>(bytes_.get());
  }
  // Keeps the first `size` elements (the buffer stays as large).
  void shrink(index_t size) { size_ = size < size_ ? size : size_; }

 private:
  dtype type_ = dtype::int32;
  index_t size_ = 0;
  std::unique_ptr<std::byte[]> bytes_;  // new[]: aligned for every element type
};

// Element i, printed as NumPy would ("-3", "2.5", "nan").
std::string format_element(const column& c, index_t i);

// "1.5 GB", "12.0 kB" (decimal units, like the GB/s figures).
std::string format_bytes(double bytes);

}  // namespace corank::cli
