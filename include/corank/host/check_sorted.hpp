#pragma once
// The CPU backend's sortedness checks; same meaning as check_sorted.cuh.

#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/error.hpp>

#include <algorithm>

namespace corank::host {

// The first index i in [1, last - first) with comp(first[i], first[i - 1]), or last - first if
// there is none (std::is_sorted_until). O(n) comparisons on the calling thread, stopping at
// the first break; random-access iterators; no errors of its own.
template <class Keys, class Compare = corank::less>
index_t find_unsorted(Keys first, Keys last, Compare comp = {}) {
  return std::is_sorted_until(first, last, comp) - first;
}

// Checks A, then (if A is sorted) B, with find_unsorted: an unsorted input throws
// corank::unsorted_input (a std::invalid_argument) naming it ('A' or 'B') and its first i with
// comp(x[i], x[i - 1]). Empty inputs are sorted. O(m + n) comparisons on the calling thread.
template <class KeysA, class KeysB, class Compare = corank::less>
void check_sorted(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp = {}) {
  if (const index_t i = find_unsorted(a_first, a_last, comp); i != index_t(a_last - a_first)) {
    throw unsorted_input("corank::host::check_sorted", 'A', i);
  }
  if (const index_t i = find_unsorted(b_first, b_last, comp); i != index_t(b_last - b_first)) {
    throw unsorted_input("corank::host::check_sorted", 'B', i);
  }
}

}  // namespace corank::host
