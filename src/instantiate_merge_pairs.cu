// Compiles the merge_by_key pairs listed in merge_instantiations.hpp once, for every caller.
#define CORANK_INSTANTIATING
#include <corank/merge.cuh>

#define CORANK_INSTANTIATE_MERGE_PAIRS(K, V) CORANK_MERGE_DISPATCH(CORANK_MERGE_PAIRS_ARGS(K, V))
CORANK_MERGE_PAIR_TYPES(CORANK_INSTANTIATE_MERGE_PAIRS)
