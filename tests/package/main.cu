// The package consumer: uses corank only as a user would, through corank::corank.
// CPU backend: merge, set_union (and, from an installed package, an example op), checked
// against expected results; GPU: corank::merge on thrust::device_vector, compiled always
// and run only where a GPU exists. Exits nonzero on any mismatch or error.

#include <corank/corank.cuh>
#ifdef CONSUMER_INSTALLED_EXAMPLES
#include <corank/examples/sparse_add.hpp>
#endif

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  std::printf("consumer: %-34s %s\n", what, ok ? "ok" : "MISMATCH");
  if (!ok) ++failures;
}

}  // namespace

int main() try {
  const std::vector<int> a{1, 3, 3, 5, 8}, b{2, 3, 5, 5, 9};

  std::vector<int> merged(a.size() + b.size());
  const auto merged_end = corank::host::merge(a.begin(), a.end(), b.begin(), b.end(), merged.begin());
  check(merged_end == merged.end() && merged == std::vector<int>{1, 2, 3, 3, 3, 5, 5, 5, 8, 9},
        "host::merge");

  std::vector<int> uni(a.size() + b.size());
  uni.erase(corank::host::set_union(a.begin(), a.end(), b.begin(), b.end(), uni.begin()), uni.end());
  check(uni == std::vector<int>{1, 2, 3, 3, 5, 5, 8, 9}, "host::set_union");

#ifdef CONSUMER_INSTALLED_EXAMPLES
  // (1:1, 7:2) + (7:5, 9:4) = (1:1, 7:7, 9:4)
  const std::vector<int> ia{1, 7}, va{1, 2}, ib{7, 9}, vb{5, 4};
  std::vector<int> index(4), value(4);
  const auto ends = corank::host::by_key_operation<sparse_add_op>{}(
      ia.begin(), ia.end(), ib.begin(), ib.end(), va.begin(), vb.begin(), index.begin(), value.begin());
  index.erase(ends.first, index.end());
  value.erase(ends.second, value.end());
  check(index == std::vector<int>{1, 7, 9} && value == std::vector<int>{1, 7, 4},
        "host sparse_add (installed example)");
#endif

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // clear the error of a machine without a GPU
    std::printf("consumer: no GPU: corank::merge on the device compiled, not run\n");
  } else {
    thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end());
    thrust::device_vector<int> dout(da.size() + db.size());
    corank::merge(da.begin(), da.end(), db.begin(), db.end(), dout.begin());
    const thrust::host_vector<int> hout = dout;
    check(std::vector<int>(hout.begin(), hout.end()) == merged, "corank::merge (GPU)");
  }

  if (failures != 0) {
    std::printf("consumer: FAILED (%d mismatches)\n", failures);
    return 1;
  }
  std::printf("consumer: all checks passed\n");
  return 0;
} catch (const std::exception& e) {
  std::printf("consumer: FAILED: exception: %s\n", e.what());
  return 1;
}
