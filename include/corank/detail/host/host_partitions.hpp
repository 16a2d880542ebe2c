#pragma once
// The CPU backend's parallel skeleton: the output range is cut into equal pieces, one per
// thread, and each thread finds its inputs by co-rank — the GPU's grid level, on cores.

#include <corank/config.hpp>

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace corank::detail {

// Below this many outputs per thread, starting a thread costs more than it saves.
inline constexpr index_t host_min_items_per_thread = index_t(1) << 15;

inline unsigned host_thread_count(index_t total, unsigned requested) {
  const unsigned available = requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  const index_t useful = std::max<index_t>(1, total / host_min_items_per_thread);
  return static_cast<unsigned>(std::min<index_t>(available, useful));
}

// Where piece p of `pieces` equal ranges covering [0, total) begins (p == pieces: total).
inline index_t piece_begin(index_t total, unsigned pieces, unsigned p) {
  return total / pieces * p + std::min<index_t>(p, total % pieces);
}

// A piece's work as a function pointer and its state: the threads below run this, so their
// machinery (std::thread, its state, the joins) is compiled once per translation unit rather
// than once per operation, key type and form that the CPU backend instantiates.
struct piece_work {
  void* state;
  void (*call)(void* state, unsigned piece, index_t begin, index_t end);
};

// Calls work(piece, begin, end) for `pieces` equal output ranges covering [0, total),
// piece 0 on the calling thread and the others on their own threads. Every started thread is
// joined before it returns or throws; the first exception of a piece (a comparator's, an
// iterator's) or of starting a thread is rethrown then.
inline void for_each_output_piece(index_t total, unsigned pieces, piece_work work) {
  std::vector<std::exception_ptr> failures(pieces);
  auto run = [&](unsigned p) {
    try {
      work.call(work.state, p, piece_begin(total, pieces, p), piece_begin(total, pieces, p + 1));
    } catch (...) {
      failures[p] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  try {
    workers.reserve(pieces - 1);
    for (unsigned p = 1; p < pieces; ++p) workers.emplace_back(run, p);
  } catch (...) {
    failures[0] = std::current_exception();
  }
  if (!failures[0]) run(0);
  for (std::thread& t : workers) t.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
}

// The same for any callable work(piece, begin, end).
template <class Work>
void for_each_output_piece(index_t total, unsigned pieces, Work work) {
  const auto call = [](void* state, unsigned piece, index_t begin, index_t end) {
    (*static_cast<Work*>(state))(piece, begin, end);
  };
  for_each_output_piece(total, pieces, piece_work{&work, call});
}

}  // namespace corank::detail
