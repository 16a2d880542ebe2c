// The shared test kernels of int32 and int64 keys that are the tests' alone, the paired
// intersections (shared_kernels.hpp); the rest of those key types' are corank_set_kernels'.
#define CORANK_TEST_INSTANTIATING
#include "support/shared_kernels.hpp"

CORANK_TEST_KERNELS_INT32_INT64(CORANK_TEST_DISPATCH)
