#pragma once
// A transport for the distributed forms (distributed_operation.cuh) between threads of one
// process: P ranks on one GPU (or several), each a thread with its own stream, so that every
// step of the distributed forms (the search's all-gathers, the windows' moves, the local call)
// runs with several ranks where the machine has one GPU, and NCCL, which refuses two ranks
// on one GPU, cannot. Each collective synchronizes the caller's stream, meets the other ranks
// at a barrier, copies with cudaMemcpyAsync, and meets them again. Events order the copies
// after the owner's stream and the owner's later work (freeing the buffer) after the copies,
// as the host's barriers already do: compute-sanitizer's stream-ordered race tracking sees
// events, not barriers between threads. It also checks what NCCL
// would hang or fail on: ranks that disagree on an all-gather's size, sends and receives that
// do not match. Counts what each rank did, for the tests.

#include <corank/distributed_operation.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace corank::test {

// Thrown by a rank waiting at the barrier when another rank has failed.
struct hub_aborted : std::runtime_error {
  hub_aborted() : std::runtime_error("another rank failed") {}
};

// What the ranks share: a barrier and the collectives' arguments.
class in_process_hub {
 public:
  // The ranks' events are made on `device` (the current device is left as it was), and live
  // as long as the hub: a rank that fails may leave while others still wait on its events.
  in_process_hub(int ranks, int device)
      : ranks_(ranks),
        gather_from_(std::size_t(ranks)),
        gather_bytes_(std::size_t(ranks)),
        sends_(std::size_t(ranks)),
        ready_(std::size_t(ranks)),
        read_(std::size_t(ranks)) {
    int current = 0;
    cudaGetDevice(&current);
    bool made = cudaSetDevice(device) == cudaSuccess;
    for (int r = 0; r < ranks; ++r) {
      made = made && cudaEventCreateWithFlags(&ready_[std::size_t(r)], cudaEventDisableTiming) == cudaSuccess &&
             cudaEventCreateWithFlags(&read_[std::size_t(r)], cudaEventDisableTiming) == cudaSuccess;
    }
    cudaSetDevice(current);
    if (!made) {
      destroy_events();
      throw std::runtime_error("in_process_hub: its events could not be made");
    }
  }
  ~in_process_hub() { destroy_events(); }
  in_process_hub(const in_process_hub&) = delete;
  in_process_hub& operator=(const in_process_hub&) = delete;

  int ranks() const { return ranks_; }

  // Every rank waits here until all have come; throws hub_aborted after abort().
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (aborted_) throw hub_aborted();
    const unsigned long long generation = generation_;
    if (++arrived_ == ranks_) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return generation_ != generation || aborted_; });
    if (generation_ == generation) throw hub_aborted();
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
    changed_.notify_all();
  }

  std::vector<const void*>& gather_from() { return gather_from_; }
  std::vector<std::size_t>& gather_bytes() { return gather_bytes_; }
  std::vector<std::vector<distributed_send>>& sends() { return sends_; }
  // Rank r's events: its buffers are ready to be read; it has read the others'.
  std::vector<cudaEvent_t>& ready() { return ready_; }
  std::vector<cudaEvent_t>& read() { return read_; }

 private:
  int ranks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrived_ = 0;
  unsigned long long generation_ = 0;
  bool aborted_ = false;
  std::vector<const void*> gather_from_;
  std::vector<std::size_t> gather_bytes_;
  std::vector<std::vector<distributed_send>> sends_;
  std::vector<cudaEvent_t> ready_, read_;

  void destroy_events() {
    for (auto* events : {&ready_, &read_}) {
      for (cudaEvent_t& e : *events) {
        if (e != nullptr) cudaEventDestroy(e);
        e = nullptr;
      }
    }
  }
};

class in_process_transport {
 public:
  in_process_transport(in_process_hub& hub, int rank) : hub_(hub), rank_(rank) {}

  int rank() const { return rank_; }
  int ranks() const { return hub_.ranks(); }

  void all_gather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) {
    mark(hub_.ready(), stream, "all_gather: the send buffer");
    hub_.gather_from()[std::size_t(rank_)] = send;
    hub_.gather_bytes()[std::size_t(rank_)] = bytes;
    hub_.wait();
    wait_for_peers(hub_.ready(), stream);
    for (int q = 0; q < ranks(); ++q) {
      if (hub_.gather_bytes()[std::size_t(q)] != bytes) {
        throw std::logic_error("in_process_transport: rank " + std::to_string(rank_) + " all-gathers " +
                               std::to_string(bytes) + " bytes, rank " + std::to_string(q) + " " +
                               std::to_string(hub_.gather_bytes()[std::size_t(q)]));
      }
      check(cudaMemcpyAsync(static_cast<char*>(recv) + std::size_t(q) * bytes, hub_.gather_from()[std::size_t(q)],
                            bytes, cudaMemcpyDefault, stream),
            "all_gather: copy");
    }
    mark(hub_.read(), stream, "all_gather: copies");
    hub_.wait();  // nobody reuses its send buffer before every rank has read it
    wait_for_peers(hub_.read(), stream);
    ++all_gathers;
  }

  void exchange(const std::vector<distributed_send>& sends, const std::vector<distributed_receive>& receives,
                cudaStream_t stream) {
    mark(hub_.ready(), stream, "exchange: the send buffers");
    hub_.sends()[std::size_t(rank_)] = sends;
    hub_.wait();
    wait_for_peers(hub_.ready(), stream);
    for (int q = 0; q < ranks(); ++q) {  // receives from q match q's sends to this rank, in order
      std::vector<distributed_send> from;
      for (const auto& s : hub_.sends()[std::size_t(q)]) {
        if (s.peer == rank_) from.push_back(s);
      }
      std::size_t next = 0;
      for (const auto& r : receives) {
        if (r.peer != q) continue;
        if (next == from.size() || from[next].bytes != r.bytes) {
          throw std::logic_error("in_process_transport: rank " + std::to_string(rank_) +
                                 "'s receives from rank " + std::to_string(q) + " do not match its sends");
        }
        check(cudaMemcpyAsync(r.data, from[next].data, r.bytes, cudaMemcpyDefault, stream), "exchange: copy");
        bytes_received += r.bytes;
        ++next;
      }
      if (next != from.size()) {
        throw std::logic_error("in_process_transport: rank " + std::to_string(q) + " sends rank " +
                               std::to_string(rank_) + " more than it receives");
      }
    }
    mark(hub_.read(), stream, "exchange: copies");
    hub_.wait();
    wait_for_peers(hub_.read(), stream);
    ++exchanges;
    const auto peers = [](const auto& transfers) {
      std::vector<int> p;
      for (const auto& x : transfers) p.push_back(x.peer);
      std::sort(p.begin(), p.end());
      return int(std::unique(p.begin(), p.end()) - p.begin());
    };
    most_peers_sent_to = std::max(most_peers_sent_to, peers(sends));
    most_peers_heard_from = std::max(most_peers_heard_from, peers(receives));
  }

  // What this rank did: calls, bytes received, and the most peers one exchange sent to or
  // received from.
  int all_gathers = 0, exchanges = 0;
  std::size_t bytes_received = 0;
  int most_peers_sent_to = 0, most_peers_heard_from = 0;

 private:
  // Before a barrier: this rank's event in `events` marks its stream's work so far (its
  // buffers written, or its copies of the others' done), and the host waits for it too.
  void mark(const std::vector<cudaEvent_t>& events, cudaStream_t stream, const char* what) {
    check(cudaEventRecord(events[std::size_t(rank_)], stream), what);
    check(cudaStreamSynchronize(stream), what);
  }
  // After a barrier: the stream's next work follows every rank's event (all recorded before
  // it, and none recorded again before the next barrier).
  void wait_for_peers(const std::vector<cudaEvent_t>& events, cudaStream_t stream) {
    for (cudaEvent_t e : events) check(cudaStreamWaitEvent(stream, e, 0), "cudaStreamWaitEvent");
  }

  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string("in_process_transport: ") + what + ": " + cudaGetErrorString(e));
  }
  in_process_hub& hub_;
  int rank_;
};

// Runs body(rank, transport) for every rank on its own thread (current device: `device`) and
// returns each rank's exception (null where it returned). A rank that throws aborts the hub,
// so the others leave their next collective with hub_aborted rather than wait forever.
template <class Body>
std::vector<std::exception_ptr> run_in_process(int ranks, int device, Body body) {
  in_process_hub hub(ranks, device);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        if (cudaSetDevice(device) != cudaSuccess) throw std::runtime_error("cudaSetDevice");
        in_process_transport transport(hub, r);
        body(r, transport);
      } catch (...) {
        errors[std::size_t(r)] = std::current_exception();
        hub.abort();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

}  // namespace corank::test
