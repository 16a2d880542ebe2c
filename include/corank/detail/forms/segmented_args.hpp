#pragma once
// What a segmented operation reads and writes: a two-input operation's arguments
// (merge_args.hpp) on the segmented path (segmented_path.hpp), plus the segments' offsets,
// where the segments' outputs go, and where the split pass leaves each tile boundary's
// segment for the tiles. Plain C++.

#include <corank/config.hpp>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/segmented_path.hpp>

namespace corank::detail {

// SegmentsOut: the S + 1 output offsets (forms that write), or the S per-segment counts
// (count-only forms, a raw pointer the tiles add to).
template <class Base, class OffsetsA, class OffsetsB, class SegmentsOut>
struct segmented_args : Base {
  segment_offsets<OffsetsA, OffsetsB> offsets;
  SegmentsOut segments_out;
  index_t* boundary_segments = nullptr;  // tiles + 1, in the temporary storage: set by the dispatcher

  static constexpr bool segmented = true;

  // What is wrong with the segment count, seen from the sizes alone (the two-phase forms'
  // queries check this too), or nullptr. No segments hold no elements: S == 0 with a nonempty
  // input could only be offsets that do not end at the inputs' sizes.
  const char* segment_count_error() const {
    if (offsets.segments < 0) return "the segment count is negative";
    if (offsets.segments == 0 && (this->size_a > 0 || this->size_b > 0)) {
      return "there are no segments but A or B is not empty";
    }
    return nullptr;
  }

  // What is wrong with the segments' arguments, or nullptr (merge_argument_error asks).
  const char* segments_error() const {
    if (const char* problem = segment_count_error()) return problem;
    if (offsets.segments > 0 && (is_null(offsets.a) || is_null(offsets.b))) {
      return "the segment offsets are a null pointer with a nonzero segment count";
    }
    const bool has_outputs = Base::writes_keys || offsets.segments > 0;  // S + 1 offsets, or S counts
    if (has_outputs && is_null(segments_out)) {
      return Base::writes_keys ? "the output offsets are a null pointer"
                               : "the segment counts are a null pointer with a nonzero segment count";
    }
    return nullptr;
  }
};

template <class Base, class OffsetsA, class OffsetsB, class SegmentsOut>
segmented_args<Base, OffsetsA, OffsetsB, SegmentsOut> make_segmented_args(const Base& base, OffsetsA a_offsets,
                                                                          OffsetsB b_offsets, index_t segments,
                                                                          SegmentsOut segments_out) {
  // The inputs' sizes go with the offsets, so that the split pass never reads past A or B
  // whatever the offsets (device memory, not checked) hold (segmented_path_split).
  return {base, {a_offsets, b_offsets, segments, base.size_a, base.size_b}, segments_out};
}

}  // namespace corank::detail
