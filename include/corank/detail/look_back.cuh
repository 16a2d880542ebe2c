#pragma once
// Single-pass prefix across tiles (decoupled look-back, Merrill & Garland 2016): each tile
// publishes its own output count at once, then its first warp walks back over its
// predecessors' published counts until it meets one that already knows its inclusive
// prefix. Outputs of data-dependent operations find their offsets without a second pass
// over the inputs and without host synchronization.

#include <corank/config.hpp>

#include <cuda/atomic>

namespace corank::detail {

// One 64-bit word per tile: a 2-bit status and a 62-bit count. All zero means "not yet
// published", so a cudaMemsetAsync initializes it.
class tile_prefix_state {
 public:
  explicit tile_prefix_state(unsigned long long* words) : words_(words) {}

  static constexpr std::size_t bytes(index_t tiles) { return std::size_t(tiles) * sizeof(unsigned long long); }

  // Called by the whole first warp of tile `tile` with the tile's output count; returns
  // the sum of the counts of all earlier tiles.
  __device__ index_t exclusive_prefix(int tile, index_t count) const {
    const int lane = threadIdx.x & 31;
    if (tile == 0) {
      if (lane == 0) publish(0, inclusive, count);
      return 0;
    }
    if (lane == 0) publish(tile, partial, count);
    index_t prefix = 0;
    for (int window_end = tile;; window_end -= 32) {
      const int predecessor = window_end - 1 - lane;
      unsigned long long word = inclusive;  // before tile 0: an inclusive zero
      if (predecessor >= 0) {
        while ((word = read(predecessor)) >> 62 == 0) {
          __nanosleep(32);
        }
      }
      // Sum back to the nearest predecessor that knows its inclusive prefix (lowest lane).
      const unsigned done = __ballot_sync(0xffffffffu, (word & status_mask) == inclusive);
      const int last_lane = done != 0 ? __ffs(done) - 1 : 31;
      prefix += warp_sum(lane <= last_lane ? index_t(word & count_mask) : 0);
      if (done != 0) break;
    }
    if (lane == 0) publish(tile, inclusive, prefix + count);
    return prefix;
  }

 private:
  static constexpr unsigned long long partial = 1ull << 62;
  static constexpr unsigned long long inclusive = 2ull << 62;
  static constexpr unsigned long long status_mask = 3ull << 62;
  static constexpr unsigned long long count_mask = (1ull << 62) - 1;

  __device__ void publish(int tile, unsigned long long status, index_t count) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words_[tile])
        .store(status | static_cast<unsigned long long>(count), cuda::memory_order_release);
  }
  __device__ unsigned long long read(int tile) const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words_[tile])
        .load(cuda::memory_order_acquire);
  }
  __device__ static index_t warp_sum(index_t x) {
    for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
  }

  unsigned long long* words_;
};

}  // namespace corank::detail
