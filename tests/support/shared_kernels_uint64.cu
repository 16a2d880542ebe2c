// The shared test kernels of uint64 keys (shared_kernels.hpp), compiled once for every
// test program that runs them.
#define CORANK_TEST_INSTANTIATING
#include "support/shared_kernels.hpp"

CORANK_TEST_KERNELS_UINT64(CORANK_TEST_DISPATCH)
