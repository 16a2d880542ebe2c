#include "arguments.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <limits>

namespace corank::cli {

namespace {

const option_spec help_option{"--help", "-h", 0};

}  // namespace

argument_reader::argument_reader(int argc, char** argv, std::initializer_list<option_spec> options)
    : argc_(argc), argv_(argv), options_(options) {
  options_.push_back(help_option);
}

bool argument_reader::next() {
  if (index_ + 1 >= argc_) return false;
  name_ = argv_[++index_];
  has_inline_value_ = false;
  inline_value_.clear();
  help_ = false;
  spec_ = nullptr;
  if (!options_ended_ && name_ == "--") {
    options_ended_ = true;
    return next();
  }
  if (options_ended_ || name_.size() < 2 || name_[0] != '-') return true;  // positional, "-" included
  if (name_.rfind("--", 0) == 0) {
    if (const auto equals = name_.find('='); equals != std::string::npos) {
      inline_value_ = name_.substr(equals + 1);
      has_inline_value_ = true;
      name_.resize(equals);
    }
  }
  for (const option_spec& option : options_) {
    if (name_ == option.name || (option.short_name != nullptr && name_ == option.short_name)) spec_ = &option;
  }
  if (spec_ == nullptr) unknown_option();
  if (spec_->refusal != nullptr) throw usage_error(spec_->refusal);
  if (has_inline_value_ && spec_->values == 0) {
    throw usage_error(fmt::format("{} takes no value (got '{}={}')", name_, name_, inline_value_));
  }
  help_ = spec_->name == help_option.name;
  return true;
}

bool argument_reader::is(const char* option_name) const {
  return spec_ != nullptr && (std::strcmp(spec_->name, option_name) == 0 ||
                              (spec_->short_name != nullptr && std::strcmp(spec_->short_name, option_name) == 0));
}

std::string argument_reader::value() {
  if (has_inline_value_) return inline_value_;
  if (index_ + 1 >= argc_) throw usage_error(fmt::format("{} needs a value", name_));
  return argv_[++index_];
}

std::string argument_reader::following_value() {
  if (index_ + 1 >= argc_) throw usage_error(fmt::format("{} needs another value", name_));
  return argv_[++index_];
}

std::vector<std::string> argument_reader::values_up_to_next_option() {
  std::vector<std::string> values;
  while (index_ + 1 < argc_) {
    const std::string next = argv_[index_ + 1];
    if (next.size() > 1 && next[0] == '-') break;
    values.push_back(next);
    ++index_;
  }
  return values;
}

void argument_reader::unknown_option() const {
  std::string valid;
  for (const option_spec& option : options_) {
    if (option.refusal != nullptr) continue;
    if (!valid.empty()) valid += ", ";
    valid += option.short_name != nullptr ? fmt::format("{}/{}", option.short_name, option.name) : option.name;
  }
  throw usage_error(fmt::format("unknown option '{}'; the options are {} (and -- to end them)", name_, valid));
}

namespace {

// Digits only, no sign; false on overflow or anything else.
bool parse_digits(const std::string& text, std::uint64_t& value) {
  if (text.empty()) return false;
  value = 0;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    const std::uint64_t digit = std::uint64_t(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

bool multiply(std::uint64_t& value, std::uint64_t factor) {
  if (factor != 0 && value > std::numeric_limits<std::uint64_t>::max() / factor) return false;
  value *= factor;
  return true;
}

}  // namespace

std::int64_t parse_count(const std::string& option, const std::string& text, std::int64_t low,
                         std::int64_t high) {
  const auto bad = [&] {
    return usage_error(fmt::format("{}: '{}' is not a count (examples: 1000000, 1M, 1e6, 2^20)", option, text));
  };
  std::uint64_t value = 0;
  bool ok = false;
  if (text.rfind("2^", 0) == 0) {
    std::uint64_t exponent = 0;
    ok = parse_digits(text.substr(2), exponent) && exponent < 63;
    value = ok ? std::uint64_t(1) << exponent : 0;
  } else if (const auto e = text.find_first_of("eE"); e != std::string::npos) {
    std::uint64_t exponent = 0;
    ok = parse_digits(text.substr(0, e), value) && parse_digits(text.substr(e + 1), exponent) && exponent <= 19;
    for (std::uint64_t i = 0; ok && i < exponent; ++i) ok = multiply(value, 10);
  } else if (!text.empty() && std::string("kKmMgG").find(text.back()) != std::string::npos) {
    const char suffix = char(std::tolower(static_cast<unsigned char>(text.back())));
    ok = parse_digits(text.substr(0, text.size() - 1), value) &&
         multiply(value, suffix == 'k' ? 1000 : suffix == 'm' ? 1000000 : 1000000000);
  } else {
    ok = parse_digits(text, value);
  }
  if (!ok) throw bad();
  if (value < std::uint64_t(low) || value > std::uint64_t(high)) {
    throw usage_error(fmt::format("{}: {} is outside [{}, {}]", option, value, low, high));
  }
  return std::int64_t(value);
}

std::uint64_t parse_unsigned(const std::string& option, const std::string& text) {
  std::uint64_t value = 0;
  if (!parse_digits(text, value)) {
    throw usage_error(fmt::format("{}: '{}' is not a non-negative integer", option, text));
  }
  return value;
}

std::string parse_choice(const std::string& option, const std::string& text,
                         std::initializer_list<const char*> choices) {
  std::string listed;
  for (const char* choice : choices) {
    if (text == choice) return text;
    listed += listed.empty() ? choice : fmt::format("|{}", choice);
  }
  throw usage_error(fmt::format("{}: '{}' is not one of {}", option, text, listed));
}

}  // namespace corank::cli
