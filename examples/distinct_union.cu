// Example: the distinct union of two sorted lists with repeats, with the op of
// distinct_union.hpp, on the GPU and on CPU threads, each checked against a std::set.
// From the checkout:
//   cmake -S . -B build -G Ninja && cmake --build build --target corank_example_distinct_union
//   build/examples/corank_example_distinct_union
// Prints the union and "OK"; exits 1 on a mismatch. Without a GPU it says so in one line and
// runs the CPU part only.

#include <corank/host/operation.hpp>  // corank::host::keys_operation: an op on CPU threads
#include <corank/operation.cuh>       // corank::keys_operation: the same op on the GPU

#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include <cstdio>
#include <set>
#include <vector>

#include "example_check.hpp"  // check_gpu_and_cpu
#include "distinct_union.hpp"  // distinct_union_op

void print(const char* name, const std::vector<int>& v) {
  std::printf("%s = {", name);
  for (std::size_t k = 0; k < v.size(); ++k) std::printf("%s%d", k ? ", " : "", v[k]);
  std::printf("}\n");
}

// The reference: a std::set holds each key once.
std::vector<int> reference_distinct_union(const std::vector<int>& a, const std::vector<int>& b) {
  std::set<int> keys(a.begin(), a.end());
  keys.insert(b.begin(), b.end());
  return std::vector<int>(keys.begin(), keys.end());
}

// On CPU threads. The output has room for every key of both inputs; the runner returns the
// end of what it wrote, as std::set_union does.
std::vector<int> distinct_union_on_cpu(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out(a.size() + b.size());
  const auto end = corank::host::keys_operation<distinct_union_op>{}(a.begin(), a.end(), b.begin(), b.end(),
                                                                     out.begin());
  out.erase(end, out.end());
  return out;
}

// On the GPU: the same call on device vectors (the convenience form: it allocates what it
// needs, throws corank::cuda_error, and waits for the output size to return the end), then
// the result copied back.
std::vector<int> distinct_union_on_gpu(const std::vector<int>& a, const std::vector<int>& b) {
  const thrust::device_vector<int> device_a(a.begin(), a.end()), device_b(b.begin(), b.end());
  thrust::device_vector<int> out(a.size() + b.size());
  const auto end = corank::keys_operation<distinct_union_op>{}(device_a.begin(), device_a.end(), device_b.begin(),
                                                               device_b.end(), out.begin());
  std::vector<int> result(end - out.begin());
  thrust::copy(out.begin(), end, result.begin());
  return result;
}

int main() {
  // Who visited on each of two days, sorted, once per visit: who visited on either day?
  const std::vector<int> monday{3, 3, 7, 7, 7, 12, 20};
  const std::vector<int> tuesday{1, 3, 12, 12, 15, 20, 20};
  const std::vector<int> expected = reference_distinct_union(monday, tuesday);
  print("monday", monday);
  print("tuesday", tuesday);
  print("either day", expected);

  return check_gpu_and_cpu([&] { return distinct_union_on_gpu(monday, tuesday) == expected; },
                           [&] { return distinct_union_on_cpu(monday, tuesday) == expected; });
}
