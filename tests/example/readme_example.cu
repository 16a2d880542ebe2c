// corank in six steps: merge on the GPU, merge_by_key, the two-phase (CUB-style) form,
// the same merge on the CPU, a set operation, and a custom op.
#include <corank/corank.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <cstdio>
#include <vector>

// A custom op: adding sparse vectors stored as sorted (index, value) pairs is union by key,
// except that an index present in both writes the sum of the two values.
struct sparse_add_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;

  __host__ __device__ corank::action operator()(corank::relation r) const {
    if (r == corank::relation::a_first) return corank::take_a();
    if (r == corank::relation::b_first) return corank::take_b();
    return {corank::emit::combined, corank::advance::both};  // equal indices: one output
  }
  __host__ __device__ int combine(int a, int b) const { return a + b; }
};

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no CUDA GPU: skipped");
    return 0;
  }

  const std::vector<int> ha{1, 7, 8, 9, 10}, hb{7, 10, 10, 12};
  const std::vector<int> expected{1, 7, 7, 8, 9, 10, 10, 10, 12};
  thrust::device_vector<int> a(ha.begin(), ha.end()), b(hb.begin(), hb.end());

  // 1. Convenience form: iterator ranges like std::merge; throws corank::cuda_error.
  thrust::device_vector<int> out(a.size() + b.size());
  corank::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin());

  // 2. merge_by_key: values travel with their keys; equal keys keep A's first (stable).
  thrust::device_vector<int> a_values(ha.size(), 0), b_values(hb.size(), 1);  // 0: from A, 1: from B
  thrust::device_vector<int> keys(out.size()), values(out.size());
  corank::merge_by_key(a.begin(), a.end(), b.begin(), b.end(), a_values.begin(), b_values.begin(),
                       keys.begin(), values.begin());

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

  // 4. CPU backend: same names, same results, on std::threads.
  std::vector<int> host_out(ha.size() + hb.size());
  corank::host::merge(ha.begin(), ha.end(), hb.begin(), hb.end(), host_out.begin());

  // 5. Set operations: std::set_union's multiset rules; the convenience form returns the end.
  thrust::device_vector<int> uni(a.size() + b.size());
  const auto uni_end = corank::set_union(a.begin(), a.end(), b.begin(), b.end(), uni.begin());
  const corank::index_t common = corank::set_intersection_count(a.begin(), a.end(), b.begin(), b.end());

  // 6. The custom op on the same kernels: (1:1, 7:2) + (7:5, 9:4) = (1:1, 7:7, 9:4).
  const std::vector<int> hi{1, 7}, hv{1, 2}, hj{7, 9}, hw{5, 4};
  thrust::device_vector<int> i1(hi.begin(), hi.end()), v1(hv.begin(), hv.end());
  thrust::device_vector<int> i2(hj.begin(), hj.end()), v2(hw.begin(), hw.end());
  thrust::device_vector<int> sum_index(4), sum_value(4);
  const auto sum_end = corank::by_key_operation<sparse_add_op>{}(
      i1.begin(), i1.end(), i2.begin(), i2.end(), v1.begin(), v2.begin(), sum_index.begin(), sum_value.begin());

  // Check (not part of the README).
  const thrust::host_vector<int> u(uni.begin(), uni_end), si(sum_index.begin(), sum_end.first),
      sv(sum_value.begin(), sum_end.second);
  const bool set_ok = u == thrust::host_vector<int>(std::vector<int>{1, 7, 8, 9, 10, 10, 12}) && common == 2 &&
                      si == thrust::host_vector<int>(std::vector<int>{1, 7, 9}) &&
                      sv == thrust::host_vector<int>(std::vector<int>{1, 7, 4});
  const thrust::host_vector<int> r1 = out, r2 = out2, r3 = keys, v = values;
  const thrust::host_vector<int> expected_values = std::vector<int>{0, 0, 1, 0, 0, 0, 1, 1, 1};
  const bool ok = status == cudaSuccess && r1 == thrust::host_vector<int>(expected) &&
                  r2 == thrust::host_vector<int>(expected) && r3 == thrust::host_vector<int>(expected) &&
                  v == expected_values && host_out == expected && set_ok;
  for (int x : r1) std::printf("%d ", x);
  std::puts(ok ? "\nreadme example: ok" : "\nreadme example: WRONG RESULT");
  return ok ? 0 : 1;
}
