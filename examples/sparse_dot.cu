// Example: the dot product of two sparse vectors with the op of sparse_dot.hpp (the products
// at the indices both have, then their sum), on the GPU and on CPU threads, each checked
// against a plain loop. From the checkout:
//   cmake -S . -B build -G Ninja && cmake --build build --target corank_example_sparse_dot
//   build/examples/corank_example_sparse_dot
// Prints the dot product and "OK"; exits 1 on a mismatch. Without a GPU it says so in one
// line and runs the CPU part only.

#include <corank/host/operation.hpp>  // corank::host::by_key_operation: an op on CPU threads

#include <thrust/device_vector.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "example_check.hpp"  // check_gpu_and_cpu
#include "sparse_dot.hpp"  // sparse_dot_op, and sparse_dot() for the GPU

// A sparse vector: the indices of its nonzero entries, ascending, and their values.
struct sparse_vector {
  std::vector<int> index;
  std::vector<double> value;
};

void print(const char* name, const sparse_vector& v) {
  std::printf("%s = {", name);
  for (std::size_t k = 0; k < v.index.size(); ++k) std::printf("%s%d: %g", k ? ", " : "", v.index[k], v.value[k]);
  std::printf("}\n");
}

// The reference: the two-pointer loop one would write without corank.
double reference_dot(const sparse_vector& a, const sparse_vector& b) {
  double sum = 0;
  std::size_t i = 0, j = 0;
  while (i < a.index.size() && j < b.index.size()) {
    if (a.index[i] < b.index[j]) {
      ++i;
    } else if (b.index[j] < a.index[i]) {
      ++j;
    } else {
      sum += a.value[i++] * b.value[j++];
    }
  }
  return sum;
}

// On CPU threads: the op writes the product at each index both vectors have (and that
// index), at most as many as the shorter one has entries; std::accumulate sums them.
double dot_on_cpu(const sparse_vector& a, const sparse_vector& b) {
  const std::size_t at_most = std::min(a.index.size(), b.index.size());
  std::vector<int> shared_index(at_most);
  std::vector<double> products(at_most);
  const auto ends = corank::host::by_key_operation<sparse_dot_op>{}(
      a.index.begin(), a.index.end(), b.index.begin(), b.index.end(), a.value.begin(), b.value.begin(),
      shared_index.begin(), products.begin());
  return std::accumulate(products.begin(), ends.second, 0.0);
}

// On the GPU: sparse_dot() of the header does the same with corank::by_key_operation and
// thrust::reduce.
double dot_on_gpu(const sparse_vector& a, const sparse_vector& b) {
  const thrust::device_vector<int> a_index(a.index.begin(), a.index.end()), b_index(b.index.begin(), b.index.end());
  const thrust::device_vector<double> a_value(a.value.begin(), a.value.end()), b_value(b.value.begin(), b.value.end());
  return sparse_dot(a_index, a_value, b_index, b_value);
}

int main() {
  // Values whose products and sums are exact in double, so results compare with ==.
  const sparse_vector a{{0, 4, 9}, {1.5, 2, -1}};
  const sparse_vector b{{4, 5, 9, 12}, {0.5, 3, 4, -2}};
  const double expected = reference_dot(a, b);
  print("a", a);
  print("b", b);
  std::printf("a . b = %g\n", expected);

  return check_gpu_and_cpu([&] { return dot_on_gpu(a, b) == expected; },
                           [&] { return dot_on_cpu(a, b) == expected; });
}
