#pragma once
// What the tests of the `corank` command share: a tiny .npy writer and reader of their own
// (no NumPy, independent of the command's), references (std:: and corank::host), and the
// CliTest fixture that runs the built binary (CORANK_CLI_PATH, set by CMake) in a fresh
// directory, once per device.

#include <corank/comparators.hpp>
#include <corank/host/merge.hpp>
#include <corank/host/set_operations.hpp>

#include "support/gpu.hpp"
#include "support/test_env.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef CORANK_CLI_PATH
#error "CORANK_CLI_PATH must name the corank binary"
#endif

namespace corank::cli_test {

namespace fs = std::filesystem;
using corank::test::make_rng;

// ---------------------------------------------------------------------------------------
// A tiny .npy writer and reader (format 1.0 unless asked), independent of the command's.

template <class T>
std::string descr_of() {
  const char kind = std::is_floating_point_v<T> ? 'f' : std::is_signed_v<T> ? 'i' : 'u';
  return std::string(sizeof(T) == 1 ? "|" : "<") + kind + std::to_string(sizeof(T));
}

template <class T>
const char* name_of() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else return "float64";
}

// Magic, version, header length and dict (padded to 64 bytes, newline-terminated).
inline std::string npy_header(const std::string& dict_body, int major = 1) {
  std::string dict = "{" + dict_body + "}";
  const std::size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += char(major);
  bytes += '\0';
  const std::size_t length = dict.size();
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) bytes += char((length >> (8 * i)) & 0xff);
  return bytes + dict;
}

inline std::string dict_of(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", ";
}

inline void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

template <class T>
std::string raw_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
std::string npy_bytes(const std::vector<T>& v, int major = 1) {
  return npy_header(dict_of(descr_of<T>(), "(" + std::to_string(v.size()) + ",)"), major) + raw_bytes(v);
}

template <class T>
void write_npy(const fs::path& path, const std::vector<T>& v, int major = 1) {
  write_file(path, npy_bytes(v, major));
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A 1-D .npy written by the command, checking its header; `path` names it in messages.
template <class T>
std::vector<T> parse_npy(const std::string& bytes, const std::string& path) {
  EXPECT_GE(bytes.size(), 10u) << path;
  if (bytes.size() < 10) return {};
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const std::size_t length = std::size_t(std::uint8_t(bytes[8])) | (std::size_t(std::uint8_t(bytes[9])) << 8);
  const std::size_t offset = 10 + length;
  EXPECT_EQ(offset % 64, 0u) << "the data should start at a multiple of 64 bytes";
  const std::string dict = bytes.substr(10, length);
  EXPECT_NE(dict.find("'descr': '" + descr_of<T>() + "'"), std::string::npos) << dict;
  EXPECT_NE(dict.find("'fortran_order': False"), std::string::npos) << dict;
  const std::size_t count = (bytes.size() - offset) / sizeof(T);
  EXPECT_NE(dict.find("'shape': (" + std::to_string(count) + ",)"), std::string::npos) << dict;
  EXPECT_EQ((bytes.size() - offset) % sizeof(T), 0u);
  std::vector<T> v(count);
  if (count > 0) std::memcpy(v.data(), bytes.data() + offset, count * sizeof(T));
  return v;
}

template <class T>
std::vector<T> read_npy(const fs::path& path) {
  return parse_npy<T>(read_file(path), path.string());
}

// Bitwise equality: NaN equals NaN.
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& actual, const std::vector<T>& expected) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  }
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (std::memcmp(&actual[i], &expected[i], sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "at " << i << ": " << +actual[i] << ", expected " << +expected[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------
// Running the command.

struct result {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string quoted(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Key orders: NaN last for floats, as the command uses.
template <class T>
using order = std::conditional_t<std::is_floating_point_v<T>, corank::nan_last_less, corank::less>;

template <class T>
std::vector<T> sorted_column(std::mt19937_64& rng, std::size_t n, int distinct, std::size_t nans = 0) {
  std::vector<T> v(n);
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  for (T& x : v) {
    const int k = pick(rng);
    if constexpr (std::is_signed_v<T> && !std::is_floating_point_v<T>) {
      x = T(k - distinct / 2);  // negatives too
    } else if constexpr (std::is_floating_point_v<T>) {
      x = T(k - distinct / 2) * T(0.5);
    } else {
      x = T(k);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    for (std::size_t i = 0; i < nans && i < n; ++i) v[i] = std::numeric_limits<T>::quiet_NaN();
  }
  std::sort(v.begin(), v.end(), order<T>{});
  return v;
}

template <class F>
void for_each_key_type(F&& f) {
  f(std::int8_t{}), f(std::uint8_t{}), f(std::int16_t{}), f(std::uint16_t{}), f(std::int32_t{});
  f(std::uint32_t{}), f(std::int64_t{}), f(std::uint64_t{}), f(float{}), f(double{});
}

inline const char* const operations[] = {"merge", "union", "intersect", "diff", "symdiff"};

// The standard library's answer, by key (values are compared through the pairs).
template <class T, class Compare>
std::vector<T> std_reference(const std::string& op, const std::vector<T>& a, const std::vector<T>& b, Compare comp) {
  std::vector<T> out(a.size() + b.size());
  typename std::vector<T>::iterator end;
  if (op == "merge") end = std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp);
  else if (op == "union") end = std::set_union(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp);
  else if (op == "intersect") end = std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp);
  else if (op == "diff") end = std::set_difference(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp);
  else end = std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), out.begin(), comp);
  out.erase(end, out.end());
  return out;
}

// corank::host's answer, keys only.
template <class T>
std::vector<T> host_reference(const std::string& op, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out(a.size() + b.size() + 1);
  const order<T> comp{};
  T* o = out.data();
  T* end = nullptr;
  if (op == "merge") end = corank::host::merge(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(), o, comp);
  else if (op == "union") end = corank::host::set_union(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(), o, comp);
  else if (op == "intersect") end = corank::host::set_intersection(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(), o, comp);
  else if (op == "diff") end = corank::host::set_difference(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(), o, comp);
  else end = corank::host::set_symmetric_difference(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(), o, comp);
  out.resize(std::size_t(end - o));
  return out;
}

// ---------------------------------------------------------------------------------------
// Streams the tests feed the command through.

// Opens a FIFO for writing once its reader has opened it (or fails after 30 s).
inline int open_fifo_for_writing(const fs::path& fifo) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
      fcntl(fd, F_SETFL, 0);  // blocking writes from now on
      return fd;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

inline bool write_all(int fd, const std::string& bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t wrote = write(fd, bytes.data() + done, bytes.size() - done);
    if (wrote <= 0) return false;
    done += std::size_t(wrote);
  }
  return true;
}

// Waits until `pid` is blocked in read() (its input is a FIFO that has no data yet).
inline bool wait_until_blocked_reading(pid_t pid) {
  const std::string syscall = "/proc/" + std::to_string(pid) + "/syscall";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (read_file(syscall).rfind("0 ", 0) == 0) return true;  // syscall 0 on x86-64 and arm64: read
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

class CliTest : public ::testing::TestWithParam<const char*> {
 public:
  void SetUp() override {
    if (device() == "gpu") corank::test::require_gpu();
    if (IsSkipped()) return;
    std::string pattern = (fs::temp_directory_path() / "corank_cli_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (dir_.empty()) return;
    // Make a directory that a test made unwritable removable again.
    std::error_code ignored;
    for (const auto& entry : fs::recursive_directory_iterator(dir_, ignored)) {
      if (entry.is_directory()) fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    }
    fs::remove_all(dir_, ignored);
  }

  std::string device() const { return GetParam(); }
  fs::path path(const std::string& name) const { return dir_ / name; }
  std::string p(const std::string& name) const { return path(name).string(); }

  // How run() and spawn() start the command.
  struct how {
    bool add_device = true;  // --device D after the subcommand, before any option's values
    std::string shell;       // shell words before the command: "ulimit -v 100000;", "VAR=1"
    std::string input;       // a file for standard input
    bool as_user = false;    // as the unprivileged user 65534, when the tests run as root
  };

  // Runs `corank ARGS --device D`; stdout and stderr go to files in a separate directory
  // (so that listing dir_ sees only what the command wrote).
  result run(const std::vector<std::string>& args, bool add_device = true) const {
    how h;
    h.add_device = add_device;
    return run(args, h);
  }
  result run(const std::vector<std::string>& args, const how& h) const { return wait_for(spawn(args, h)); }

  // Starts the command and returns its process id, for wait_for().
  pid_t spawn(const std::vector<std::string>& args, const how& h) const {
    std::string command = h.shell + " exec ";
    if (h.as_user && geteuid() == 0) command += "setpriv --reuid=65534 --regid=65534 --clear-groups -- ";
    command += quoted(CORANK_CLI_PATH);
    for (std::size_t i = 0; i < args.size(); ++i) {
      command += " " + quoted(args[i]);
      if (i == 0 && h.add_device) command += " --device " + device();
    }
    command += " >" + quoted(stdout_path()) + " 2>" + quoted(stderr_path());
    if (!h.input.empty()) command += " <" + quoted(h.input);
    const pid_t pid = fork();
    if (pid == 0) {
      std::signal(SIGPIPE, SIG_DFL);  // the tests may ignore it; the command must not inherit that
      execl("/bin/bash", "bash", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }

  // Waits for a spawned command: its exit status (128 + the signal that ended it) and output.
  result wait_for(pid_t pid) const {
    int raw = 0;
    result r;
    if (pid <= 0 || waitpid(pid, &raw, 0) != pid) return r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = read_file(stdout_path());
    r.err = read_file(stderr_path());
    fs::remove(stdout_path());
    fs::remove(stderr_path());
    return r;
  }

  // The users a data-loss test runs as: this one, and the unprivileged one when this is root
  // (root may replace what a user may not).
  static std::vector<bool> users() {
    if (geteuid() != 0 || std::system("command -v setpriv >/dev/null 2>&1") != 0) return {false};
    return {false, true};
  }
  // Lets the unprivileged user work in the test directory.
  void open_directory_to_all() const { fs::permissions(dir_, fs::perms::all); }

  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // The command failed with `status`, said `message` on stderr, and left the directory as
  // it found it (no output, no temporary file).
  void expect_failure(const std::vector<std::string>& args, int status, const std::string& message) {
    const std::vector<std::string> before = files();
    const result r = run(args);
    EXPECT_EQ(r.status, status) << "stderr: " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "expected '" << message << "' in stderr: " << r.err;
    EXPECT_EQ(files(), before) << "the command left files behind; stderr: " << r.err;
  }

  // Runs every operation on (a, b) of type T and compares with std:: and corank::host.
  template <class T>
  void check_all_operations(const std::vector<T>& a, const std::vector<T>& b, const std::string& what) {
    write_npy(path("a.npy"), a);
    write_npy(path("b.npy"), b);
    for (const char* op : operations) {
      SCOPED_TRACE(std::string(op) + " " + name_of<T>() + " " + what);
      fs::remove(path("out.npy"));
      const result r = run({op, p("a.npy"), p("b.npy"), "-o", p("out.npy")});
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_TRUE(r.err.empty()) << r.err;
      EXPECT_NE(r.out.find("GB/s"), std::string::npos) << r.out;
      const std::vector<T> got = read_npy<T>(path("out.npy"));
      EXPECT_TRUE(same_bits(got, std_reference(op, a, b, order<T>{})));
      EXPECT_TRUE(same_bits(got, host_reference(op, a, b)));

      const result c = run({op, p("a.npy"), p("b.npy"), "--count"});
      ASSERT_EQ(c.status, 0) << c.err;
      EXPECT_EQ(c.out, std::to_string(got.size()) + "\n") << "--count prints only the size";
    }
  }

  std::string stdout_path() const { return dir_.string() + ".stdout"; }
  std::string stderr_path() const { return dir_.string() + ".stderr"; }

  fs::path dir_;
};


// Takes all but about `keep` bytes of the GPU's free memory, in blocks, so that a command
// started next finds too little; gives it back when it goes.
class gpu_memory_hold {
 public:
  explicit gpu_memory_hold(std::size_t keep) {
    std::size_t free_bytes = 0, total_bytes = 0;
    for (std::size_t chunk = std::size_t(1) << 30; chunk >= (std::size_t(16) << 20);) {
      if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess || free_bytes < keep + chunk) {
        chunk /= 2;
        continue;
      }
      void* block = nullptr;
      if (cudaMalloc(&block, chunk) != cudaSuccess) {
        cudaGetLastError();
        chunk /= 2;
        continue;
      }
      held_.push_back(block);
    }
  }
  ~gpu_memory_hold() {
    for (void* block : held_) cudaFree(block);
  }
  gpu_memory_hold(const gpu_memory_hold&) = delete;
  gpu_memory_hold& operator=(const gpu_memory_hold&) = delete;

 private:
  std::vector<void*> held_;
};

// Runs `corank ARGS 2>&1`: the exit status, and what it printed.
inline std::pair<int, std::string> run_cli(const std::string& args) {
  const std::string command = quoted(CORANK_CLI_PATH) + " " + args + " 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string output;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, got);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, output};
}

}  // namespace corank::cli_test
