#pragma once
// The segmented form of the set commands (--segments A_OFFSETS.npy B_OFFSETS.npy): segment s
// of A is A[a_offsets[s], a_offsets[s + 1]), of B likewise, and the operation runs on each
// pair (corank::segmented_*, corank::host::segmented_*). This file holds what the command does
// with the offsets files: opening and checking them (int32 or int64, S + 1 values each for
// the same S, starting at 0, never decreasing, ending at their keys' length), reading them
// widened to int64 (so each backend compiles for one offsets type), the segment of an
// element, merge's per-segment sizes, and the per-segment sortedness check on the host.

#include "column.hpp"
#include "npy.hpp"

#include <corank/config.hpp>
#include <corank/host/check_sorted.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace corank::cli {

// The two offsets files, opened, their headers checked (dtype, at least one value, the same
// S); throws input_error with one sentence naming the file(s).
class segment_offsets_inputs {
 public:
  segment_offsets_inputs(const std::string& a_path, const std::string& b_path);

  index_t segments() const { return a_->header().size - 1; }
  // The bytes of data the two files hold.
  std::size_t data_bytes() const { return a_->data_bytes() + b_->data_bytes(); }
  // The host memory reading both takes: their data, and the int64 copies of int32 files.
  double host_bytes() const;
  // Both files' offsets as int64 columns of S + 1, each checked against its keys' length
  // (`size_a` keys in `keys_a`, ...): throws input_error naming the file, and the index where
  // they decrease or the two lengths that differ.
  std::pair<column, column> read(index_t size_a, const std::string& keys_a, index_t size_b, const std::string& keys_b);

 private:
  std::unique_ptr<npy_input> a_, b_;
};

// The segment that holds element i of a side with these offsets (int64, S + 1): the last s
// with offsets[s] <= i < offsets[s + 1].
index_t segment_of(const column& offsets, index_t i);

// A merge's segment sizes need no keys: a's plus b's lengths, S int64 values.
column merge_segment_sizes(const column& a_offsets, const column& b_offsets);

// The first i of `keys` with keys[i] before keys[i - 1] inside one segment of `offsets`
// (int64, S + 1), or offsets[S]: the keys are sorted segment by segment, not as a whole.
template <class Key, class Compare>
index_t find_unsorted_in_segments(const Key* keys, const column& offsets, Compare comp) {
  const std::int64_t* starts = offsets.as<std::int64_t>();
  const index_t segments = offsets.size() - 1;
  for (index_t s = 0; s < segments; ++s) {
    const index_t at = corank::host::find_unsorted(keys + starts[s], keys + starts[s + 1], comp);
    if (at < starts[s + 1] - starts[s]) return starts[s] + at;
  }
  return starts[segments];
}

}  // namespace corank::cli
