#pragma once
// An .npy input mapped into memory instead of read: the streamed commands' inputs, which may
// be larger than host memory (the system pages them in as a chunk reads them, and out again).
// The header is checked as npy_input checks it, and the file's length against it. Only
// regular files can be mapped: standard input, pipes and FIFOs are refused with a sentence.

#include "dtype.hpp"
#include "npy.hpp"

#include <corank/config.hpp>

#include <cstddef>
#include <string>

namespace corank::cli {

class mapped_npy {
 public:
  explicit mapped_npy(const std::string& path);
  ~mapped_npy();
  mapped_npy(const mapped_npy&) = delete;
  mapped_npy& operator=(const mapped_npy&) = delete;

  const std::string& path() const { return path_; }
  dtype type() const { return header_.type; }
  index_t size() const { return header_.size; }
  std::size_t data_bytes() const { return std::size_t(header_.size) * dtype_size(header_.type); }
  // size() elements of type(), read-only.
  const void* data() const { return static_cast<const char*>(mapping_) + header_.data_offset; }

 private:
  std::string path_;
  npy_header header_;
  void* mapping_ = nullptr;
  std::size_t mapped_bytes_ = 0;
};

}  // namespace corank::cli
