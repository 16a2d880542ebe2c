// README.md's quick start: a merge, a multiset union and an intersection's size, on the GPU.
// Run by the tests (run_example.cmake compares its output with quick_start.txt).
// README.md shows this file from here on (check_readme.cmake checks).
#include <corank/corank.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <cstdio>
#include <vector>

void print(const char* name, const thrust::host_vector<int>& keys) {
  std::printf("%s:", name);
  for (int key : keys) std::printf(" %d", key);
  std::printf("\n");
}

int main() {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    std::puts("no CUDA GPU: skipped");  // the CPU backend, corank::host, runs without one
    return 0;
  }
  const std::vector<int> ha{1, 3, 3, 5, 7}, hb{3, 4, 5, 5};
  thrust::device_vector<int> a(ha.begin(), ha.end()), b(hb.begin(), hb.end());
  thrust::device_vector<int> out(a.size() + b.size());

  // Stable, like std::merge: equal keys keep A's first. Throws corank::cuda_error.
  corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin());
  print("merge", thrust::host_vector<int>(out.begin(), out.end()));

  // std::set_union's multiset rule: max(copies in A, copies in B); returns the output's end.
  const auto end = corank::set_union(a.begin(), a.end(), b.begin(), b.end(), out.begin());
  print("set_union", thrust::host_vector<int>(out.begin(), end));

  // Only the output's size: min(copies in A, copies in B) summed over the keys.
  const corank::index_t common = corank::set_intersection_count(a.begin(), a.end(), b.begin(), b.end());
  std::printf("set_intersection_count: %lld\n", static_cast<long long>(common));
}
