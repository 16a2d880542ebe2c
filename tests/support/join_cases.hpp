#pragma once
// The sort-merge join's reference, shared by the CPU and GPU tests: every pair (i, j) with
// left[i] equivalent to right[j], in the order of i, then j, from each left key's
// std::equal_range in the right column. Plain C++.

#include <corank/config.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace corank::test {

struct join_pairs {
  std::vector<index_t> left, right;
};

template <class K, class Compare>
join_pairs reference_join(const std::vector<K>& left, const std::vector<K>& right, Compare comp) {
  join_pairs out;
  for (std::size_t i = 0; i < left.size(); ++i) {
    const auto range = std::equal_range(right.begin(), right.end(), left[i], comp);
    for (auto j = range.first; j != range.second; ++j) {
      out.left.push_back(index_t(i));
      out.right.push_back(index_t(j - right.begin()));
    }
  }
  return out;
}

}  // namespace corank::test
