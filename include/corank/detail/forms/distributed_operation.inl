#pragma once
// Bodies of distributed_operation.cuh: the search's exchanges, the windows' moves, the local
// call.
//
// Every exchange is one all-gather of a block per rank, laid out alike on every rank (each
// rank computes every rank's layout from what all know): words (sizes, a status), elements
// of A and of B at positions the rank holds, and counts of its partitions, gathered on its GPU
// by one small kernel, then copied to pinned host memory for the search. The search runs on
// every rank on the same data, so every rank gets the same plan without further agreement.

#include <corank/balanced_path.hpp>
#include <corank/check_sorted.cuh>
#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/dispatch/distributed_gather_dispatch.cuh>
#include <corank/detail/forms/distributed_placement.hpp>
#include <corank/detail/forms/distributed_windows.hpp>
#include <corank/detail/forms/exchange_rounds.hpp>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/temporary_pool.hpp>
#include <corank/detail/forms/two_phase.hpp>
#include <corank/error.hpp>
#include <corank/operation.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace corank {
namespace detail {

// The transport a runner's `comm` stands for (transport_adapter).
template <class Comm>
decltype(auto) transport_of(Comm& comm) {
  return transport_adapter<std::remove_cv_t<Comm>>::get(comm);
}

// What one rank may find wrong with its own arguments; an exchange tells every rank.
enum distributed_status : index_t {
  status_ok,
  status_negative_size,
  status_null_a,
  status_null_b,
  status_null_output,
  status_null_values,
  status_null_values_out,
  status_out_of_memory,
  status_bad_plan,
  status_local_failure,
};

inline const char* distributed_problem(index_t status) {
  switch (status) {
    case status_negative_size: return "a size is negative";
    case status_null_a: return "input A is a null pointer with a nonzero size";
    case status_null_b: return "input B is a null pointer with a nonzero size";
    case status_null_output: return "the output is a null pointer with a nonzero size";
    case status_null_values: return "the values of A or B are a null pointer with a nonzero size";
    case status_null_values_out: return "the value output is a null pointer with a nonzero size";
    case status_out_of_memory: return "the buffer for its windows could not be allocated";
    case status_bad_plan: return "its plan's splits are not those of a plan() (out of order or outside the inputs)";
    case status_local_failure: return "its local call failed (its windows unsorted, or a CUDA error)";
    default: return "an unknown problem";
  }
}

// Every rank throws for the first rank's problem, naming it.
inline void throw_first_problem(const char* context, const std::vector<index_t>& statuses, int rank) {
  for (std::size_t q = 0; q < statuses.size(); ++q) {
    if (statuses[q] == status_ok) continue;
    const std::string message = std::string(context) + ": rank " + std::to_string(q) +
                                (int(q) == rank ? " (this rank): " : ": ") + distributed_problem(statuses[q]);
    if (statuses[q] == status_out_of_memory) throw out_of_memory(message);
    throw cuda_error(cudaErrorInvalidValue, message);
  }
}

inline std::size_t align16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

// One rank's block in an exchange (block_layout, beside the gather kernel that fills it).
template <class Key>
block_layout block_layout_of(std::size_t words, std::size_t a_values, std::size_t b_values, std::size_t counts) {
  block_layout l{};
  l.a_values = align16(words * sizeof(index_t));
  l.b_values = l.a_values + align16(a_values * sizeof(Key));
  l.counts = l.b_values + align16(b_values * sizeof(Key));
  l.bytes = l.counts + align16(counts * sizeof(index_t));
  return l;
}

// What this rank puts in its block: words, its elements at local positions (-1: none), and
// the counts of its partitions (flag bit 0: of B; bit 1: the upper bound).
template <class Key>
struct contribution {
  std::vector<index_t> words, a_positions, b_positions;
  std::vector<Key> keys;
  std::vector<unsigned char> flags;
};

// Device and pinned host memory of one call's exchanges. The pinned buffer is corank's kept
// staging buffer (temporary_pool.hpp), given back once `stream` is done with it.
class distributed_buffers {
 public:
  explicit distributed_buffers(cudaStream_t stream) : stream_(stream) {}
  distributed_buffers(const distributed_buffers&) = delete;
  distributed_buffers& operator=(const distributed_buffers&) = delete;
  ~distributed_buffers() {
    release();
    cudaGetLastError();  // a failure here belongs to what already failed
  }

  char* host(std::size_t bytes, const char* context) {
    if (bytes > bytes_) {
      release();
      std::size_t got = bytes;
      CORANK_TRY(take_pinned_staging(&pinned_, got), context);
      bytes_ = got;
    }
    return static_cast<char*>(pinned_);
  }
  // Gives the pinned buffer back now, without waiting for the stream: the caller has waited
  // for the copies that use it (an event after them).
  void give_back_now() {
    if (pinned_ == nullptr) return;
    give_back_pinned_staging(pinned_, bytes_);
    pinned_ = nullptr;
    bytes_ = 0;
  }

 private:
  void release() {
    if (pinned_ == nullptr) return;
    cudaStreamSynchronize(stream_);  // no copy may still use it
    give_back_pinned_staging(pinned_, bytes_);
    pinned_ = nullptr;
    bytes_ = 0;
  }
  cudaStream_t stream_;
  void* pinned_ = nullptr;
  std::size_t bytes_ = 0;
};

// Stream-ordered device memory from corank's pool, freed on the stream when it goes.
struct stream_allocation {
  cudaStream_t stream;
  void* memory = nullptr;
  stream_allocation(cudaStream_t s) : stream(s) {}
  stream_allocation(const stream_allocation&) = delete;
  stream_allocation& operator=(const stream_allocation&) = delete;
  ~stream_allocation() {
    if (memory != nullptr) cudaFreeAsync(memory, stream);
  }
  char* bytes() const { return static_cast<char*>(memory); }
};

// One exchange: this rank's contribution gathered into its block on its GPU, every rank's
// block (block_bytes each) all-gathered, copied back. Returns the blocks, in rank order, in
// pinned host memory valid until the next exchange through `buffers`: at once, or, given an
// event `arrived`, recorded after the copy and not waited for (the caller waits for it).
template <class Key, class Transport, class Compare>
const char* exchange_blocks(const char* context, Transport& transport, cudaStream_t stream,
                            distributed_buffers& buffers, const Key* a, index_t m, const Key* b, index_t n,
                            Compare comp, const contribution<Key>& mine, const block_layout& layout,
                            std::size_t block_bytes, cudaEvent_t arrived = nullptr) {
  command_layout cl{};
  cl.words = mine.words.size();
  cl.a_items = mine.a_positions.size();
  cl.b_items = mine.b_positions.size();
  cl.counts = mine.keys.size();
  cl.keys = align16((cl.words + cl.a_items + cl.b_items) * sizeof(index_t));
  cl.flags = cl.keys + align16(cl.counts * sizeof(Key));
  cl.bytes = align16(cl.flags + cl.counts);
  const std::size_t ranks = std::size_t(transport.ranks());
  // Words alone (the run's statuses and sizes) need no gather kernel: the block is written on
  // the host and copied up whole.
  const bool words_only = cl.a_items == 0 && cl.b_items == 0 && cl.counts == 0;
  if (words_only) cl.bytes = std::max(cl.bytes, align16(block_bytes));
  char* host = buffers.host(cl.bytes + ranks * block_bytes, context);
  char* received = host + cl.bytes;
  if (words_only) std::memset(host, 0, cl.bytes);
  index_t* numbers = reinterpret_cast<index_t*>(host);
  for (const auto* part : {&mine.words, &mine.a_positions, &mine.b_positions}) {
    if (!part->empty()) std::memcpy(numbers, part->data(), part->size() * sizeof(index_t));
    numbers += part->size();
  }
  if (cl.counts > 0) {
    std::memcpy(host + cl.keys, mine.keys.data(), cl.counts * sizeof(Key));
    std::memcpy(host + cl.flags, mine.flags.data(), cl.counts);
  }

  const std::size_t send_at = align_up(cl.bytes), receive_at = send_at + align_up(block_bytes);
  stream_allocation device(stream);
  CORANK_TRY(allocate_temporary(&device.memory, receive_at + ranks * block_bytes, stream), context);
  char* d = device.bytes();
  const std::size_t items = cl.words + cl.a_items + cl.b_items + cl.counts;
  if (words_only) {
    CORANK_TRY(cudaMemcpyAsync(d + send_at, host, block_bytes, cudaMemcpyHostToDevice, stream), context);
  } else {
    CORANK_TRY(cudaMemsetAsync(d + send_at, 0, block_bytes, stream), context);
    CORANK_TRY(cudaMemcpyAsync(d, host, cl.bytes, cudaMemcpyHostToDevice, stream), context);
  }
  if (!words_only && items > 0) {
    CORANK_TRY(launch_distributed_gather(a, m, b, n, d, cl, d + send_at, layout, comp, items, stream), context);
  }
  transport.all_gather(d + send_at, d + receive_at, block_bytes, stream);
  CORANK_TRY(cudaMemcpyAsync(received, d + receive_at, ranks * block_bytes, cudaMemcpyDeviceToHost, stream),
             context);
  CORANK_TRY(cudaFreeAsync(device.memory, stream), context);
  device.memory = nullptr;
  if (arrived != nullptr) {
    CORANK_TRY(cudaEventRecord(arrived, stream), context);
  } else {
    CORANK_TRY(cudaStreamSynchronize(stream), context);
  }
  return received;
}

// Every rank's status in one exchange of a word; every rank throws for the first problem.
// Given an event `arrived`, returns once the exchange is enqueued (the statuses' copy ends at
// the event): check_statuses then reads them.
template <class Key, class Transport, class Compare>
const char* exchange_statuses(const char* context, Transport& transport, cudaStream_t stream,
                              distributed_buffers& buffers, const Key* a, const Key* b, Compare comp, index_t status,
                              cudaEvent_t arrived = nullptr) {
  contribution<Key> mine;
  mine.words = {status};
  const block_layout layout = block_layout_of<Key>(1, 0, 0, 0);
  return exchange_blocks(context, transport, stream, buffers, a, 0, b, 0, comp, mine, layout, layout.bytes, arrived);
}
template <class Key>
void check_statuses(const char* context, const char* blocks, int ranks, int rank) {
  const block_layout layout = block_layout_of<Key>(1, 0, 0, 0);
  std::vector<index_t> statuses(std::size_t(ranks), 0);
  for (std::size_t q = 0; q < statuses.size(); ++q) std::memcpy(&statuses[q], blocks + q * layout.bytes, sizeof(index_t));
  throw_first_problem(context, statuses, rank);
}
template <class Key, class Transport, class Compare>
void agree_on_status(const char* context, Transport& transport, cudaStream_t stream, distributed_buffers& buffers,
                     const Key* a, const Key* b, Compare comp, index_t status) {
  const char* blocks = exchange_statuses(context, transport, stream, buffers, a, b, comp, status);
  check_statuses<Key>(context, blocks, transport.ranks(), transport.rank());
}

template <class T>
T read_at(const char* bytes) {
  T value;
  std::memcpy(static_cast<void*>(&value), bytes, sizeof(T));
  return value;
}

// One round of the search: every rank gathers the requested elements it holds and answers
// the counts of its partitions; the all-gather gives everyone every answer.
template <class Key, class Transport, class Compare>
distributed_answers<Key> exchange_requests(const char* context, Transport& transport, cudaStream_t stream,
                                           distributed_buffers& buffers, const Key* a, index_t m, const Key* b,
                                           index_t n, Compare comp, const distributed_requests<Key>& asked,
                                           const std::vector<index_t>& a_starts,
                                           const std::vector<index_t>& b_starts) {
  const std::size_t ranks = std::size_t(transport.ranks()), rank = std::size_t(transport.rank());
  // The positions rank q holds are a range of the sorted requests: [a_from[q], a_from[q + 1]).
  std::vector<std::size_t> a_from(ranks + 1), b_from(ranks + 1);
  for (std::size_t q = 0; q <= ranks; ++q) {
    a_from[q] = std::size_t(std::lower_bound(asked.a_positions.begin(), asked.a_positions.end(), a_starts[q]) -
                            asked.a_positions.begin());
    b_from[q] = std::size_t(std::lower_bound(asked.b_positions.begin(), asked.b_positions.end(), b_starts[q]) -
                            asked.b_positions.begin());
  }
  // Counts go to the rank of their partition, A's before B's, each in request order.
  std::vector<std::size_t> counts(ranks, 0), a_slot, b_slot;
  for (const auto& c : asked.a_counts) a_slot.push_back(counts[std::size_t(c.partition)]++);
  for (const auto& c : asked.b_counts) b_slot.push_back(counts[std::size_t(c.partition)]++);
  std::vector<block_layout> layouts;
  std::size_t block_bytes = 16;
  for (std::size_t q = 0; q < ranks; ++q) {
    layouts.push_back(block_layout_of<Key>(0, a_from[q + 1] - a_from[q], b_from[q + 1] - b_from[q], counts[q]));
    block_bytes = std::max(block_bytes, layouts.back().bytes);
  }

  contribution<Key> mine;
  for (std::size_t x = a_from[rank]; x < a_from[rank + 1]; ++x) mine.a_positions.push_back(asked.a_positions[x] - a_starts[rank]);
  for (std::size_t x = b_from[rank]; x < b_from[rank + 1]; ++x) mine.b_positions.push_back(asked.b_positions[x] - b_starts[rank]);
  for (const auto& c : asked.a_counts) {
    if (std::size_t(c.partition) != rank) continue;
    mine.keys.push_back(c.key);
    mine.flags.push_back(c.right ? 2 : 0);
  }
  for (const auto& c : asked.b_counts) {
    if (std::size_t(c.partition) != rank) continue;
    mine.keys.push_back(c.key);
    mine.flags.push_back(c.right ? 3 : 1);
  }
  const char* blocks = exchange_blocks(context, transport, stream, buffers, a, m, b, n, comp, mine, layouts[rank],
                                       block_bytes);

  distributed_answers<Key> answers;
  for (std::size_t q = 0; q < ranks; ++q) {
    const char* block = blocks + q * block_bytes;
    for (std::size_t x = a_from[q]; x < a_from[q + 1]; ++x)
      answers.a_values.push_back(read_at<Key>(block + layouts[q].a_values + (x - a_from[q]) * sizeof(Key)));
    for (std::size_t x = b_from[q]; x < b_from[q + 1]; ++x)
      answers.b_values.push_back(read_at<Key>(block + layouts[q].b_values + (x - b_from[q]) * sizeof(Key)));
  }
  const auto count_of = [&](int partition, std::size_t slot) {
    const std::size_t q = std::size_t(partition);
    return read_at<index_t>(blocks + q * block_bytes + layouts[q].counts + slot * sizeof(index_t));
  };
  for (std::size_t x = 0; x < asked.a_counts.size(); ++x) answers.a_counts.push_back(count_of(asked.a_counts[x].partition, a_slot[x]));
  for (std::size_t x = 0; x < asked.b_counts.size(); ++x) answers.b_counts.push_back(count_of(asked.b_counts[x].partition, b_slot[x]));
  return answers;
}

// Nonempty partitions in rank order: each one's first key not before the last key of the
// nonempty one before it; else every rank throws unsorted_input for its first element.
template <class Key, class Compare>
void check_rank_order(const char* context, const partition_table<Key>& table, char input, Compare comp) {
  index_t position = 0;
  const Key* last = nullptr;
  for (std::size_t q = 0; q < table.sizes.size(); ++q) {
    if (table.sizes[q] == 0) continue;
    if (last != nullptr && comp(table.first[q], *last)) throw unsorted_input(context, input, position);
    last = &table.last[q];
    position += table.sizes[q];
  }
}

template <class Key>
index_t input_status(const Key* a, index_t m, const Key* b, index_t n) {
  if (m < 0 || n < 0) return status_negative_size;
  if (m > 0 && a == nullptr) return status_null_a;
  if (n > 0 && b == nullptr) return status_null_b;
  return status_ok;
}

inline constexpr int max_stages = 64;  // distributed_options::stages beyond it are taken as it

// Whether a plan's pieces go from (0, 0) to the inputs' ends without going backwards, its
// sizes are not negative, its owners are ranks, its stages are fewer than max_stages and
// its rank is one of them: what every plan() returns, but for inputs unsorted inside a rank
// (plan() throws then). O(ranks + pieces).
inline bool plan_in_order(const distributed_plan& plan) {
  const std::size_t ranks = plan.a_sizes.size(), pieces = plan.owners.size();
  if (ranks == 0 || plan.b_sizes.size() != ranks || pieces == 0) return false;
  if (plan.splits.size() != pieces + 1 || plan.diagonals.size() != pieces + 1 || plan.stages.size() != pieces) return false;
  if (plan.rank < 0 || std::size_t(plan.rank) >= ranks) return false;
  constexpr index_t most = std::numeric_limits<index_t>::max();
  index_t m = 0, n = 0;
  for (std::size_t q = 0; q < ranks; ++q) {
    if (plan.a_sizes[q] < 0 || plan.b_sizes[q] < 0) return false;
    if (plan.a_sizes[q] > most - m || plan.b_sizes[q] > most - n) return false;
    m += plan.a_sizes[q];
    n += plan.b_sizes[q];
  }
  if (plan.splits.front().a != 0 || plan.splits.front().b != 0) return false;
  if (plan.splits.back().a != m || plan.splits.back().b != n) return false;
  for (std::size_t p = 0; p < pieces; ++p) {
    if (plan.splits[p + 1].a < plan.splits[p].a || plan.splits[p + 1].b < plan.splits[p].b) return false;
    if (plan.owners[p] < 0 || std::size_t(plan.owners[p]) >= ranks) return false;
    if (plan.stages[p] < 0 || plan.stages[p] >= max_stages) return false;
  }
  return true;
}

// The stages a plan cuts moving pieces into (distributed_options::stages; 0: 1).
inline int stages_of(const distributed_options& options) {
  return options.stages > 0 ? std::min(options.stages, max_stages) : 1;
}

// Step 1: the plan.
template <partitioning Partition, class Key, class Transport, class Compare>
distributed_plan plan_distributed(const char* context, const Key* a, index_t m, const Key* b, index_t n,
                                  Transport& transport, Compare comp, cudaStream_t stream,
                                  const distributed_options& options) {
  static_assert(std::is_trivially_copyable_v<Key> && alignof(Key) <= 16,
                "corank's distributed forms move keys as bytes: trivially copyable, aligned to at most 16");
  const int ranks = transport.ranks(), rank = transport.rank();
  const index_t status = input_status(a, m, b, n);
  const bool ok = status == status_ok;
  distributed_buffers buffers(stream);

  // Every rank's sizes, status and boundary keys.
  contribution<Key> mine;
  mine.words = {ok ? m : 0, ok ? n : 0, status};
  mine.a_positions = {ok && m > 0 ? 0 : -1, ok && m > 0 ? m - 1 : -1};
  mine.b_positions = {ok && n > 0 ? 0 : -1, ok && n > 0 ? n - 1 : -1};
  const block_layout header = block_layout_of<Key>(3, 2, 2, 0);
  const char* blocks = exchange_blocks(context, transport, stream, buffers, a, m, b, n, comp, mine, header,
                                       header.bytes);
  partition_table<Key> ta, tb;
  std::vector<index_t> statuses;
  for (int q = 0; q < ranks; ++q) {
    const char* block = blocks + std::size_t(q) * header.bytes;
    ta.sizes.push_back(read_at<index_t>(block));
    tb.sizes.push_back(read_at<index_t>(block + sizeof(index_t)));
    statuses.push_back(read_at<index_t>(block + 2 * sizeof(index_t)));
    ta.first.push_back(read_at<Key>(block + header.a_values));
    ta.last.push_back(read_at<Key>(block + header.a_values + sizeof(Key)));
    tb.first.push_back(read_at<Key>(block + header.b_values));
    tb.last.push_back(read_at<Key>(block + header.b_values + sizeof(Key)));
  }
  throw_first_problem(context, statuses, rank);
  check_rank_order(context, ta, 'A', comp);
  check_rank_order(context, tb, 'B', comp);
  index_t total = 0;
  for (const auto* sizes : {&ta.sizes, &tb.sizes}) {
    for (const index_t s : *sizes) {
      if (s > std::numeric_limits<index_t>::max() - total) {
        throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": the output size does not fit in 64 bits");
      }
      total += s;
    }
  }

  const std::vector<index_t> a_starts = starts_of(ta.sizes), b_starts = starts_of(tb.sizes);
  const auto exchange = [&](const distributed_requests<Key>& asked) {
    return exchange_requests(context, transport, stream, buffers, a, m, b, n, comp, asked, a_starts, b_starts);
  };
  distributed_plan plan;
  plan.partition = Partition;
  plan.placement = options.placement;
  plan.rank = rank;
  // Splits out of order (a window of negative size) come only from inputs unsorted inside a
  // rank. Every rank has the same splits, so every rank throws, and none waits in a
  // collective that another left.
  if (!cut_pieces<Partition>(plan, ta, tb, exchange, comp, options.samples, stages_of(options))) {
    throw unsorted_input(context);
  }
  plan.a_sizes = std::move(ta.sizes);
  plan.b_sizes = std::move(tb.sizes);
  if (!plan_in_order(plan)) throw unsorted_input(context);
  return plan;
}

// `x` advanced by `k` elements where it is a pointer (an output), else itself (unused).
template <class T>
T advanced(T x, index_t k) {
  if constexpr (is_used_v<T>) {
    return x + k;
  } else {
    return x;
  }
}

// The side stream that carries the windows' moves, and an event per stage; the caller's
// stream waits for all of it when this goes (the inputs it sends and the buffer it fills
// are then free on that stream).
class move_streams {
 public:
  move_streams(const char* context, cudaStream_t stream, int stages) : stream_(stream) {
    int least = 0, greatest = 0;
    CORANK_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest), context);
    // Higher priority than the local calls: a stage's copy kernel is not kept waiting for
    // their blocks to leave the SMs.
    CORANK_TRY(cudaStreamCreateWithPriority(&side_, cudaStreamNonBlocking, greatest), context);
    events_.assign(std::size_t(stages) + 1, nullptr);
    for (cudaEvent_t& e : events_) CORANK_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), context);
    // The side stream starts where the caller's stream is (the inputs written, the buffer allocated).
    CORANK_TRY(cudaEventRecord(events_.back(), stream_), context);
    CORANK_TRY(cudaStreamWaitEvent(side_, events_.back(), 0), context);
  }
  move_streams(const move_streams&) = delete;
  move_streams& operator=(const move_streams&) = delete;
  ~move_streams() {
    if (side_ != nullptr && !events_.empty() && events_.back() != nullptr) {
      cudaEventRecord(events_.back(), side_);
      cudaStreamWaitEvent(stream_, events_.back(), 0);
    }
    for (cudaEvent_t e : events_) {
      if (e != nullptr) cudaEventDestroy(e);
    }
    if (side_ != nullptr) cudaStreamDestroy(side_);  // released once its work is done
    cudaGetLastError();  // a failure here belongs to what already failed
  }
  cudaStream_t side() const { return side_; }
  // Stage s's moves are done at this event.
  cudaEvent_t arrived(int s) const { return events_[std::size_t(s)]; }

 private:
  cudaStream_t stream_;
  cudaStream_t side_ = nullptr;
  std::vector<cudaEvent_t> events_;
};

// Steps 2 and 3 on this rank: the windows' moves, the op on them. ValuesIn: const Value* or
// unused; KeysOut, ValuesOut: pointers or unused (count only, keys only).
template <class Op, class Key, class ValuesIn, class KeysOut, class ValuesOut, class Transport, class Compare>
index_t run_distributed(const char* context, const Op& op, const distributed_plan& plan, const Key* a,
                        ValuesIn a_values, const Key* b, ValuesIn b_values, KeysOut keys_out, ValuesOut values_out,
                        Transport& transport, Compare comp, cudaStream_t stream, const distributed_options& options) {
  static_assert(!sees_run_starts_v<Op>, "the distributed forms do not take ops that see run starts (op.hpp)");
  static_assert(std::is_trivially_copyable_v<Key>, "corank's distributed forms move keys as bytes");
  constexpr bool with_values = is_used_v<ValuesIn>;
  constexpr bool writes = is_used_v<KeysOut>;
  constexpr bool size_known = writes && Op::output_size_is_input_size;  // the merge: no wait for its size
  using Value = std::conditional_t<with_values, std::remove_const_t<std::remove_pointer_t<ValuesIn>>, char>;
  static_assert(std::is_trivially_copyable_v<Value>, "corank's distributed forms move values as bytes");
  if (plan.partition != Op::partition) {  // the same on every rank
    throw cuda_error(cudaErrorInvalidValue, std::string(context) +
                                                ": the plan is of the other partitioning (a merge's plan for a set "
                                                "operation, or the reverse)");
  }
  if (plan.ranks() != transport.ranks() || plan.rank != transport.rank()) {
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": the plan was made on rank " +
                                                std::to_string(plan.rank) + " of " + std::to_string(plan.ranks()) +
                                                ", not on this rank (" + std::to_string(transport.rank()) + " of " +
                                                std::to_string(transport.ranks()) + ")");
  }
  const int rank = plan.rank, ranks = transport.ranks();
  // A plan whose splits plan() could not have made (edited, or of other partitions): every
  // rank hears of it in the status exchange below and throws, before anything moves.
  const bool plan_ok = plan_in_order(plan);
  const index_t m = plan_ok ? plan.a_sizes[std::size_t(rank)] : 0, n = plan_ok ? plan.b_sizes[std::size_t(rank)] : 0;
  const index_t bound = plan_ok ? plan.output_bound() : 0;
  index_t status = plan_ok ? input_status(a, m, b, n) : index_t(status_bad_plan);
  if (status == status_ok && writes && bound > 0 && is_null(keys_out)) status = status_null_output;
  if constexpr (with_values) {
    if (status == status_ok && ((m > 0 && a_values == nullptr) || (n > 0 && b_values == nullptr)))
      status = status_null_values;
    if (status == status_ok && bound > 0 && is_null(values_out)) status = status_null_values_out;
  }

  // This rank's part of every piece, per input: what it sends, receives, keeps, reads in
  // place; and where its assembled windows lie in one buffer (keys and values of A and B).
  const int pieces = plan_ok ? plan.pieces() : 0;
  const int stages = plan_ok ? plan.stage_count() : 1;
  std::vector<piece_side> parts[2];
  std::vector<std::size_t> at[2][2];  // [kind][side][piece]: the assembled window's offset
  const std::size_t element[2] = {sizeof(Key), sizeof(Value)};
  std::size_t bytes = 0;
  bool moves = false;  // this rank sends or receives
  // A piece of one input alone whose op takes every element of it (a merge's, a union's, the
  // first input's of a difference) is its window: that lands in the output directly, no
  // buffer, no local call (direct), where its offset in this rank's output (out_at) is known
  // before anything moves: always for a merge, for the other ops where only such pieces
  // precede it.
  std::vector<bool> direct;
  std::vector<index_t> out_at;
  const auto takes_all = [&](int p) {
    const bool a_only = plan.piece_a(p) > 0 && plan.piece_b(p) == 0;
    const bool b_only = plan.piece_b(p) > 0 && plan.piece_a(p) == 0;
    return (a_only && op(relation::a_first) == take_a()) || (b_only && op(relation::b_first) == take_b());
  };
  // Each stage's moves in rounds (exchange_rounds.hpp), from what every rank sends every other.
  std::vector<exchange_rounds> stage_rounds(static_cast<std::size_t>(stages));
  if (plan_ok) {
    const std::vector<index_t> starts[2] = {starts_of(plan.a_sizes), starts_of(plan.b_sizes)};
    stage_rounds = rounds_of_stages(plan, sizeof(Key) + (with_values ? sizeof(Value) : 0));
    index_t placed = 0;
    bool placed_known = true;  // out_at is known for this rank's next piece
    for (int p = 0; p < pieces; ++p) {
      const split<index_t> from = plan.splits[std::size_t(p)], to = plan.splits[std::size_t(p) + 1];
      const int owner = plan.owners[std::size_t(p)];
      parts[0].push_back(piece_side_of(starts[0], from.a, to.a, owner, rank));
      parts[1].push_back(piece_side_of(starts[1], from.b, to.b, owner, rank));
      const bool owned = owner == rank, copies = owned && takes_all(p);
      const bool moving = !parts[from.a == to.a ? 1 : 0].back().in_place;
      direct.push_back(writes && copies && moving && (size_known || placed_known));
      out_at.push_back(placed);
      if (owned) placed += plan.piece_a(p) + plan.piece_b(p);
      if (owned && !copies) placed_known = false;
      for (int side = 0; side < 2; ++side) {
        const piece_side& ps = parts[side].back();
        moves = moves || ps.send.peer >= 0 || !ps.receives.empty();
        for (int kind_of = 0; kind_of < 2; ++kind_of) {
          at[kind_of][side].push_back(bytes);
          if (kind_of == 1 && !with_values) continue;
          if (owner == rank && !ps.in_place && !direct.back()) {
            bytes += align_up(std::size_t(ps.end - ps.begin) * element[kind_of]);
          }
        }
      }
    }
  }
  // Every rank calls the transport's exchange alike: once a round, once for a stage without any.
  std::vector<int> calls;
  for (const exchange_rounds& r : stage_rounds) calls.push_back(std::max(1, r.rounds));
  stream_allocation windows(stream);
  if (status == status_ok && bytes > 0 && allocate_temporary(&windows.memory, bytes, stream) != cudaSuccess) {
    cudaGetLastError();
    windows.memory = nullptr;
    status = status_out_of_memory;
  }

  const char* own[2][2] = {{reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(b)}, {}};
  if constexpr (with_values) {
    own[1][0] = reinterpret_cast<const char*>(a_values);
    own[1][1] = reinterpret_cast<const char*>(b_values);
  }
  const index_t own_begin[2] = {plan_ok ? starts_of(plan.a_sizes)[std::size_t(rank)] : 0,
                                plan_ok ? starts_of(plan.b_sizes)[std::size_t(rank)] : 0};
  // Where piece p's window of one input and kind is assembled: its buffer, or the output.
  const auto assembly = [&](int kind_of, int side, int p) -> char* {
    if constexpr (writes) {
      if (direct[std::size_t(p)]) {
        if (kind_of == 0) return reinterpret_cast<char*>(keys_out + out_at[std::size_t(p)]);
        if constexpr (with_values) return reinterpret_cast<char*>(values_out + out_at[std::size_t(p)]);
      }
    }
    return windows.bytes() + at[kind_of][side][std::size_t(p)];
  };
  // Piece p's window of one input and kind, where the op reads it.
  const auto window = [&](int kind_of, int side, int p) -> const char* {
    const piece_side& ps = parts[side][std::size_t(p)];
    if (ps.end == ps.begin) return nullptr;
    if (!ps.in_place) return windows.bytes() + at[kind_of][side][std::size_t(p)];
    return own[kind_of][side] + std::size_t(ps.begin - own_begin[side]) * element[kind_of];
  };
  // Step 3 for one piece: the op on its windows, at `offset` of the outputs; returns its size.
  const auto run_piece = [&](int p, index_t offset) -> index_t {
    const Key* wa = reinterpret_cast<const Key*>(window(0, 0, p));
    const Key* wb = reinterpret_cast<const Key*>(window(0, 1, p));
    const index_t size_a = plan.piece_a(p), size_b = plan.piece_b(p);
    if (size_a + size_b == 0) return 0;
    const auto args = [&] {
      if constexpr (with_values) {
        return make_args(wa, size_a, wb, size_b, reinterpret_cast<const Value*>(window(1, 0, p)),
                         reinterpret_cast<const Value*>(window(1, 1, p)), advanced(keys_out, offset),
                         advanced(values_out, offset));
      } else {
        return make_args(wa, size_a, wb, size_b, unused{}, unused{}, advanced(keys_out, offset),
                         advanced(values_out, offset));
      }
    }();
    if constexpr (size_known) {
      throw_on_bad_arguments(args, context);
      run_two_phase(context, stream, [&](void* temp, std::size_t& temp_bytes, index_t*) {
        return dispatch(temp, temp_bytes, op, args, nullptr, comp, stream, options.kind);
      });
      return size_a + size_b;
    } else {
      return run_counted(context, op, args, comp, stream, options.kind);
    }
  };
  std::vector<int> mine;  // this rank's pieces, in path order
  for (int p = 0; p < pieces; ++p) {
    if (plan.owners[std::size_t(p)] == rank) mine.push_back(p);
  }
  std::vector<index_t> sizes;  // of this rank's pieces' outputs
  index_t count = 0;

  if (size_known && !moves && status == status_ok) {
    // Nothing of this rank moves: its local calls go to the stream right behind the status
    // exchange, before the host has read it, so the GPU does not wait for a round trip. A
    // problem of another rank still throws here, with the outputs written.
    cudaEvent_t arrived = nullptr;
    CORANK_TRY(cudaEventCreateWithFlags(&arrived, cudaEventDisableTiming), context);
    struct event_guard {
      cudaEvent_t e;
      ~event_guard() { cudaEventDestroy(e); }
    } guard{arrived};
    distributed_buffers buffers(stream);
    const char* blocks = exchange_statuses(context, transport, stream, buffers, a, b, comp, status, arrived);
    for (const int p : mine) {
      sizes.push_back(run_piece(p, count));
      count += sizes.back();
    }
    CORANK_TRY(cudaEventSynchronize(arrived), context);
    std::vector<char> copy(blocks, blocks + std::size_t(ranks) * block_layout_of<Key>(1, 0, 0, 0).bytes);
    buffers.give_back_now();  // the copy that used it is done: the merge's return does not wait
    check_statuses<Key>(context, copy.data(), ranks, rank);
    for (int s = 0; s < stages; ++s) {
      for (int k = 0; k < calls[std::size_t(s)]; ++k) transport.exchange({}, {}, stream);
    }
  } else {
    {
      distributed_buffers buffers(stream);  // given back here: the merge's return does not wait
      agree_on_status(context, transport, stream, buffers, a, b, comp, status);
    }

    // Step 2: each stage's moves on the side stream, an exchange a round (exchange_rounds.hpp):
    // for each piece of the stage in path order, keys before values, A before B, so both ends
    // list them alike.
    std::unique_ptr<move_streams> side;
    if (moves) side = std::make_unique<move_streams>(context, stream, stages);
    for (int s = 0; s < stages; ++s) {
      const exchange_rounds& in = stage_rounds[std::size_t(s)];
      for (int k = 0; k < calls[std::size_t(s)]; ++k) {
        std::vector<distributed_send> sends;
        std::vector<distributed_receive> receives;
        for (int p = 0; p < pieces; ++p) {
          if (plan.stages[std::size_t(p)] != s) continue;
          for (int kind_of = 0; kind_of < (with_values ? 2 : 1); ++kind_of) {
            for (int side_of = 0; side_of < 2; ++side_of) {
              const piece_side& ps = parts[side_of][std::size_t(p)];
              const std::size_t size = element[kind_of];
              if (ps.send.peer >= 0 && in.round(rank, ps.send.peer) == k) {
                sends.push_back({ps.send.peer,
                                 own[kind_of][side_of] + std::size_t(ps.send.begin - own_begin[side_of]) * size,
                                 std::size_t(ps.send.size()) * size});
              }
              char* assembled = assembly(kind_of, side_of, p);
              for (const window_piece& piece : ps.receives) {
                if (in.round(piece.peer, rank) != k) continue;
                receives.push_back({piece.peer, assembled + std::size_t(piece.begin - ps.begin) * size,
                                    std::size_t(piece.size()) * size});
              }
            }
          }
        }
        transport.exchange(sends, receives, side ? side->side() : stream);
      }
      if (side) CORANK_TRY(cudaEventRecord(side->arrived(s), side->side()), context);
    }
    // The parts of assembled windows this rank holds, copied in on its stream (into the
    // output where the window is a piece's output).
    for (const int p : mine) {
      for (int kind_of = 0; kind_of < (with_values ? 2 : 1); ++kind_of) {
        for (int side_of = 0; side_of < 2; ++side_of) {
          const piece_side& ps = parts[side_of][std::size_t(p)];
          if (ps.in_place || ps.kept_end <= ps.kept_begin) continue;
          const std::size_t size = element[kind_of];
          CORANK_TRY(cudaMemcpyAsync(assembly(kind_of, side_of, p) + std::size_t(ps.kept_begin - ps.begin) * size,
                                     own[kind_of][side_of] + std::size_t(ps.kept_begin - own_begin[side_of]) * size,
                                     std::size_t(ps.kept_end - ps.kept_begin) * size, cudaMemcpyDeviceToDevice, stream),
                     context);
        }
      }
    }
    // Step 3: each piece once its stage has arrived. The merge's outputs lie at offsets known
    // from the plan, so its pieces run in stage order (those in place first), each stage's
    // while the next arrives; the others' offsets are their predecessors' sizes, so they run
    // in path order. Where the order is asked for a set operation, a local failure is told to
    // the others in its exchange below.
    const auto waits = [&](int p) {
      return side && (!parts[0][std::size_t(p)].in_place || !parts[1][std::size_t(p)].in_place);
    };
    std::exception_ptr failed;
    try {
      if constexpr (size_known) {
        std::vector<index_t> offset;
        for (const int p : mine) {
          offset.push_back(count);
          count += plan.piece_a(p) + plan.piece_b(p);
        }
        for (int s = -1; s < stages; ++s) {  // -1: the pieces in place
          if (s >= 0) CORANK_TRY(cudaStreamWaitEvent(stream, side->arrived(s), 0), context);
          for (std::size_t x = 0; x < mine.size(); ++x) {
            const int p = mine[x];
            if (direct[std::size_t(p)]) continue;  // its window is its output
            if (waits(p) ? plan.stages[std::size_t(p)] == s : s == -1) run_piece(p, offset[x]);
          }
          if (!side) break;
        }
      } else {
        for (const int p : mine) {
          if (waits(p)) CORANK_TRY(cudaStreamWaitEvent(stream, side->arrived(plan.stages[std::size_t(p)]), 0), context);
          if (direct[std::size_t(p)]) {  // its window is its output: checked as its call would
            const index_t size = plan.piece_a(p) + plan.piece_b(p);
            if constexpr (writes) {
              if (corank::find_unsorted(keys_out + count, keys_out + count + size, comp, stream) != size) {
                throw unsorted_input(context);
              }
            }
            sizes.push_back(size);
          } else {
            sizes.push_back(run_piece(p, count));
          }
          count += sizes.back();
        }
      }
    } catch (...) {
      if (options.order == nullptr || size_known) throw;
      failed = std::current_exception();
    }
    if (options.order != nullptr && !size_known) {
      // Every rank's pieces' sizes, in one all-gather: each rank's block holds a status and its
      // pieces' sizes, as many words as the rank with most pieces has.
      std::vector<int> held(std::size_t(ranks), 0);
      for (const int o : plan.owners) ++held[std::size_t(o)];
      const std::size_t words = 1 + std::size_t(*std::max_element(held.begin(), held.end()));
      contribution<Key> block;
      block.words.assign(words, 0);
      block.words[0] = failed ? index_t(status_local_failure) : index_t(status_ok);
      for (std::size_t x = 0; x < sizes.size(); ++x) block.words[x + 1] = sizes[x];
      const block_layout layout = block_layout_of<Key>(words, 0, 0, 0);
      distributed_buffers buffers(stream);
      const char* blocks = exchange_blocks(context, transport, stream, buffers, a, 0, b, 0, comp, block, layout,
                                           layout.bytes);
      std::vector<index_t> statuses;
      for (int q = 0; q < ranks; ++q) statuses.push_back(read_at<index_t>(blocks + std::size_t(q) * layout.bytes));
      if (failed) std::rethrow_exception(failed);
      throw_first_problem(context, statuses, rank);
      std::vector<distributed_piece> order;
      std::vector<index_t> next(std::size_t(ranks), 0), offset(std::size_t(ranks), 0);
      for (int p = 0; p < pieces; ++p) {
        const std::size_t q = std::size_t(plan.owners[std::size_t(p)]);
        const index_t size =
            read_at<index_t>(blocks + q * layout.bytes + std::size_t(1 + next[q]++) * sizeof(index_t));
        if (size == 0) continue;
        if (!order.empty() && order.back().rank == int(q)) {
          order.back().size += size;
        } else {
          order.push_back({int(q), offset[q], size});
        }
        offset[q] += size;
      }
      *options.order = std::move(order);
      return count;
    }
  }
  if (options.order != nullptr) *options.order = plan.merge_order();
  return count;
}

}  // namespace detail

template <class Op>
template <class Key, class Comm, class Compare>
distributed_plan detail::distributed_runner<Op>::plan(const Key* a, index_t m, const Key* b, index_t n, Comm&& comm,
                                                      Compare comp, cudaStream_t stream,
                                                      const distributed_options& options) const {
  decltype(auto) transport = detail::transport_of(comm);
  return detail::plan_distributed<Op::partition>(name, a, m, b, n, transport, comp, stream, options);
}

template <class Op>
template <class Key, class Comm, class Compare>
index_t distributed_keys_operation<Op>::operator()(const distributed_plan& plan, const Key* a, const Key* b, Key* out,
                                                   Comm&& comm, Compare comp, cudaStream_t stream,
                                                   const distributed_options& options) const {
  decltype(auto) transport = detail::transport_of(comm);
  return detail::run_distributed(this->name, this->op, plan, a, detail::unused{}, b, detail::unused{}, out, detail::unused{},
                                 transport, comp, stream, options);
}

template <class Op>
template <class Key, class Comm, class Compare>
index_t distributed_keys_operation<Op>::operator()(const Key* a, index_t m, const Key* b, index_t n, Key* out,
                                                   Comm&& comm, Compare comp, cudaStream_t stream,
                                                   const distributed_options& options) const {
  return (*this)(this->plan(a, m, b, n, comm, comp, stream, options), a, b, out, comm, comp, stream, options);
}

template <class Op>
template <class Key, class Value, class Comm, class Compare>
index_t distributed_by_key_operation<Op>::operator()(const distributed_plan& plan, const Key* a,
                                                     const Value* a_values, const Key* b, const Value* b_values,
                                                     Key* keys_out, Value* values_out, Comm&& comm, Compare comp,
                                                     cudaStream_t stream, const distributed_options& options) const {
  decltype(auto) transport = detail::transport_of(comm);
  return detail::run_distributed(this->name, this->op, plan, a, a_values, b, b_values, keys_out, values_out, transport, comp,
                                 stream, options);
}

template <class Op>
template <class Key, class Value, class Comm, class Compare>
index_t distributed_by_key_operation<Op>::operator()(const Key* a, const Value* a_values, index_t m, const Key* b,
                                                     const Value* b_values, index_t n, Key* keys_out,
                                                     Value* values_out, Comm&& comm, Compare comp,
                                                     cudaStream_t stream, const distributed_options& options) const {
  return (*this)(this->plan(a, m, b, n, comm, comp, stream, options), a, a_values, b, b_values, keys_out, values_out, comm,
                 comp, stream, options);
}

template <class Op>
template <class Key, class Comm, class Compare>
index_t distributed_count_operation<Op>::operator()(const distributed_plan& plan, const Key* a, const Key* b,
                                                    Comm&& comm, Compare comp, cudaStream_t stream,
                                                    const distributed_options& options) const {
  decltype(auto) transport = detail::transport_of(comm);
  return detail::run_distributed(this->name, this->op, plan, a, detail::unused{}, b, detail::unused{}, detail::unused{},
                                 detail::unused{}, transport, comp, stream, options);
}

template <class Op>
template <class Key, class Comm, class Compare>
index_t distributed_count_operation<Op>::operator()(const Key* a, index_t m, const Key* b, index_t n, Comm&& comm,
                                                    Compare comp, cudaStream_t stream,
                                                    const distributed_options& options) const {
  return (*this)(this->plan(a, m, b, n, comm, comp, stream, options), a, b, comm, comp, stream, options);
}

}  // namespace corank
