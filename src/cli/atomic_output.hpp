#pragma once
// An output file that appears whole or not at all. The data goes to a temporary file in
// the output's directory (same file system, so the final rename is atomic), which is
// flushed, fsync'ed and renamed over the output only when everything succeeded. On an
// error, an exception or SIGINT/SIGTERM/SIGHUP the temporary file is removed, and an
// existing file (with --force) is left as it was.
//
// The constructor checks the output early, before any input is read: an existing file is
// refused unless `force` (input_error), a missing directory is an input_error, and a
// directory where no file can be created (permissions, read-only file system) throws
// std::runtime_error.
//
//   atomic_output out("result.npy", force);
//   write_npy(out.file(), out.path(), keys);
//   out.commit();

#include <cstdio>
#include <string>

namespace corank::cli {

class atomic_output {
 public:
  atomic_output(std::string path, bool force);
  ~atomic_output();
  atomic_output(const atomic_output&) = delete;
  atomic_output& operator=(const atomic_output&) = delete;

  const std::string& path() const { return path_; }
  std::FILE* file() const { return file_; }

  // Flushes and fsyncs the temporary file and closes it: after this only publish() is left.
  void finish_writing();
  // Renames the temporary file onto path() and fsyncs the directory.
  void publish();
  void commit() {
    finish_writing();
    publish();
  }

 private:
  std::string path_;
  std::string directory_;
  std::string temporary_;
  std::FILE* file_ = nullptr;
  int slot_ = -1;  // in the signal handler's list of files to remove
  bool published_ = false;
};

}  // namespace corank::cli
