// The set-operation matrix's kernels of float keys (shared_kernels.hpp), compiled apart from
// set_ops_typed_test.cu so that the matrix's key types compile in parallel.
#define CORANK_TEST_INSTANTIATING
#include "support/shared_kernels.hpp"

CORANK_TEST_KERNELS_FLOAT(CORANK_TEST_DISPATCH)
