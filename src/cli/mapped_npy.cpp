#include "mapped_npy.hpp"

#include "arguments.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace corank::cli {

mapped_npy::mapped_npy(const std::string& path) : path_(path) {
  struct stat status {};
  if (path == "-" || (::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode))) {
    throw input_error(fmt::format("{} is {}: inputs that are streamed through the GPU in chunks are mapped into "
                                  "memory, which needs a regular file; save it to a file first",
                                  path == "-" ? "standard input" : path, path == "-" ? "a stream" : "not a regular file"));
  }
  header_ = npy_input(path).header();  // checks the header, and the file's length against it
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) throw input_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  mapped_bytes_ = std::size_t(header_.data_offset) + data_bytes();
  mapping_ = ::mmap(nullptr, mapped_bytes_, PROT_READ, MAP_PRIVATE, descriptor, 0);
  const int map_error = errno;
  ::close(descriptor);  // the mapping keeps the file
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::runtime_error(fmt::format("cannot map {} into memory: {}", path, std::strerror(map_error)));
  }
  ::madvise(mapping_, mapped_bytes_, MADV_SEQUENTIAL);  // chunks read it front to back
  if (header_.data_offset % dtype_size(header_.type) != 0) {
    ::munmap(mapping_, mapped_bytes_);
    throw input_error(fmt::format("{}: its data starts at byte {}, not a multiple of its {}-byte elements; rewrite it "
                                  "with numpy.save",
                                  path, header_.data_offset, dtype_size(header_.type)));
  }
}

mapped_npy::~mapped_npy() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapped_bytes_);
}

}  // namespace corank::cli
