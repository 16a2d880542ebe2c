#pragma once
// Command-line plumbing shared by the subcommands: an option reader that takes
// "--name value" and "--name=value", value parsers with readable errors, and the error
// types that make the command exit with status 2: usage_error (a wrong command line: the
// usage is printed too) and input_error (an input the command cannot use).

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

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

// Reads a subcommand's arguments one option at a time:
//   while (args.next()) { if (args.is("--n")) n = parse_count(args.name(), args.value(), ...); ... }
class argument_reader {
 public:
  // argv[0] is the subcommand's name; options start at argv[1].
  argument_reader(int argc, char** argv) : argc_(argc), argv_(argv) {}

  // Moves to the next option; false when there are none left.
  bool next();
  bool is(const char* option_name) const { return !positional_ && name_ == option_name; }
  // An argument that is not an option ("-" included): name() is the argument itself.
  bool is_positional() const { return positional_; }
  bool is_help() const { return !positional_ && (name_ == "-h" || name_ == "--help"); }
  const std::string& name() const { return name_; }
  // The current option's value (after '=', or the next argument).
  std::string value();
  // A further value of the current option, always the next argument (for options that take
  // two: "--values A.npy B.npy").
  std::string following_value();
  // Throws usage_error for the current argument: an unknown option or an unexpected one.
  [[noreturn]] void reject() const;

 private:
  int argc_;
  char** argv_;
  int index_ = 0;
  std::string name_;
  std::string inline_value_;
  bool has_inline_value_ = false;
  bool positional_ = false;
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
