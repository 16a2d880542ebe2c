#include "atomic_output.hpp"

#include "arguments.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace corank::cli {
namespace {

// The temporary files to remove if a signal ends the program: fixed storage, so that the
// handler only calls async-signal-safe unlink().
constexpr int max_temporaries = 8;
constexpr std::size_t max_path = 4096;
char temporary_paths[max_temporaries][max_path];
std::atomic<bool> temporary_used[max_temporaries];

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (int i = 0; i < max_temporaries; ++i) {
    if (temporary_used[i].load()) unlink(temporary_paths[i]);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void install_handlers_once() {
  static const bool installed = [] {
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&action.sa_mask);
      sigaction(s, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

int register_temporary(const std::string& path) {
  if (path.size() >= max_path) return -1;
  install_handlers_once();
  for (int i = 0; i < max_temporaries; ++i) {
    if (!temporary_used[i].load()) {
      std::memcpy(temporary_paths[i], path.c_str(), path.size() + 1);
      temporary_used[i].store(true);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) temporary_used[slot].store(false);
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string file_name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

mode_t current_umask() {
  const mode_t mask = umask(0);
  umask(mask);
  return mask;
}

}  // namespace

atomic_output::atomic_output(std::string path, bool force) : path_(std::move(path)), directory_(directory_of(path_)) {
  if (path_.empty() || path_.back() == '/') throw input_error(fmt::format("'{}' is not a file name", path_));
  struct stat info {};
  if (stat(directory_.c_str(), &info) != 0) {
    throw input_error(fmt::format("cannot write {}: the directory {} does not exist", path_, directory_));
  }
  if (!S_ISDIR(info.st_mode)) {
    throw input_error(fmt::format("cannot write {}: {} is not a directory", path_, directory_));
  }
  if (stat(path_.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw input_error(fmt::format("{} is a directory", path_));
    if (!force) throw input_error(fmt::format("{} already exists; pass --force to replace it", path_));
  }
  // Creating the temporary file now is the only sure test that the directory is writable
  // (permissions, ACLs, read-only mounts, running as root all count).
  std::string name = directory_ + "/." + file_name_of(path_) + ".XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("cannot write {}: cannot create a file in {}: {}", path_, directory_, std::strerror(errno)));
  }
  temporary_ = name;
  slot_ = register_temporary(temporary_);
  fchmod(fd, 0666 & ~current_umask());  // mkstemp's 0600 would make outputs private
  file_ = fdopen(fd, "wb");
  if (file_ == nullptr) {
    const int error = errno;
    close(fd);
    unlink(temporary_.c_str());
    unregister_temporary(slot_);
    throw std::runtime_error(fmt::format("cannot write {}: {}", path_, std::strerror(error)));
  }
}

atomic_output::~atomic_output() {
  if (file_ != nullptr) std::fclose(file_);
  if (!published_) unlink(temporary_.c_str());
  unregister_temporary(slot_);
}

void atomic_output::finish_writing() {
  if (file_ == nullptr) return;
  const auto fail = [&](const char* what) {
    throw std::runtime_error(fmt::format("writing {}: {}: {}", path_, what, std::strerror(errno)));
  };
  if (std::fflush(file_) != 0) fail("flush");
  if (fsync(fileno(file_)) != 0) fail("fsync");
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) fail("close");
}

void atomic_output::publish() {
  finish_writing();
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", temporary_, path_, std::strerror(errno)));
  }
  published_ = true;
  unregister_temporary(slot_);
  slot_ = -1;
  // The rename is durable once the directory is synced; a failure here loses nothing.
  const int dir = open(directory_.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
}

}  // namespace corank::cli
