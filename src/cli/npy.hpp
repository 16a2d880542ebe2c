#pragma once
// A small reader and writer of NumPy .npy files (format versions 1.0, 2.0 and 3.0) for
// 1-D little-endian C-order columns of the types in dtype.hpp.
//
// The reader parses the header's dict ('descr', 'fortran_order', 'shape') and rejects,
// with a message naming the file and what to do: a missing or unreadable file, a file
// that is not .npy, an unsupported dtype (structured, float16, complex, bool, object...),
// big-endian data, Fortran order, a shape of other than one dimension, and truncated
// data (fewer bytes than header + size * itemsize). Those throw input_error (exit status
// 2); a read that fails midway (an I/O error) throws std::runtime_error.

#include "column.hpp"
#include "dtype.hpp"

#include <corank/config.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace corank::cli {

struct npy_header {
  dtype type = dtype::int32;
  index_t size = 0;               // elements
  std::uint64_t data_offset = 0;  // bytes before the data: magic, version, length, dict
};

// Opens `path` and checks its header and its length; reads no data.
npy_header read_npy_header(const std::string& path);

// The whole column (a progress bar on stderr for large files, see progress.hpp).
column read_npy(const std::string& path);

// The .npy v1.0 header of a 1-D column: magic, version, length and dict, padded so that
// the data starts at a multiple of 64 bytes.
std::string npy_header_bytes(dtype type, index_t size);

// Writes `c` as a .npy file to `file`; `name` is for messages. Throws std::runtime_error
// when a write fails (disk full, I/O error).
void write_npy(std::FILE* file, const std::string& name, const column& c);

}  // namespace corank::cli
