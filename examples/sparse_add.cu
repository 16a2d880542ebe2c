// Example: adding two sparse vectors with the op of sparse_add.hpp, on the GPU and on CPU
// threads, each checked against a plain loop. From the checkout:
//   cmake -S . -B build -G Ninja && cmake --build build --target corank_example_sparse_add
//   build/examples/corank_example_sparse_add
// Prints the sum and "OK"; exits 1 on a mismatch. Without a GPU it says so in one line and
// runs the CPU part only.

#include <corank/host/operation.hpp>  // corank::host::by_key_operation: an op on CPU threads
#include <corank/operation.cuh>       // corank::by_key_operation: the same op on the GPU

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <cstdio>
#include <vector>

#include "example_check.hpp"  // check_gpu_and_cpu
#include "sparse_add.hpp"  // sparse_add_op

// A sparse vector: the indices of its nonzero entries, ascending, and their values.
struct sparse_vector {
  std::vector<int> index;
  std::vector<double> value;
};

bool operator==(const sparse_vector& x, const sparse_vector& y) {
  return x.index == y.index && x.value == y.value;
}

void print(const char* name, const sparse_vector& v) {
  std::printf("%s = {", name);
  for (std::size_t k = 0; k < v.index.size(); ++k) std::printf("%s%d: %g", k ? ", " : "", v.index[k], v.value[k]);
  std::printf("}\n");
}

// The reference: the two-pointer loop one would write without corank.
sparse_vector reference_add(const sparse_vector& a, const sparse_vector& b) {
  sparse_vector sum;
  std::size_t i = 0, j = 0;
  while (i < a.index.size() || j < b.index.size()) {
    if (j == b.index.size() || (i < a.index.size() && a.index[i] < b.index[j])) {
      sum.index.push_back(a.index[i]);
      sum.value.push_back(a.value[i++]);
    } else if (i == a.index.size() || b.index[j] < a.index[i]) {
      sum.index.push_back(b.index[j]);
      sum.value.push_back(b.value[j++]);
    } else {  // the same index in both: one entry, the sum
      sum.index.push_back(a.index[i]);
      sum.value.push_back(a.value[i++] + b.value[j++]);
    }
  }
  return sum;
}

// On CPU threads. The output has room for every entry of both inputs; the runner returns
// the ends of what it wrote (keys, values), as std::set_union does.
sparse_vector add_on_cpu(const sparse_vector& a, const sparse_vector& b) {
  sparse_vector sum;
  sum.index.resize(a.index.size() + b.index.size());
  sum.value.resize(sum.index.size());
  const auto ends = corank::host::by_key_operation<sparse_add_op>{}(
      a.index.begin(), a.index.end(), b.index.begin(), b.index.end(), a.value.begin(), b.value.begin(),
      sum.index.begin(), sum.value.begin());
  sum.index.erase(ends.first, sum.index.end());
  sum.value.erase(ends.second, sum.value.end());
  return sum;
}

// On the GPU: the same call on device vectors (the convenience form: it allocates what it
// needs, throws corank::cuda_error, and waits for the output size to return the ends), then
// the result copied back.
sparse_vector add_on_gpu(const sparse_vector& a, const sparse_vector& b) {
  const thrust::device_vector<int> a_index(a.index.begin(), a.index.end()), b_index(b.index.begin(), b.index.end());
  const thrust::device_vector<double> a_value(a.value.begin(), a.value.end()), b_value(b.value.begin(), b.value.end());
  thrust::device_vector<int> index(a.index.size() + b.index.size());
  thrust::device_vector<double> value(index.size());
  const auto ends = corank::by_key_operation<sparse_add_op>{}(a_index.begin(), a_index.end(), b_index.begin(),
                                                              b_index.end(), a_value.begin(), b_value.begin(),
                                                              index.begin(), value.begin());
  sparse_vector sum;
  sum.index.resize(ends.first - index.begin());
  sum.value.resize(sum.index.size());
  thrust::copy(index.begin(), ends.first, sum.index.begin());
  thrust::copy(value.begin(), ends.second, sum.value.begin());
  return sum;
}

int main() {
  // Values exact in binary floating point, so that results compare with ==.
  const sparse_vector a{{0, 4, 9}, {1.5, 2, -1}};
  const sparse_vector b{{4, 5, 9, 12}, {0.5, 3, 4, -2}};
  const sparse_vector expected = reference_add(a, b);
  print("a", a);
  print("b", b);
  print("a + b", expected);

  return check_gpu_and_cpu([&] { return add_on_gpu(a, b) == expected; },
                           [&] { return add_on_cpu(a, b) == expected; });
}
