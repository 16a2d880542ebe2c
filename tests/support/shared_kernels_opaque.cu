// The shared test kernels of opaque_key keys, the comparator-only key (shared_kernels.hpp),
// compiled once for every test program that runs them.
#define CORANK_TEST_INSTANTIATING
#include "support/shared_kernels.hpp"

CORANK_TEST_KERNELS_OPAQUE(CORANK_TEST_DISPATCH)
