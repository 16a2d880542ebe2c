#pragma once
// A column in host memory: a dtype and that many elements, uninitialized until read or
// written (a multi-GB input is not zeroed first).

#include "dtype.hpp"

#include <corank/config.hpp>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

namespace corank::cli {

class column {
 public:
  column() = default;
  // Throws std::bad_alloc when the memory cannot be had.
  column(dtype type, index_t size) : type_(type) { resize(size); }

  dtype type() const { return type_; }
  index_t size() const { return size_; }
  std::size_t bytes() const { return std::size_t(size_) * dtype_size(type_); }
  void* data() { return bytes_.get(); }
  const void* data() const { return bytes_.get(); }
  template <class T>
  T* as() {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* as() const {
    return static_cast<const T*>(data());
  }
  // Keeps the first `size` elements (the buffer stays as large).
  void shrink(index_t size) { size_ = size < size_ ? size : size_; }
  // Reallocates to `size` elements, keeping the first ones; throws std::bad_alloc.
  void resize(index_t size);

 private:
  struct free_memory {
    void operator()(void* p) const { std::free(p); }
  };
  dtype type_ = dtype::int32;
  index_t size_ = 0;
  std::unique_ptr<void, free_memory> bytes_;  // malloc: aligned for every element type, and resizable
};

// Element i, printed as NumPy would ("-3", "2.5", "nan").
std::string format_element(const column& c, index_t i);
// Element i of `data`, elements of `type`.
std::string format_element(dtype type, const void* data, index_t i);

// "1.5 GB", "12.0 kB" (decimal units, like the GB/s figures).
std::string format_bytes(double bytes);

}  // namespace corank::cli
