#pragma once
// The test run's settings, read once from the environment:
//   CORANK_TEST_SEED=N    reproduce a run (every test prints "corank test seed: N" first)
//   CORANK_TEST_QUICK=1   for compute-sanitizer runs: GPU sizes capped at 3 tiles + 1 (or
//                         a few tiles), fewer size pairs and distributions in the typed
//                         matrix, and the 2^24, > 2^31 and out-of-memory cases skipped
// main() lives in test_main.cpp; every test executable links it.

#include <cstddef>
#include <cstdint>
#include <random>

namespace corank::test {

// CORANK_TEST_SEED if set, else drawn once per process.
std::uint64_t seed();

bool quick_mode();

// `normal`, or `quick` under CORANK_TEST_QUICK.
inline std::size_t quick_or(std::size_t normal, std::size_t quick) { return quick_mode() ? quick : normal; }

// A generator for the running test: mixes seed() with the test's full name, so a test
// draws the same data whether it runs alone (ctest runs each test in its own process)
// or after others.
std::mt19937_64 make_rng();

}  // namespace corank::test
