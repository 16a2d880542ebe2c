#include "segments.hpp"

#include "arguments.hpp"
#include "command_steps.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace corank::cli {
namespace {

bool is_offsets_type(dtype type) { return type == dtype::int32 || type == dtype::int64; }

// One file's header: int32 or int64, and at least the one offset of zero segments.
void check_offsets_header(const npy_input& in) {
  const dtype type = in.header().type;
  if (!is_offsets_type(type)) {
    throw input_error(fmt::format("{} is {}: segment offsets must be int32 or int64 (e.g. numpy: "
                                  "offsets.astype(np.int64))",
                                  in.path(), dtype_name(type)));
  }
  if (in.header().size == 0) {
    throw input_error(fmt::format("{} is empty: segment offsets hold S + 1 values, from 0 to the keys' length "
                                  "([0] for no segments)",
                                  in.path()));
  }
}

// The file's offsets as int64, checked against its keys' length.
column read_offsets(npy_input& in, index_t keys_size, const std::string& keys_path) {
  column offsets = in.read();
  if (offsets.type() == dtype::int32) {
    column int32_offsets = std::move(offsets);
    offsets = column(dtype::int64, int32_offsets.size());
    const std::int32_t* narrow = int32_offsets.as<std::int32_t>();
    std::copy(narrow, narrow + int32_offsets.size(), offsets.as<std::int64_t>());
  }
  const std::int64_t* wide = offsets.as<std::int64_t>();
  const index_t last = offsets.size() - 1;
  if (wide[0] != 0) {
    throw input_error(fmt::format("{} starts at {}: segment offsets start at 0", in.path(), wide[0]));
  }
  for (index_t i = 1; i <= last; ++i) {
    if (wide[i] < wide[i - 1]) {
      throw input_error(fmt::format("{} decreases at index {} ({} after {}): segment offsets never decrease",
                                    in.path(), i, wide[i], wide[i - 1]));
    }
  }
  if (wide[last] != keys_size) {
    throw input_error(fmt::format("{} ends at {} but {} has {}: the last segment offset is the keys' length",
                                  in.path(), wide[last], keys_path, plural(keys_size, "key")));
  }
  return offsets;
}

}  // namespace

segment_offsets_inputs::segment_offsets_inputs(const std::string& a_path, const std::string& b_path)
    : a_(std::make_unique<npy_input>(a_path)), b_(std::make_unique<npy_input>(b_path)) {
  check_offsets_header(*a_);
  check_offsets_header(*b_);
  const index_t a_size = a_->header().size, b_size = b_->header().size;
  if (a_size != b_size) {
    throw input_error(fmt::format("{} has {} ({} segments) but {} has {} ({} segments): A and B need the same "
                                  "number of segments",
                                  a_->path(), plural(a_size, "offset"), a_size - 1, b_->path(),
                                  plural(b_size, "offset"), b_size - 1));
  }
}

double segment_offsets_inputs::host_bytes() const {
  double widened = 0;
  for (const npy_input* in : {a_.get(), b_.get()}) {
    if (in->header().type == dtype::int32) widened += double(in->header().size) * sizeof(std::int64_t);
  }
  return double(data_bytes()) + widened;
}

std::pair<column, column> segment_offsets_inputs::read(index_t size_a, const std::string& keys_a, index_t size_b,
                                                       const std::string& keys_b) {
  column a = read_offsets(*a_, size_a, keys_a);
  return {std::move(a), read_offsets(*b_, size_b, keys_b)};
}

index_t segment_of(const column& offsets, index_t i) {
  const std::int64_t* starts = offsets.as<std::int64_t>();
  return index_t(std::upper_bound(starts, starts + offsets.size(), std::int64_t(i)) - starts) - 1;
}

column merge_segment_sizes(const column& a_offsets, const column& b_offsets) {
  const std::int64_t* a = a_offsets.as<std::int64_t>();
  const std::int64_t* b = b_offsets.as<std::int64_t>();
  column sizes(dtype::int64, a_offsets.size() - 1);
  for (index_t s = 0; s < sizes.size(); ++s) sizes.as<std::int64_t>()[s] = (a[s + 1] - a[s]) + (b[s + 1] - b[s]);
  return sizes;
}

}  // namespace corank::cli
