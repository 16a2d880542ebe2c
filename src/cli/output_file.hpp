#pragma once
// An output of a command, safe to name anything:
// - a regular file (new, or existing with --force) appears whole or not at all. The data
//   goes to an unnamed temporary file in the target's directory (Linux O_TMPFILE), which no
//   crash, kill or out-of-memory end can leave behind; publish_together() names it and
//   renames it over the target. Where O_TMPFILE is missing, a named temporary file
//   (".NAME.XXXXXX") is used and removed on errors and on the signals that end the program.
// - a stream (standard output as "-", a FIFO, a character device such as /dev/null) is
//   written directly and never replaced.
// - a directory, socket or block device, and a symbolic link to nothing, are refused.
// A symbolic link to a file is followed: the file it points to is replaced, the link stays.
//
// The constructor checks the target before any input is read: an existing regular file is
// refused without `force` (input_error), and a directory where no file can be created
// throws std::runtime_error.
//
//   output_file out("result.npy", force);
//   write_npy(out.file(), out.name(), keys);
//   publish_together({&out});

#include "file_identity.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace corank::cli {

class output_file {
 public:
  output_file(std::string name, bool force);
  ~output_file();
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  // As given on the command line.
  const std::string& name() const { return name_; }
  bool is_stream() const { return stream_; }
  // Where the data goes; a stream is opened on first use (a FIFO's open waits for a reader).
  std::FILE* file();
  // Flushes the data (and syncs it to disk, for a regular file).
  void finish_writing();

 private:
  friend void publish_together(const std::vector<output_file*>& outputs);

  std::string name_;
  bool stream_ = false;
  std::string target_;     // the regular file to replace: name_, or where its symbolic link points
  std::string directory_;  // target_'s
  bool target_exists_ = false;
  int descriptor_ = -1;    // the temporary file, or the opened stream
  std::FILE* file_ = nullptr;
  std::string temporary_;  // a named temporary file (no O_TMPFILE), or the unnamed one once named
  std::string backup_;     // publish_together's hard link to the replaced file
  bool published_ = false;
};

// Names every regular output's data at its target, all or none: each temporary file is
// named beside its target, each existing target is kept under a hard link, and then each
// is renamed over its target; if a rename fails, the targets already replaced are put back
// (or removed, if they were new) before the error is thrown. Signals wait meanwhile. Only a
// crash in the microseconds between two renames, or a file system without hard links, can
// leave some outputs new and others old. Streams (and null entries) are skipped: the
// caller finishes them first.
void publish_together(const std::vector<output_file*>& outputs);

}  // namespace corank::cli
