#pragma once
// The launches of the k-way merge and the sort: their passes, the levels of samples under
// each pass, and the temporary storage they use, laid out by the same code in the query
// (which only adds up the sizes) and in the run. No device value decides a launch or a size
// on the host: grids are sized from bounds, and tiles beyond a level's count return at once,
// so nothing synchronizes.
//
// Passes: R runs take P = ceil(log_64 R) passes of g-way merges, g the least with g^P >= R;
// each pass reads and writes every element once, so fewer, wider passes are what is fast
// (docs/design.md, "The k-way merge and the sort").

#include <corank/detail/dispatch.cuh>
#include <corank/detail/iterators.hpp>
#include <corank/detail/multiway_kernels.cuh>


#include <cstddef>
#include <limits>

namespace corank::detail {

// Hands out aligned pieces of the temporary storage; with a null base, only counts them.
struct temporary_arena {
  char* base = nullptr;
  std::size_t used = 0;
  bool runs() const { return base != nullptr; }
  template <class T>
  T* take(index_t count) {
    used = align_up(used);
    T* piece = base != nullptr ? reinterpret_cast<T*>(base + used) : nullptr;
    used += std::size_t(count) * sizeof(T);
    return piece;
  }
};

// Passes and the width of each, for `runs` runs.
struct pass_plan {
  int passes = 0;
  int group = 1;
};

inline pass_plan plan_passes(index_t runs) {
  pass_plan plan;
  for (index_t reach = 1; reach < runs; reach *= max_group) ++plan.passes;
  if (plan.passes == 0) return plan;
  auto reaches = [&](index_t g) {
    index_t reach = 1;
    for (int p = 0; p < plan.passes && reach < runs; ++p) reach *= g;
    return reach >= runs;
  };
  plan.group = 2;
  while (!reaches(plan.group)) ++plan.group;
  return plan;
}

inline unsigned blocks_for(index_t items, int threads = 256) { return unsigned((items + threads) / threads); }

// offsets[0, n] <- the exclusive sums of count(0 .. n - 1), and the total; counts outside
// [0, bound] and sums past it are capped at it (block_bounded_sums, multiway_kernels.cuh).
template <class Count>
void launch_exclusive_sums(const Count& count, index_t n, index_t* offsets, cudaStream_t stream,
                           index_t bound = std::numeric_limits<index_t>::max()) {
  exclusive_sums_kernel<1024><<<1, 1024, 0, stream>>>(count, n, bound, offsets);
}

// The first pass's runs from a caller's offsets (caller_offsets_kernel): where each is read
// and where it goes, nondecreasing and within `size` whatever the offsets hold.
template <class Offsets>
void launch_caller_offsets(const Offsets& offsets, index_t runs, index_t size, index_t* absolute, index_t* relative,
                           cudaStream_t stream) {
  caller_offsets_kernel<1024><<<1, 1024, 0, stream>>>(offsets, runs, size, absolute, relative);
}

// The dispatcher's check that a kernel's tile fits the device, and its opt-in to the shared
// memory (fit_kernel, dispatch.cuh).
template <auto Kernel, int Threads, std::size_t SharedBytes>
cudaError_t fit_tile() {
  device_limits limits;
  int per_sm = 0;
  return fit_kernel<Kernel, Threads, SharedBytes>(limits, per_sm);
}

// One k-way pass: merges each group of `group` consecutive runs (of at most `bound`
// elements in all) into its place in the output. Recurses on the samples where a group may
// need more than one tile.
template <class KeyRuns, class ValueRuns, class KeysOut, class ValuesOut, class Compare>
cudaError_t merge_groups(temporary_arena& temp, const KeyRuns& keys, const ValueRuns& values,
                         const index_t* offsets, index_t runs, index_t bound, int group, KeysOut keys_out,
                         ValuesOut values_out, Compare comp, cudaStream_t stream) {
  using Key = run_value_t<KeyRuns>;
  using Value = std::conditional_t<is_used_v<ValueRuns>, run_value_t<ValueRuns>, unused>;
  using shape = multiway_shape<Key, Value>;
  const index_t groups = (runs + group - 1) / group;
  multiway_sample<Key> sample;
  index_t tiles = groups;
  // Pointers are null in a query, so the layout depends on this, never on them.
  const bool sampled = bound > shape::samples_per_tile(group) * shape::stride(group);
  if (sampled) {
    // Some group may span more than a tile: sample, merge the samples, split at every
    // per_tile-th of a group's.
    sample.stride = shape::stride(group);
    sample.per_tile = shape::samples_per_tile(group);
    const index_t sample_bound = bound / sample.stride;
    index_t* sample_offsets = temp.take<index_t>(runs + 1);
    Key* sample_keys = temp.take<Key>(sample_bound);
    index_t* sample_tags = temp.take<index_t>(sample_bound);
    Key* merged_keys = temp.take<Key>(sample_bound);
    index_t* merged_tags = temp.take<index_t>(sample_bound);
    index_t* tile_offsets = temp.take<index_t>(groups + 1);
    if (temp.runs()) {
      launch_exclusive_sums(sample_count{offsets, sample.stride}, runs, sample_offsets, stream);
      if (sample_bound > 0) {
        const index_t grid = sample_bound / 256 + 1;
        gather_samples_kernel<<<unsigned(grid < 65536 ? grid : 65536), 256, 0, stream>>>(
            keys, offsets, runs, sample_offsets, sample.stride, sample_bound, sample_keys, sample_tags);
      }
    }
    if (const cudaError_t e = merge_groups(temp, contiguous_runs<const Key*>{sample_keys, sample_offsets},
                                           contiguous_runs<const index_t*>{sample_tags, sample_offsets},
                                           sample_offsets, runs, sample_bound, group, merged_keys, merged_tags,
                                           comp, stream);
        e != cudaSuccess)
      return e;
    if (temp.runs()) launch_exclusive_sums(tile_count{sample_offsets, runs, group, sample.per_tile}, groups, tile_offsets, stream);
    sample.offsets = sample_offsets;
    sample.keys = sample_keys;
    sample.merged_keys = merged_keys;
    sample.merged_tags = merged_tags;
    sample.tile_offsets = tile_offsets;
    tiles = groups + sample_bound / sample.per_tile + 1;
  }
  if (tiles >= index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
  index_t* splits = sampled ? temp.take<index_t>(tiles * group) : nullptr;
  if (!temp.runs()) return cudaSuccess;
  if (sampled) {
    multiway_splits_kernel<<<unsigned((tiles * 32 + 255) / 256), 256, 0, stream>>>(keys, offsets, runs, group, sample,
                                                                                  tiles, splits, comp);
  }
  constexpr std::size_t shared_bytes = sizeof(multiway_tile_storage<shape, KeyRuns, ValueRuns>);
  constexpr auto kernel = multiway_tile_kernel<shape, KeyRuns, ValueRuns, KeysOut, ValuesOut, Compare>;
  if (const cudaError_t e = fit_tile<kernel, shape::threads, shared_bytes>(); e != cudaSuccess) return e;
  kernel<<<unsigned(tiles), shape::threads, shared_bytes, stream>>>(keys, values, offsets, runs, group, sample,
                                                                    splits, keys_out, values_out, comp);
  return cudaPeekAtLastError();
}

// Where stage s of `stages` writes: the last writes the outputs, the ones before it alternate
// with the buffer, so that each reads what the one before it wrote and only one buffer of
// the outputs' size is needed (the outputs themselves hold a stage's runs in between).
template <class T>
T* stage_output(int stages, int s, T* out, T* buffer) {
  return (stages - 1 - s) % 2 == 0 ? out : buffer;
}

// Passes first_pass and on of `plan`, as stages first_stage + pass of `stages`: each merges
// the runs the last one wrote, `group` at a time, until one is left. `offsets` are the runs
// of pass 0 (positions in the output), `runs` of them. Value is `unused` for keys only.
template <class Key, class Value, class Compare>
cudaError_t later_passes(temporary_arena& temp, const pass_plan& plan, int stages, int first_stage, int first_pass,
                         const index_t* offsets, index_t runs, index_t size, Key* keys_out, Key* key_buffer,
                         Value* values_out, Value* value_buffer, Compare comp, cudaStream_t stream) {
  index_t every = 1;
  for (int p = 0; p < first_pass; ++p) every *= plan.group;
  const std::size_t start = temp.used;
  std::size_t high = temp.used;
  for (int p = first_pass; p < plan.passes; ++p, every *= plan.group) {
    temp.used = start;  // a pass's offsets and samples are dead once it has run: reuse them
    const int s = first_stage + p;
    const index_t left = (runs + every - 1) / every;
    index_t* pass_offsets = temp.take<index_t>(left + 1);
    if (temp.runs())
      every_nth_offset_kernel<index_t><<<blocks_for(left + 1), 256, 0, stream>>>(pass_offsets, left, offsets, every, runs);
    const contiguous_runs<const Key*> key_runs{stage_output(stages, s - 1, keys_out, key_buffer), pass_offsets};
    Key* const keys_to = stage_output(stages, s, keys_out, key_buffer);
    cudaError_t e = cudaSuccess;
    if constexpr (is_used_v<Value>) {
      const contiguous_runs<const Value*> value_runs{stage_output(stages, s - 1, values_out, value_buffer),
                                                     pass_offsets};
      e = merge_groups(temp, key_runs, value_runs, pass_offsets, left, size, plan.group, keys_to,
                       stage_output(stages, s, values_out, value_buffer), comp, stream);
    } else {
      e = merge_groups(temp, key_runs, unused{}, pass_offsets, left, size, plan.group, keys_to, unused{}, comp,
                       stream);
    }
    if (e != cudaSuccess) return e;
    high = temp.used > high ? temp.used : high;
  }
  temp.used = high;
  return cudaSuccess;
}

}  // namespace corank::detail

namespace corank::detail {

// Outputs hold intermediate runs, so they are read back: contiguous memory only.
template <class Iterator>
auto contiguous_output(Iterator it) {
  auto raw = unwrap(it);
  static_assert(std::is_pointer_v<decltype(raw)>,
                "corank's sort writes its outputs as intermediate runs: pass raw device pointers or "
                "thrust::device_ptr / device_vector iterators");
  return raw;
}

// The two-phase protocol over `stages(arena)`, which lays out its storage and, with a base,
// launches: a query (temp_storage null) writes the bytes (at least 1, so that null always
// means a query); a run first checks that temp_storage_bytes holds that layout.
template <class Stages>
cudaError_t run_in_arena(void* temp_storage, std::size_t& temp_storage_bytes, Stages stages) {
  temporary_arena measure;
  if (const cudaError_t e = stages(measure); e != cudaSuccess) return e;
  const std::size_t needed = measure.used > 0 ? measure.used : 1;
  if (temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (temp_storage_bytes < needed) return cudaErrorInvalidValue;
  temporary_arena arena{static_cast<char*>(temp_storage)};
  return stages(arena);
}

}  // namespace corank::detail
