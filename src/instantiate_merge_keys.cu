// Compiles the keys-only merges listed in merge_instantiations.hpp once, for every caller.
#define CORANK_INSTANTIATING
#include <corank/merge.cuh>

#define CORANK_INSTANTIATE_MERGE_KEYS(K) CORANK_MERGE_DISPATCH(CORANK_MERGE_KEYS_ARGS(K))
CORANK_MERGE_KEY_TYPES(CORANK_INSTANTIATE_MERGE_KEYS)
