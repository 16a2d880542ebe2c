// main() of every corank test executable: prints the seed (so a failure can be replayed
// with CORANK_TEST_SEED) before the first test runs, and records it in the XML report.

#include "support/test_env.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace corank::test {
namespace {

struct settings {
  std::uint64_t seed = 0;
  bool seed_from_env = false;
  bool quick = false;
};

const settings& current_settings() {
  static const settings s = [] {
    settings r;
    const char* text = std::getenv("CORANK_TEST_SEED");
    if (text != nullptr && *text != '\0') {
      char* end = nullptr;
      r.seed = std::strtoull(text, &end, 0);
      r.seed_from_env = end != nullptr && *end == '\0';
      if (!r.seed_from_env) std::cerr << "corank tests: ignoring malformed CORANK_TEST_SEED=" << text << "\n";
    }
    if (!r.seed_from_env) {
      std::random_device device;
      r.seed = (std::uint64_t(device()) << 32) ^ device();
    }
    const char* quick = std::getenv("CORANK_TEST_QUICK");
    r.quick = quick != nullptr && std::strcmp(quick, "") != 0 && std::strcmp(quick, "0") != 0;
    return r;
  }();
  return s;
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Prints from SetUp rather than main, so that --gtest_list_tests (which ctest's test
// discovery parses) stays clean.
class seed_environment : public ::testing::Environment {
 public:
  void SetUp() override {
    const settings& s = current_settings();
    std::cout << "corank test seed: " << s.seed
              << (s.seed_from_env ? " (from CORANK_TEST_SEED)" : " (random; set CORANK_TEST_SEED to replay)")
              << (s.quick ? ", CORANK_TEST_QUICK: sizes capped" : "") << std::endl;
    ::testing::Test::RecordProperty("corank_test_seed", std::to_string(s.seed));
  }
};

}  // namespace

std::uint64_t seed() { return current_settings().seed; }

bool quick_mode() { return current_settings().quick; }

std::mt19937_64 make_rng() {
  std::string name = "(no test)";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    name = std::string(info->test_suite_name()) + "." + info->name();
  }
  const std::uint64_t s = seed();
  const std::uint64_t h = fnv1a(name);
  std::seed_seq sequence{std::uint32_t(s), std::uint32_t(s >> 32), std::uint32_t(h), std::uint32_t(h >> 32)};
  return std::mt19937_64(sequence);
}

}  // namespace corank::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new corank::test::seed_environment);
  return RUN_ALL_TESTS();
}
