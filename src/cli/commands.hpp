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

// corank merge | union | intersect | diff | symdiff: a set operation on two sorted .npy
// columns, or merge of more (set_command.cpp).
int run_merge(int argc, char** argv);
int run_union(int argc, char** argv);
int run_intersect(int argc, char** argv);
int run_diff(int argc, char** argv);
int run_symdiff(int argc, char** argv);
void print_merge_usage(std::FILE* stream);
void print_union_usage(std::FILE* stream);
void print_intersect_usage(std::FILE* stream);
void print_diff_usage(std::FILE* stream);
void print_symdiff_usage(std::FILE* stream);

// corank sort: a stable sort of one .npy column (sort_command.cpp).
int run_sort(int argc, char** argv);
void print_sort_usage(std::FILE* stream);

// corank search | join: sorted search (searchsorted, isin) and the sort-merge inner join of
// two sorted .npy columns (search_command.cpp).
int run_search(int argc, char** argv);
int run_join(int argc, char** argv);
void print_search_usage(std::FILE* stream);
void print_join_usage(std::FILE* stream);

}  // namespace corank::cli
