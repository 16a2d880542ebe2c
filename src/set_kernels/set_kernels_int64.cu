// The set operations' kernels of int64 keys, and the by-key merge of int64 keys with int32
// values, that the command and the tests share (set_kernels.hpp).
#define CORANK_SET_KERNELS_INSTANTIATING
#include "set_kernels/set_kernels.hpp"

CORANK_SET_KERNELS_INT64(CORANK_SET_KERNELS_DISPATCH)
