#include "file_identity.hpp"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <memory>

namespace corank::cli {
namespace {

file_identity from_stat(const struct stat& info) {
  file_identity id;
  id.exists = true;
  id.device = info.st_dev;
  id.inode = info.st_ino;
  id.type = info.st_mode & S_IFMT;
  return id;
}

std::string real_path(const std::string& path) {
  const std::unique_ptr<char, decltype(&std::free)> resolved(realpath(path.c_str(), nullptr), &std::free);
  return resolved ? std::string(resolved.get()) : std::string();
}

}  // namespace

bool file_identity::is_regular() const { return exists && type == S_IFREG; }

bool operator==(const file_identity& a, const file_identity& b) {
  if (a.exists != b.exists) return false;
  if (a.exists) return a.device == b.device && a.inode == b.inode;
  return a.resolved_path == b.resolved_path;
}

file_identity identify_descriptor(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0) return {};
  return from_stat(info);
}

file_identity identify(const std::string& path, int standard_stream) {
  if (path == "-") return identify_descriptor(standard_stream);
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) return from_stat(info);
  file_identity id;
  const auto slash = path.find_last_of('/');
  const std::string directory = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string directory_resolved = real_path(directory);
  id.resolved_path = directory_resolved.empty() ? path : directory_resolved + "/" + path.substr(slash + 1);
  return id;
}

const char* file_type_name(mode_t type) {
  switch (type & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO (named pipe)";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "a special file";
  }
}

}  // namespace corank::cli
