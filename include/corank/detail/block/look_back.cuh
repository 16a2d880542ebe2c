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
// published", so a cudaMemsetAsync initializes it. A tile that found its inputs unsorted
// (tile_agent.cuh) publishes the poisoned prefix instead of a count: an inclusive prefix of
// 2^61, more than any output. It ends look-backs as any inclusive prefix does, and every
// later tile's prefix comes to at least it (and so inherits it): the caller turns such an
// offset into "none" with one comparison, outside the look-back, and no later tile stores.
// Status and count travel in one word, so
// relaxed atomics suffice: a reader uses nothing but the word it read. (Release and acquire
// would cost a GPU-wide fence per publication and a cache invalidation per read.)
class tile_prefix_state {
 public:
  explicit tile_prefix_state(unsigned long long* words) : words_(words) {}

  static constexpr std::size_t bytes(index_t tiles) { return std::size_t(tiles) * sizeof(unsigned long long); }

  // Called by one thread of tile `tile` as soon as the tile's output count is known, so
  // that successors can sum it while this tile does other work.
  __device__ void publish_count(int tile, index_t count) const { publish(tile, tile == 0 ? inclusive : partial, count); }

  // Instead of publish_count, by a tile whose inputs were found unsorted.
  __device__ void publish_poisoned(int tile) const { publish(tile, inclusive, poisoned_prefix); }

  // publish_count where `consistent`, else publish_poisoned: one store of a word chosen
  // without a branch.
  __device__ void publish_checked(int tile, bool consistent, index_t count) const {
    publish(tile, tile == 0 || !consistent ? inclusive : partial, consistent ? count : index_t(poisoned_prefix));
  }

  // An offset at least this says a poisoned predecessor.
  static constexpr index_t poisoned = index_t(1ull << 61);

  // Called by a whole warp of tile `tile`, after publish_count: returns the sum of the
  // counts of all earlier tiles, and publishes the tile's inclusive prefix. Past a poisoned
  // predecessor both are at least `poisoned`: one poison and fewer than 2^45 outputs, so
  // the count field does not overflow.
  __device__ index_t exclusive_prefix(int tile, index_t count) const {
    const int lane = threadIdx.x & 31;
    if (tile == 0) return 0;
    // Windows of `depth` x 32 predecessors, lane l reading l, l + 32, ... back from the
    // window's end, all loads of a window in flight at once: the nearest inclusive
    // predecessor can be more than 32 tiles back.
    constexpr int depth = 4;
    index_t prefix = 0;
    for (int window_end = tile;; window_end -= depth * 32) {
      unsigned long long words[depth];
      CORANK_PRAGMA_UNROLL
      for (int r = 0; r < depth; ++r) {
        const int predecessor = window_end - 1 - lane - 32 * r;
        words[r] = predecessor >= 0 ? read(predecessor) : inclusive;  // before tile 0: an inclusive zero
      }
      // Sum back to the nearest predecessor that knows its inclusive prefix (lowest lane of
      // the first row that has one), a row at a time: the rows past it are not waited for.
      index_t sum = 0;
      bool found = false;  // the same in every lane (a ballot)
      CORANK_PRAGMA_UNROLL
      for (int r = 0; r < depth; ++r) {
        if (found) break;
        while (words[r] >> 62 == 0) {
          __nanosleep(32);
          words[r] = read(window_end - 1 - lane - 32 * r);
        }
        const unsigned done = __ballot_sync(0xffffffffu, (words[r] & status_mask) == inclusive);
        const int last_lane = done != 0 ? __ffs(done) - 1 : 31;
        if (lane <= last_lane) sum += index_t(words[r] & count_mask);
        found = done != 0;
      }
      prefix += warp_sum(sum);  // one poisoned prefix and partial counts: no overflow
      if (found) break;
    }
    // Past a poisoned predecessor the prefix is at least the poison, and so is this tile's.
    if (lane == 0) publish(tile, inclusive, prefix + count);
    return prefix;
  }

 private:
  static constexpr unsigned long long partial = 1ull << 62;
  static constexpr unsigned long long inclusive = 2ull << 62;
  static constexpr unsigned long long status_mask = 3ull << 62;
  static constexpr unsigned long long count_mask = (1ull << 62) - 1;
  static constexpr unsigned long long poisoned_prefix = 1ull << 61;  // outputs are fewer; poison + outputs < 2^62

  __device__ void publish(int tile, unsigned long long status, index_t count) const {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words_[tile])
        .store(status | static_cast<unsigned long long>(count), cuda::memory_order_relaxed);
  }
  __device__ unsigned long long read(int tile) const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(words_[tile])
        .load(cuda::memory_order_relaxed);
  }
  __device__ static index_t warp_sum(index_t x) {
    for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
  }

  unsigned long long* words_;
};

}  // namespace corank::detail
