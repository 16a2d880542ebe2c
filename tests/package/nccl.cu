// The package consumer of corank::nccl (where corank was built with NCCL): the distributed
// merge over NCCL, as a user writes it, with one rank on GPU 0 where a GPU exists; elsewhere it
// is compiled and linked only, and says so. Exits nonzero on a mismatch or an error.

#include <corank/nccl.cuh>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <exception>
#include <vector>

int main() try {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("consumer_nccl: no CUDA GPU: compiled and linked, not run");
    return 0;
  }
  ncclComm_t comm = nullptr;
  const int device = 0;
  if (ncclCommInitAll(&comm, 1, &device) != ncclSuccess) {
    std::puts("consumer_nccl: ncclCommInitAll failed");
    return 1;
  }
  const std::vector<long> ha{1, 3, 5}, hb{2, 3, 4};
  long *a = nullptr, *b = nullptr, *out = nullptr;
  cudaMalloc(&a, 3 * sizeof(long));
  cudaMalloc(&b, 3 * sizeof(long));
  cudaMalloc(&out, 8 * sizeof(long));
  cudaMemcpy(a, ha.data(), 3 * sizeof(long), cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), 3 * sizeof(long), cudaMemcpyHostToDevice);
  const corank::index_t count = corank::nccl_merge(a, 3, b, 3, out, comm);
  std::vector<long> merged(std::size_t(count > 0 ? count : 0));
  cudaMemcpy(merged.data(), out, merged.size() * sizeof(long), cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
  cudaFree(out);
  ncclCommDestroy(comm);
  const bool ok = merged == std::vector<long>{1, 2, 3, 3, 4, 5};
  std::printf("consumer_nccl: nccl_merge (one rank) %s\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::printf("consumer_nccl: %s\n", e.what());
  return 1;
}
