#pragma once
// The subcommands of the `corank` command. Each one parses its own options (argv[0] is
// its name), returns an exit status (see arguments.hpp), throws usage_error for a wrong
// command line, and prints its own usage.

#include <cstdio>

namespace corank::cli {

struct command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
  void (*print_usage)(std::FILE* stream);
};

// corank demo: merges two generated sorted columns, times it and checks it (demo.cpp).
int run_demo(int argc, char** argv);
void print_demo_usage(std::FILE* stream);

}  // namespace corank::cli
