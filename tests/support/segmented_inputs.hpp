#pragma once
// Segmented cases (S segment pairs of sorted A and B segments, with S + 1 offsets each), the
// segment-length shapes that stress a segmented operation, and the per-segment references:
// std::merge and std::set_* applied to each pair (via inputs.hpp and set_inputs.hpp), giving
// the expected keys, values, output offsets and counts. Shared by the host and GPU tests.
// Plain C++.
//
// Keys inside a segment come from a small random range placed anywhere, so a segment's keys
// are not above the previous segment's, neighbours often share keys (a match across a
// segment boundary would show), and some segments match much and some not at all. Values are
// stability payloads (inputs.hpp: payloads, int32_payloads), each element tagged with its
// index, so the tests see which copy of a key was written; tagged_key keys carry the same tag
// in the key (A: i, B: 2^31 + j), so even keys-only forms show it.

#include "support/inputs.hpp"
#include "support/keys.hpp"
#include "support/set_inputs.hpp"

#include <corank/config.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace corank::test {

template <class K>
struct segmented_case {
  std::vector<K> a;
  std::vector<K> b;
  std::vector<index_t> a_offsets;  // S + 1: segment s of A is a[a_offsets[s], a_offsets[s + 1])
  std::vector<index_t> b_offsets;
  index_t segments = 0;  // S
  std::string shape;     // for traces

  std::size_t a_size(index_t s) const { return std::size_t(a_offsets[s + 1] - a_offsets[s]); }
  std::size_t b_size(index_t s) const { return std::size_t(b_offsets[s + 1] - b_offsets[s]); }
  std::string describe() const {
    return shape + " S=" + std::to_string(segments) + " m=" + std::to_string(a.size()) +
           " n=" + std::to_string(b.size());
  }
};

enum class segment_shape {
  random,           // random S (up to total / 8), random lengths on scales from 1 to 1000
  equal_length,     // every segment L in A and L in B (L = 16)
  power_law,        // lengths ~ rank^-1.3: a few segments hold most of the data
  half_empty_a,     // random, half the segments empty in A
  half_empty_b,     // in B
  half_empty_both,  // in both
  single,           // S = 1
  one_holds_half,   // one segment holds half of the data, the others share the rest
  long_equal_runs,  // segments of one key longer than 10000 elements (the same key in each), small ones between
  all_empty,        // S > 0 segments, A and B empty
  none              // S = 0
};

inline constexpr segment_shape all_segment_shapes[] = {
    segment_shape::random,          segment_shape::equal_length,   segment_shape::power_law,
    segment_shape::half_empty_a,    segment_shape::half_empty_b,   segment_shape::half_empty_both,
    segment_shape::single,          segment_shape::one_holds_half, segment_shape::long_equal_runs,
    segment_shape::all_empty,       segment_shape::none};

inline const char* to_string(segment_shape shape) {
  switch (shape) {
    case segment_shape::random: return "random";
    case segment_shape::equal_length: return "equal_length";
    case segment_shape::power_law: return "power_law";
    case segment_shape::half_empty_a: return "half_empty_a";
    case segment_shape::half_empty_b: return "half_empty_b";
    case segment_shape::half_empty_both: return "half_empty_both";
    case segment_shape::single: return "single";
    case segment_shape::one_holds_half: return "one_holds_half";
    case segment_shape::long_equal_runs: return "long_equal_runs";
    case segment_shape::all_empty: return "all_empty";
    case segment_shape::none: return "none";
  }
  return "?";
}

// Order-preserving keys from small counts: key_traits<K>::from_index, and for tagged_key
// (tagged_order: major descending, then minor) a key whose tag the case sets afterwards.
template <class K>
K segment_key(std::uint64_t i) {
  if constexpr (std::is_same_v<K, tagged_key>) {
    return {-std::int64_t(i >> 8), std::uint32_t(i & 0xFF), 0};
  } else {
    return key_traits<K>::from_index(i);
  }
}

namespace segmented_detail {

// n sorted draws from [first, first + distinct).
inline std::vector<std::uint64_t> sorted_draws(std::size_t n, std::uint64_t first, std::uint64_t distinct,
                                               std::mt19937_64& rng) {
  std::vector<std::uint64_t> u(n);
  for (std::uint64_t& x : u) x = first + rng() % std::max<std::uint64_t>(1, distinct);
  std::sort(u.begin(), u.end());
  return u;
}

// One segment pair's keys (as counts), in one of five mixes: many matches, few, A below B, B
// below A, one key throughout. Counts stay below 2^20 (exact in float).
inline void segment_draws(std::size_t na, std::size_t nb, std::mt19937_64& rng, std::vector<std::uint64_t>& a,
                          std::vector<std::uint64_t>& b) {
  const std::uint64_t base = rng() % 1000;
  const std::uint64_t n = na + nb;
  switch (rng() % 5) {
    case 0:  // many matches
      a = sorted_draws(na, base, std::max<std::uint64_t>(1, n / 4), rng);
      b = sorted_draws(nb, base, std::max<std::uint64_t>(1, n / 4), rng);
      break;
    case 1:  // few matches
      a = sorted_draws(na, base, 4 * n + 1, rng);
      b = sorted_draws(nb, base, 4 * n + 1, rng);
      break;
    case 2:
      a = sorted_draws(na, base, na + 1, rng);
      b = sorted_draws(nb, base + na + 1, nb + 1, rng);
      break;
    case 3:
      b = sorted_draws(nb, base, nb + 1, rng);
      a = sorted_draws(na, base + nb + 1, na + 1, rng);
      break;
    default:
      a.assign(na, base);
      b.assign(nb, base);
      break;
  }
}

}  // namespace segmented_detail

// Gives tagged_key keys their tags (A: i, B: 2^31 + j); other keys are left as they are.
template <class K>
void tag_keys(segmented_case<K>& c) {
  if constexpr (std::is_same_v<K, tagged_key>) {
    for (std::size_t i = 0; i < c.a.size(); ++i) c.a[i].tag = std::uint32_t(i);
    for (std::size_t j = 0; j < c.b.size(); ++j) c.b[j].tag = std::uint32_t(0x80000000u | j);
  }
}

// A case of the given segment lengths, keys drawn per segment (segment_draws's mixes).
template <class K>
segmented_case<K> make_segmented_case_of_lengths(const std::vector<std::size_t>& a_lengths,
                                                 const std::vector<std::size_t>& b_lengths, std::mt19937_64& rng,
                                                 std::string shape = "lengths") {
  if (a_lengths.size() != b_lengths.size()) throw std::logic_error("segment lengths: A and B differ in S");
  segmented_case<K> c;
  c.shape = std::move(shape);
  c.segments = index_t(a_lengths.size());
  c.a_offsets.assign(1, 0);
  c.b_offsets.assign(1, 0);
  std::vector<std::uint64_t> ua, ub;
  for (std::size_t s = 0; s < a_lengths.size(); ++s) {
    segmented_detail::segment_draws(a_lengths[s], b_lengths[s], rng, ua, ub);
    for (std::uint64_t u : ua) c.a.push_back(segment_key<K>(u));
    for (std::uint64_t u : ub) c.b.push_back(segment_key<K>(u));
    c.a_offsets.push_back(index_t(c.a.size()));
    c.b_offsets.push_back(index_t(c.b.size()));
  }
  tag_keys(c);
  return c;
}

// A case of `shape` with about `total` elements in A and B together (long_equal_runs: at
// least 60000 whatever `total`; all_empty and none: none).
template <class K>
segmented_case<K> make_segmented_case(segment_shape shape, std::size_t total, std::mt19937_64& rng) {
  std::vector<std::size_t> la, lb;
  auto random_lengths = [&](std::size_t mean) {
    const std::size_t segments = std::max<std::size_t>(1, total / std::max<std::size_t>(1, mean));
    la.resize(segments);
    lb.resize(segments);
    for (std::size_t s = 0; s < segments; ++s) {
      la[s] = rng() % (mean + 1);
      lb[s] = rng() % (mean + 1);
    }
  };
  auto empty_half = [&](std::vector<std::size_t>* x, std::vector<std::size_t>* y) {
    for (std::size_t s = 0; s < la.size(); ++s) {
      if (rng() % 2 == 0) continue;
      if (x) (*x)[s] = 0;
      if (y) (*y)[s] = 0;
    }
  };
  auto split_pair = [&](std::size_t s, std::size_t length) {
    la[s] = length == 0 ? 0 : std::size_t(rng() % (length + 1));
    lb[s] = length - la[s];
  };
  switch (shape) {
    case segment_shape::random: {
      // S up to total / 8, each segment's share drawn on scales from 1 to 1000, scaled to `total`.
      const std::size_t segments = 1 + std::size_t(rng() % std::max<std::uint64_t>(1, total / 8));
      const double scales[] = {1, 4, 16, 100, 1000};
      std::vector<double> share(segments);
      for (double& x : share) x = scales[rng() % 5] * double(rng() % 1001) / 1000.0;
      const double sum = std::max(1e-9, std::accumulate(share.begin(), share.end(), 0.0));
      la.resize(segments);
      lb.resize(segments);
      for (std::size_t s = 0; s < segments; ++s) split_pair(s, std::size_t(double(total) * share[s] / sum));
      break;
    }
    case segment_shape::equal_length: {
      constexpr std::size_t length = 16;
      la.assign(std::max<std::size_t>(1, total / (2 * length)), length);
      lb = la;
      break;
    }
    case segment_shape::power_law: {
      const std::size_t segments = std::max<std::size_t>(1, total / 64);
      std::vector<double> weight(segments);
      for (std::size_t s = 0; s < segments; ++s) weight[s] = std::pow(double(s + 1), -1.3);
      std::shuffle(weight.begin(), weight.end(), rng);
      const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
      la.resize(segments);
      lb.resize(segments);
      for (std::size_t s = 0; s < segments; ++s) split_pair(s, std::size_t(double(total) * weight[s] / sum));
      break;
    }
    case segment_shape::half_empty_a:
      random_lengths(32);
      empty_half(&la, nullptr);
      break;
    case segment_shape::half_empty_b:
      random_lengths(32);
      empty_half(nullptr, &lb);
      break;
    case segment_shape::half_empty_both:
      random_lengths(32);
      empty_half(&la, &lb);
      break;
    case segment_shape::single:
      la.resize(1);
      lb.resize(1);
      split_pair(0, total);
      break;
    case segment_shape::one_holds_half: {
      const std::size_t segments = std::max<std::size_t>(2, total / 64);
      la.resize(segments);
      lb.resize(segments);
      for (std::size_t s = 0; s < segments; ++s) split_pair(s, rng() % (2 * (total / 2) / segments + 1));
      split_pair(rng() % segments, total / 2);
      break;
    }
    case segment_shape::long_equal_runs: {
      // 4 segments of one key (the same in each), 10000 to 15000 copies on each side, between
      // small random ones; tagged below.
      segmented_case<K> c;
      c.shape = to_string(shape);
      c.a_offsets.assign(1, 0);
      c.b_offsets.assign(1, 0);
      std::vector<std::uint64_t> ua, ub;
      const std::uint64_t key = rng() % 1000;
      for (int run = 0; run < 4; ++run) {
        for (int small = 0; small < 3; ++small) {
          segmented_detail::segment_draws(rng() % 40, rng() % 40, rng, ua, ub);
          for (std::uint64_t u : ua) c.a.push_back(segment_key<K>(u));
          for (std::uint64_t u : ub) c.b.push_back(segment_key<K>(u));
          c.a_offsets.push_back(index_t(c.a.size()));
          c.b_offsets.push_back(index_t(c.b.size()));
        }
        c.a.insert(c.a.end(), 10000 + rng() % 5001, segment_key<K>(key));
        c.b.insert(c.b.end(), 10000 + rng() % 5001, segment_key<K>(key));
        c.a_offsets.push_back(index_t(c.a.size()));
        c.b_offsets.push_back(index_t(c.b.size()));
      }
      c.segments = index_t(c.a_offsets.size() - 1);
      tag_keys(c);
      return c;
    }
    case segment_shape::all_empty:
      la.assign(std::max<std::size_t>(1, std::min<std::size_t>(total, 5000)), 0);
      lb = la;
      break;
    case segment_shape::none:
      break;
  }
  return make_segmented_case_of_lengths<K>(la, lb, rng, to_string(shape));
}

// Floating-point keys for nan_last_less: in about a third of the segments, the last few keys
// of A's or B's side (or both) become NaN (still sorted, NaNs last and all equivalent).
template <class K>
void add_nan_tails(segmented_case<K>& c, std::mt19937_64& rng) {
  static_assert(std::is_floating_point_v<K>, "NaN tails are for floating-point keys");
  const K nan = std::numeric_limits<K>::quiet_NaN();
  for (index_t s = 0; s < c.segments; ++s) {
    if (rng() % 3 != 0) continue;
    const unsigned sides = 1 + unsigned(rng() % 3);  // 1: A, 2: B, 3: both
    if ((sides & 1) && c.a_size(s) > 0) {
      const std::size_t r = 1 + rng() % (c.a_size(s) / 4 + 1);
      std::fill(c.a.begin() + (c.a_offsets[s + 1] - index_t(r)), c.a.begin() + c.a_offsets[s + 1], nan);
    }
    if ((sides & 2) && c.b_size(s) > 0) {
      const std::size_t r = 1 + rng() % (c.b_size(s) / 4 + 1);
      std::fill(c.b.begin() + (c.b_offsets[s + 1] - index_t(r)), c.b.begin() + c.b_offsets[s + 1], nan);
    }
  }
}

// ---------------------------------------------------------------------------------------
// References: the op applied to each segment pair, the results concatenated.

template <class K, class V>
struct segmented_expected {
  std::vector<K> keys;
  std::vector<V> values;         // by-key forms: the value of each output
  std::vector<V> b_values;       // paired form: the value of the B copy it was matched with
  std::vector<index_t> offsets;  // S + 1: segment s's output is keys[offsets[s], offsets[s + 1])
  std::vector<index_t> counts;   // S: segment s's output size

  index_t total() const { return offsets.empty() ? 0 : offsets.back(); }
};

namespace segmented_detail {

template <class T>
std::vector<T> slice(const std::vector<T>& x, index_t from, index_t to) {
  return std::vector<T>(x.begin() + from, x.begin() + to);
}

// Concatenates one(a, va, b, vb) -> paired_result over the segments; va and vb may be empty
// (keys-only references).
template <class K, class V, class One>
segmented_expected<K, V> per_segment(const segmented_case<K>& c, const std::vector<V>& va, const std::vector<V>& vb,
                                     One one) {
  segmented_expected<K, V> out;
  out.offsets.assign(1, 0);
  const bool with_values = !va.empty() || !vb.empty();
  for (index_t s = 0; s < c.segments; ++s) {
    const index_t a0 = c.a_offsets[s], a1 = c.a_offsets[s + 1], b0 = c.b_offsets[s], b1 = c.b_offsets[s + 1];
    const paired_result<K, V> r = one(slice(c.a, a0, a1), with_values ? slice(va, a0, a1) : std::vector<V>{},
                                      slice(c.b, b0, b1), with_values ? slice(vb, b0, b1) : std::vector<V>{});
    out.keys.insert(out.keys.end(), r.keys.begin(), r.keys.end());
    out.values.insert(out.values.end(), r.values.begin(), r.values.end());
    out.b_values.insert(out.b_values.end(), r.b_values.begin(), r.b_values.end());
    out.counts.push_back(index_t(r.keys.size()));
    out.offsets.push_back(index_t(out.keys.size()));
  }
  return out;
}

}  // namespace segmented_detail

// Per-segment std::merge (keys only).
template <class K, class Compare>
segmented_expected<K, std::uint64_t> reference_segmented_merge(const segmented_case<K>& c, Compare comp) {
  return segmented_detail::per_segment(
      c, std::vector<std::uint64_t>{}, std::vector<std::uint64_t>{},
      [&](const std::vector<K>& a, const std::vector<std::uint64_t>&, const std::vector<K>& b,
          const std::vector<std::uint64_t>&) {
        paired_result<K, std::uint64_t> r;
        r.keys = reference_merge(a, b, comp);
        return r;
      });
}

// Per-segment stable merge of (key, value) pairs by key.
template <class K, class V, class Compare>
segmented_expected<K, V> reference_segmented_merge_by_key(const segmented_case<K>& c, const std::vector<V>& va,
                                                          const std::vector<V>& vb, Compare comp) {
  return segmented_detail::per_segment(
      c, va, vb, [&](const std::vector<K>& a, const std::vector<V>& sa, const std::vector<K>& b, const std::vector<V>& sb) {
        keys_and_values<K, V> kv = reference_merge_by_key(a, sa, b, sb, comp);
        paired_result<K, V> r;
        r.keys = std::move(kv.keys);
        r.values = std::move(kv.values);
        return r;
      });
}

// Per-segment std::set_<op> (keys only).
template <class K, class Compare>
segmented_expected<K, std::uint64_t> reference_segmented_set_op(set_op op, const segmented_case<K>& c,
                                                               Compare comp) {
  return segmented_detail::per_segment(
      c, std::vector<std::uint64_t>{}, std::vector<std::uint64_t>{},
      [&](const std::vector<K>& a, const std::vector<std::uint64_t>&, const std::vector<K>& b,
          const std::vector<std::uint64_t>&) {
        paired_result<K, std::uint64_t> r;
        r.keys = std_set_op(op, a, b, comp);
        return r;
      });
}

// Per-segment std::set_<op> of (key, value) pairs by key.
template <class K, class V, class Compare>
segmented_expected<K, V> reference_segmented_set_op_by_key(set_op op, const segmented_case<K>& c,
                                                           const std::vector<V>& va, const std::vector<V>& vb,
                                                           Compare comp) {
  return segmented_detail::per_segment(
      c, va, vb, [&](const std::vector<K>& a, const std::vector<V>& sa, const std::vector<K>& b, const std::vector<V>& sb) {
        keys_and_values<K, V> kv = reference_set_op_by_key(op, a, sa, b, sb, comp);
        paired_result<K, V> r;
        r.keys = std::move(kv.keys);
        r.values = std::move(kv.values);
        return r;
      });
}

// Per-segment intersection with the matched B copy's value (set_inputs.hpp's
// reference_intersection_paired).
template <class K, class V, class Compare>
segmented_expected<K, V> reference_segmented_intersection_paired(const segmented_case<K>& c, const std::vector<V>& va,
                                                                 const std::vector<V>& vb, Compare comp) {
  return segmented_detail::per_segment(
      c, va, vb, [&](const std::vector<K>& a, const std::vector<V>& sa, const std::vector<K>& b, const std::vector<V>& sb) {
        return reference_intersection_paired(a, sa, b, sb, comp);
      });
}

}  // namespace corank::test
