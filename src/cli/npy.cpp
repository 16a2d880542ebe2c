#include "npy.hpp"

#include "arguments.hpp"
#include "progress.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace corank::cli {
namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr std::size_t magic_size = 6;
constexpr std::size_t chunk_bytes = std::size_t(64) << 20;  // per fread/fwrite: the progress bar's step

const char* supported_types() {
  return "int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64";
}

// numpy refuses longer headers too (np.load's max_header_size): a .npy column's is ~128 bytes.
constexpr std::uint64_t max_header_bytes = 10000;

// Reads exactly `bytes` (false at end of file); a read error throws.
bool read_exactly(std::FILE* f, const std::string& path, void* data, std::size_t bytes) {
  const std::size_t got = std::fread(data, 1, bytes, f);
  if (got == bytes) return true;
  if (std::ferror(f)) throw std::runtime_error(fmt::format("reading {}: {}", path, std::strerror(errno)));
  return false;
}

// The header's dict, a Python literal such as
//   {'descr': '<i4', 'fortran_order': False, 'shape': (1000,), }
// Only what .npy headers hold is understood: string keys; string, True/False, tuple of
// integers and (for structured dtypes) list values.
class header_dict_parser {
 public:
  header_dict_parser(const std::string& path, const std::string& text) : path_(path), text_(text) {}

  struct result {
    bool has_descr = false, has_fortran = false, has_shape = false;
    bool descr_is_list = false;
    std::string descr;
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
  };

  result parse() {
    result r;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = parse_string();
      expect(':');
      skip_space();
      if (key == "descr") {
        r.has_descr = true;
        if (peek() == '[') {
          r.descr_is_list = true;
          skip_value();
        } else {
          r.descr = parse_string();
        }
      } else if (key == "fortran_order") {
        r.has_fortran = true;
        r.fortran_order = parse_bool();
      } else if (key == "shape") {
        r.has_shape = true;
        r.shape = parse_shape();
      } else {
        skip_value();
      }
      skip_space();
      if (peek() == ',') {
        ++at_;
        continue;
      }
      if (peek() == '}') break;
      fail("expected ',' or '}'");
    }
    if (!r.has_descr || !r.has_fortran || !r.has_shape) {
      fail("it lacks one of the keys 'descr', 'fortran_order', 'shape'");
    }
    return r;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw input_error(fmt::format("{}: not a valid .npy header ({}, at character {} of: {})", path_, what, at_,
                                  text_.substr(0, text_.find_last_not_of(" \n") + 1)));
  }
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++at_;
  }
  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const std::size_t end = text_.find(quote, at_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string s = text_.substr(at_ + 1, end - at_ - 1);
    at_ = end + 1;
    return s;
  }
  bool parse_bool() {
    if (text_.compare(at_, 4, "True") == 0) {
      at_ += 4;
      return true;
    }
    if (text_.compare(at_, 5, "False") == 0) {
      at_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  // A tuple, as Python writes it: (), (5,), (2, 3); "(5)" is not one, and numpy refuses it.
  std::vector<std::uint64_t> parse_shape() {
    expect('(');
    std::vector<std::uint64_t> shape;
    bool trailing_comma = false;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a dimension");
      std::uint64_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const std::uint64_t digit = std::uint64_t(peek() - '0');
        if (value > (UINT64_MAX - digit) / 10) fail("dimension too large");
        value = value * 10 + digit;
        ++at_;
      }
      if (peek() == 'L') ++at_;  // Python 2's long literals, in old files
      shape.push_back(value);
      skip_space();
      trailing_comma = peek() == ',';
      if (trailing_comma) {
        ++at_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')'");
    }
    if (shape.size() == 1 && !trailing_comma) fail("the shape is not a tuple: a 1-D shape is written (N,)");
    ++at_;
    return shape;
  }
  // A value this reader does not interpret: a string, or brackets with their contents.
  void skip_value() {
    skip_space();
    if (peek() == '\'' || peek() == '"') {
      parse_string();
      return;
    }
    int depth = 0;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\'' || c == '"') {
        parse_string();
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) return;
        --depth;
      }
      if (c == ',' && depth == 0) return;
      ++at_;
    }
    fail("unterminated value");
  }

  const std::string& path_;
  const std::string& text_;
  std::size_t at_ = 0;
};

// `extra`: how many bytes follow the data, 0 where unknown (a stream).
std::string extra_bytes_message(const std::string& path, const npy_header& header, std::uint64_t extra) {
  return fmt::format("{}: {} the {} {} elements its header announces (a second array saved into the same file?); "
                     "a column must be one array",
                     path, extra > 0 ? fmt::format("{} bytes follow", extra) : std::string("more bytes follow"),
                     header.size, dtype_name(header.type));
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format(i == 0 ? "{}" : ", {}", shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// `file_size`: the file's length, checked against the header where `size_known` (regular files).
npy_header parse_header(std::FILE* f, const std::string& path, std::uint64_t file_size, bool size_known) {
  unsigned char start[magic_size + 2] = {};
  if (!read_exactly(f, path, start, sizeof start) || std::memcmp(start, magic, magic_size) != 0) {
    throw input_error(fmt::format("{}: not a .npy file (it does not start with the magic string \\x93NUMPY)", path));
  }
  const int major = start[magic_size];
  const int minor = start[magic_size + 1];
  if (major < 1 || major > 3) {
    throw input_error(fmt::format("{}: .npy format version {}.{} is not supported (1.0, 2.0 and 3.0 are)", path,
                                  major, minor));
  }
  // Version 1.0 stores the dict's length in 2 bytes, 2.0 and 3.0 (UTF-8 dict) in 4.
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  unsigned char length_field[4] = {};
  if (!read_exactly(f, path, length_field, length_bytes)) {
    throw input_error(fmt::format("{}: truncated .npy header", path));
  }
  std::uint64_t dict_length = 0;
  for (std::size_t i = length_bytes; i-- > 0;) dict_length = (dict_length << 8) | length_field[i];
  const std::uint64_t data_offset = magic_size + 2 + length_bytes + dict_length;
  if (dict_length > max_header_bytes) {
    throw input_error(fmt::format("{}: its .npy header says it is {} bytes long; more than {} is refused (numpy "
                                  "refuses it too): not a column written by numpy",
                                  path, dict_length, max_header_bytes));
  }
  if (size_known && data_offset > file_size) {
    throw input_error(fmt::format("{}: truncated .npy header (it says {} bytes, the file has {})", path,
                                  data_offset, file_size));
  }
  std::string text(std::size_t(dict_length), '\0');
  if (!read_exactly(f, path, text.data(), text.size())) {
    throw input_error(fmt::format("{}: truncated .npy header", path));
  }

  const header_dict_parser::result dict = header_dict_parser(path, text).parse();
  npy_header header;
  header.data_offset = data_offset;
  if (dict.descr_is_list) {
    throw input_error(fmt::format("{}: structured dtype (a record array) is not supported; a column must be one of {}",
                                  path, supported_types()));
  }
  if (!dict.descr.empty() && dict.descr[0] == '>') {
    throw input_error(fmt::format("{}: big-endian data ('{}') is not supported; convert it to little-endian first, "
                                  "e.g. numpy: a.astype(a.dtype.newbyteorder('<'))",
                                  path, dict.descr));
  }
  if (!dtype_from_descr(dict.descr, header.type)) {
    throw input_error(fmt::format("{}: unsupported dtype '{}'; supported: {} (little-endian)", path, dict.descr,
                                  supported_types()));
  }
  if (dict.fortran_order) {
    throw input_error(fmt::format("{}: stored in Fortran order (fortran_order: True); a column must be in C order, "
                                  "e.g. numpy: np.ascontiguousarray(a)",
                                  path));
  }
  if (dict.shape.size() != 1) {
    throw input_error(fmt::format("{}: shape {} has {} dimension{}; a column must have exactly 1 (e.g. numpy: "
                                  "a.ravel())",
                                  path, shape_text(dict.shape), dict.shape.size(),
                                  dict.shape.size() == 1 ? "" : "s"));
  }
  const std::uint64_t item = dtype_size(header.type);
  if (dict.shape[0] > std::uint64_t(INT64_MAX) / item) {
    throw input_error(fmt::format("{}: shape {} is too large", path, shape_text(dict.shape)));
  }
  header.size = index_t(dict.shape[0]);
  const std::uint64_t data_bytes = dict.shape[0] * item;
  if (size_known && file_size - data_offset < data_bytes) {
    throw input_error(fmt::format("{}: truncated: the header says {} {} elements ({} bytes of data), but the file "
                                  "has {} bytes after its {}-byte header",
                                  path, header.size, dtype_name(header.type), data_bytes, file_size - data_offset,
                                  data_offset));
  }
  if (size_known && file_size - data_offset > data_bytes) {
    throw input_error(extra_bytes_message(path, header, file_size - data_offset - data_bytes));
  }
  return header;
}

}  // namespace

npy_input::npy_input(std::string path) : path_(std::move(path)) {
  const int fd = path_ == "-" ? dup(STDIN_FILENO) : open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) throw input_error(fmt::format("{}: no such file", path_));
    throw input_error(fmt::format("cannot read {}: {}", path_, std::strerror(error)));
  }
  file_ = fdopen(fd, "rb");
  if (file_ == nullptr) {
    close(fd);
    throw std::runtime_error(fmt::format("cannot read {}: {}", path_, std::strerror(errno)));
  }
  // Unbuffered: a stream's bytes after the header must stay for read(), and large reads
  // go straight to the column.
  std::setvbuf(file_, nullptr, _IONBF, 0);
  struct stat info {};
  if (fstat(fd, &info) != 0) throw std::runtime_error(fmt::format("cannot read {}: {}", path_, std::strerror(errno)));
  if (S_ISDIR(info.st_mode)) throw input_error(fmt::format("{} is a directory, not a .npy file", path_));
  regular_ = S_ISREG(info.st_mode);
  header_ = parse_header(file_, path_, std::uint64_t(info.st_size), regular_);
}

npy_input::~npy_input() {
  if (file_ != nullptr) std::fclose(file_);
}

column npy_input::read() {
  const std::size_t bytes = data_bytes();
  // A stream's memory grows with what arrives: a header may announce more than is sent.
  const std::size_t first = regular_ ? bytes : std::min(bytes, chunk_bytes);
  column c(header_.type, index_t(first / dtype_size(header_.type)));
  progress_bar bar("reading " + path_, bytes);
  for (std::size_t done = 0; done < bytes;) {
    if (done == c.bytes()) c.resize(index_t(std::min(bytes, 2 * done) / dtype_size(header_.type)));
    const std::size_t step = std::min(chunk_bytes, c.bytes() - done);
    if (!read_exactly(file_, path_, static_cast<unsigned char*>(c.data()) + done, step)) {
      bar.finish();
      throw input_error(fmt::format("{}: truncated: the header says {} {} elements ({} bytes of data), but the "
                                    "{} ends first",
                                    path_, header_.size, dtype_name(header_.type), bytes,
                                    regular_ ? "file" : "stream"));
    }
    done += step;
    bar.update(done);
  }
  // Nothing may follow the data (a file that grew while it was read, a stream that sends more than it says).
  unsigned char next = 0;
  if (read_exactly(file_, path_, &next, 1)) throw input_error(extra_bytes_message(path_, header_, 0));
  return c;
}

std::string npy_header_bytes(dtype type, index_t size, std::size_t length) {
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}", npy_descr(type), size);
  const std::size_t prefix = magic_size + 2 + 2;  // magic, version 1.0, 2-byte length
  const std::size_t total = std::max(length, (prefix + dict.size() + 1 + 63) / 64 * 64);
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string bytes(magic, magic_size);
  bytes += '\x01';
  bytes += '\x00';
  bytes += char(dict.size() & 0xff);
  bytes += char(dict.size() >> 8);
  return bytes + dict;
}

npy_writer::npy_writer(std::FILE* file, std::string name, dtype type, index_t most)
    : file_(file), name_(std::move(name)), type_(type), header_(npy_header_bytes(type, most).size()) {
  const std::string header = npy_header_bytes(type, most);
  if (std::fwrite(header.data(), 1, header.size(), file_) != header.size()) fail();
}

void npy_writer::fail() const {
  throw std::runtime_error(fmt::format("writing {}: {}", name_, std::strerror(errno)));
}

void npy_writer::write(const void* data, index_t count) {
  const std::size_t bytes = std::size_t(count) * dtype_size(type_);
  if (std::fwrite(data, 1, bytes, file_) != bytes) fail();
  written_ += count;
}

void npy_writer::finish(bool seekable) {
  if (seekable) {
    const std::string header = npy_header_bytes(type_, written_, header_);
    if (std::fseek(file_, 0, SEEK_SET) != 0 || std::fwrite(header.data(), 1, header.size(), file_) != header.size() ||
        std::fseek(file_, 0, SEEK_END) != 0)
      fail();
  }
  if (std::fflush(file_) != 0) fail();
}

void write_npy(std::FILE* file, const std::string& name, const column& c) {
  const auto fail = [&] { throw std::runtime_error(fmt::format("writing {}: {}", name, std::strerror(errno))); };
  const std::string header = npy_header_bytes(c.type(), c.size());
  if (std::fwrite(header.data(), 1, header.size(), file) != header.size()) fail();
  progress_bar bar("writing " + name, c.bytes());
  const auto* data = static_cast<const unsigned char*>(c.data());
  for (std::size_t done = 0; done < c.bytes();) {
    const std::size_t step = std::min(chunk_bytes, c.bytes() - done);
    if (std::fwrite(data + done, 1, step, file) != step) {
      bar.finish();
      fail();
    }
    done += step;
    bar.update(done);
  }
  if (std::fflush(file) != 0) fail();
}

}  // namespace corank::cli
