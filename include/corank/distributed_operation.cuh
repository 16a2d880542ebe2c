#pragma once
// Running any merge-path op on inputs spread over several GPUs (ranks), each rank holding one
// partition of A and one of B on its GPU, the partitions ordered by rank (rank r's keys not
// after rank r + 1's). Each rank ends up with its share of the output, the op's path cut into
// pieces (distributed_plan), as distributed_options::placement says:
//   balanced (the default): equal ranges, rank r taking diagonals [r (m + n) / P,
//     (r + 1) (m + n) / P) (m, n: the inputs' sizes over all P ranks), so merge outputs are
//     equal (within one), set-operation outputs depend on the data, and the ranks' outputs in
//     rank order are the result;
//   owner: cut where the path crosses the ranks' partition boundaries, each piece computed on
//     the rank holding most of it: a piece moves its smaller side at most (disjoint inputs
//     nothing; where they interleave near the cuts, the balanced cut may move less); a rank's
//     output is its pieces of the result in order, and options.order gets the result's order.
// Three steps, all ranks calling together:
//   1. the distributed co-rank (distributed_co_rank.hpp): one all-gather of every rank's sizes
//      and boundary keys, then rounds of all-gathers of a few thousand elements (none where the
//      boundary keys settle the cuts, three for 2^30 keys a side where they do not), one more
//      for the owner placement's counts where the boundary keys leave any open, and one more
//      search for the stages where elements move;
//   2. the windows' moves: each element that lies in another rank's piece moves there, once,
//      point to point, in `stages` stages on a stream of their own, each stage's moves in
//      rounds in which a rank sends to one peer and receives from one at most; a piece inside
//      its owner's partitions does not move;
//   3. the op on each of the rank's pieces, a corank call (operation.cuh) on its GPU, each
//      once its stage has arrived: overlapped with the later stages' moves.
// ops/corank/nccl.cuh names the merges and set operations over NCCL:
//
//   corank::distributed_plan plan = corank::nccl_merge.plan(a, m, b, n, comm, {}, stream);
//   // out: plan.output_bound() elements on this rank's GPU
//   corank::index_t count = corank::nccl_merge(plan, a, b, out, comm, {}, stream);
//
// The transport: `comm` is an ncclComm_t (with <corank/nccl.cuh>) or any object with
//   int rank() const; int ranks() const;
//   // collective: rank q's `bytes` at `send` land at recv + q * bytes on every rank
//   void all_gather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream);
//   // every rank calls it; each send to peer q is matched, in order, by q's receive from it
//   void exchange(const std::vector<corank::distributed_send>& sends,
//                 const std::vector<corank::distributed_receive>& receives, cudaStream_t stream);
// both enqueued on `stream`, on device memory, throwing on failure.
//
// Every runner, on every rank, with this rank's partitions A (m elements at a) and B (n at b):
// - Result: rank r's share of operation.cuh's result of the op on the inputs its ranks hold
//   in rank order: its pieces' outputs in path order. Balanced: the shares of all ranks in rank
//   order are that result. Either placement: options.order, where given, gets the result's
//   pieces in order (rank, offset in its output, size), the same on every rank. Returns this
//   rank's output size: the merge's is its pieces' input sizes, known without waiting.
// - Preconditions: every rank calls the same runner with the same comparator, options and
//   transport, collectively, the current device being its transport's GPU. A and B
//   sorted by `comp` across the ranks (not checked inside partitions; the order between
//   ranks is). Pointers are device memory of this rank's GPU; Key and Value are trivially
//   copyable (they move as bytes); `comp` and the op also run on the host (the search). The
//   outputs hold plan.output_bound() elements (the one-call forms: ceil(N / P) + 1 always do,
//   N the m + n of all ranks, in the balanced placement) and overlap no input. A run takes the plan every rank got from
//   the same plan() call, on the same partitions. Over NCCL, one process per GPU: threads of
//   one process driving several GPUs can deadlock (a free on one GPU waits for the other's
//   NCCL kernel, which waits for this rank's call; docs/design.md, "Distributed forms").
// - Two forms. plan(): the search alone (step 1), collective; returns the same plan on every
//   rank. operator()(plan, ...): steps 2 and 3, for a plan of an op of the same partitioning
//   (a merge's or a set operation's) over the same partitions. operator()(a, m, b, ...): both.
// - Synchronizes: plan() waits for its exchanges (one to eight, of tens of kB); the run returns
//   once the output size is known: the merges after enqueueing the local calls, set operations
//   and counts after they end (and, with options.order, one all-gather of the pieces' sizes);
//   inputs and outputs must live until `stream` gets there. Temporary storage comes from
//   corank's pool (memory.hpp); the moves run on a stream the run makes (the greatest
//   priority), which `stream` waits for before the run returns; all else goes to `stream`.
// - Errors, thrown: arguments one rank gets wrong (negative sizes, null pointers with a
//   nonzero size, a plan of another partitioning) and inputs out of order between ranks
//   (corank::unsorted_input, naming the first element of the rank whose first key comes
//   before the previous nonempty rank's last) are found in an exchange, so every rank throws,
//   the others naming the rank at fault; so is a receive buffer that cannot be allocated
//   (corank::out_of_memory). A failure of the transport, a CUDA call or the local call throws
//   on the ranks where it happens (nccl_error, cuda_error, out_of_memory), and may leave the
//   others waiting in the next collective: abort the communicator then (ncclCommAbort).
// - Unsorted inputs inside a rank (or a comparator that is not a strict weak order): no rank
//   reads outside its partitions or writes outside its output's bound (plan.output_bound()),
//   and every collective is reached by every rank. Where the search's splits go backwards
//   (a window of negative size) every rank's plan() throws corank::unsorted_input (input() 0,
//   index() -1); a run given a plan whose splits are out of order or outside the inputs
//   (not a plan() of these partitions) throws cuda_error (cudaErrorInvalidValue) on every
//   rank, through the status exchange, before anything moves. A merge of which nothing moves on
//   this rank has its local call enqueued before the statuses are read: where another rank
//   throws, this one throws too, its output written. Then the local call: the
//   set operations and counts throw unsorted_input on the ranks whose kernels find their
//   windows unsorted (operation.cuh; after the last collective, so the others return their
//   shares); merges write their outputs with unspecified contents and return the size.
// - Cost: per rank, its windows' elements (keys and values) cross the transport once at most,
//   plus the search's P (3 words + 4 keys) and a few rounds of about 2^12 keys per side in all;
//   then operation.cuh's cost on its pieces ((m + n) / P elements, balanced), of which only the
//   last stage's comes after the moves; a piece of one input alone whose op takes all of it (a
//   merge's, a union's) that moves is received into the output where its offset is known before
//   the moves (always for a merge; for the other ops where only such pieces precede it): no
//   call (set operations: a check of its order, one read).
// - Not here: the paired intersection, ops that see run starts, graph capture (the search
//   waits for the host), several partitions per rank, balancing the owner placement's work.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/distributed_co_rank.hpp>
#include <corank/strategy.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <vector>

namespace corank {

// A transport's point-to-point transfers: `bytes` of device memory to or from `peer`.
struct distributed_send {
  int peer;
  const void* data;
  std::size_t bytes;
};
struct distributed_receive {
  int peer;
  void* data;
  std::size_t bytes;
};

// How a distributed call searches and runs; the same on every rank (but `order`).
struct distributed_options {
  // Elements the search reads per cut and input in a round (0: max(256, 2^12 / cuts)): more
  // read more per round and take fewer rounds (distributed_co_rank.hpp).
  index_t samples = 0;
  // The local call's strategy (strategy.hpp).
  strategy kind = default_strategy;
  // Where the output is computed (plan()): equal shares in rank order, or where the inputs
  // lie (distributed_co_rank.hpp, distributed_placement).
  distributed_placement placement = distributed_placement::balanced;
  // plan(): pieces whose elements move are cut into this many stages, each its own exchanges
  // (in rounds: a rank sends to one peer and hears from one at a time), so that a piece's op
  // runs while the next stage arrives (0: 1 stage; at most 64; docs/decisions.md, "The
  // windows' moves in stages", has what more stages measured).
  int stages = 0;
  // The run: where given, gets the result's pieces in order (which rank holds each, where, how
  // many elements), the same on every rank. A set operation's sizes take one more all-gather
  // after the local calls: give it on every rank or on none.
  std::vector<distributed_piece>* order = nullptr;
};

namespace detail {
template <class T, class = void>
struct is_transport : std::false_type {};
template <class T>
struct is_transport<T, std::void_t<decltype(std::declval<const T&>().rank()), decltype(std::declval<const T&>().ranks())>>
    : std::true_type {};
}  // namespace detail

// How a runner's `comm` becomes a transport: a transport is itself; <corank/nccl.cuh>
// specializes this for ncclComm_t.
template <class Comm, class = void>
struct transport_adapter {
  static Comm& get(Comm& comm) {
    static_assert(detail::is_transport<Comm>::value,
                  "corank: `comm` is neither a transport (distributed_operation.cuh) nor an ncclComm_t; for an "
                  "ncclComm_t include <corank/nccl.cuh>");
    return comm;
  }
};

namespace detail {
// What every runner has: the op, its name in errors, and the search.
template <class Op>
struct distributed_runner {
  Op op{};
  const char* name = "corank::distributed operation";  // says who failed, in errors

  // Step 1 alone (collective): the same plan on every rank.
  template <class Key, class Comm, class Compare = corank::less>
  distributed_plan plan(const Key* a, index_t m, const Key* b, index_t n, Comm&& comm, Compare comp = {},
                        cudaStream_t stream = nullptr, const distributed_options& options = {}) const;
};
}  // namespace detail

// Writes this rank's share of the keys the op emits to out.
template <class Op>
struct distributed_keys_operation : detail::distributed_runner<Op> {
  template <class Key, class Comm, class Compare = corank::less>
  index_t operator()(const distributed_plan& plan, const Key* a, const Key* b, Key* out, Comm&& comm,
                     Compare comp = {}, cudaStream_t stream = nullptr,
                     const distributed_options& options = {}) const;

  template <class Key, class Comm, class Compare = corank::less>
  index_t operator()(const Key* a, index_t m, const Key* b, index_t n, Key* out, Comm&& comm, Compare comp = {},
                     cudaStream_t stream = nullptr, const distributed_options& options = {}) const;
};

// As distributed_keys_operation, with values (a_values beside A, b_values beside B) moving
// with their keys: values_out[i] is the value of the key written to keys_out[i].
template <class Op>
struct distributed_by_key_operation : detail::distributed_runner<Op> {
  template <class Key, class Value, class Comm, class Compare = corank::less>
  index_t operator()(const distributed_plan& plan, const Key* a, const Value* a_values, const Key* b,
                     const Value* b_values, Key* keys_out, Value* values_out, Comm&& comm, Compare comp = {},
                     cudaStream_t stream = nullptr, const distributed_options& options = {}) const;

  template <class Key, class Value, class Comm, class Compare = corank::less>
  index_t operator()(const Key* a, const Value* a_values, index_t m, const Key* b, const Value* b_values, index_t n,
                     Key* keys_out, Value* values_out, Comm&& comm, Compare comp = {},
                     cudaStream_t stream = nullptr, const distributed_options& options = {}) const;
};

// This rank's output size only (its windows' keys still move).
template <class Op>
struct distributed_count_operation : detail::distributed_runner<Op> {
  template <class Key, class Comm, class Compare = corank::less>
  index_t operator()(const distributed_plan& plan, const Key* a, const Key* b, Comm&& comm, Compare comp = {},
                     cudaStream_t stream = nullptr, const distributed_options& options = {}) const;

  template <class Key, class Comm, class Compare = corank::less>
  index_t operator()(const Key* a, index_t m, const Key* b, index_t n, Comm&& comm, Compare comp = {},
                     cudaStream_t stream = nullptr, const distributed_options& options = {}) const;
};

template <class Op> distributed_keys_operation(Op) -> distributed_keys_operation<Op>;
template <class Op> distributed_by_key_operation(Op) -> distributed_by_key_operation<Op>;
template <class Op> distributed_count_operation(Op) -> distributed_count_operation<Op>;

}  // namespace corank

#include <corank/detail/forms/distributed_operation.inl>
