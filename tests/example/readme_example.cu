// The README example on the GPU, a tour of the C++ forms: seven steps, each printing its
// result. Run by the tests (run_example.cmake compares its output with readme_example.txt, as
// for the CPU form).
// docs/guide/cpp.md shows this file from here on (check_readme.cmake checks).
#include <corank/corank.cuh>
#include <thrust/device_vector.h>

#include <vector>

#include "example.hpp"  // sparse_add_op, print

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no CUDA GPU: skipped");  // readme_example_host.cpp runs the same on the CPU
    return 0;
  }
  const std::vector<int> ha{1, 7, 8, 9, 10}, hb{7, 10, 10, 12};
  thrust::device_vector<int> a(ha.begin(), ha.end()), b(hb.begin(), hb.end());

  // 1. Convenience form: iterator ranges like std::merge; throws corank::cuda_error.
  thrust::device_vector<int> out(a.size() + b.size());
  corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin());
  print(1, out.begin(), out.end());

  // 2. merge_by_key: values travel with their keys; equal keys keep A's first (stable).
  thrust::device_vector<int> a_values(ha.size(), 0), b_values(hb.size(), 1);  // 0: from A, 1: from B
  thrust::device_vector<int> keys(out.size()), values(out.size());
  corank::merge_by_key(a.begin(), a.end(), b.begin(), b.end(), a_values.begin(), b_values.begin(),
                       keys.begin(), values.begin());
  print(2, values.begin(), values.end());

  // 3. Two-phase form: ask for the temporary storage, allocate it, run. It returns a
  //    cudaError_t, never allocates or synchronizes, and can be captured in a CUDA graph.
  const int* pa = thrust::raw_pointer_cast(a.data());
  const int* pb = thrust::raw_pointer_cast(b.data());
  thrust::device_vector<int> out2(out.size());
  std::size_t temp_bytes = 0;
  corank::device::merge(nullptr, temp_bytes, pa, a.size(), pb, b.size(), out2.data().get());
  void* temp = nullptr;
  cudaMalloc(&temp, temp_bytes);
  const cudaError_t status = corank::device::merge(temp, temp_bytes, pa, a.size(), pb, b.size(), out2.data().get());
  cudaFree(temp);
  if (status != cudaSuccess) {
    std::printf("3: %s\n", cudaGetErrorString(status));
    return 1;
  }
  print(3, out2.begin(), out2.end());

  // 4. Set operations: std::set_union's multiset rules; the convenience form returns the end.
  thrust::device_vector<int> uni(a.size() + b.size());
  const auto uni_end = corank::set_union(a.begin(), a.end(), b.begin(), b.end(), uni.begin());
  print(4, uni.begin(), uni_end);
  const corank::index_t common = corank::set_intersection_count(a.begin(), a.end(), b.begin(), b.end());
  std::printf("4: %lld\n", static_cast<long long>(common));

  // 5. The custom op on the same kernels: (1:1, 7:2) + (7:5, 9:4) = (1:1, 7:7, 9:4).
  const std::vector<int> hi{1, 7}, hv{1, 2}, hj{7, 9}, hw{5, 4};
  thrust::device_vector<int> i1(hi.begin(), hi.end()), v1(hv.begin(), hv.end());
  thrust::device_vector<int> i2(hj.begin(), hj.end()), v2(hw.begin(), hw.end());
  thrust::device_vector<int> sum_index(4), sum_value(4);
  const auto sum_end = corank::by_key_operation<sparse_add_op>{}(
      i1.begin(), i1.end(), i2.begin(), i2.end(), v1.begin(), v2.begin(), sum_index.begin(), sum_value.begin());
  print(5, sum_index.begin(), sum_end.first);
  print(5, sum_value.begin(), sum_end.second);

  // 6. A stable sort: equal keys keep their input order, as the values (positions) show.
  const std::vector<int> hk{5, 3, 5, 1, 3}, hp{0, 1, 2, 3, 4};
  thrust::device_vector<int> sort_keys(hk.begin(), hk.end()), positions(hp.begin(), hp.end());
  corank::stable_sort_by_key(sort_keys.begin(), sort_keys.end(), positions.begin());
  print(6, sort_keys.begin(), sort_keys.end());
  print(6, positions.begin(), positions.end());

  // 7. A k-way merge of sorted runs given by offsets (CSR): equal keys come from the lower
  //    run first, as the values (run numbers) show.
  const std::vector<int> hr{1, 4, 9, 2, 4, 4, 10}, hn{0, 0, 0, 1, 1, 2, 2};
  const std::vector<corank::index_t> ho{0, 3, 5, 7};
  thrust::device_vector<int> runs(hr.begin(), hr.end()), run_of(hn.begin(), hn.end());
  thrust::device_vector<corank::index_t> offsets(ho.begin(), ho.end());
  thrust::device_vector<int> merged(runs.size()), merged_run_of(runs.size());
  corank::merge_runs_by_key(runs.begin(), run_of.begin(), offsets.begin(), 3, runs.size(), merged.begin(),
                            merged_run_of.begin());
  print(7, merged.begin(), merged.end());
  print(7, merged_run_of.begin(), merged_run_of.end());
}
