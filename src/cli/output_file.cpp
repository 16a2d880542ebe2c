#include "output_file.hpp"

#include "arguments.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

namespace corank::cli {
namespace {

// The signals that end the program by default (SIGKILL cannot be caught: O_TMPFILE covers it).
constexpr int ending_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGALRM, SIGUSR1, SIGUSR2};

// The named temporary files to remove if a signal ends the program: fixed storage, so that
// the handler only calls async-signal-safe unlink().
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

// Only where the signal would end the program: one its parent ignores stays ignored.
void install_handlers_once() {
  static const bool installed = [] {
    for (const int s : ending_signals) {
      struct sigaction current {};
      if (sigaction(s, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&action.sa_mask);
      sigaction(s, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

void register_temporary(const std::string& path) {
  install_handlers_once();
  if (path.size() >= max_path) return;
  for (int i = 0; i < max_temporaries; ++i) {
    if (!temporary_used[i].load()) {
      std::memcpy(temporary_paths[i], path.c_str(), path.size() + 1);
      temporary_used[i].store(true);
      return;
    }
  }
}

void unregister_temporary(const std::string& path) {
  for (int i = 0; i < max_temporaries; ++i) {
    if (temporary_used[i].load() && path == temporary_paths[i]) temporary_used[i].store(false);
  }
}

// Holds the ending signals back while it lives: they are delivered when it ends.
class signals_held {
 public:
  signals_held() {
    sigset_t set;
    sigemptyset(&set);
    for (const int s : ending_signals) sigaddset(&set, s);
    sigprocmask(SIG_BLOCK, &set, &previous_);
  }
  ~signals_held() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  signals_held(const signals_held&) = delete;
  signals_held& operator=(const signals_held&) = delete;

 private:
  sigset_t previous_;
};

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

std::string real_path(const std::string& path) {
  const std::unique_ptr<char, decltype(&std::free)> resolved(realpath(path.c_str(), nullptr), &std::free);
  return resolved ? std::string(resolved.get()) : path;
}

mode_t current_umask() {
  const mode_t mask = umask(0);
  umask(mask);
  return mask;
}

// Makes a new name for the file beside `target` (".NAME.TAG-XXXXXX") with `make(name)`,
// which returns errno or 0; another suffix on EEXIST. Returns the name, or throws.
template <class Make>
std::string make_unique_name(const std::string& target, const char* tag, Make make) {
  static std::mt19937_64 rng{std::random_device{}() ^ std::uint64_t(getpid())};
  const std::string stem = directory_of(target) + "/." + file_name_of(target) + "." + tag + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = fmt::format("{}{:06x}", stem, rng() & 0xffffff);
    const int error = make(name);
    if (error == 0) return name;
    if (error != EEXIST) {
      throw std::runtime_error(fmt::format("cannot create {} beside {}: {}", name, target, std::strerror(error)));
    }
  }
  throw std::runtime_error(fmt::format("cannot find a free temporary name beside {}", target));
}

std::string descriptor_path(int fd) { return fmt::format("/proc/self/fd/{}", fd); }

// Test hook: CORANK_CLI_NO_TMPFILE=1 takes the named-temporary path that file systems
// without O_TMPFILE get, so that it is tested too.
bool unnamed_temporaries_allowed() {
  const char* off = std::getenv("CORANK_CLI_NO_TMPFILE");
  return off == nullptr || *off == '\0' || std::strcmp(off, "0") == 0;
}

}  // namespace

output_file::output_file(std::string name, bool force) : name_(std::move(name)) {
  if (name_ == "-") {
    stream_ = true;
    return;
  }
  if (name_.empty() || name_.back() == '/') throw input_error(fmt::format("'{}' is not a file name", name_));
  struct stat info {};
  const bool is_link = lstat(name_.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
  if (stat(name_.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw input_error(fmt::format("{} is a directory", name_));
    if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
      stream_ = true;  // written in place, never replaced
      return;
    }
    if (!S_ISREG(info.st_mode)) {
      throw input_error(fmt::format("{} is {}; an output can be a regular file, a character device (such as "
                                    "/dev/null), a FIFO, or - for standard output",
                                    name_, file_type_name(info.st_mode)));
    }
    if (!force) throw input_error(fmt::format("{} already exists; pass --force to replace it", name_));
    target_exists_ = true;
    target_ = is_link ? real_path(name_) : name_;
  } else if (is_link) {
    throw input_error(fmt::format("{} is a symbolic link to a file that does not exist; corank does not write "
                                  "through such a link: remove it, or name the file itself",
                                  name_));
  } else if (errno != ENOENT) {
    throw input_error(fmt::format("cannot write {}: {}", name_, std::strerror(errno)));
  } else {
    target_ = name_;
  }
  directory_ = directory_of(target_);
  if (stat(directory_.c_str(), &info) != 0) {
    throw input_error(fmt::format("cannot write {}: the directory {} does not exist", name_, directory_));
  }
  if (!S_ISDIR(info.st_mode)) {
    throw input_error(fmt::format("cannot write {}: {} is not a directory", name_, directory_));
  }

  // Creating the temporary file now is the only sure test that the directory is writable
  // (permissions, ACLs, read-only mounts, running as root all count).
  const mode_t mode = 0666 & ~current_umask();
  if (unnamed_temporaries_allowed()) {
    descriptor_ = open(directory_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    // Naming it later goes through /proc; without /proc, take a named temporary file.
    if (descriptor_ >= 0 && access(descriptor_path(descriptor_).c_str(), F_OK) != 0) {
      close(descriptor_);
      descriptor_ = -1;
    }
  }
  if (descriptor_ < 0) {
    std::string pattern = directory_ + "/." + file_name_of(target_) + ".XXXXXX";
    descriptor_ = mkstemp(pattern.data());
    if (descriptor_ < 0) {
      throw std::runtime_error(
          fmt::format("cannot write {}: cannot create a file in {}: {}", name_, directory_, std::strerror(errno)));
    }
    temporary_ = pattern;
    register_temporary(temporary_);
    fchmod(descriptor_, mode);  // mkstemp's 0600 would make outputs private
  }
  if (target_exists_ && stat(target_.c_str(), &info) == 0) fchmod(descriptor_, info.st_mode & 07777);
  file_ = fdopen(descriptor_, "wb");
  if (file_ == nullptr) throw std::runtime_error(fmt::format("cannot write {}: {}", name_, std::strerror(errno)));
}

output_file::~output_file() {
  if (file_ != nullptr) std::fclose(file_);  // closes descriptor_ too
  else if (descriptor_ >= 0) close(descriptor_);
  if (!temporary_.empty() && !published_) {
    unlink(temporary_.c_str());
    unregister_temporary(temporary_);
  }
}

std::FILE* output_file::file() {
  if (file_ != nullptr || !stream_) return file_;
  descriptor_ = name_ == "-" ? dup(STDOUT_FILENO) : open(name_.c_str(), O_WRONLY | O_CLOEXEC);
  if (descriptor_ < 0 || (file_ = fdopen(descriptor_, "wb")) == nullptr) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", name_, std::strerror(errno)));
  }
  return file_;
}

void output_file::finish_writing() {
  std::FILE* f = file();
  const auto fail = [&](const char* what) {
    throw std::runtime_error(fmt::format("writing {}: {}: {}", name_, what, std::strerror(errno)));
  };
  if (std::fflush(f) != 0) fail("flush");
  if (!stream_) {
    if (fsync(fileno(f)) != 0) fail("fsync");
    return;  // the descriptor stays open: an unnamed temporary file is named through it
  }
  file_ = nullptr;
  descriptor_ = -1;
  if (std::fclose(f) != 0) fail("close");
}

void publish_together(const std::vector<output_file*>& outputs) {
  std::vector<output_file*> files;
  for (output_file* out : outputs) {
    if (out != nullptr && !out->is_stream()) files.push_back(out);
  }
  const signals_held held;
  for (output_file* f : files) {
    f->finish_writing();
    if (f->temporary_.empty()) {
      const std::string source = descriptor_path(f->descriptor_);
      f->temporary_ = make_unique_name(f->target_, "corank", [&](const std::string& name) {
        return linkat(AT_FDCWD, source.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
      });
      register_temporary(f->temporary_);
    }
  }
  // The files being replaced stay reachable until every rename succeeded. A file system
  // without hard links gets no way back.
  for (output_file* f : files) {
    if (!f->target_exists_) continue;
    try {
      f->backup_ = make_unique_name(f->target_, "corank-old", [&](const std::string& name) {
        return link(f->target_.c_str(), name.c_str()) == 0 ? 0 : errno;
      });
    } catch (const std::runtime_error&) {
      f->backup_.clear();
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    output_file& f = *files[i];
    if (std::rename(f.temporary_.c_str(), f.target_.c_str()) == 0) {
      f.published_ = true;
      unregister_temporary(f.temporary_);
      continue;
    }
    // Put back what was replaced so far; the later targets are untouched.
    const int error = errno;
    std::string lost;
    for (std::size_t j = 0; j < files.size(); ++j) {
      output_file& other = *files[j];
      if (j >= i) {
        if (!other.backup_.empty()) unlink(other.backup_.c_str());
        continue;
      }
      const bool restored = !other.backup_.empty() ? std::rename(other.backup_.c_str(), other.target_.c_str()) == 0
                                                   : !other.target_exists_ && unlink(other.target_.c_str()) == 0;
      if (!restored) {
        lost += other.backup_.empty() ? fmt::format("; {} could not be restored", other.name_)
                                      : fmt::format("; {} could not be restored: its old contents are in {}",
                                                    other.name_, other.backup_);
      }
    }
    throw std::runtime_error(fmt::format("cannot write {}: renaming the finished file onto it failed: {}{}", f.name_,
                                         std::strerror(error), lost.empty() ? "; no output was changed" : lost));
  }
  for (output_file* f : files) {
    if (!f->backup_.empty()) unlink(f->backup_.c_str());
    f->backup_.clear();
    // The renames are durable once the directory is synced; a failure here loses nothing.
    const int dir = open(f->directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      fsync(dir);
      close(dir);
    }
  }
}

}  // namespace corank::cli
