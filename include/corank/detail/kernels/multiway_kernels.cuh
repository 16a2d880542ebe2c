#pragma once
// The kernels of the k-way merge and the sort.
//
// A k-way pass merges groups of up to max_group consecutive runs, each group into one run
// in its place. Its tiles come from the multi-way co-rank: a tile boundary is an element e
// of a group, and every run's split at e is the count of its elements that come before e
// in the stable order (key, then run, then position), found by one binary search per run.
// Where e comes from: every `stride`-th element of each run is sampled, the samples are
// merged (the same pass, one level down, on a stride-times smaller input), and every
// `per_tile`-th merged sample of a group is a boundary. A tile then holds at most
// per_tile * stride + group * (stride - 1) elements (each run adds at most stride - 1 beyond
// its samples), which fits the block's buffer by the choice of per_tile; and the binary
// search in run j only looks between two of its samples, stride elements, once the sample
// of run j (in L2) has said where.
//
// A block per tile then stages each run's window side by side in shared memory and merges
// them (block_merge_runs.cuh); the block sort sorts each thread's items in registers and
// merges the threads' runs the same way.
//
// Unsorted runs, or a comparator that is not a strict weak order (`<=`, NaN under `<`), give
// splits that are not monotone and windows that can be negative or larger than the buffer:
// a tile checks its windows (0 <= begin <= end <= the run's size, all of them within its
// buffer) as it lays them out, for free, and a tile that fails writes nothing. Tiles that
// pass share their split rows with their neighbours, so they write disjoint ranges inside
// their group's, and nothing is read or written outside the inputs, outputs and buffers;
// the output's contents are then unspecified (a merge cannot say so: nothing is read back).
// The block sort and the pairwise rounds stay in bounds whatever the comparator answers
// (block_merge_runs.cuh). The runs' offsets themselves are made nondecreasing and within the
// size before any of this (caller_offsets_kernel).

#include <corank/config.hpp>
#include <corank/detail/block/block_merge_runs.cuh>
#include <corank/detail/block/stage_window.cuh>
#include <corank/detail/block/store_tile.cuh>
#include <corank/detail/block/uninitialized_array.cuh>
#include <corank/detail/forms/merge_args.hpp>
#include <corank/tuning.hpp>

#include <cub/block/block_scan.cuh>

#include <iterator>
#include <type_traits>
#include <utility>

namespace corank::detail {

// At most this many runs are merged by one tile (a group).
inline constexpr int max_group = multiway_max_group;
static_assert(max_group <= 64, "a round's pairs are planned by one warp");

// A block's threads and items for the k-way tiles (tile_kind::multiway_merge) or the block
// sort (tile_kind::block_sort), tuning.hpp's rows for these element sizes (Value `unused` for
// keys only), and the samples' stride.
template <tile_kind Kind, class Key, class Value>
struct multiway_shape {
  using policy = tile_policy<Kind, int(sizeof(Key)), is_used_v<Value> ? int(sizeof(Value)) : 0>;
  static constexpr int threads = policy::threads_per_block;
  static constexpr int items = policy::items_per_thread;
  static constexpr int tile = policy::items_per_tile;
  // The samples' stride for `group` runs a tile: multiway_sample_spacing_bytes apart where the
  // slack allows, so that gathering them reads a fraction of the sectors, and at most half
  // the tile of slack (group * (stride - 1)); at least 2.
  static constexpr index_t stride(int group) {
    const index_t spaced = index_t(multiway_sample_spacing_bytes / sizeof(Key));
    const index_t apart = spaced < 2 ? 2 : spaced;
    const index_t room = tile / (2 * index_t(group));
    return room < 2 ? 2 : (room < apart ? room : apart);
  }
  // Merged samples a tile spans, at least 1 (tile >= 4 * max_group).
  static constexpr index_t samples_per_tile(int group) { return (tile - group * (stride(group) - 1)) / stride(group); }
  static_assert(tile >= 4 * max_group, "a tile must hold a group's slack");
};

// The k-way tiles' and the block sort's shapes.
template <class Key, class Value>
using multiway_merge_shape = multiway_shape<tile_kind::multiway_merge, Key, Value>;
template <class Key, class Value>
using block_sort_shape = multiway_shape<tile_kind::block_sort, Key, Value>;

// Runs that lie in one sequence: run j starts at base + offsets[j].
template <class Iterator>
struct contiguous_runs {
  Iterator base;
  const index_t* offsets;
  using value_type = typename std::iterator_traits<Iterator>::value_type;
  __device__ Iterator run(index_t j) const { return base + offsets[j]; }
};

// Runs anywhere: run j starts at pointers[j].
template <class T>
struct listed_runs {
  const T* const* pointers;
  using value_type = T;
  __device__ const T* run(index_t j) const { return pointers[j]; }
};

template <class Runs>
using run_value_t = typename std::conditional_t<is_used_v<Runs>, Runs, contiguous_runs<const char*>>::value_type;

// Where a level's boundaries come from (see the top); null where every group is one tile.
template <class Key>
struct multiway_sample {
  const index_t* offsets = nullptr;  // runs + 1: run j's samples are keys[offsets[j], offsets[j + 1])
  const Key* keys = nullptr;
  const Key* merged_keys = nullptr;     // merged group by group, group g at offsets[g * group]
  const index_t* merged_tags = nullptr;  // each merged sample's position in the level's input
  const index_t* tile_offsets = nullptr; // groups + 1: each group's first tile
  index_t stride = 1;
  index_t per_tile = 1;
};

// The first position in [low, high) at which `after(x)` holds for the sorted run, or high.
template <class Iterator, class After>
__device__ index_t first_where(Iterator run, index_t low, index_t high, After after) {
  while (low < high) {
    const index_t mid = low + (high - low) / 2;
    if (after(run[mid])) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

// By one warp: every run's split (its elements before the boundary) at boundary `b` of the
// group of runs [first, first + runs), into split[0, runs). b == 0 is the group's start,
// b == tiles its end; between them, the b-th splitter of the group's merged samples.
template <class Runs, class Key, class Compare>
__device__ void multiway_splits(const Runs& runs_in, const index_t* offsets, index_t first, int runs,
                                const multiway_sample<Key>& sample, index_t b, index_t tiles, index_t* split,
                                Compare& comp) {
  const int lane = int(threadIdx.x % 32);
  if (b == 0 || b == tiles) {
    for (int j = lane; j < runs; j += 32)
      split[j] = b == 0 ? 0 : offsets[first + j + 1] - offsets[first + j];
    return;
  }
  const index_t at = sample.offsets[first] + b * sample.per_tile;
  const Key x = sample.merged_keys[at];
  const index_t position = sample.merged_tags[at];
  // The splitter's run: the last of the group that starts at or before its position.
  const index_t r = last_at_or_before(offsets, first, first + runs - 1, position);
  for (int i = lane; i < runs; i += 32) {
    const index_t j = first + i;
    if (j == r) {
      split[i] = position - offsets[j];
      continue;
    }
    // Runs before the splitter's put their copies of x before it, runs after it after.
    auto after = [&](const Key& y) { return j < r ? comp(x, y) : !comp(y, x); };
    const index_t samples = first_where(sample.keys + sample.offsets[j], 0,
                                        sample.offsets[j + 1] - sample.offsets[j], after);
    const index_t size = offsets[j + 1] - offsets[j];
    const index_t low = samples * sample.stride;
    const index_t high = low + sample.stride - 1 < size ? low + sample.stride - 1 : size;
    split[i] = first_where(runs_in.run(j), low, high, after);
  }
}

// Tile t's group g, its place b among the group's tiles and their count; false past the
// last tile. Without samples, tile t is group t.
template <class Key>
__device__ bool tile_of_group(const multiway_sample<Key>& sample, index_t runs, int group, index_t t, index_t& g,
                              index_t& b, index_t& tiles) {
  const index_t groups = (runs + group - 1) / group;
  if (sample.tile_offsets == nullptr) {
    g = t;
    b = 0;
    tiles = 1;
    return t < groups;
  }
  if (t >= sample.tile_offsets[groups]) return false;
  g = last_at_or_before(sample.tile_offsets, index_t(0), groups - 1, t);
  b = t - sample.tile_offsets[g];
  tiles = sample.tile_offsets[g + 1] - sample.tile_offsets[g];
  return true;
}

// The split pass: a warp per tile finds the tile's first splits, row t of `splits` (group
// entries a row). All tiles' searches run at once, so their chains of dependent loads
// overlap, rather than each tile's delaying its block.
template <class Runs, class Key, class Compare>
__global__ void __launch_bounds__(256)
    multiway_splits_kernel(Runs keys, const index_t* offsets, index_t runs, int group, multiway_sample<Key> sample,
                           index_t tiles_bound, index_t* splits, Compare comp) {
  const index_t t = (index_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  index_t g = 0, b = 0, tiles = 1;
  if (t >= tiles_bound || !tile_of_group(sample, runs, group, t, g, b, tiles)) return;
  const index_t first = g * group;
  const int in_group = int(runs - first < group ? runs - first : group);
  multiway_splits(keys, offsets, first, in_group, sample, b, tiles, splits + t * group, comp);
}

// Where run j's window starts (an iterator), for Runs that are not `unused`.
template <class Runs, class = void>
struct run_iterator {
  using type = unused;
};
template <class Runs>
struct run_iterator<Runs, std::enable_if_t<is_used_v<Runs>>> {
  using type = decltype(std::declval<const Runs&>().run(0));
};

// A k-way tile's shared memory: the double buffer and the layout of its windows.
template <class Shape, class KeyRuns, class ValueRuns>
struct multiway_tile_storage {
  using Key = run_value_t<KeyRuns>;
  using Value = std::conditional_t<is_used_v<ValueRuns>, run_value_t<ValueRuns>, unused>;
  merge_buffers<Key, Value, Shape::tile, Shape::items> buffers;
  typename run_iterator<KeyRuns>::type key_from[max_group];  // run j's window starts here
  typename run_iterator<ValueRuns>::type value_from[is_used_v<ValueRuns> ? max_group : 1];
  int starts[max_group + 1];                       // and lands at starts[j]
  int pair_threads[pair_threads_size(max_group)];  // the rounds' pieces (plan_pair_threads)
  index_t out_at;                                  // where the tile's output starts
  bool in_order;              // the windows lie in their runs and fit the buffer (unsorted input: not always)
};

// The block sort's: the double buffer and where each thread's run starts.
template <class Shape, class Key, class Value>
struct block_sort_storage {
  merge_buffers<Key, Value, Shape::tile, Shape::items> buffers;
  int starts[Shape::threads + 1];
};

// One tile of a k-way pass per block: its group and place among the group's tiles, every
// run's window, staged, merged, stored at the tile's output position.
template <class Shape, class KeyRuns, class ValueRuns, class KeysOut, class ValuesOut, class Compare>
__global__ void __launch_bounds__(Shape::threads)
    multiway_tile_kernel(KeyRuns keys, ValueRuns values, const index_t* offsets, index_t runs, int group,
                         multiway_sample<run_value_t<KeyRuns>> sample, const index_t* splits, KeysOut keys_out,
                         ValuesOut values_out, Compare comp) {
  using Key = run_value_t<KeyRuns>;
  using Value = std::conditional_t<is_used_v<ValueRuns>, run_value_t<ValueRuns>, unused>;
  constexpr bool with_values = is_used_v<ValueRuns>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto& s = *reinterpret_cast<multiway_tile_storage<Shape, KeyRuns, ValueRuns>*>(shared_bytes);

  index_t g = 0, b = 0, tiles = 1;
  if (!tile_of_group(sample, runs, group, index_t(blockIdx.x), g, b, tiles)) return;
  const index_t first = g * group;
  const int in_group = int(runs - first < group ? runs - first : group);

  // Warp 0 lays the tile out: each run's window (row blockIdx.x of the split pass's splits
  // to the next row, or to the group's end after its last tile) and where it lands.
  constexpr unsigned all = 0xffffffffu;
  const int lane = int(threadIdx.x % 32);
  if (threadIdx.x < 32) {
    int landed = 0;
    index_t skipped = 0;  // the group's elements before the tile
    bool windows_in_order = true;  // every window inside its run, none of negative size
    for (int j0 = 0; j0 < in_group; j0 += 32) {
      const int j = j0 + lane;
      index_t begin = 0, end = 0;
      if (j < in_group) {
        const index_t size = offsets[first + j + 1] - offsets[first + j];
        begin = splits == nullptr ? 0 : splits[index_t(blockIdx.x) * group + j];
        end = b + 1 < tiles ? splits[(index_t(blockIdx.x) + 1) * group + j] : size;
        // Always so for sorted runs; unsorted ones (or a comparator that is not a strict
        // weak order) may give any split. Checked before `int` sizes are taken of it.
        if (!(0 <= begin && begin <= end && end <= size && end - begin <= Shape::tile)) {
          windows_in_order = false;
          begin = end = 0;
        }
        s.key_from[j] = keys.run(first + j) + begin;
        if constexpr (with_values) s.value_from[j] = values.run(first + j) + begin;
      }
      const int length = int(end - begin);
      int at = length;  // inclusive sums over the lanes
      CORANK_PRAGMA_UNROLL
      for (int d = 1; d < 32; d *= 2) {
        const int x = __shfl_up_sync(all, at, d);
        if (lane >= d) at += x;
      }
      if (j < in_group) s.starts[j] = landed + at - length;
      landed += __shfl_sync(all, at, 31);
      CORANK_PRAGMA_UNROLL
      for (int d = 16; d > 0; d /= 2) begin += __shfl_xor_sync(all, begin, d);
      skipped += begin;
    }
    // The windows fill at most the buffer (landed: at most 64 windows of at most a tile each).
    windows_in_order = __all_sync(all, windows_in_order) && landed <= Shape::tile;
    if (lane == 0) {
      s.starts[in_group] = landed;
      s.out_at = offsets[first] + skipped;
      s.in_order = windows_in_order;
    }
  }
  __syncthreads();
  if (!s.in_order) return;  // the whole block: unsorted input, and this tile writes nothing

  // Each warp stages a share of the tile, its lanes consecutive positions (coalesced within a
  // window); a lane finds its position's window by moving on from the last one's.
  const shared_runs tile{s.starts, in_group};
  const int total = tile.total();
  constexpr int warps = Shape::threads / 32;
  const int share = ((total + warps - 1) / warps + 31) / 32 * 32;
  const int from = int(threadIdx.x / 32) * share, to = from + share < total ? from + share : total;
  if (from < to) {
    int j = tile.run_at(from);
    for (int p = from + lane; p < to; p += 32) {
      while (s.starts[j + 1] <= p) ++j;
      const int within = p - s.starts[j];
      stage_element(s.buffers.keys[0].data() + p, s.key_from[j] + within);
      if constexpr (with_values) stage_element(s.buffers.values[0].data() + p, s.value_from[j] + within);
    }
  }
  // The rounds' pieces, by warp 0 while the copies land (before them, it held up every warp).
  if (threadIdx.x < 32) plan_pair_threads<Shape::items>(tile, s.pair_threads);
  finish_async_copies();
  __syncthreads();

  const int result = block_merge_runs<Shape::threads, Shape::items, false>(s.buffers, tile, s.pair_threads, comp);

  const index_t out_at = s.out_at;
  store_tile<Shape::threads, Shape::items>(s.buffers.keys[result].data(), keys_out + out_at, total);
  if constexpr (with_values)
    store_tile<Shape::threads, Shape::items>(s.buffers.values[result].data(), values_out + out_at, total);
}

// x + y, or `bound` where that is more: for x and y in [0, bound], an associative sum that
// cannot overflow (the unsigned sum of two values below 2^63 fits 64 bits).
struct bounded_sum {
  index_t bound;
  __device__ __forceinline__ index_t operator()(index_t x, index_t y) const {
    const unsigned long long sum = static_cast<unsigned long long>(x) + static_cast<unsigned long long>(y);
    return sum < static_cast<unsigned long long>(bound) ? index_t(sum) : bound;
  }
};

// By one block: write(i, s) for i in [0, n], s the exclusive sums of count(0), ..., count(n -
// 1), each count taken within [0, bound] and the sums capped at `bound` (bounded_sum): for
// counts that add up to at most `bound`, the plain sums; for any others (a caller's negative
// or overrunning sizes), still nondecreasing and within [0, bound]. Counts of runs and
// groups, thousands to millions, a few microseconds each.
template <int Threads, class Count, class Write>
__device__ void block_bounded_sums(const Count& count, index_t n, index_t bound, const Write& write) {
  constexpr int items = 8;
  using block_scan = cub::BlockScan<index_t, Threads>;
  __shared__ typename block_scan::TempStorage scan;
  const bounded_sum add{bound};
  index_t carried = 0;
  for (index_t chunk = 0; chunk < n; chunk += index_t(Threads) * items) {
    index_t mine[items];
    const index_t at = chunk + index_t(threadIdx.x) * items;
    CORANK_PRAGMA_UNROLL
    for (int i = 0; i < items; ++i) {
      const index_t c = at + i < n ? count(at + i) : 0;
      mine[i] = c < 0 ? 0 : (c < bound ? c : bound);
    }
    index_t total = 0;
    block_scan(scan).ExclusiveScan(mine, mine, index_t(0), add, total);
    CORANK_PRAGMA_UNROLL
    for (int i = 0; i < items; ++i)
      if (at + i < n) write(at + i, add(carried, mine[i]));
    carried = add(carried, total);
    __syncthreads();
  }
  if (threadIdx.x == 0) write(n, carried);
}

// offsets[0, n] <- the exclusive sums of count(0), ..., count(n - 1) (offsets[n]: the total),
// capped at `bound` as block_bounded_sums says.
template <int Threads, class Count>
__global__ void __launch_bounds__(Threads) exclusive_sums_kernel(Count count, index_t n, index_t bound,
                                                                 index_t* offsets) {
  block_bounded_sums<Threads>(count, n, bound, [&](index_t i, index_t sum) { offsets[i] = sum; });
}

// Each run's samples: its size / stride.
struct sample_count {
  const index_t* offsets;
  index_t stride;
  __device__ index_t operator()(index_t j) const { return (offsets[j + 1] - offsets[j]) / stride; }
};

// Each group's tiles, at least 1, from its merged samples.
struct tile_count {
  const index_t* sample_offsets;
  index_t runs;
  int group;
  index_t per_tile;
  __device__ index_t operator()(index_t g) const {
    const index_t last = (g + 1) * group < runs ? (g + 1) * group : runs;
    const index_t samples = sample_offsets[last] - sample_offsets[g * group];
    return samples == 0 ? 1 : (samples + per_tile - 1) / per_tile;
  }
};

// Runs given by their sizes (negative ones count as empty: block_bounded_sums).
template <class Sizes>
struct listed_size {
  Sizes sizes;
  __device__ index_t operator()(index_t j) const { return index_t(sizes[j]); }
};

// Runs given by a caller's offsets: run j's size, offsets[j + 1] - offsets[j], or 0 where
// they decrease (without overflow, whatever 64-bit values they hold).
template <class Offsets>
struct offsets_size {
  Offsets offsets;
  __device__ index_t operator()(index_t j) const {
    const index_t from = index_t(offsets[j]), to = index_t(offsets[j + 1]);
    if (to <= from) return 0;
    constexpr unsigned long long most = ~0ull >> 1;  // the largest index_t
    const unsigned long long size = static_cast<unsigned long long>(to) - static_cast<unsigned long long>(from);
    return index_t(size < most ? size : most);
  }
};

// Sample i of run j is the run's element (i + 1) * stride - 1; its tag is its position.
template <class KeyRuns, class Key>
__global__ void gather_samples_kernel(KeyRuns keys, const index_t* offsets, index_t runs,
                                      const index_t* sample_offsets, index_t stride, index_t bound, Key* sample_keys,
                                      index_t* sample_tags) {
  const index_t total = sample_offsets[runs];
  for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total && i < bound;
       i += index_t(gridDim.x) * blockDim.x) {
    const index_t j = last_at_or_before(sample_offsets, index_t(0), runs - 1, i);
    const index_t at = (i - sample_offsets[j] + 1) * stride - 1;
    sample_keys[i] = keys.run(j)[at];
    sample_tags[i] = offsets[j] + at;
  }
}

// (Templates, like every kernel here, so that the header can be included by many sources.)
// offsets[j] = min(j * length, size), j in [0, runs]: the block sort's runs.
template <class Index>
__global__ void uniform_offsets_kernel(Index* offsets, Index runs, Index length, Index size) {
  const index_t j = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j <= runs) offsets[j] = j * length < size ? j * length : size;
}

// offsets[j] = base[min(j * every, base_runs)], j in [0, runs]: the runs a pass left.
template <class Index>
__global__ void every_nth_offset_kernel(Index* offsets, Index runs, const Index* base, Index every, Index base_runs) {
  const index_t j = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j <= runs) offsets[j] = base[j * every < base_runs ? j * every : base_runs];
}

// A caller's offsets, by one block: where run j goes in the output, relative[j], the sum of
// the sizes of the runs before it (offsets_size), at most `size`, and where it is read,
// absolute[j] = offsets[0] + relative[j]. For nondecreasing offsets with offsets[runs] -
// offsets[0] == size (the precondition) these are the offsets as they are, and from 0;
// offsets that decrease or overrun still give nondecreasing runs inside the `size` elements
// from offsets[0], so no pass reads or writes outside the inputs and outputs.
template <int Threads, class Offsets>
__global__ void __launch_bounds__(Threads)
    caller_offsets_kernel(Offsets offsets, index_t runs, index_t size, index_t* absolute, index_t* relative) {
  const index_t base = index_t(offsets[0]);
  block_bounded_sums<Threads>(offsets_size<Offsets>{offsets}, runs, size, [&](index_t j, index_t sum) {
    relative[j] = sum;
    absolute[j] = base + sum;
  });
}

// The block sort: each block sorts `Shape::tile` elements (the last block the rest). Each
// thread sorts its items in registers (odd-even transposition, which swaps only neighbours
// out of order, so equal keys keep their order), then the threads' runs are merged.
// Key and Value are the types sorted (Value `unused` for keys only).
template <class Shape, class Key, class Value, class KeysIn, class ValuesIn, class KeysOut, class ValuesOut,
          class Compare>
__global__ void __launch_bounds__(Shape::threads)
    block_sort_kernel(KeysIn keys_in, ValuesIn values_in, KeysOut keys_out, ValuesOut values_out, index_t size,
                      Compare comp) {
  constexpr bool with_values = is_used_v<Value>;
  constexpr int items = Shape::items;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto& s = *reinterpret_cast<block_sort_storage<Shape, Key, Value>*>(shared_bytes);

  const index_t tile_first = index_t(blockIdx.x) * Shape::tile;
  const int count = int(size - tile_first < Shape::tile ? size - tile_first : Shape::tile);
  for (int e = int(threadIdx.x); e < count; e += Shape::threads) {
    stage_element(s.buffers.keys[0].data() + e, keys_in + (tile_first + e));
    if constexpr (with_values) stage_element(s.buffers.values[0].data() + e, values_in + (tile_first + e));
  }
  finish_async_copies();
  __syncthreads();

  const int mine = int(threadIdx.x) * items;
  const int valid = count - mine < 0 ? 0 : (count - mine < items ? count - mine : items);
  Key k[items];
  std::conditional_t<with_values, Value, char> v[with_values ? items : 1];
  CORANK_PRAGMA_UNROLL
  for (int i = 0; i < items; ++i) {
    if (i < valid) {
      k[i] = s.buffers.keys[0][mine + i];
      if constexpr (with_values) v[i] = s.buffers.values[0][mine + i];
    }
  }
  CORANK_PRAGMA_UNROLL
  for (int round = 0; round < items; ++round) {
    CORANK_PRAGMA_UNROLL
    for (int i = round & 1; i + 1 < items; i += 2) {
      if (i + 1 < valid && comp(k[i + 1], k[i])) {
        const Key t = k[i];
        k[i] = k[i + 1];
        k[i + 1] = t;
        if constexpr (with_values) {
          const auto u = v[i];
          v[i] = v[i + 1];
          v[i + 1] = u;
        }
      }
    }
  }
  CORANK_PRAGMA_UNROLL
  for (int i = 0; i < items; ++i) {
    if (i < valid) {
      s.buffers.keys[0][mine + i] = k[i];
      if constexpr (with_values) s.buffers.values[0][mine + i] = v[i];
    }
  }
  // Thread t's run starts at min(t * items, count).
  for (int t = int(threadIdx.x); t <= Shape::threads; t += Shape::threads) s.starts[t] = t * items < count ? t * items : count;
  __syncthreads();

  const int result = block_merge_runs<Shape::threads, items, true>(s.buffers, shared_runs{s.starts, Shape::threads},
                                                                    nullptr, comp);
  store_tile<Shape::threads, items>(s.buffers.keys[result].data(), keys_out + tile_first, count);
  if constexpr (with_values) store_tile<Shape::threads, items>(s.buffers.values[result].data(), values_out + tile_first, count);
}

}  // namespace corank::detail
