// The `corank` command: `corank <command> [options]`, one subcommand per operation.
// demo, and the operations on .npy columns: merge, union, intersect, diff, symdiff, sort,
// search, join.

#include "arguments.hpp"
#include "commands.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

namespace corank::cli {
namespace {

constexpr command commands[] = {
    {"demo", "merge two generated sorted columns on the GPU (or CPU), time it, check it", run_demo,
     print_demo_usage},
    {"merge", "stable merge of two or more sorted .npy columns (optionally with values)", run_merge,
     print_merge_usage},
    {"union", "multiset union of two sorted .npy columns", run_union, print_union_usage},
    {"intersect", "multiset intersection of two sorted .npy columns", run_intersect, print_intersect_usage},
    {"diff", "multiset difference A - B of two sorted .npy columns", run_diff, print_diff_usage},
    {"symdiff", "multiset symmetric difference of two sorted .npy columns", run_symdiff, print_symdiff_usage},
    {"sort", "stable sort of a .npy column (optionally with values)", run_sort, print_sort_usage},
    {"search", "positions (searchsorted) or membership (isin) of sorted queries in a sorted .npy column",
     run_search, print_search_usage},
    {"join", "sort-merge inner join of two sorted .npy key columns: the matching pairs' positions", run_join,
     print_join_usage},
};

void print_usage(std::FILE* stream) {
  fmt::print(stream, "usage: corank <command> [options]\n\ncommands:\n");
  for (const command& c : commands) fmt::print(stream, "  {:<9}  {}\n", c.name, c.summary);
  fmt::print(stream, "  {:<9}  {}\n", "help", "this text, or a command's options (corank help <command>)");
  fmt::print(stream, "\nRun 'corank <command> --help' for a command's options, 'corank --version' for the version.\n");
}

const command* find_command(const std::string& name) {
  for (const command& c : commands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return exit_usage;
  }
  const std::string first = argv[1];
  if (first == "--version" || first == "-V") {
    fmt::print("corank {}\n", CORANK_VERSION);
    return exit_ok;
  }
  if (first == "-h" || first == "--help" || first == "help") {
    if (first == "help" && argc > 2) {
      if (std::string(argv[2]) == "help") {
        fmt::print("usage: corank help [<command>]\n\nPrints the list of commands, or a command's options.\n");
        return exit_ok;
      }
      if (const command* c = find_command(argv[2])) {
        c->print_usage(stdout);
        return exit_ok;
      }
      fmt::print(stderr, "corank: unknown command '{}'\n\n", argv[2]);
      print_usage(stderr);
      return exit_usage;
    }
    print_usage(stdout);
    return exit_ok;
  }
  const command* c = find_command(first);
  if (c == nullptr) {
    fmt::print(stderr, "corank: unknown command '{}'\n\n", first);
    print_usage(stderr);
    return exit_usage;
  }
  try {
    return c->run(argc - 1, argv + 1);
  } catch (const usage_error& e) {
    fmt::print(stderr, "corank {}: {}\n\n", c->name, e.what());
    c->print_usage(stderr);
    return exit_usage;
  } catch (const input_error& e) {
    fmt::print(stderr, "corank {}: {}\n", c->name, e.what());
    return exit_usage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "corank {}: {}\n", c->name, e.what());
    return exit_failure;
  }
}

}  // namespace
}  // namespace corank::cli

int main(int argc, char** argv) { return corank::cli::run(argc, argv); }
