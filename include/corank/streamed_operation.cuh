#pragma once
// Running any merge-path op through the GPU on inputs in host memory, larger than the GPU's
// memory if need be: the path is cut into chunks by co-rank on the host (streamed_chunks.hpp);
// each chunk's windows of A and B are copied to the device, the op runs on them, and its
// output is copied back, with three chunks in flight so that the copies in, the kernels and
// the copies out of different chunks overlap:
//
//   corank::streamed_merge(a, a + m, b, b + n, out);              // host arrays, any size
//   corank::streamed_set_union(a, a + m, b, b + n, [&](const int* keys, corank::index_t count) {
//     file.write(keys, count);                                     // or a sink, chunk by chunk
//   });
//
// Every runner, with A = [a_first, a_last) of m elements and B = [b_first, b_last) of n,
// raw pointers to host memory: pageable (std::vector, a memory-mapped file), pinned
// (cudaHostAlloc, cudaHostRegister) or any memory a cudaMemcpy reaches:
// - Result: operation.cuh's for the same op, the output either in host arrays (keys_out[,
//   values_out]), or handed to a sink chunk by chunk, in output order, on the calling thread:
//   sink(keys, count) for keys, sink(keys, values, count) with values; the pointers hold the
//   next `count` outputs (count > 0), in pinned host memory, until the sink returns.
// - Preconditions: operation.cuh's; `comp` and the op also run on the host (the splits).
//   Ops that see run starts (op.hpp) are refused at compile time. An input or output that
//   starts in pinned memory lies in it entirely.
// - Unsorted inputs (or a comparator that is not a strict weak order): nothing is read
//   outside A and B (host or device) or written outside the output's bound (operation.cuh's:
//   m + n, or the set operation's), and the call returns. Where a chunk's splits go
//   backwards (a window of negative size, found on the host before the chunk is copied) or
//   its kernels find their partition inconsistent (a negative count), the call throws
//   corank::unsorted_input (input() 0, index() -1), the chunks before it delivered; other
//   unsorted inputs give outputs of unspecified contents (merges: m + n of them).
// - Memory: options.gpu_memory bytes of device memory (0: what is free, less 1/16 and at
//   least 256 MiB); the chunk is options.chunk path steps if set (refused if three chunks'
//   inputs, outputs and temporary storage do not fit that budget), else the largest that
//   fits, at most streamed_options::default_chunk and m + n.
//   Pageable inputs and outputs move through pinned buffers of three chunks each, copied by
//   options.threads threads (0: every hardware thread) and kept for the next call (memory.hpp);
//   pinned ones are copied directly.
// - Synchronizes: the call returns when the output is complete. It uses the current device
//   and streams of its own.
// - Errors, thrown, `name` saying who failed, before anything is allocated: corank::cuda_error
//   (code cudaErrorInvalidValue) for host/operation.hpp's argument problems and a negative
//   chunk; corank::out_of_memory when the budget cannot hold three chunks of options.chunk
//   steps (or, without it, of one step). Then out_of_memory when the buffers cannot be allocated,
//   cuda_error for any CUDA error, unsorted_input for inputs found unsorted (above). An
//   exception of the sink or of options.progress stops the
//   call and reaches the caller, with the chunks before it delivered; every copy and kernel
//   of the call has ended when any exception leaves it.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/streamed_chunks.hpp>

#include <type_traits>
#include <utility>

namespace corank {

namespace detail {
template <class Sink, class... Outputs>
inline constexpr bool is_streamed_sink_v = std::is_invocable_v<Sink&, Outputs..., index_t>;
}  // namespace detail

// Writes the keys the op emits to out (returns its end), or hands them to sink(keys, count)
// (returns the output size).
template <class Op>
struct streamed_keys_operation {
  Op op{};
  const char* name = "corank::streamed_keys_operation";  // says who failed, in errors

  template <class Key, class Compare = corank::less>
  Key* operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last, Key* out,
                  Compare comp = {}, const streamed_options& options = {}) const;

  template <class Key, class Sink, class Compare = corank::less,
            std::enable_if_t<detail::is_streamed_sink_v<Sink, const Key*>, int> = 0>
  index_t operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last, Sink&& sink,
                     Compare comp = {}, const streamed_options& options = {}) const;
};

// As streamed_keys_operation, with values: writes keys_out and values_out (returns their
// ends), or hands them to sink(keys, values, count) (returns the output size).
template <class Op>
struct streamed_by_key_operation {
  Op op{};
  const char* name = "corank::streamed_by_key_operation";  // says who failed, in errors

  template <class Key, class Value, class Compare = corank::less>
  std::pair<Key*, Value*> operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last,
                                     const Value* a_values, const Value* b_values, Key* keys_out, Value* values_out,
                                     Compare comp = {}, const streamed_options& options = {}) const;

  template <class Key, class Value, class Sink, class Compare = corank::less,
            std::enable_if_t<detail::is_streamed_sink_v<Sink, const Key*, const Value*>, int> = 0>
  index_t operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last,
                     const Value* a_values, const Value* b_values, Sink&& sink, Compare comp = {},
                     const streamed_options& options = {}) const;
};

// Returns the output size; copies nothing back but the chunks' counts.
template <class Op>
struct streamed_count_operation {
  Op op{};
  const char* name = "corank::streamed_count_operation";  // says who failed, in errors

  template <class Key, class Compare = corank::less>
  index_t operator()(const Key* a_first, const Key* a_last, const Key* b_first, const Key* b_last,
                     Compare comp = {}, const streamed_options& options = {}) const;
};

template <class Op> streamed_keys_operation(Op) -> streamed_keys_operation<Op>;
template <class Op> streamed_by_key_operation(Op) -> streamed_by_key_operation<Op>;
template <class Op> streamed_count_operation(Op) -> streamed_count_operation<Op>;

}  // namespace corank

#include <corank/detail/forms/streamed_operation.inl>
