#pragma once
// The demo's input columns: sorted random keys that the CPU and the GPU generate
// identically from a seed, in O(n) and without sorting. Key i is the sum of i + 1 random
// gaps (a saturating sum, which stays associative, so the GPU computes it as a scan and
// the CPU as a loop); the mean gap spreads the column over the key type's whole range,
// and zero gaps give runs of equal keys.

#include <corank/config.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace corank::cli {

CORANK_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The high 64 bits of a * b: maps a uniform 64-bit hash onto [0, b) without division.
CORANK_HOST_DEVICE inline std::uint64_t multiply_high(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  __extension__ using wide = unsigned __int128;  // GCC and Clang; __extension__ quiets -Wpedantic
  return std::uint64_t((wide(a) * b) >> 64);
#endif
}

template <class Key>
struct sorted_keys_recipe {
  static_assert(std::is_integral_v<Key> && sizeof(Key) <= 8, "integer keys of up to 64 bits");
  using bits = std::make_unsigned_t<Key>;

  std::uint64_t seed = 0;
  std::uint64_t cap = 0;        // the largest offset from the type's minimum
  std::uint64_t gap_bound = 1;  // gaps are uniform in [0, gap_bound), mean cap / (count + 1)
  bits minimum = 0;             // the type's minimum, as bits (no std:: call on the device)

  sorted_keys_recipe(std::uint64_t seed_, index_t count)
      : seed(seed_),
        cap(std::uint64_t(std::numeric_limits<bits>::max())),
        gap_bound(2 * (cap / (std::uint64_t(count) + 1)) + 1),
        minimum(static_cast<bits>(std::numeric_limits<Key>::min())) {}

  CORANK_HOST_DEVICE std::uint64_t gap(index_t i) const {
    return multiply_high(splitmix64(seed + std::uint64_t(i)), gap_bound);
  }
  // Saturating at cap; both arguments are at most cap.
  CORANK_HOST_DEVICE std::uint64_t add(std::uint64_t a, std::uint64_t b) const { return a > cap - b ? cap : a + b; }
  CORANK_HOST_DEVICE Key key(std::uint64_t offset) const {
    return static_cast<Key>(static_cast<bits>(static_cast<bits>(offset) + minimum));
  }
};

// Column `count` keys on the host: the loop the GPU's scan computes.
template <class Key>
void generate_column_on_host(Key* keys, index_t count, std::uint64_t seed) {
  const sorted_keys_recipe<Key> recipe(seed, count);
  std::uint64_t offset = 0;
  for (index_t i = 0; i < count; ++i) {
    offset = i == 0 ? recipe.gap(0) : recipe.add(offset, recipe.gap(i));
    keys[i] = recipe.key(offset);
  }
}

// The seeds of the two columns.
inline std::uint64_t column_seed(std::uint64_t seed, int column) {
  return splitmix64(splitmix64(seed) + std::uint64_t(column));
}

}  // namespace corank::cli
