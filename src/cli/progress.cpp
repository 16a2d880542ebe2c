#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace corank::cli {

progress_bar::progress_bar(std::string label, std::uint64_t total_bytes)
    : label_(std::move(label)),
      total_(total_bytes),
      enabled_(total_bytes >= threshold_bytes && isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void progress_bar::update(std::uint64_t done_bytes) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100) && done_bytes < total_) return;
  last_draw_ = now;
  draw(done_bytes);
}

void progress_bar::draw(std::uint64_t done_bytes) {
  constexpr int width = 30;
  const double fraction = total_ == 0 ? 1.0 : std::min(1.0, double(done_bytes) / double(total_));
  const int filled = int(fraction * width);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0 ? double(done_bytes) / seconds / 1e9 : 0.0;
  fmt::print(stderr, "\r{} [{}{}] {:3.0f}% {:.2f} of {:.2f} GB, {:.2f} GB/s ", label_, std::string(filled, '#'),
             std::string(width - filled, ' '), 100 * fraction, double(done_bytes) / 1e9, double(total_) / 1e9, rate);
  std::fflush(stderr);
  drawn_ = true;
}

void progress_bar::finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");  // carriage return, erase the line
  std::fflush(stderr);
  drawn_ = false;
  enabled_ = false;
}

}  // namespace corank::cli
