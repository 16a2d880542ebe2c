#pragma once
// The multiway dispatcher, beside dispatch.cuh's two-input one: the only code that launches
// the sort's and the k-way merge's kernels. dispatch_multiway takes the arguments the public
// forms build (multiway_args.hpp: a sort's input, runs by offsets, or a list of runs), checks
// them, lays the temporary storage out (temporary_arena.hpp: the query and the run by the
// same code, which only adds up the sizes without a base) and launches: the block sort or
// the caller's run offsets, then the passes, and under each pass the levels of samples. No
// device value decides a launch or a size on the host: grids are sized from bounds, and
// tiles beyond a level's count return at once, so nothing synchronizes.
//
// Passes: R runs take P = ceil(log_G R) passes, G = max_group (tuning.hpp's sm90_multiway), in
// groups that spend the fewest rounds of pairwise merges (pass_plan.hpp); each pass reads and
// writes every element once, so fewer, wider passes are what is fast (docs/design.md, "The
// k-way merge and the sort").

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/dispatch/pass_plan.hpp>
#include <corank/detail/dispatch/temporary_arena.hpp>
#include <corank/detail/forms/multiway_args.hpp>
#include <corank/detail/kernels/multiway_kernels.cuh>

#include <cstddef>
#include <limits>
#include <type_traits>

namespace corank::detail {

inline unsigned blocks_for(index_t items, int threads = 256) { return unsigned((items + threads) / threads); }

// offsets[0, n] <- the exclusive sums of count(0 .. n - 1), and the total; counts outside
// [0, bound] and sums past it are capped at it (block_bounded_sums, multiway_kernels.cuh).
template <class Count>
cudaError_t launch_exclusive_sums(const Count& count, index_t n, index_t* offsets, cudaStream_t stream,
                                  index_t bound = std::numeric_limits<index_t>::max()) {
  exclusive_sums_kernel<1024><<<1, 1024, 0, stream>>>(count, n, bound, offsets);
  return cudaPeekAtLastError();
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
  using shape = multiway_merge_shape<Key, Value>;
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
      if (const cudaError_t e = launch_exclusive_sums(sample_count{offsets, sample.stride}, runs, sample_offsets, stream);
          e != cudaSuccess)
        return e;
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
    if (temp.runs()) {
      if (const cudaError_t e =
              launch_exclusive_sums(tile_count{sample_offsets, runs, group, sample.per_tile}, groups, tile_offsets, stream);
          e != cudaSuccess)
        return e;
    }
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
  return launch_fitted<multiway_tile_kernel<shape, KeyRuns, ValueRuns, KeysOut, ValuesOut, Compare>, shape::threads,
                       sizeof(multiway_tile_storage<shape, KeyRuns, ValueRuns>)>(
      tiles, stream, keys, values, offsets, runs, group, sample, static_cast<const index_t*>(splits), keys_out,
      values_out, comp);
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
  index_t every = 1;  // the runs of pass 0 that a run of pass p is
  for (int p = 0; p < first_pass; ++p) every *= plan.group[p];
  const std::size_t start = temp.used;
  std::size_t high = temp.used;
  for (int p = first_pass; p < plan.passes; every *= plan.group[p], ++p) {
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
      e = merge_groups(temp, key_runs, value_runs, pass_offsets, left, size, plan.group[p], keys_to,
                       stage_output(stages, s, values_out, value_buffer), comp, stream);
    } else {
      e = merge_groups(temp, key_runs, unused{}, pass_offsets, left, size, plan.group[p], keys_to, unused{}, comp,
                       stream);
    }
    if (e != cudaSuccess) return e;
    high = temp.used > high ? temp.used : high;
  }
  temp.used = high;
  return cudaSuccess;
}

// The block sort into stage 0's output, then the passes; Value is `unused` for keys only.
template <class KeysIn, class ValuesIn, class Key, class Value, class Compare>
cudaError_t sort_stages(temporary_arena& temp, KeysIn keys_in, ValuesIn values_in, Key* keys_out, Value* values_out,
                        index_t n, Compare comp, cudaStream_t stream) {
  using shape = block_sort_shape<Key, Value>;
  if (n == 0) return cudaSuccess;
  const index_t runs = (n + shape::tile - 1) / shape::tile;
  if (runs >= index_t(std::numeric_limits<int>::max())) return cudaErrorInvalidValue;
  const pass_plan plan = plan_passes(runs);
  const int stages = 1 + plan.passes;
  Key* key_buffer = plan.passes > 0 ? temp.take<Key>(n) : nullptr;
  Value* value_buffer = nullptr;
  if constexpr (is_used_v<Value>) value_buffer = plan.passes > 0 ? temp.take<Value>(n) : nullptr;
  index_t* offsets = plan.passes > 0 ? temp.take<index_t>(runs + 1) : nullptr;
  if (temp.runs()) {
    constexpr std::size_t shared_bytes = sizeof(block_sort_storage<shape, Key, Value>);
    Key* const keys_to = stage_output(stages, 0, keys_out, key_buffer);
    cudaError_t e = cudaSuccess;
    if constexpr (is_used_v<Value>) {
      e = launch_fitted<block_sort_kernel<shape, Key, Value, KeysIn, ValuesIn, Key*, Value*, Compare>, shape::threads,
                        shared_bytes>(runs, stream, keys_in, values_in, keys_to,
                                      stage_output(stages, 0, values_out, value_buffer), n, comp);
    } else {
      e = launch_fitted<block_sort_kernel<shape, Key, unused, KeysIn, unused, Key*, unused, Compare>, shape::threads,
                        shared_bytes>(runs, stream, keys_in, unused{}, keys_to, unused{}, n, comp);
    }
    if (e != cudaSuccess) return e;
    if (plan.passes > 0) {
      uniform_offsets_kernel<index_t><<<blocks_for(runs + 1), 256, 0, stream>>>(offsets, runs, index_t(shape::tile), n);
      if (const cudaError_t launched = cudaPeekAtLastError(); launched != cudaSuccess) return launched;
    }
  }
  return later_passes(temp, plan, stages, 1, 0, offsets, runs, n, keys_out, key_buffer, values_out, value_buffer,
                      comp, stream);
}

// The passes over runs whose positions in the output are `relative` (runs + 1 entries);
// `keys` and `values` read the first pass's input. Value is `unused` for keys only.
template <class KeyRuns, class ValueRuns, class Key, class Value, class Compare>
cudaError_t merge_run_passes(temporary_arena& temp, const KeyRuns& keys, const ValueRuns& values,
                             const index_t* relative, index_t runs, index_t size, Key* keys_out, Value* values_out,
                             Compare comp, cudaStream_t stream) {
  pass_plan plan = plan_passes(runs);
  if (plan.passes == 0) {  // one run: a copy, by the same tiles
    plan.passes = 1;
    plan.group[0] = 1;
  }
  const int stages = plan.passes;
  Key* key_buffer = stages > 1 ? temp.take<Key>(size) : nullptr;
  Value* value_buffer = nullptr;
  if constexpr (is_used_v<Value>) value_buffer = stages > 1 ? temp.take<Value>(size) : nullptr;
  const std::size_t start = temp.used;
  cudaError_t e = cudaSuccess;
  if constexpr (is_used_v<Value>) {
    e = merge_groups(temp, keys, values, relative, runs, size, plan.group[0],
                     stage_output(stages, 0, keys_out, key_buffer),
                     stage_output(stages, 0, values_out, value_buffer), comp, stream);
  } else {
    e = merge_groups(temp, keys, unused{}, relative, runs, size, plan.group[0],
                     stage_output(stages, 0, keys_out, key_buffer), unused{}, comp, stream);
  }
  if (e != cudaSuccess) return e;
  const std::size_t high = temp.used;
  temp.used = start;  // the first pass's samples are dead once it has run
  e = later_passes(temp, plan, stages, 0, 1, relative, runs, size, keys_out, key_buffer, values_out, value_buffer,
                   comp, stream);
  temp.used = temp.used > high ? temp.used : high;
  return e;
}

// Every stage of a sort or k-way merge, laid out on `temp` and, where it has a base, launched.
template <class Input, class Key, class Value, class Compare>
cudaError_t multiway_stages(temporary_arena& temp, const multiway_args<Input, Key, Value>& args, Compare comp,
                            cudaStream_t stream) {
  const Input& in = args.input;
  if constexpr (is_sort_input_v<Input>) {
    return sort_stages(temp, in.keys, in.values, args.keys_out, args.values_out, args.size, comp, stream);
  } else if constexpr (is_run_list_input_v<Input>) {
    if (args.size == 0 || args.runs == 0) return cudaSuccess;
    index_t* relative = temp.take<index_t>(args.runs + 1);
    // Negative sizes count as empty runs and the sums stop at `size`: runs within the output
    // whatever the device's sizes hold.
    if (temp.runs()) {
      using sizes_t = std::remove_const_t<decltype(in.sizes)>;
      if (const cudaError_t e = launch_exclusive_sums(listed_size<sizes_t>{in.sizes}, args.runs, relative, stream,
                                                      args.size);
          e != cudaSuccess)
        return e;
    }
    using key_t = std::remove_const_t<std::remove_pointer_t<std::remove_pointer_t<decltype(in.keys)>>>;
    if constexpr (multiway_args<Input, Key, Value>::with_values) {
      using value_t = std::remove_const_t<std::remove_pointer_t<std::remove_pointer_t<decltype(in.values)>>>;
      return merge_run_passes(temp, listed_runs<key_t>{in.keys}, listed_runs<value_t>{in.values}, relative, args.runs,
                              args.size, args.keys_out, args.values_out, comp, stream);
    } else {
      return merge_run_passes(temp, listed_runs<key_t>{in.keys}, unused{}, relative, args.runs, args.size,
                              args.keys_out, args.values_out, comp, stream);
    }
  } else {
    if (args.size == 0 || args.runs == 0) return cudaSuccess;
    index_t* absolute = temp.take<index_t>(args.runs + 1);
    index_t* relative = temp.take<index_t>(args.runs + 1);
    if (temp.runs()) {
      // The first pass's runs (caller_offsets_kernel): where each is read and where it goes,
      // nondecreasing and within `size` whatever the offsets hold.
      caller_offsets_kernel<1024><<<1, 1024, 0, stream>>>(in.offsets, args.runs, args.size, absolute, relative);
      if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess) return e;
    }
    using keys_t = std::remove_const_t<decltype(in.keys)>;
    if constexpr (multiway_args<Input, Key, Value>::with_values) {
      using values_t = std::remove_const_t<decltype(in.values)>;
      return merge_run_passes(temp, contiguous_runs<keys_t>{in.keys, absolute},
                              contiguous_runs<values_t>{in.values, absolute}, relative, args.runs, args.size,
                              args.keys_out, args.values_out, comp, stream);
    } else {
      return merge_run_passes(temp, contiguous_runs<keys_t>{in.keys, absolute}, unused{}, relative, args.runs,
                              args.size, args.keys_out, args.values_out, comp, stream);
    }
  }
}

// The entry point behind every sort and k-way merge form: the arguments checked (the pointers
// in a run only), the storage laid out once, asked of `storage` (caller_storage: a query
// ends there, a run checks it; pool_storage: allocated) and the stages launched in it.
template <class Storage, class Input, class Key, class Value, class Compare>
cudaError_t dispatch_multiway(Storage& storage, const multiway_args<Input, Key, Value>& args, Compare comp,
                              cudaStream_t stream) {
  if (multiway_argument_error(args, storage.runs()) != nullptr) return cudaErrorInvalidValue;
  return lay_out_and_launch(storage, [&](temporary_arena& temp) { return multiway_stages(temp, args, comp, stream); });
}

// The two-phase form (temp_storage == nullptr: a query).
template <class Input, class Key, class Value, class Compare>
cudaError_t dispatch_multiway(void* temp_storage, std::size_t& temp_storage_bytes,
                              const multiway_args<Input, Key, Value>& args, Compare comp, cudaStream_t stream) {
  caller_storage storage{temp_storage, temp_storage_bytes};
  return dispatch_multiway(storage, args, comp, stream);
}

}  // namespace corank::detail
