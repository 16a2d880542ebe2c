#pragma once
// Which file a command-line path names, so that two spellings of one file compare equal
// (k.npy and ./k.npy, an absolute path, a symbolic link, a hard link): an existing file by
// its device and inode (links followed), a file yet to be created by its resolved directory
// and name, and "-" by what standard input or output is.

#include <sys/types.h>

#include <string>

namespace corank::cli {

struct file_identity {
  bool exists = false;
  dev_t device = 0;  // when it exists
  ino_t inode = 0;
  mode_t type = 0;             // S_IFREG, S_IFIFO, ... (S_IFMT bits), when it exists
  std::string resolved_path;  // when it does not: the real path of its directory, then its name

  bool is_regular() const;
  friend bool operator==(const file_identity& a, const file_identity& b);
  friend bool operator!=(const file_identity& a, const file_identity& b) { return !(a == b); }
};

// The file `path` names; "-" names `standard_stream` (0 for an input, 1 for an output).
// A path whose directory does not exist gets its path as written, which equals no other.
file_identity identify(const std::string& path, int standard_stream);

// What an open descriptor is.
file_identity identify_descriptor(int fd);

// "a regular file", "a FIFO", "a character device", ... for messages.
const char* file_type_name(mode_t type);

}  // namespace corank::cli
