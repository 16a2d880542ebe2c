// The `corank` command never loses data: outputs are compared by identity, not spelling;
// streams and devices are written, never replaced; options are parsed strictly; inputs
// are read once; headers are bounded; no temporary file outlives the command, whatever
// ends it; host memory is checked first; keys and values are published together. And the
// smaller promises of its front door (--version, help, the demo's figures).
//
// The data-loss tests also run as the unprivileged user 65534 when the tests run as root
// (root may replace what a user may not). They run on the CPU backend: the file handling
// is the same for both devices. Unsorted input with --no-check runs on both backends (the
// kernels differ): an output within the operation's bound, or a refusal in one sentence
// that leaves the outputs as they were; never a crash.

#include "cli/cli_support.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace {

using namespace corank::cli_test;
using std::int32_t;
using std::int64_t;

// A process's virtual memory size in bytes (VmSize in /proc/PID/status).
std::uint64_t virtual_memory(pid_t pid) {
  const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("VmSize:");
  return at == std::string::npos ? 0 : std::stoull(status.substr(at + 7)) * 1024;
}

bool is_type(const fs::path& p, mode_t type) {
  struct stat info {};
  return lstat(p.c_str(), &info) == 0 && (info.st_mode & S_IFMT) == type;
}

class CliSafety : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    std::signal(SIGPIPE, SIG_IGN);  // writing to a FIFO whose reader is gone: EPIPE, not death
    ASSERT_EQ(mkfifo(path("b.fifo").c_str(), 0666), 0);
    write_npy(path("a.npy"), a_);
    write_npy(path("b.npy"), b_);
    write_npy(path("va.npy"), va_);
    write_npy(path("vb.npy"), vb_);
  }

  // The merge of a_ and b_, keys and values.
  const std::vector<int32_t> a_{1, 2, 2, 7}, b_{0, 2, 9};
  const std::vector<int64_t> va_{10, 20, 21, 70}, vb_{100, 120, 190};
  const std::vector<int32_t> merged_{0, 1, 2, 2, 2, 7, 9};
  const std::vector<int64_t> merged_values_{100, 10, 20, 21, 120, 70, 190};

  static how as(bool user) {
    how h;
    h.as_user = user;
    return h;
  }

  // Runs the command with B read from the FIFO b.fifo: once it has read B's header and
  // waits for B's data, `meanwhile(pid)` runs; then the data follows and the command ends.
  result run_paused(const std::vector<std::string>& args, const how& h, const std::function<void(pid_t)>& meanwhile) {
    const std::string bytes = npy_bytes(b_);
    const std::size_t header = bytes.size() - b_.size() * sizeof(int32_t);
    const pid_t pid = spawn(args, h);
    const int fd = open_fifo_for_writing(path("b.fifo"));
    EXPECT_GE(fd, 0) << "the command never opened b.fifo";
    EXPECT_TRUE(write_all(fd, bytes.substr(0, header)));
    EXPECT_TRUE(wait_until_blocked_reading(pid)) << "the command never waited for B's data";
    meanwhile(pid);
    write_all(fd, bytes.substr(header));  // fails (EPIPE) if the command is gone: fine
    close(fd);
    return wait_for(pid);
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliSafety, ::testing::Values("cpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// ---------------------------------------------------------------------------------------
// 1. Files compared by identity

TEST_P(CliSafety, TwoOutputsThatAreOneFileAreRefusedBeforeAnythingIsRead) {
  open_directory_to_all();
  fs::create_directory(path("sub"));
  fs::permissions(path("sub"), fs::perms::all);
  for (const bool user : users()) {
    SCOPED_TRACE(user ? "as user 65534" : "as this user");
    // New files, two spellings; B does not exist, so reading anything would fail otherwise.
    for (const std::string& other : {p("./k.npy"), p("sub/../k.npy")}) {
      const std::vector<std::string> args = {"merge", p("a.npy"), p("missing.npy"), "--values", p("va.npy"),
                                             p("vb.npy"), "-o", p("k.npy"), "--values-out", other};
      const std::vector<std::string> before = files();
      const result r = run(args, as(user));
      EXPECT_EQ(r.status, 2) << r.err;
      EXPECT_NE(r.err.find("-o " + p("k.npy") + " and --values-out " + other + " are the same file"),
                std::string::npos) << r.err;
      EXPECT_EQ(files(), before);
    }
    // Existing files (with --force): a symbolic link and a hard link to the keys' file.
    write_file(path("k.npy"), "old keys");
    fs::permissions(path("k.npy"), fs::perms::all);
    fs::create_symlink(path("k.npy"), path("soft.npy"));
    fs::create_hard_link(path("k.npy"), path("hard.npy"));
    for (const std::string& other : {p("soft.npy"), p("hard.npy")}) {
      const result r = run({"merge", p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), "-o",
                            p("k.npy"), "--values-out", other, "--force"},
                           as(user));
      EXPECT_EQ(r.status, 2) << r.err;
      EXPECT_NE(r.err.find("are the same file"), std::string::npos) << r.err;
      EXPECT_EQ(read_file(path("k.npy")), "old keys");
    }
    for (const char* name : {"k.npy", "soft.npy", "hard.npy"}) fs::remove(path(name));
  }
}

TEST_P(CliSafety, AnOutputThatIsAnInputIsReplacedOnlyWithForceAndAfterReading) {
  open_directory_to_all();
  for (const bool user : users()) {
    SCOPED_TRACE(user ? "as user 65534" : "as this user");
    for (const std::string spelling : {"a.npy", "./a.npy", "soft.npy", "hard.npy"}) {
      SCOPED_TRACE(spelling);
      write_npy(path("a.npy"), a_);
      write_npy(path("va.npy"), va_);
      fs::permissions(path("a.npy"), fs::perms::all);
      fs::permissions(path("va.npy"), fs::perms::all);
      fs::remove(path("soft.npy"));
      fs::remove(path("hard.npy"));
      fs::create_symlink(path("a.npy"), path("soft.npy"));
      fs::create_hard_link(path("a.npy"), path("hard.npy"));
      const std::vector<std::string> args = {"merge", p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"),
                                             "-o", p(spelling), "--values-out", p("va.npy")};
      const result refused = run(args, as(user));
      EXPECT_EQ(refused.status, 2) << refused.err;
      EXPECT_NE(refused.err.find("-o " + p(spelling) + " is also input A (" + p("a.npy") +
                                 "); pass --force to replace it once it has been read"),
                std::string::npos)
          << refused.err;
      EXPECT_EQ(read_npy<int32_t>(path("a.npy")), a_);

      std::vector<std::string> forced = args;
      forced.push_back("--force");
      const result r = run(forced, as(user));
      ASSERT_EQ(r.status, 0) << r.err;
      // The file the spelling names now holds the merge of what it held before.
      const fs::path replaced = spelling == "hard.npy" ? path("hard.npy") : path("a.npy");
      EXPECT_EQ(read_npy<int32_t>(replaced), merged_);
      EXPECT_EQ(read_npy<int64_t>(path("va.npy")), merged_values_);
      EXPECT_TRUE(spelling != "soft.npy" || is_type(path("soft.npy"), S_IFLNK)) << "the link stays a link";
    }
  }
}

TEST_P(CliSafety, ADanglingSymbolicLinkIsNeverWrittenThrough) {
  fs::create_symlink(path("nowhere/target.npy"), path("dangling.npy"));
  for (const bool force : {false, true}) {
    std::vector<std::string> args = {"union", p("a.npy"), p("b.npy"), "-o", p("dangling.npy")};
    if (force) args.push_back("--force");
    expect_failure(args, 2, p("dangling.npy") + " is a symbolic link to a file that does not exist");
    EXPECT_TRUE(is_type(path("dangling.npy"), S_IFLNK));
  }
}

// ---------------------------------------------------------------------------------------
// 2. Streams and devices are written, never replaced

TEST_P(CliSafety, CharacterDevicesAndFifosAreWrittenInPlace) {
  open_directory_to_all();
  for (const bool user : users()) {
    SCOPED_TRACE(user ? "as user 65534" : "as this user");
    // Root may replace /dev/null, so root writes to a null device of its own.
    std::string null_device = "/dev/null";
    if (geteuid() == 0 && !user) {
      ASSERT_EQ(mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
      null_device = p("null");
    }
    for (const bool force : {false, true}) {
      std::vector<std::string> args = {"merge", p("a.npy"), p("b.npy"), "-o", null_device};
      if (force) args.push_back("--force");
      const result r = run(args, as(user));
      EXPECT_EQ(r.status, 0) << r.err;
      EXPECT_TRUE(is_type(null_device, S_IFCHR)) << null_device << " is no longer a character device";
    }
    fs::remove(path("null"));

    // A FIFO: its reader gets the .npy, and it stays a FIFO.
    ASSERT_EQ(mkfifo(path("out.fifo").c_str(), 0666), 0);
    fs::permissions(path("out.fifo"), fs::perms::all);  // past the umask, for the other user
    std::string received;
    std::thread reader([&] {
      std::ifstream in(path("out.fifo"), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      received = s.str();
    });
    const result r = run({"merge", p("a.npy"), p("b.npy"), "-o", p("out.fifo")}, as(user));
    if (r.status != 0) close(open(path("out.fifo").c_str(), O_WRONLY | O_NONBLOCK));  // frees a waiting reader
    reader.join();
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(parse_npy<int32_t>(received, "out.fifo"), merged_);
    EXPECT_TRUE(is_type(path("out.fifo"), S_IFIFO));
    fs::remove(path("out.fifo"));
  }
}

TEST_P(CliSafety, DashIsStandardOutputAndTheReportMovesToStderr) {
  const result r = run({"merge", p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), "-o", "-",
                        "--values-out", p("v.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_npy<int32_t>(r.out, "stdout"), merged_);
  EXPECT_EQ(read_npy<int64_t>(path("v.npy")), merged_values_);
  EXPECT_NE(r.err.find("GB/s"), std::string::npos) << r.err;
}

TEST_P(CliSafety, DirectoriesAndSocketsAreRefused) {
  fs::create_directory(path("dir.npy"));
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", p("dir.npy"), "--force"}, 2, p("dir.npy") + " is a directory");
  const int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = p("sock.npy");
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  expect_failure({"union", p("a.npy"), p("b.npy"), "-o", socket_path, "--force"}, 2,
                 socket_path + " is a socket; an output can be a regular file");
  EXPECT_TRUE(is_type(socket_path, S_IFSOCK));
  close(s);
}

// ---------------------------------------------------------------------------------------
// 3. Options

TEST_P(CliSafety, OptionsTakeValuesAfterEqualsFlagsDoNotAndUnknownOnesAreListed) {
  write_file(path("out.npy"), "keep me");
  expect_failure({"merge", p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--force=no"}, 2,
                 "--force takes no value (got '--force=no')");
  EXPECT_EQ(read_file(path("out.npy")), "keep me");
  expect_failure({"merge", p("a.npy"), p("b.npy"), "--count=yes"}, 2, "--count takes no value");
  expect_failure({"merge", p("a.npy"), p("b.npy"), "-o", p("new.npy"), "--forse"}, 2,
                 "unknown option '--forse'; the options are -o/--output, --values, --values-out, --segments, "
                 "--segments-out, --count, --device, --threads, --gpu-memory, --no-check, --force, -h/--help");

  const result r = run({"merge", p("a.npy"), p("b.npy"), "--output=" + p("new.npy"), "--device=cpu"}, false);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int32_t>(path("new.npy")), merged_);
}

TEST_P(CliSafety, DoubleDashEndsTheOptions) {
  write_npy(path("-b.npy"), b_);
  how h;
  h.shell = "cd " + quoted(dir_.string()) + " &&";
  const result unknown = run({"merge", "a.npy", "-b.npy", "-o", "out.npy"}, h);
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown option '-b.npy'"), std::string::npos) << unknown.err;
  const result r = run({"merge", "-o", "out.npy", "--", "a.npy", "-b.npy"}, h);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy<int32_t>(path("out.npy")), merged_);
}

// ---------------------------------------------------------------------------------------
// 4. Inputs read once: pipes, FIFOs, standard input

TEST_P(CliSafety, PipesFifosAndStandardInputAreReadOnce) {
  // A FIFO.
  const result fifo = run_paused({"merge", p("a.npy"), p("b.fifo"), "-o", p("fifo.npy")}, {}, [](pid_t) {});
  ASSERT_EQ(fifo.status, 0) << fifo.err;
  EXPECT_EQ(read_npy<int32_t>(path("fifo.npy")), merged_);
  // "-", and a path to a pipe (as a process substitution gives: /dev/fd/63).
  how from_file;
  from_file.input = p("b.npy");
  const result dash = run({"merge", p("a.npy"), "-", "-o", p("dash.npy")}, from_file);
  ASSERT_EQ(dash.status, 0) << dash.err;
  EXPECT_EQ(read_npy<int32_t>(path("dash.npy")), merged_);
  how piped;
  piped.shell = "cat " + quoted(p("b.npy")) + " |";
  const result pipe = run({"merge", p("a.npy"), "/dev/stdin", "-o", p("pipe.npy")}, piped);
  ASSERT_EQ(pipe.status, 0) << pipe.err;
  EXPECT_EQ(read_npy<int32_t>(path("pipe.npy")), merged_);

  const std::vector<std::string> before = files();
  const result twice = run({"merge", "-", "-", "-o", p("twice.npy")}, from_file);
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("inputs A and B are both standard input, which can be read only once"),
            std::string::npos) << twice.err;
  EXPECT_EQ(files(), before);
}

TEST_P(CliSafety, AStreamThatSendsLessOrMoreThanItsHeaderSaysWritesNothing) {
  const std::string full = npy_bytes(b_);
  // Less: the header says 3 elements, 2 follow.
  write_file(path("short.bin"), full.substr(0, full.size() - 4));
  // More: two arrays back to back, as a stream crafted for a reader that opens it twice.
  write_file(path("long.bin"), full + npy_bytes(std::vector<int32_t>{5, 6}));
  for (const auto& [name, message] : {std::pair<std::string, std::string>{"short.bin", "the stream ends first"},
                                      {"long.bin", "more bytes follow the 3 int32 elements its header announces"}}) {
    SCOPED_TRACE(name);
    how piped;
    piped.shell = "cat " + quoted(p(name)) + " |";
    const std::vector<std::string> before = files();
    const result r = run({"union", p("a.npy"), "/dev/stdin", "-o", p("out.npy")}, piped);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(files(), before);
  }
  // A regular file with bytes after its data.
  write_file(path("long.npy"), full + "garbage");
  expect_failure({"union", p("a.npy"), p("long.npy"), "-o", p("out.npy")}, 2,
                 "long.npy: 7 bytes follow the 3 int32 elements its header announces");
}

// ---------------------------------------------------------------------------------------
// 5. Headers are bounded; memory follows the data a stream sends

TEST_P(CliSafety, AHugeHeaderIsRefusedBeforeItIsRead) {
  // A v2.0 header announcing a dict of 4 GB, sent through a pipe (its length is unknown).
  std::string huge = std::string("\x93NUMPY\x02\x00", 8) + std::string("\x00\xf0\xff\xff", 4) + "{'descr': '<i4'";
  write_file(path("huge.bin"), huge);
  how piped;
  piped.shell = "cat " + quoted(p("huge.bin")) + " |";
  const result r = run({"union", p("a.npy"), "/dev/stdin", "-o", p("out.npy")}, piped);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("its .npy header says it is 4294963200 bytes long; more than 10000 is refused"),
            std::string::npos) << r.err;
  // The shape must be a tuple, as numpy requires.
  write_file(path("bare.npy"), npy_header(dict_of("<i4", "(3)")) + std::string(12, '\0'));
  expect_failure({"union", p("a.npy"), p("bare.npy"), "-o", p("out.npy")}, 2,
                 "the shape is not a tuple: a 1-D shape is written (N,)");
}

TEST_P(CliSafety, AStreamAnnouncingGigabytesGetsMemoryOnlyForWhatItSends) {
  // B announces 2^28 int32 (1 GiB) and sends 100 bytes.
  mkfifo(path("big.fifo").c_str(), 0666);
  const pid_t pid = spawn({"intersect", p("a.npy"), p("big.fifo"), "-o", p("out.npy")}, {});
  const int fd = open_fifo_for_writing(path("big.fifo"));
  ASSERT_GE(fd, 0);
  write_all(fd, npy_header(dict_of("<i4", "(268435456,)")) + std::string(100, '\0'));
  EXPECT_TRUE(wait_until_blocked_reading(pid));
  const std::uint64_t vm = virtual_memory(pid);
  EXPECT_LT(vm, std::uint64_t(512) << 20) << "the command reserved " << vm << " bytes for 100 that arrived";
  close(fd);
  const result r = wait_for(pid);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("truncated: the header says 268435456 int32 elements"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("out.npy")));
}

// ---------------------------------------------------------------------------------------
// 6. No temporary file outlives the command

TEST_P(CliSafety, NoSignalOrKillLeavesATemporaryFileOrTouchesTheOutput) {
  open_directory_to_all();
  for (const bool user : users()) {
    for (const bool named_temporaries : {false, true}) {
      for (const int sig : {SIGKILL, SIGQUIT, SIGPIPE, SIGXFSZ, SIGTERM, SIGINT, SIGHUP}) {
        if (named_temporaries && sig == SIGKILL) continue;  // only O_TMPFILE survives SIGKILL
        SCOPED_TRACE(std::string(user ? "as user 65534, " : "") +
                     (named_temporaries ? "named temporaries, " : "") + "signal " + std::to_string(sig));
        write_file(path("out.npy"), "old contents");
        fs::permissions(path("out.npy"), fs::perms::all);
        const std::vector<std::string> before = files();
        how h = as(user);
        if (named_temporaries) h.shell = "export CORANK_CLI_NO_TMPFILE=1;";
        const result r = run_paused({"merge", p("a.npy"), p("b.fifo"), "-o", p("out.npy"), "--force"}, h,
                                    [&](pid_t pid) { kill(pid, sig); });
        EXPECT_EQ(r.status, 128 + sig) << r.err;
        EXPECT_EQ(files(), before) << "a temporary file was left behind";
        EXPECT_EQ(read_file(path("out.npy")), "old contents");
      }
    }
  }
}

TEST_P(CliSafety, AFileSizeLimitEndsTheCommandWithoutATrace) {
  std::mt19937_64 rng = make_rng();
  write_npy(path("big.npy"), sorted_column<int64_t>(rng, 100000, 1000));
  for (const char* mode : {"", "export CORANK_CLI_NO_TMPFILE=1;"}) {
    how h;
    h.shell = std::string(mode) + " ulimit -f 64;";  // 64 KiB: the output is 800 kB
    const std::vector<std::string> before = files();
    const result r = run({"merge", p("big.npy"), p("big.npy"), "-o", p("out.npy")}, h);
    EXPECT_EQ(r.status, 128 + SIGXFSZ) << r.err;
    EXPECT_EQ(files(), before);
  }
}

// ---------------------------------------------------------------------------------------
// 7. Host memory

TEST_P(CliSafety, NotEnoughHostMemoryIsRefusedUpFrontWithTheFigures) {
  std::vector<int32_t> big(std::size_t(24) << 20);  // 96 MiB per input
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = int32_t(i);
  write_npy(path("big.npy"), big);
  big = {};
  how h;
  h.shell = "ulimit -v 250000;";  // 244 MiB of address space; the job needs 384 MiB besides the program
  const std::vector<std::string> before = files();
  const result r = run({"merge", p("big.npy"), p("big.npy"), "-o", p("out.npy")}, h);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("not enough host memory: the inputs (0.19 GiB) and the output (up to 0.19 GiB) need "
                       "0.38 GiB in RAM, and "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("free memory, or use smaller inputs"), std::string::npos) << r.err;
  EXPECT_EQ(files(), before);
}

// ---------------------------------------------------------------------------------------
// 8. Keys and values are published together

TEST_P(CliSafety, KeysAreNotPublishedWhenTheirValuesCannotBe) {
  open_directory_to_all();
  for (const bool user : users()) {
    for (const bool keys_existed : {false, true}) {
      SCOPED_TRACE(std::string(user ? "as user 65534, " : "") + (keys_existed ? "keys existed" : "new keys"));
      fs::remove(path("out.npy"));
      if (keys_existed) {
        write_file(path("out.npy"), "old keys");
        fs::permissions(path("out.npy"), fs::perms::all);
      }
      const std::vector<std::string> before = files();
      // Once the command has checked its outputs, the values' name becomes a directory, so
      // their rename fails after the keys' succeeded.
      const result r = run_paused({"merge", p("a.npy"), p("b.fifo"), "--values", p("va.npy"), p("vb.npy"), "-o",
                                   p("out.npy"), "--values-out", p("vout.npy"), "--force"},
                                  as(user), [&](pid_t) { fs::create_directory(path("vout.npy")); });
      EXPECT_EQ(r.status, 1) << r.err;
      EXPECT_NE(r.err.find("cannot write " + p("vout.npy")), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("no output was changed"), std::string::npos) << r.err;
      if (keys_existed) EXPECT_EQ(read_file(path("out.npy")), "old keys");
      else EXPECT_FALSE(fs::exists(path("out.npy")));
      fs::remove(path("vout.npy"));
      EXPECT_EQ(files(), before) << "a temporary or backup file was left behind";
    }
  }
}

// ---------------------------------------------------------------------------------------
// 9. Unsorted input with --no-check: within bounds or refused, never a crash

// Columns of m + n = 270,000 keys (4 threads on the CPU backend, many tiles on the GPU),
// unsorted in the ways a column goes wrong. The command may exit 0 with an output within the
// operation's bound (a merge: exactly m + n), or exit 2 with one sentence naming both files
// and every output as it was; a crash, another status or a partial file fails.
class CliUncheckedUnsorted : public CliTest {
 protected:
  static constexpr std::size_t m = 150000, n = 120000;

  static std::size_t bound_of(const std::string& op, std::size_t size_a, std::size_t size_b) {
    if (op == "intersect") return std::min(size_a, size_b);
    if (op == "diff") return size_a;
    return size_a + size_b;
  }

  std::string refusal(const std::string& op, const std::string& which = "") const {
    const std::string files = which.empty() ? p("a.npy") + " or " + p("b.npy") : which;
    return "corank " + op + ": " + files + " is not sorted (found while partitioning the unchecked inputs); run " +
           "without --no-check to find where\n";
  }

  // Runs `args` (outputs: keys `out`, optionally values `values_out`, whatever they held before)
  // and checks the outcome as above; returns the keys written, or none.
  template <class K>
  std::vector<K> expect_bounded_or_refused(const std::vector<std::string>& args, const std::string& op,
                                           std::size_t bound, const std::string& out,
                                           const std::string& values_out = "", const std::string& message = "") {
    const std::vector<std::string> before = files();
    const bool existed = fs::exists(path(out));
    const std::string old = existed ? read_file(path(out)) : "";
    const result r = run(args);
    EXPECT_TRUE(r.status == 0 || r.status == 2) << "status " << r.status << ", stderr: " << r.err;
    if (r.status != 0) {
      EXPECT_EQ(r.err, message.empty() ? refusal(op) : message);
      EXPECT_EQ(files(), before) << "a refusal left a file behind or removed one";
      if (existed) EXPECT_EQ(read_file(path(out)), old) << "a refusal changed the existing output";
      return {};
    }
    const std::vector<K> keys = read_npy<K>(path(out));
    if (op == "merge") EXPECT_EQ(keys.size(), bound) << "a merge writes every key";
    EXPECT_LE(keys.size(), bound);
    if (!values_out.empty()) EXPECT_EQ(read_npy<int32_t>(path(values_out)).size(), keys.size());
    return keys;
  }

  template <class K>
  void check_every_operation(const std::vector<K>& a, const std::vector<K>& b, const std::string& what) {
    std::vector<int32_t> va(a.size()), vb(b.size());
    for (std::size_t i = 0; i < va.size(); ++i) va[i] = int32_t(i);
    for (std::size_t j = 0; j < vb.size(); ++j) vb[j] = -int32_t(j);
    write_npy(path("a.npy"), a);
    write_npy(path("b.npy"), b);
    write_npy(path("va.npy"), va);
    write_npy(path("vb.npy"), vb);
    for (const std::string op : operations) {
      SCOPED_TRACE(op + ", " + what);
      const std::size_t bound = bound_of(op, a.size(), b.size());
      // Keys over an existing file, on 4 threads: a refusal keeps its contents.
      write_file(path("out.npy"), "old contents");
      expect_bounded_or_refused<K>({op, p("a.npy"), p("b.npy"), "-o", p("out.npy"), "--no-check", "--force",
                                    "--threads", "4"},
                                   op, bound, "out.npy");
      // Keys and values to new files, on every hardware thread: a refusal creates neither.
      fs::remove(path("out.npy"));
      fs::remove(path("vout.npy"));
      expect_bounded_or_refused<K>({op, p("a.npy"), p("b.npy"), "--values", p("va.npy"), p("vb.npy"), "-o",
                                    p("out.npy"), "--values-out", p("vout.npy"), "--no-check"},
                                   op, bound, "out.npy", "vout.npy");
      // Streamed in chunks of a 256 KiB budget, to a new file.
      fs::remove(path("s.npy"));
      expect_bounded_or_refused<K>({op, p("a.npy"), p("b.npy"), "-o", p("s.npy"), "--gpu-memory", "256k",
                                    "--no-check", "--threads", "4"},
                                   op, bound, "s.npy");
      // Streamed to standard output, whose header goes first with the size counted first:
      // the data that follows must match it.
      const result piped = run({op, p("a.npy"), p("b.npy"), "-o", "-", "--gpu-memory", "256k", "--no-check"});
      EXPECT_TRUE(piped.status == 0 || piped.status == 2) << "status " << piped.status << ": " << piped.err;
      if (piped.status == 0) {
        EXPECT_LE(parse_npy<K>(piped.out, "standard output").size(), bound);
      } else {
        EXPECT_EQ(piped.err, refusal(op));
      }
      // Only the size.
      const result count = run({op, p("a.npy"), p("b.npy"), "--count", "--no-check", "--threads", "4"});
      EXPECT_TRUE(count.status == 0 || count.status == 2) << "status " << count.status << ": " << count.err;
      if (count.status == 0) {
        EXPECT_LE(std::stoull(count.out), bound) << count.out;
      } else {
        EXPECT_EQ(count.err, refusal(op));
      }
    }
  }
};

INSTANTIATE_TEST_SUITE_P(Device, CliUncheckedUnsorted, ::testing::Values("cpu", "gpu"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

std::vector<int64_t> random_keys(std::mt19937_64& rng, std::size_t size, int64_t distinct) {
  std::uniform_int_distribution<int64_t> pick(0, distinct - 1);
  std::vector<int64_t> v(size);
  for (int64_t& x : v) x = pick(rng);
  return v;
}

TEST_P(CliUncheckedUnsorted, RandomKeys) {
  std::mt19937_64 rng = make_rng();
  check_every_operation(random_keys(rng, m, 1 << 20), random_keys(rng, n, 1 << 20), "random");
}

TEST_P(CliUncheckedUnsorted, DescendingKeys) {
  std::mt19937_64 rng = make_rng();
  std::vector<int64_t> a = sorted_column<int64_t>(rng, m, 1 << 20), b = sorted_column<int64_t>(rng, n, 1 << 20);
  std::reverse(a.begin(), a.end());
  std::reverse(b.begin(), b.end());
  check_every_operation(a, b, "descending");
}

TEST_P(CliUncheckedUnsorted, OneKeyMisplaced) {
  std::mt19937_64 rng = make_rng();
  std::vector<int64_t> a = sorted_column<int64_t>(rng, m, 1 << 20);
  a[m / 2] = a.back() + 1;  // larger than every key after it
  check_every_operation(a, sorted_column<int64_t>(rng, n, 1 << 20), "one key of A misplaced");
}

TEST_P(CliUncheckedUnsorted, HeavyDuplicates) {
  std::mt19937_64 rng = make_rng();
  check_every_operation(random_keys(rng, m, 3), random_keys(rng, n, 3), "three keys in random order");
}

TEST_P(CliUncheckedUnsorted, NaNsInTheMiddle) {
  std::mt19937_64 rng = make_rng();
  std::vector<double> a = sorted_column<double>(rng, m, 5000), b = sorted_column<double>(rng, n, 5000);
  // NaNs sort last: one every 1000 keys breaks the order at each.
  for (std::size_t i = 0; i < m; i += 1000) a[i] = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 500; i < n; i += 1000) b[i] = std::numeric_limits<double>::quiet_NaN();
  check_every_operation(a, b, "NaNs in the middle");
}

TEST_P(CliUncheckedUnsorted, AMergeOfThreeInputs) {
  std::mt19937_64 rng = make_rng();
  write_npy(path("a.npy"), random_keys(rng, m, 1 << 20));
  write_npy(path("b.npy"), random_keys(rng, n, 1 << 20));
  write_npy(path("c.npy"), random_keys(rng, n, 1 << 20));
  expect_bounded_or_refused<int64_t>({"merge", p("a.npy"), p("b.npy"), p("c.npy"), "-o", p("out.npy"), "--no-check",
                                      "--threads", "4"},
                                     "merge", m + 2 * n, "out.npy", "",
                                     refusal("merge", "one of " + p("a.npy") + ", " + p("b.npy") + " and " +
                                                          p("c.npy")));
}

TEST_P(CliUncheckedUnsorted, SegmentedOperations) {
  std::mt19937_64 rng = make_rng();
  write_npy(path("a.npy"), random_keys(rng, m, 1 << 20));
  write_npy(path("b.npy"), random_keys(rng, n, 1 << 20));
  write_npy(path("ao.npy"), std::vector<int64_t>{0, int64_t(m / 3), int64_t(m)});
  write_npy(path("bo.npy"), std::vector<int64_t>{0, int64_t(n / 2), int64_t(n)});
  for (const std::string op : operations) {
    SCOPED_TRACE(op);
    fs::remove(path("out.npy"));
    fs::remove(path("oo.npy"));
    const std::string message = "corank " + op + ": " + p("a.npy") + " or " + p("b.npy") + " is not sorted in its " +
                                "segments (found while partitioning the unchecked inputs); run without --no-check " +
                                "to find where\n";
    const std::vector<int64_t> keys = expect_bounded_or_refused<int64_t>(
        {op, p("a.npy"), p("b.npy"), "--segments", p("ao.npy"), p("bo.npy"), "-o", p("out.npy"), "--segments-out",
         p("oo.npy"), "--no-check", "--threads", "4"},
        op, bound_of(op, m, n), "out.npy", "", message);
    if (!fs::exists(path("out.npy"))) continue;  // refused
    // The offsets slice what was written: a reader trusts them.
    const std::vector<int64_t> offsets = read_npy<int64_t>(path("oo.npy"));
    ASSERT_EQ(offsets.size(), 3u);
    EXPECT_EQ(offsets.front(), 0);
    EXPECT_LE(offsets[1], offsets[2]);
    EXPECT_EQ(offsets.back(), int64_t(keys.size()));
  }
}

// ---------------------------------------------------------------------------------------
// The smaller promises

TEST_P(CliSafety, MergeCountReadsOnlyTheHeaders) {
  // Unsorted data is not even looked at: a merge's size is the sum of the sizes.
  write_npy(path("unsorted.npy"), std::vector<int32_t>{5, 1, 3});
  const result r = run({"merge", p("a.npy"), p("unsorted.npy"), "--count"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "7\n");
}

TEST_P(CliSafety, NarrowValuesKeepTheirWidthInMemory) {
  // 16 Mi uint8 keys and uint8 values per input: 64 MiB in, 64 MiB out. Widened to 4 bytes,
  // the values alone would take 3 x 64 MiB more.
  const std::size_t n = std::size_t(16) << 20;
  std::vector<std::uint8_t> keys(n), values(n, 7);
  for (std::size_t i = 0; i < n; ++i) keys[i] = std::uint8_t(i * 256 / n);
  write_npy(path("k.npy"), keys);
  write_npy(path("v.npy"), values);
  const pid_t pid = spawn({"merge", p("k.npy"), p("k.npy"), "--values", p("v.npy"), p("v.npy"), "-o", p("ko.npy"),
                           "--values-out", p("vo.npy"), "--no-check"},
                          {});
  int raw = 0;
  rusage usage{};
  ASSERT_EQ(wait4(pid, &raw, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << read_file(stderr_path());
  const std::uint64_t peak = std::uint64_t(usage.ru_maxrss) * 1024;
  EXPECT_LT(peak, std::uint64_t(192) << 20) << "peak resident memory " << peak << " bytes for 128 MiB of columns";
  const std::vector<std::uint8_t> out = read_npy<std::uint8_t>(path("vo.npy"));
  EXPECT_EQ(out.size(), 2 * n);
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](std::uint8_t v) { return v == 7; }));
}

TEST_P(CliSafety, HelpSaysHowNaNIsOrderedAndMatchedAndWhatIsGuaranteed) {
  for (const char* op : operations) {
    const result r = run({op, "--help"}, false);
    ASSERT_EQ(r.status, 0);
    for (const char* promise : {"NaNs last", "All NaNs are equal to each other", "the union of [nan] and [nan, nan]",
                                "both files are published together", "replaced only with --force, and only after",
                                "never replaced", "- for standard output"}) {
      EXPECT_NE(r.out.find(promise), std::string::npos) << op << ": " << promise;
    }
  }
  // As the help says.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  write_npy(path("one.npy"), std::vector<double>{nan});
  write_npy(path("two.npy"), std::vector<double>{nan, nan});
  const result r = run({"union", p("one.npy"), p("two.npy"), "-o", p("u.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<double> u = read_npy<double>(path("u.npy"));
  EXPECT_EQ(u.size(), 2u);
  EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](double x) { return std::isnan(x); }));
}

// ---------------------------------------------------------------------------------------
// Device-independent: the version, help on help, the demo's figures

TEST(CliFrontDoor, VersionAndHelpOnHelp) {
  const auto [status, output] = run_cli("--version");
  EXPECT_EQ(status, 0);
  EXPECT_EQ(output.rfind("corank ", 0), 0u) << output;
  EXPECT_NE(output.find('.'), std::string::npos) << output;
  const auto [help_status, help] = run_cli("help help");
  EXPECT_EQ(help_status, 0) << help;
  EXPECT_NE(help.find("usage: corank help"), std::string::npos) << help;
}

TEST(CliFrontDoor, TheDemoSaysWhenATimingMeansNothing) {
  const auto [status, output] = run_cli("demo --n 1 --runs 1 --device cpu");
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("too little to time"), std::string::npos) << output;
  EXPECT_NE(output.find("        -          -  OK"), std::string::npos) << "no GB/s, no % of copy: " << output;
  // The copy named in the timing line is the one in the table.
  const auto at = output.find("% of copy is against ");
  ASSERT_NE(at, std::string::npos) << output;
  const std::string copy = output.substr(at + 21, output.find(" of the same bytes", at) - at - 21);
  EXPECT_NE(output.find("\n" + copy + " "), std::string::npos) << "'" << copy << "' is not a row: " << output;
}

TEST(CliFrontDoor, TheDemoWithoutAGpuSaysSoInOneLine) {
  if (corank::test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  const auto [status, output] = run_cli("demo --n 1000 --runs 1");
  ASSERT_EQ(status, 0) << output;
  EXPECT_EQ(output.rfind("no CUDA GPU found; running on the CPU backend\n", 0), 0u) << output;
}

}  // namespace
