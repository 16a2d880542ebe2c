#include "npy.hpp"

#include "arguments.hpp"
#include "progress.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace corank::cli {
namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr std::size_t magic_size = 6;
constexpr std::size_t chunk_bytes = std::size_t(64) << 20;  // per fread/fwrite: the progress bar's step

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_handle = std::unique_ptr<std::FILE, file_closer>;

const char* supported_types() {
  return "int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64";
}

// Opens an input file, or says why it cannot.
file_handle open_input(const std::string& path, std::uint64_t& file_size, bool& size_known) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT) throw input_error(fmt::format("{}: no such file", path));
    throw input_error(fmt::format("cannot read {}: {}", path, std::strerror(error)));
  }
  if (S_ISDIR(info.st_mode)) throw input_error(fmt::format("{} is a directory, not a .npy file", path));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw input_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  size_known = S_ISREG(info.st_mode);
  file_size = std::uint64_t(info.st_size);
  return file_handle(f);
}

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
  std::vector<std::uint64_t> parse_shape() {
    expect('(');
    std::vector<std::uint64_t> shape;
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
      if (peek() == ',') {
        ++at_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')'");
    }
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

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format(i == 0 ? "{}" : ", {}", shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

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
  return header;
}

}  // namespace

npy_header read_npy_header(const std::string& path) {
  std::uint64_t file_size = 0;
  bool size_known = false;
  const file_handle f = open_input(path, file_size, size_known);
  return parse_header(f.get(), path, file_size, size_known);
}

column read_npy(const std::string& path) {
  std::uint64_t file_size = 0;
  bool size_known = false;
  const file_handle f = open_input(path, file_size, size_known);
  const npy_header header = parse_header(f.get(), path, file_size, size_known);
  column c(header.type, header.size);
  std::setvbuf(f.get(), nullptr, _IONBF, 0);  // large freads go straight to the column
  progress_bar bar("reading " + path, c.bytes());
  auto* data = static_cast<unsigned char*>(c.data());
  for (std::size_t done = 0; done < c.bytes();) {
    const std::size_t step = std::min(chunk_bytes, c.bytes() - done);
    if (!read_exactly(f.get(), path, data + done, step)) {
      bar.finish();
      throw input_error(fmt::format("{}: truncated: the header says {} {} elements ({} bytes of data), but the "
                                    "file ends first",
                                    path, header.size, dtype_name(header.type), c.bytes()));
    }
    done += step;
    bar.update(done);
  }
  return c;
}

std::string npy_header_bytes(dtype type, index_t size) {
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}", npy_descr(type), size);
  const std::size_t prefix = magic_size + 2 + 2;  // magic, version 1.0, 2-byte length
  const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string bytes(magic, magic_size);
  bytes += '\x01';
  bytes += '\x00';
  bytes += char(dict.size() & 0xff);
  bytes += char(dict.size() >> 8);
  return bytes + dict;
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
