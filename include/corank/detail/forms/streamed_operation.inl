#pragma once
// Bodies of streamed_operation.cuh: the pipeline that moves chunks through the GPU.
//
// Three slots, each with device buffers for one chunk's inputs and outputs (and pinned
// buffers where the host side is pageable), and three streams: copies in, kernels, copies
// out. At step t the calling thread stages and sends chunk t, starts its kernels, sends
// chunk t - 1's output back once its size is known, and delivers chunk t - 2's; events order
// each slot's reuse, so the copy engines of both directions and the kernels work on three
// different chunks at once.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/forms/copy_team.hpp>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/temporary_pool.hpp>
#include <corank/detail/forms/two_phase.hpp>
#include <corank/error.hpp>
#include <corank/op.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

namespace corank {
namespace detail {

// Memory a cudaMemcpy reaches without the driver staging it: pinned, registered, device or
// managed. Pageable memory goes through the pipeline's pinned buffers instead.
inline bool is_directly_copyable(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();  // not an error for the call: the memory is simply not known to CUDA
    return false;
  }
  return attributes.type != cudaMemoryTypeUnregistered;
}

inline constexpr std::size_t streamed_slots = 3;

// What a call owns, released in order by the destructor: the work on its streams first, so
// that no copy or kernel outlives the buffers it uses, whatever ended the call.
struct streamed_resources {
  std::array<cudaStream_t, 3> streams{};  // copies in, kernels, copies out
  std::vector<cudaEvent_t> events;
  void* device = nullptr;
  void* pinned = nullptr;  // from take_pinned_staging
  std::size_t pinned_bytes = 0;

  streamed_resources() = default;
  streamed_resources(const streamed_resources&) = delete;
  streamed_resources& operator=(const streamed_resources&) = delete;
  ~streamed_resources() {
    for (cudaStream_t s : streams) {
      if (s != nullptr) cudaStreamSynchronize(s);
    }
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    for (cudaStream_t s : streams) {
      if (s != nullptr) cudaStreamDestroy(s);
    }
    cudaFree(device);
    give_back_pinned_staging(pinned, pinned_bytes);
    cudaGetLastError();  // a failure above belongs to what already failed
  }

  cudaEvent_t new_event(const char* context) {
    cudaEvent_t e;
    CORANK_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), context);
    events.push_back(e);
    return e;
  }
};

// Where the output goes. The array's pointers may be pinned (copied into directly) or
// pageable (through the pinned buffers); the sink is always handed pinned buffers.
template <class KeysOut, class ValuesOut>
struct streamed_array {
  KeysOut keys;
  ValuesOut values;  // or unused
};
template <class Sink>
struct streamed_sink {
  Sink& sink;
};

// Device bytes for chunks of `chunk` steps: three slots of inputs (and outputs), the
// temporary storage of one chunk's kernels (they run one after another), a count word.
struct streamed_layout {
  index_t capacity;           // elements of a window: chunk + 1
  std::size_t keys, values;   // bytes of one window's keys, values (0: keys only)
  std::size_t in, out;        // bytes of a slot's inputs, outputs (0: count only)
  std::size_t temp;           // the kernels' temporary storage
  std::size_t device() const { return streamed_slots * (in + out) + align_up(temp) + 256; }
};

// Chunks longer than this are larger than any device's memory: plan_streamed refuses them
// before layout_for's byte counts could overflow.
inline constexpr index_t max_streamed_chunk = index_t(1) << 40;

template <class Op, class Key, class Value, class Compare>
streamed_layout layout_for(index_t chunk, bool writes, const Op& op, Compare comp) {
  streamed_layout l{};
  l.capacity = chunk + 1;
  l.keys = align_up(std::size_t(l.capacity) * sizeof(Key));
  l.values = is_used_v<Value> ? align_up(std::size_t(l.capacity) * sizeof(Value)) : 0;
  l.in = l.keys + l.values;
  l.out = writes ? l.keys + l.values : 0;
  // The query looks at sizes only; windows hold at most `capacity` elements in all.
  const Key* none = nullptr;
  auto values = [] {
    if constexpr (is_used_v<Value>) return static_cast<Value*>(nullptr); else return unused{};
  }();
  Key* keys_out = nullptr;
  const cudaError_t status =
      writes ? dispatch(nullptr, l.temp, op,
                        make_args(none, l.capacity, none, l.capacity, values, values, keys_out, values), nullptr, comp,
                        nullptr, default_strategy)
             : dispatch(nullptr, l.temp, op,
                        make_args(none, l.capacity, none, l.capacity, unused{}, unused{}, unused{}, unused{}),
                        nullptr, comp, nullptr, default_strategy);
  if (status != cudaSuccess) l.temp = std::size_t(-1) / 4;  // a chunk this large cannot run
  return l;
}

// The chunk for the budget: options.chunk if set (refused if it does not fit), else the
// largest that fits, at most default_chunk and the path's length.
template <class Op, class Key, class Value, class Compare>
streamed_layout plan_streamed(const char* context, index_t total, bool writes, const Op& op, Compare comp,
                              const streamed_options& options) {
  std::size_t budget = options.gpu_memory;
  if (budget == 0) {
    std::size_t free = 0, all = 0;
    CORANK_TRY(cudaMemGetInfo(&free, &all), context);
    const std::size_t margin = std::max<std::size_t>(free / 16, std::size_t(256) << 20);
    budget = free > margin ? free - margin : 0;
  }
  auto fits = [&](index_t chunk) { return layout_for<Op, Key, Value>(chunk, writes, op, comp).device() <= budget; };
  auto refuse = [&](index_t chunk) {
    throw out_of_memory(std::string(context) + ": chunks of " + std::to_string(chunk) + " steps need " +
                        std::to_string(layout_for<Op, Key, Value>(chunk, writes, op, comp).device()) +
                        " bytes of GPU memory; the budget is " + std::to_string(budget) + " bytes");
  };
  if (options.chunk != 0) {
    if (options.chunk > max_streamed_chunk) {
      throw out_of_memory(std::string(context) + ": chunks of " + std::to_string(options.chunk) +
                          " steps are larger than any GPU's memory");
    }
    if (!fits(options.chunk)) refuse(options.chunk);
    return layout_for<Op, Key, Value>(options.chunk, writes, op, comp);
  }
  index_t low = 1, high = std::min(streamed_options::default_chunk, std::max<index_t>(total, 1));
  if (!fits(low)) refuse(low);
  while (low < high) {  // the largest chunk that fits
    const index_t mid = low + (high - low + 1) / 2;
    if (fits(mid)) low = mid; else high = mid - 1;
  }
  return layout_for<Op, Key, Value>(low, writes, op, comp);
}

template <class Output>
inline constexpr bool is_streamed_array_v = false;
template <class KeysOut, class ValuesOut>
inline constexpr bool is_streamed_array_v<streamed_array<KeysOut, ValuesOut>> = true;

// One chunk in flight: its window and output, and the events that order its slot's reuse.
struct streamed_slot {
  chunk_window window{};
  index_t count = 0, offset = 0;
  char* device_in = nullptr;   // keys then values, A's window then B's in each
  char* device_out = nullptr;  // keys then values
  char* staged_in = nullptr;   // pinned, as device_in (pageable inputs only)
  char* staged_out = nullptr;  // pinned, as device_out (pageable or sink outputs only)
  index_t* host_count = nullptr;
  cudaEvent_t inputs_copied{}, computed{}, outputs_copied{};
};

// The op on every chunk, through the GPU; returns the output size. Output: streamed_array,
// streamed_sink, or unused (count only).
template <class Op, class Key, class ValuesIn, class Output, class Compare>
index_t run_streamed(const char* context, const Op& op, const Key* a_first, const Key* a_last, const Key* b_first,
                     const Key* b_last, ValuesIn a_values, ValuesIn b_values, Output& output, Compare comp,
                     const streamed_options& options) {
  static_assert(!sees_run_starts_v<Op>, "the streamed forms do not take ops that see run starts (op.hpp)");
  constexpr bool writes = is_used_v<Output>;
  constexpr bool to_array = is_streamed_array_v<Output>;
  constexpr bool with_values = is_used_v<ValuesIn>;
  using Value = std::conditional_t<with_values, std::remove_const_t<std::remove_pointer_t<ValuesIn>>, unused>;
  const index_t m = a_last - a_first, n = b_last - b_first;
  const auto args = [&] {
    if constexpr (to_array) return make_args(a_first, m, b_first, n, a_values, b_values, output.keys, output.values);
    else return make_args(a_first, m, b_first, n, a_values, b_values, unused{}, unused{});
  }();
  if (const char* problem = streamed_argument_error(args, options)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  }
  const index_t total = m + n;
  if (total == 0) return 0;

  const streamed_layout layout = plan_streamed<Op, Key, Value>(context, total, writes, op, comp, options);
  chunk_cutter<Op::partition, Key, Key, Compare> chunks(a_first, m, b_first, n, layout.capacity - 1, comp);

  // Which sides go through pinned buffers.
  bool stage_in = !is_directly_copyable(a_first) && m > 0;
  stage_in = stage_in || (n > 0 && !is_directly_copyable(b_first));
  if constexpr (with_values) {
    stage_in = stage_in || (m > 0 && !is_directly_copyable(a_values)) || (n > 0 && !is_directly_copyable(b_values));
  }
  bool stage_out = writes;
  if constexpr (to_array) {
    stage_out = !is_directly_copyable(output.keys);
    if constexpr (with_values) stage_out = stage_out || !is_directly_copyable(output.values);
  }

  streamed_resources owned;
  for (cudaStream_t& s : owned.streams) CORANK_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), context);
  const cudaStream_t in_stream = owned.streams[0], compute_stream = owned.streams[1], out_stream = owned.streams[2];
  CORANK_TRY(cudaMalloc(&owned.device, layout.device()), context);
  const std::size_t pinned_slot = (stage_in ? layout.in : 0) + (stage_out ? layout.out : 0) + 256;
  owned.pinned_bytes = streamed_slots * pinned_slot;
  CORANK_TRY(take_pinned_staging(&owned.pinned, owned.pinned_bytes), context);
  std::array<streamed_slot, streamed_slots> slots;
  for (std::size_t k = 0; k < streamed_slots; ++k) {
    streamed_slot& s = slots[k];
    s.device_in = static_cast<char*>(owned.device) + k * (layout.in + layout.out);
    s.device_out = s.device_in + layout.in;
    char* pinned = static_cast<char*>(owned.pinned) + k * pinned_slot;
    s.host_count = reinterpret_cast<index_t*>(pinned);
    if (stage_in) s.staged_in = pinned + 256;
    if (stage_out) s.staged_out = pinned + 256 + (stage_in ? layout.in : 0);
    s.inputs_copied = owned.new_event(context);
    s.computed = owned.new_event(context);
    s.outputs_copied = owned.new_event(context);
  }
  char* const temp = static_cast<char*>(owned.device) + streamed_slots * (layout.in + layout.out);
  index_t* const device_count = reinterpret_cast<index_t*>(temp + align_up(layout.temp));
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned copiers = options.threads != 0 ? options.threads : hardware;
  copy_team team(stage_in || (stage_out && to_array) ? copiers : 1);

  // In a slot's buffers, window keys (A's then B's) at 0 and values at layout.keys.
  auto keys_in = [&](char* base) { return reinterpret_cast<Key*>(base); };
  auto values_in = [&](char* base) { return reinterpret_cast<Value*>(base + layout.keys); };

  // Chunk c: its windows copied in (through the pinned buffers if need be), its kernels.
  auto send_and_run = [&](index_t c) {
    streamed_slot& s = slots[c % streamed_slots];
    s.window = chunks.next();
    // A window of negative size (splits out of order) comes only from unsorted inputs; the
    // other window would then overrun the slot. Found for free, before anything is copied.
    if (!s.window.ordered()) throw unsorted_input(context);
    const index_t wa = s.window.size_a(), wb = s.window.size_b();
    std::vector<copy_job> jobs;  // to the device, from host memory
    jobs.push_back({keys_in(s.device_in), a_first + s.window.a_begin, std::size_t(wa) * sizeof(Key)});
    jobs.push_back({keys_in(s.device_in) + wa, b_first + s.window.b_begin, std::size_t(wb) * sizeof(Key)});
    if constexpr (with_values) {
      jobs.push_back({values_in(s.device_in), a_values + s.window.a_begin, std::size_t(wa) * sizeof(Value)});
      jobs.push_back({values_in(s.device_in) + wa, b_values + s.window.b_begin, std::size_t(wb) * sizeof(Value)});
    }
    if (stage_in) {
      CORANK_TRY(cudaEventSynchronize(s.inputs_copied), context);  // chunk c - 3's copies are out of the buffer
      std::vector<copy_job> staging = jobs;
      for (copy_job& j : staging) j.to = s.staged_in + (static_cast<char*>(j.to) - s.device_in);
      team.copy(staging);
      for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k].from = staging[k].to;
    }
    CORANK_TRY(cudaStreamWaitEvent(in_stream, s.computed, 0), context);  // chunk c - 3's kernels are done
    for (const copy_job& j : jobs) {
      if (j.bytes > 0) CORANK_TRY(cudaMemcpyAsync(j.to, j.from, j.bytes, cudaMemcpyDefault, in_stream), context);
    }
    CORANK_TRY(cudaEventRecord(s.inputs_copied, in_stream), context);
    CORANK_TRY(cudaStreamWaitEvent(compute_stream, s.inputs_copied, 0), context);
    CORANK_TRY(cudaStreamWaitEvent(compute_stream, s.outputs_copied, 0), context);  // chunk c - 3's are back
    auto values_a = [&] {
      if constexpr (with_values) return static_cast<const Value*>(values_in(s.device_in)); else return unused{};
    }();
    auto values_b = [&] {
      if constexpr (with_values) return static_cast<const Value*>(values_in(s.device_in) + wa); else return unused{};
    }();
    auto keys_out = [&] {
      if constexpr (writes) return keys_in(s.device_out); else return unused{};
    }();
    auto values_out = [&] {
      if constexpr (writes && with_values) return values_in(s.device_out); else return unused{};
    }();
    const Key* a = keys_in(s.device_in);
    std::size_t temp_bytes = layout.temp;
    CORANK_TRY(dispatch(temp, temp_bytes, op, make_args(a, wa, a + wa, wb, values_a, values_b, keys_out, values_out),
                        device_count, comp, compute_stream, default_strategy),
               context);
    if constexpr (!Op::output_size_is_input_size) {
      CORANK_TRY(cudaMemcpyAsync(s.host_count, device_count, sizeof(index_t), cudaMemcpyDeviceToHost, compute_stream),
                 context);
    }
    CORANK_TRY(cudaEventRecord(s.computed, compute_stream), context);
  };

  // Where chunk c's output lands on the host: the caller's array where that is pinned (copied
  // into directly), else the slot's pinned buffer (copied on from there by `deliver`).
  auto host_keys = [&](const streamed_slot& s) -> Key* {
    if constexpr (to_array) {
      if (!stage_out) return output.keys + s.offset;
    }
    return keys_in(s.staged_out);
  };
  auto host_values = [&](const streamed_slot& s) -> Value* {
    if constexpr (to_array && with_values) {
      if (!stage_out) return output.values + s.offset;
    }
    return values_in(s.staged_out);
  };

  index_t written = 0;
  // Chunk c's output size, and its output copied back.
  auto send_back = [&](index_t c) {
    streamed_slot& s = slots[c % streamed_slots];
    if constexpr (Op::output_size_is_input_size) {
      s.count = s.window.size_a() + s.window.size_b();
    } else {
      CORANK_TRY(cudaEventSynchronize(s.computed), context);
      s.count = *s.host_count;
      // Negative: the kernels found the chunk's inputs unsorted (operation.cuh). Never more
      // than the windows hold; checked all the same, as the count sizes the copies below.
      if (s.count < 0 || s.count > s.window.size_a() + s.window.size_b()) throw unsorted_input(context);
    }
    s.offset = written;
    written += s.count;
    if constexpr (writes) {
      if (s.count == 0) return;
      CORANK_TRY(cudaStreamWaitEvent(out_stream, s.computed, 0), context);
      CORANK_TRY(cudaMemcpyAsync(host_keys(s), keys_in(s.device_out), std::size_t(s.count) * sizeof(Key),
                                 cudaMemcpyDefault, out_stream),
                 context);
      if constexpr (with_values) {
        CORANK_TRY(cudaMemcpyAsync(host_values(s), values_in(s.device_out), std::size_t(s.count) * sizeof(Value),
                                   cudaMemcpyDefault, out_stream),
                   context);
      }
      CORANK_TRY(cudaEventRecord(s.outputs_copied, out_stream), context);
    }
  };

  // Chunk c's output, complete on the host: copied into the caller's array or handed to the sink.
  auto deliver = [&](index_t c) {
    streamed_slot& s = slots[c % streamed_slots];
    if constexpr (writes) {
      if (s.count > 0) {
        CORANK_TRY(cudaEventSynchronize(s.outputs_copied), context);
        if constexpr (to_array) {
          if (stage_out) {
            std::vector<copy_job> jobs{{output.keys + s.offset, host_keys(s), std::size_t(s.count) * sizeof(Key)}};
            if constexpr (with_values) {
              jobs.push_back({output.values + s.offset, host_values(s), std::size_t(s.count) * sizeof(Value)});
            }
            team.copy(jobs);
          }
        } else if constexpr (with_values) {
          output.sink(static_cast<const Key*>(host_keys(s)), static_cast<const Value*>(host_values(s)), s.count);
        } else {
          output.sink(static_cast<const Key*>(host_keys(s)), s.count);
        }
      }
    }
    if (options.progress) options.progress(chunks.end_of(c), total);
  };

  const index_t count = chunks.count();
  for (index_t t = 0; t < count + 2; ++t) {
    if (t < count) send_and_run(t);
    if (t >= 1 && t - 1 < count) send_back(t - 1);
    if (t >= 2) deliver(t - 2);
  }
  for (cudaStream_t s : owned.streams) CORANK_TRY(cudaStreamSynchronize(s), context);
  return written;
}

}  // namespace detail

template <class Op>
template <class Key, class Compare>
Key* streamed_keys_operation<Op>::operator()(const Key* a_first, const Key* a_last, const Key* b_first,
                                             const Key* b_last, Key* out, Compare comp,
                                             const streamed_options& options) const {
  detail::streamed_array<Key*, detail::unused> output{out, {}};
  return out + detail::run_streamed(name, op, a_first, a_last, b_first, b_last, detail::unused{}, detail::unused{},
                                    output, comp, options);
}

template <class Op>
template <class Key, class Sink, class Compare, std::enable_if_t<detail::is_streamed_sink_v<Sink, const Key*>, int>>
index_t streamed_keys_operation<Op>::operator()(const Key* a_first, const Key* a_last, const Key* b_first,
                                                const Key* b_last, Sink&& sink, Compare comp,
                                                const streamed_options& options) const {
  detail::streamed_sink<Sink> output{sink};
  return detail::run_streamed(name, op, a_first, a_last, b_first, b_last, detail::unused{}, detail::unused{}, output,
                              comp, options);
}

template <class Op>
template <class Key, class Value, class Compare>
std::pair<Key*, Value*> streamed_by_key_operation<Op>::operator()(const Key* a_first, const Key* a_last,
                                                                  const Key* b_first, const Key* b_last,
                                                                  const Value* a_values, const Value* b_values,
                                                                  Key* keys_out, Value* values_out, Compare comp,
                                                                  const streamed_options& options) const {
  detail::streamed_array<Key*, Value*> output{keys_out, values_out};
  const index_t count =
      detail::run_streamed(name, op, a_first, a_last, b_first, b_last, a_values, b_values, output, comp, options);
  return {keys_out + count, values_out + count};
}

template <class Op>
template <class Key, class Value, class Sink, class Compare,
          std::enable_if_t<detail::is_streamed_sink_v<Sink, const Key*, const Value*>, int>>
index_t streamed_by_key_operation<Op>::operator()(const Key* a_first, const Key* a_last, const Key* b_first,
                                                  const Key* b_last, const Value* a_values, const Value* b_values,
                                                  Sink&& sink, Compare comp, const streamed_options& options) const {
  detail::streamed_sink<Sink> output{sink};
  return detail::run_streamed(name, op, a_first, a_last, b_first, b_last, a_values, b_values, output, comp, options);
}

template <class Op>
template <class Key, class Compare>
index_t streamed_count_operation<Op>::operator()(const Key* a_first, const Key* a_last, const Key* b_first,
                                                 const Key* b_last, Compare comp,
                                                 const streamed_options& options) const {
  detail::unused output;
  return detail::run_streamed(name, op, a_first, a_last, b_first, b_last, detail::unused{}, detail::unused{}, output,
                              comp, options);
}

}  // namespace corank
