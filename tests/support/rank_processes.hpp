#pragma once
// One process per GPU for the NCCL test and benchmark: the program starts copies of itself
// (/proc/self/exe), rank r of P with its role in the environment (CORANK_RANK, CORANK_RANKS,
// CORANK_NCCL_ID), and each copy joins the communicator with ncclCommInitRank.
//
// Why processes, not a thread per GPU in one process: a free (cudaFreeHost, cudaFree) on one
// GPU of a process waits for the running work of its other GPUs, and an NCCL kernel waits for
// its peer's matching call, so one rank's thread freeing while the other's collective runs
// deadlocks both. corank's distributed calls free a spare pinned buffer between collectives
// where two threads share it (a stack trace on two H200s showed exactly that), and these
// programs free their buffers between cases. A process per GPU is also how NCCL runs in
// production (torchrun, mpirun, Dask). bench/nccl_bench.cu includes this header too.

#include <nccl.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace corank::test {

// This process's part when it was started as one rank of several.
struct rank_role {
  int rank = 0, ranks = 1;
  ncclUniqueId id{};
};

inline std::string to_hex(const void* bytes, std::size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < size; ++i) {
    const unsigned char c = static_cast<const unsigned char*>(bytes)[i];
    text += digits[c >> 4];
    text += digits[c & 15];
  }
  return text;
}

inline bool from_hex(const std::string& text, void* bytes, std::size_t size) {
  if (text.size() != 2 * size) return false;
  for (std::size_t i = 0; i < size; ++i) {
    const std::string pair = text.substr(2 * i, 2);
    char* end = nullptr;
    const unsigned long value = std::strtoul(pair.c_str(), &end, 16);
    if (end != pair.c_str() + 2) return false;
    static_cast<unsigned char*>(bytes)[i] = static_cast<unsigned char>(value);
  }
  return true;
}

// The role from the environment, or none in the process that a person or ctest started.
inline std::optional<rank_role> rank_role_from_environment() {
  const char* rank = std::getenv("CORANK_RANK");
  const char* ranks = std::getenv("CORANK_RANKS");
  const char* id = std::getenv("CORANK_NCCL_ID");
  if (rank == nullptr || ranks == nullptr || id == nullptr) return std::nullopt;
  rank_role role;
  role.rank = std::atoi(rank);
  role.ranks = std::atoi(ranks);
  if (role.ranks < 1 || role.rank < 0 || role.rank >= role.ranks || !from_hex(id, &role.id, sizeof role.id)) {
    return std::nullopt;
  }
  return role;
}

inline std::string tail_of_file(const std::string& path, std::size_t bytes) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > bytes ? "..." + all.substr(all.size() - bytes) : all;
}

inline std::string exit_problem(int rank, int status) {
  return "rank " + std::to_string(rank) +
         (WIFEXITED(status) ? " exited with " + std::to_string(WEXITSTATUS(status))
                            : " was ended by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

// Runs `ranks` copies of this program with `args`, rank r's role and `more_env` in its
// environment; each one's output goes to log_dir/rank-R.log, or to this process's where
// log_dir is empty. Waits up to `seconds` for them all, and kills them all after that or as
// soon as one fails. Returns "" when every copy exited with 0, else a sentence on the first
// that did not (with the end of each rank's log).
inline std::string run_rank_processes(int ranks, const std::vector<std::string>& args, const std::string& log_dir,
                                      const std::vector<std::string>& more_env, int seconds) {
  ncclUniqueId id{};
  if (const ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess) {
    return std::string("ncclGetUniqueId: ") + ncclGetErrorString(r);
  }
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "CORANK_RANK", 11) != 0 && std::strncmp(*e, "CORANK_NCCL_ID=", 15) != 0) environment.push_back(*e);
  }
  environment.insert(environment.end(), more_env.begin(), more_env.end());
  environment.push_back("CORANK_RANKS=" + std::to_string(ranks));
  environment.push_back("CORANK_NCCL_ID=" + to_hex(&id, sizeof id));

  std::vector<pid_t> pids;
  std::string problem;
  for (int r = 0; r < ranks && problem.empty(); ++r) {
    std::vector<std::string> env = environment, argv_text{"/proc/self/exe"};
    env.push_back("CORANK_RANK=" + std::to_string(r));
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv, envp;
    for (auto& s : argv_text) argv.push_back(s.data());
    for (auto& s : env) envp.push_back(s.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string log = log_dir.empty() ? "" : log_dir + "/rank-" + std::to_string(r) + ".log";
    if (!log.empty()) {
      posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) problem = "could not start rank " + std::to_string(r) + ": " + std::strerror(spawned);
    else pids.push_back(pid);
  }

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::vector<int> statuses(pids.size(), -1);
  std::size_t running = pids.size();
  while (running > 0) {
    for (std::size_t r = 0; r < pids.size(); ++r) {
      if (statuses[r] != -1) continue;
      int status = 0;
      if (waitpid(pids[r], &status, WNOHANG) == pids[r]) {
        statuses[r] = status;
        --running;
        // A rank that failed leaves the others waiting in a collective: end them now.
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && problem.empty()) problem = exit_problem(int(r), status);
      }
    }
    if (running == 0) break;
    if (std::chrono::steady_clock::now() > deadline || !problem.empty()) {
      for (std::size_t r = 0; r < pids.size(); ++r) {
        if (statuses[r] == -1) kill(pids[r], SIGKILL);
      }
      for (std::size_t r = 0; r < pids.size(); ++r) {
        if (statuses[r] == -1) waitpid(pids[r], &statuses[r], 0);
      }
      if (problem.empty()) {
        problem = "the rank processes did not end within " + std::to_string(seconds) + " s and were killed";
      } else {
        problem += "; the other ranks were killed";
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (std::size_t r = 0; r < pids.size() && problem.empty(); ++r) {
    if (!(WIFEXITED(statuses[r]) && WEXITSTATUS(statuses[r]) == 0)) problem = exit_problem(int(r), statuses[r]);
  }
  if (!problem.empty() && !log_dir.empty()) {
    for (std::size_t r = 0; r < pids.size(); ++r) {
      problem += "\n--- rank " + std::to_string(r) + "'s output:\n" +
                 tail_of_file(log_dir + "/rank-" + std::to_string(r) + ".log", 3000);
    }
  }
  return problem;
}

}  // namespace corank::test
