#pragma once
// Streaming an operation through bounded memory: the op's path of m + n steps is cut into
// chunks of at most `chunk` steps, each found by the op's path split (co_rank.hpp,
// balanced_path.hpp) on the inputs where they lie, in host memory: a binary search, a few
// dozen reads per chunk. A chunk is then the op on two windows, A[a_begin, a_end) and
// B[b_begin, b_end), independent of the others, and the chunks' outputs one after the other
// are the op's output, equal keys split between chunks exactly as between tiles. Both
// backends' streamed forms walk these chunks: streamed_operation.cuh (through the GPU) and
// host/streamed_operation.hpp (on CPU threads). Plain C++.

#include <corank/balanced_path.hpp>
#include <corank/config.hpp>
#include <corank/detail/forms/merge_args.hpp>

#include <cstddef>
#include <functional>

namespace corank {

// How a streamed call cuts and moves its work. Every field has a default that suits.
struct streamed_options {
  // GPU: the device memory the call may use, in bytes (buffers for three chunks in flight and
  // their temporary storage). 0: what is free on the device when the call starts, less 1/16
  // (at least 256 MiB) for others. Ignored by the CPU backend.
  std::size_t gpu_memory = 0;
  // Path steps (input elements) per chunk; 0: as large as gpu_memory allows, at most
  // default_chunk. Smaller chunks cost more calls; larger ones overlap less at the start and
  // the end of the stream.
  index_t chunk = 0;
  // CPU threads: the CPU backend's work, and the GPU form's copies between pageable memory
  // and its pinned buffers. 0: every hardware thread (the GPU form: at most 8).
  unsigned threads = 0;
  // Called on the calling thread after each chunk's output is delivered: the path steps done
  // so far and m + n. For progress bars; may throw, which stops the call as a sink's would.
  std::function<void(index_t done, index_t total)> progress;

  static constexpr index_t default_chunk = index_t(1) << 24;
};

namespace detail {

// One chunk: the op on A[a_begin, a_end) and B[b_begin, b_end).
struct chunk_window {
  index_t a_begin, a_end, b_begin, b_end;
  index_t size_a() const { return a_end - a_begin; }
  index_t size_b() const { return b_end - b_begin; }
  // Whether neither window goes backwards: always so for sorted inputs. Unsorted ones (or a
  // comparator that is not a strict weak order) can give splits out of order, and a window
  // of negative size, whose other window is then longer than a chunk: a caller must not
  // copy or run such a chunk (the GPU form throws corank::unsorted_input).
  bool ordered() const { return a_begin <= a_end && b_begin <= b_end; }
};

// The chunks of the path on `Partition` over A (m elements) and B (n), in order: diagonals
// 0, chunk, 2 chunk, ..., m + n, each split once. A window has at most chunk + 1 elements
// (a balanced-path split may step back one) where it is ordered(). Whatever the inputs hold,
// every split lies inside them (0 <= a <= m, 0 <= b <= n, as the searches of co_rank.hpp and
// balanced_path.hpp keep to their ranges), consecutive windows share their split, the first
// starts at (0, 0) and the last ends at (m, n), and the search reads nothing outside A and B.
template <partitioning Partition, class KeyA, class KeyB, class Compare>
class chunk_cutter {
 public:
  chunk_cutter(const KeyA* a, index_t m, const KeyB* b, index_t n, index_t chunk, Compare comp)
      : a_(a), b_(b), m_(m), n_(n), chunk_(chunk), comp_(comp) {}

  index_t count() const { return (m_ + n_ + chunk_ - 1) / chunk_; }
  index_t total() const { return m_ + n_; }
  // The path steps done once chunk c is: its last diagonal.
  index_t end_of(index_t c) const { return c + 1 >= count() ? m_ + n_ : (c + 1) * chunk_; }

  // The next chunk's window (count() of them).
  chunk_window next() {
    const split<index_t> to = path_split<Partition>(end_of(next_++), a_, m_, b_, n_, comp_);
    const chunk_window window{from_.a, to.a, from_.b, to.b};
    from_ = to;
    return window;
  }

 private:
  const KeyA* a_;
  const KeyB* b_;
  index_t m_, n_, chunk_;
  Compare comp_;
  index_t next_ = 0;
  split<index_t> from_{0, 0};
};

// The arguments' problem (merge_args.hpp's, and a negative chunk), or nullptr.
template <class Args>
const char* streamed_argument_error(const Args& args, const streamed_options& options) {
  if (const char* problem = merge_argument_error(args)) return problem;
  if (options.chunk < 0) return "the chunk size is negative";
  return nullptr;
}

}  // namespace detail
}  // namespace corank
