#include "host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace corank::cli {
namespace {

constexpr std::uint64_t unknown = UINT64_MAX;

// "MemAvailable:  123456 kB" in /proc/meminfo, in bytes.
std::uint64_t meminfo_bytes(const std::string& text, const std::string& key) {
  const auto at = text.find("\n" + key + ":");
  if (at == std::string::npos) return unknown;
  std::istringstream line(text.substr(at + key.size() + 2));
  std::uint64_t kib = 0;
  return line >> kib ? kib * 1024 : unknown;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A number in a file ("max", a missing file or anything else: unknown).
std::uint64_t file_number(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  return in >> value ? value : unknown;
}

std::uint64_t left_under(std::uint64_t limit, std::uint64_t used) {
  if (limit == unknown) return unknown;
  return limit > used ? limit - used : 0;
}

std::uint64_t cgroup_left() {
  // Lines "ID:CONTROLLERS:PATH": cgroup v1's memory controller ("4:memory:/path"; inside a
  // container its directory may be mounted as the root), cgroup v2's group ("0::/path").
  std::istringstream groups(read_text("/proc/self/cgroup"));
  std::uint64_t left = unknown;
  for (std::string line; std::getline(groups, line);) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1) == "/" ? std::string() : line.substr(second + 1);
    if (controllers == "memory") {
      for (const std::string& dir : {"/sys/fs/cgroup/memory" + path, std::string("/sys/fs/cgroup/memory")}) {
        left = std::min(left, left_under(file_number(dir + "/memory.limit_in_bytes"),
                                         file_number(dir + "/memory.usage_in_bytes")));
      }
    } else if (controllers.empty()) {
      const std::string dir = "/sys/fs/cgroup" + path;
      left = std::min(left, left_under(file_number(dir + "/memory.max"), file_number(dir + "/memory.current")));
    }
  }
  return left;
}

std::uint64_t rlimit_left(int resource, std::uint64_t used) {
  struct rlimit limit {};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return unknown;
  return left_under(std::uint64_t(limit.rlim_cur), used);
}

}  // namespace

std::uint64_t available_host_memory() {
  const std::string meminfo = "\n" + read_text("/proc/meminfo");
  std::uint64_t left = meminfo_bytes(meminfo, "MemAvailable");
  const std::uint64_t swap = meminfo_bytes(meminfo, "SwapFree");
  if (left != unknown && swap != unknown) left += swap;
  left = std::min(left, cgroup_left());

  // /proc/self/statm: sizes in pages; the first is the whole mapping, the sixth data + stack.
  std::istringstream statm(read_text("/proc/self/statm"));
  std::uint64_t pages[6] = {};
  for (std::uint64_t& p : pages) statm >> p;
  const std::uint64_t page = std::uint64_t(sysconf(_SC_PAGESIZE));
  left = std::min(left, rlimit_left(RLIMIT_AS, pages[0] * page));
  left = std::min(left, rlimit_left(RLIMIT_DATA, pages[5] * page));
  return left;
}

std::uint64_t available_address_space() {
  std::istringstream statm(read_text("/proc/self/statm"));
  std::uint64_t mapped_pages = 0;
  statm >> mapped_pages;
  return rlimit_left(RLIMIT_AS, mapped_pages * std::uint64_t(sysconf(_SC_PAGESIZE)));
}

}  // namespace corank::cli
