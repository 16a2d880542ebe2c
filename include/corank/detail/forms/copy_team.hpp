#pragma once
// A team of threads that copies memory together: pageable memory (a memory-mapped file, a
// std::vector) is moved in and out of pinned buffers faster by several cores than by one, and
// the streamed forms do it for every chunk, so the threads are started once per call, not
// per copy. Plain C++.

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace corank::detail {

struct copy_job {
  void* to;
  const void* from;
  std::size_t bytes;
};

class copy_team {
 public:
  // `threads` copying in all, the calling thread among them (fewer if threads cannot start).
  explicit copy_team(unsigned threads) {
    try {
      for (unsigned t = 1; t < threads; ++t) helpers_.emplace_back([this, t] { serve(t); });
    } catch (...) {  // no more threads: the ones started share the work
    }
  }
  ~copy_team() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : helpers_) t.join();
  }
  copy_team(const copy_team&) = delete;
  copy_team& operator=(const copy_team&) = delete;

  // Copies every job (regions must not overlap), split in equal byte ranges over the team;
  // returns when all is copied.
  void copy(std::vector<copy_job> jobs) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_ = std::move(jobs);
      pending_ = helpers_.size();
      ++generation_;
    }
    wake_.notify_all();
    copy_share(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  void serve(unsigned member) {
    std::size_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      copy_share(member);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      done_.notify_one();
    }
  }

  // Member m's share: bytes [total m / size, total (m + 1) / size) of the jobs laid end to end.
  void copy_share(unsigned member) {
    std::size_t total = 0;
    for (const copy_job& j : jobs_) total += j.bytes;
    const std::size_t members = helpers_.size() + 1;
    const std::size_t begin = total / members * member + std::min<std::size_t>(member, total % members);
    const std::size_t end = begin + total / members + (member < total % members ? 1 : 0);
    std::size_t at = 0;
    for (const copy_job& j : jobs_) {
      const std::size_t from = std::max(begin, at), to = std::min(end, at + j.bytes);
      if (from < to) {
        std::memcpy(static_cast<char*>(j.to) + (from - at), static_cast<const char*>(j.from) + (from - at), to - from);
      }
      at += j.bytes;
    }
  }

  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<copy_job> jobs_;
  std::size_t generation_ = 0;
  std::size_t pending_ = 0;
  bool stopping_ = false;
};

}  // namespace corank::detail
