#pragma once
// The CPU backend's parallel skeleton: the output range is cut into equal pieces, one per
// thread, and each thread finds its inputs by co-rank — the GPU's grid level, on cores.

#include <corank/config.hpp>

#include <algorithm>
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

// Calls work(piece, begin, end) for `pieces` equal output ranges covering [0, total),
// piece 0 on the calling thread and the others on their own threads.
template <class Work>
void for_each_output_piece(index_t total, unsigned pieces, Work work) {
  auto bound = [&](unsigned p) { return total / pieces * p + std::min<index_t>(p, total % pieces); };
  std::vector<std::thread> workers;
  workers.reserve(pieces - 1);
  for (unsigned p = 1; p < pieces; ++p) workers.emplace_back([&, p] { work(p, bound(p), bound(p + 1)); });
  work(0u, bound(0), bound(1));
  for (std::thread& t : workers) t.join();
}

}  // namespace corank::detail
