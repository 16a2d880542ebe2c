#pragma once
// The key types every backend is tested with, and how to make keys of each type from
// 64-bit numbers in an order-preserving way. Plain C++ (g++ and nvcc).
//
// opaque_key has no operator< and no operator==: it is ordered only by opaque_less, like
// CUB's tests' comparator-only key, so any use of `<` or `==` on keys inside corank fails
// to compile.

#include <corank/comparators.hpp>
#include <corank/config.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace corank::test {

struct opaque_key {
  std::int32_t major;
  std::uint32_t minor;
};

struct opaque_less {
  CORANK_HOST_DEVICE bool operator()(const opaque_key& x, const opaque_key& y) const {
    return x.major < y.major || (x.major == y.major && x.minor < y.minor);
  }
};

// 16 bytes, ordered by (major descending, minor) only: `tag` rides along, so that even
// keys-only forms show whether equal keys kept their order (the host sort and k-way tests).
struct tagged_key {
  std::int64_t major;
  std::uint32_t minor;
  std::uint32_t tag;
};
static_assert(sizeof(tagged_key) == 16);

struct tagged_order {
  CORANK_HOST_DEVICE bool operator()(const tagged_key& x, const tagged_key& y) const {
    return x.major != y.major ? x.major > y.major : x.minor < y.minor;
  }
};

// Descending order, for the custom-comparator tests.
struct greater_op {
  template <class T>
  CORANK_HOST_DEVICE bool operator()(const T& a, const T& b) const {
    return b < a;
  }
};

// key_traits<K>:
//   compare          the comparator the tests use for K
//   name             for test names and traces
//   from_u64(u)      monotone (non-decreasing) map from the whole uint64 range onto K;
//                    u < 2^63 maps strictly below u >= 2^63 (disjoint halves)
//   from_index(i)    monotone map of small counts onto consecutive keys: interleaving
//                    from_index(2i) and from_index(2i + 1) gives evens and odds
template <class K, class = void>
struct key_traits;

template <class K>
struct key_traits<K, std::enable_if_t<std::is_integral_v<K>>> {
  using compare = corank::less;
  static constexpr int bits = 8 * int(sizeof(K));

  static K from_u64(std::uint64_t u) {
    std::uint64_t top = bits == 64 ? u : (u >> (64 - bits));
    if constexpr (std::is_signed_v<K>) top ^= std::uint64_t(1) << (bits - 1);  // offset binary
    return static_cast<K>(top);
  }
  // Saturating min() + i.
  static K from_index(std::uint64_t i) {
    const std::uint64_t low = static_cast<std::uint64_t>(std::numeric_limits<K>::min());
    const std::uint64_t span = static_cast<std::uint64_t>(std::numeric_limits<K>::max()) - low;
    return i >= span ? std::numeric_limits<K>::max() : static_cast<K>(low + i);
  }
};

template <class K>
struct key_traits<K, std::enable_if_t<std::is_floating_point_v<K>>> {
  using compare = corank::less;
  // [-1000, 0) for the lower half, [0, 1000) for the upper.
  static K from_u64(std::uint64_t u) {
    if (u < (std::uint64_t(1) << 63)) {
      const std::uint64_t capped = u > (std::uint64_t(1) << 63) - (std::uint64_t(1) << 53)
                                       ? (std::uint64_t(1) << 63) - (std::uint64_t(1) << 53)
                                       : u;
      return static_cast<K>(-1000.0 + double(capped) * (1000.0 / 9223372036854775808.0));
    }
    return static_cast<K>(double(u - (std::uint64_t(1) << 63)) * (1000.0 / 9223372036854775808.0));
  }
  // Exact in float up to 2^24 - 2^20; still monotone beyond.
  static K from_index(std::uint64_t i) { return static_cast<K>(double(i) - 1048576.0); }
};

template <>
struct key_traits<opaque_key> {
  using compare = opaque_less;
  static opaque_key from_u64(std::uint64_t u) {
    return {static_cast<std::int32_t>(std::uint32_t(u >> 32) ^ 0x80000000u), std::uint32_t(u)};
  }
  static opaque_key from_index(std::uint64_t i) {
    return {static_cast<std::int32_t>(i >> 8) - 100, std::uint32_t(i & 0xFF)};
  }
};

template <class K>
std::string key_name() {
  if constexpr (std::is_same_v<K, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<K, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<K, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<K, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<K, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<K, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<K, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<K, float>) return "float";
  else if constexpr (std::is_same_v<K, double>) return "double";
  else if constexpr (std::is_same_v<K, opaque_key>) return "opaque_key";
  else return "unknown";
}

template <class K>
std::string key_to_string(const K& k) {
  if constexpr (std::is_same_v<K, opaque_key>) {
    return "{" + std::to_string(k.major) + "," + std::to_string(k.minor) + "}";
  } else if constexpr (std::is_same_v<K, tagged_key>) {
    return "{" + std::to_string(k.major) + "," + std::to_string(k.minor) + ", tag " + std::to_string(k.tag) + "}";
  } else if constexpr (std::is_floating_point_v<K>) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", double(k));
    return text;
  } else if constexpr (std::is_same_v<K, std::uint64_t>) {
    // Stability payloads are (source << 32) | index: show them as A[i] / B[i] too.
    const std::uint64_t source = k >> 32;
    return std::to_string(k) + (source <= 1 ? std::string(source == 0 ? " (A[" : " (B[") +
                                                  std::to_string(k & 0xFFFFFFFFu) + "])"
                                            : std::string());
  } else if constexpr (std::is_arithmetic_v<K>) {
    return std::to_string(k);  // int8 prints as a number, not a character
  } else {
    return "(" + std::to_string(sizeof(K)) + "-byte key)";
  }
}

template <class T>
bool same_bits(const T& x, const T& y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

// The matrix every backend runs: eight arithmetic types and the comparator-only struct.
// (Default, numeric suite names: ctest's test discovery turns them into
// "Suite.Test<int>"-style names.)
using all_key_types = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::uint32_t, std::int64_t,
                                       std::uint64_t, float, double, opaque_key>;

}  // namespace corank::test
