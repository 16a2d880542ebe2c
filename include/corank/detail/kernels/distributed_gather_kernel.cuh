#pragma once
// The distributed forms' one kernel (distributed_operation.inl's exchanges; launched by
// dispatch/distributed_gather_dispatch.cuh): it gathers a rank's contribution to an exchange
// into its block on its GPU: words, elements of A and B at given positions, and the bounds
// of given keys in A or B.

#include <corank/balanced_path.hpp>
#include <corank/config.hpp>

#include <cstddef>

namespace corank::detail {

// One rank's block in an exchange: byte offsets of its words, elements of A, elements of B
// and counts, and its size.
struct block_layout {
  std::size_t words, a_values, b_values, counts, bytes;
};

// The contribution as the kernel reads it, copied to the device: index_t words and positions,
// then the count keys and flags.
struct command_layout {
  std::size_t words, a_items, b_items, counts;  // how many of each
  std::size_t keys, flags, bytes;               // byte offsets, and the size
};

template <class Key, class Compare>
__global__ void distributed_gather_kernel(const Key* a, index_t m, const Key* b, index_t n, const char* command,
                                          command_layout cl, char* block, block_layout bl, Compare comp) {
  std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  const index_t* numbers = reinterpret_cast<const index_t*>(command);
  if (t < cl.words + cl.a_items + cl.b_items) {
    const index_t x = numbers[t];
    if (t < cl.words) {
      reinterpret_cast<index_t*>(block + bl.words)[t] = x;
    } else if ((t -= cl.words) < cl.a_items) {
      if (x >= 0) reinterpret_cast<Key*>(block + bl.a_values)[t] = a[x];
    } else if (x >= 0) {
      reinterpret_cast<Key*>(block + bl.b_values)[t - cl.a_items] = b[x];
    }
    return;
  }
  t -= cl.words + cl.a_items + cl.b_items;
  if (t >= cl.counts) return;
  const Key key = reinterpret_cast<const Key*>(command + cl.keys)[t];
  const unsigned char flag = static_cast<unsigned char>(command[cl.flags + t]);
  const Key* x = (flag & 1) ? b : a;
  const index_t size = (flag & 1) ? n : m;
  reinterpret_cast<index_t*>(block + bl.counts)[t] =
      (flag & 2) ? upper_bound_in(x, index_t(0), size, key, comp) : lower_bound_in(x, index_t(0), size, key, comp);
}

}  // namespace corank::detail
