#pragma once
// Command-line plumbing shared by the subcommands: an option reader that knows each
// subcommand's options, value parsers with readable errors, and the error types that make
// the command exit with status 2: usage_error (a wrong command line: the usage is printed
// too) and input_error (an input the command cannot use).

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace corank::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;  // the work failed: out of memory, CUDA error, wrong result
inline constexpr int exit_usage = 2;    // the command line is wrong, or an input is unusable

// A mistake on the command line.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An input file the command cannot use (missing, not .npy, unsorted, ...), or an output it
// must not overwrite: main prints the message without the usage, and exits with 2.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One option a subcommand accepts. -h/--help are accepted by every reader.
struct option_spec {
  const char* name;                  // "--output"
  const char* short_name = nullptr;  // "-o"
  int values = 0;                    // 0: a flag; 1 or 2: that many values follow
  // Set: an option other commands take that this one does not (yet); naming it is refused
  // with this sentence, and it is not listed among the valid options.
  const char* refusal = nullptr;
};

// Reads a subcommand's arguments one at a time, against the options it declares:
//   argument_reader args(argc, argv, {{"--n", nullptr, 1}, {"--force"}});
//   while (args.next()) { if (args.is("--n")) n = parse_count(args.name(), args.value(), ...); ... }
// An option's value is the next argument or follows '=' (--n=5, not for flags: --force=no
// is refused); an unknown option is refused with the list of valid ones, a refused one
// (option_spec::refusal) with its sentence; after "--" every argument is positional.
class argument_reader {
 public:
  // argv[0] is the subcommand's name; options start at argv[1].
  argument_reader(int argc, char** argv, std::initializer_list<option_spec> options);

  // Moves to the next argument; false when there are none left.
  bool next();
  // The current argument is this option (by its long name, or its short one).
  bool is(const char* option_name) const;
  // An argument that is not an option ("-" and anything after "--" included): name() is
  // the argument itself.
  bool is_positional() const { return spec_ == nullptr; }
  bool is_help() const { return help_; }
  // The option as written (without "=value"), or the positional argument.
  const std::string& name() const { return name_; }
  // The current option's (first) value.
  std::string value();
  // Its second value, always the next argument ("--values A.npy B.npy").
  std::string following_value();
  // Any further values: the arguments up to the next one that starts with '-' ("-", standard
  // input, is a value; "--" is not), for an option that takes as many as are given
  // ("--values A.npy B.npy C.npy -o ...").
  std::vector<std::string> values_up_to_next_option();

 private:
  [[noreturn]] void unknown_option() const;

  int argc_;
  char** argv_;
  std::vector<option_spec> options_;
  int index_ = 0;
  bool options_ended_ = false;  // after "--"
  std::string name_;
  std::string inline_value_;
  bool has_inline_value_ = false;
  bool help_ = false;
  const option_spec* spec_ = nullptr;  // null: positional
};

// A positive count: digits, optionally with a decimal suffix (k, M, G), an exponent
// (1e8) or a power of two (2^28). Throws usage_error naming `option`.
std::int64_t parse_count(const std::string& option, const std::string& text, std::int64_t low,
                         std::int64_t high);

std::uint64_t parse_unsigned(const std::string& option, const std::string& text);

// One of `choices`, returned as written.
std::string parse_choice(const std::string& option, const std::string& text,
                         std::initializer_list<const char*> choices);

}  // namespace corank::cli
