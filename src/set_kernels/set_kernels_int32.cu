// The set operations' kernels of int32 keys that the command and the tests share
// (set_kernels.hpp).
#define CORANK_SET_KERNELS_INSTANTIATING
#include "set_kernels/set_kernels.hpp"

CORANK_SET_KERNELS_INT32(CORANK_SET_KERNELS_DISPATCH)
