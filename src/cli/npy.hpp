#pragma once
// A small reader and writer of NumPy .npy files (format versions 1.0, 2.0 and 3.0) for
// 1-D little-endian C-order columns of the types in dtype.hpp.
//
// An input is opened once and read once, front to back, so pipes, FIFOs, process
// substitutions and standard input ("-") work as well as files. Its header is bounded
// (numpy's 10000 bytes) and checked when it is opened; its data is checked against what
// the header announces: a regular file's length before anything is allocated, a stream's
// as it arrives (memory grows with the data received, not with the size announced). Bad
// input throws input_error (exit status 2) naming the file and what to do: a missing or
// unreadable file, not .npy, an unsupported dtype, big-endian data, Fortran order, a shape
// of other than one dimension, truncated data, or bytes after the data. A read that fails
// midway (an I/O error) throws std::runtime_error.

#include "column.hpp"
#include "dtype.hpp"
#include "file_identity.hpp"

#include <corank/config.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace corank::cli {

struct npy_header {
  dtype type = dtype::int32;
  index_t size = 0;               // elements
  std::uint64_t data_offset = 0;  // bytes before the data: magic, version, length, dict
};

class npy_input {
 public:
  // Opens `path` ("-": standard input) and reads and checks its header.
  explicit npy_input(std::string path);
  ~npy_input();
  npy_input(const npy_input&) = delete;
  npy_input& operator=(const npy_input&) = delete;

  const std::string& path() const { return path_; }
  const npy_header& header() const { return header_; }
  std::size_t data_bytes() const { return std::size_t(header_.size) * dtype_size(header_.type); }

  // The whole column (a progress bar on stderr for large inputs, see progress.hpp). Once.
  column read();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool regular_ = false;  // a regular file: its length is known, and was checked
  npy_header header_;
};

// The .npy v1.0 header of a 1-D column: magic, version, length and dict, padded so that
// the data starts at a multiple of 64 bytes, and to `length` bytes if that is more (a
// multiple of 64).
std::string npy_header_bytes(dtype type, index_t size, std::size_t length = 0);

// Writes an .npy file piece by piece, for outputs made chunk by chunk: a header sized for
// `most` elements first, then the data as it comes; finish() makes the header say how many
// were written, rewriting it in place (seekable files: same length, padded), and flushes. A
// stream's header cannot be rewritten: there `most` must be the final count. A failed write
// throws std::runtime_error ("writing NAME: No space left on device").
class npy_writer {
 public:
  npy_writer(std::FILE* file, std::string name, dtype type, index_t most);
  void write(const void* data, index_t count);
  void finish(bool seekable);
  index_t written() const { return written_; }

 private:
  [[noreturn]] void fail() const;

  std::FILE* file_;
  std::string name_;
  dtype type_;
  std::size_t header_;  // bytes
  index_t written_ = 0;
};

// Writes `c` as a .npy file to `file`; `name` is for messages. Throws std::runtime_error
// when a write fails (disk full, I/O error).
void write_npy(std::FILE* file, const std::string& name, const column& c);

}  // namespace corank::cli
