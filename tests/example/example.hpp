#pragma once
// The README example's custom op and its output, shared by the example's GPU form
// (readme_example.cu) and CPU form (readme_example_host.cpp).
// docs/guide/cpp.md shows this file from here on (check_readme.cmake checks).
#include <corank/op.hpp>

#include <cstdio>

// A custom op: adding sparse vectors stored as sorted (index, value) pairs is union by key,
// except that an index present in both writes the sum of the two values. CORANK_HOST_DEVICE
// is __host__ __device__ under nvcc and nothing under a C++ compiler: one op serves both.
struct sparse_add_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;

  CORANK_HOST_DEVICE corank::action operator()(corank::relation r) const {
    if (r == corank::relation::a_first) return corank::take_a();
    if (r == corank::relation::b_first) return corank::take_b();
    return {corank::emit::combined, corank::advance::both};  // equal indices: one output
  }
  CORANK_HOST_DEVICE int combine(int a, int b) const { return a + b; }
};

// Prints "step: x y ..." from host or device iterators.
template <class Iterator>
void print(int step, Iterator first, Iterator last) {
  std::printf("%d:", step);
  for (; first != last; ++first) std::printf(" %d", int(*first));
  std::printf("\n");
}
