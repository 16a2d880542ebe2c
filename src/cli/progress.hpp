#pragma once
// A progress bar on stderr for reading and writing large files: shown only when stderr is
// a terminal and the file is at least progress_bar::threshold_bytes, so logs, pipes and
// small files stay clean.
//
//   progress_bar bar("reading A.npy", total_bytes);
//   for (...) { ...; bar.update(done_bytes); }
//   bar.finish();

#include <chrono>
#include <cstdint>
#include <string>

namespace corank::cli {

class progress_bar {
 public:
  static constexpr std::uint64_t threshold_bytes = std::uint64_t(256) << 20;

  progress_bar(std::string label, std::uint64_t total_bytes);
  ~progress_bar() { finish(); }
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  // Redraws at most ~10 times a second.
  void update(std::uint64_t done_bytes);
  // Clears the bar's line (also on an error, so the message starts on a clean line).
  void finish();

 private:
  void draw(std::uint64_t done_bytes);

  std::string label_;
  std::uint64_t total_ = 0;
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace corank::cli
