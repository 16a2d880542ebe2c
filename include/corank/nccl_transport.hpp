#pragma once
// NCCL as the transport of the distributed forms (distributed_operation.cuh): the caller's
// communicator, one rank per GPU, carries the search's all-gathers (ncclAllGather) and the
// windows' moves (ncclSend and ncclRecv in one group). corank neither creates nor destroys
// communicators, and sets no NCCL environment: machines whose NVLink multicast (NVLS) is not
// usable, as the H200 machines corank is tested on, need NCCL_NVLS_ENABLE=0 in the
// environment of every rank. Each rank is a process of its own (one per GPU): threads of one
// process driving several GPUs can deadlock, since a free on one GPU (cudaFreeHost, cudaFree)
// waits for the other GPU's running NCCL kernel, which waits for this thread's matching call.
//
// Needs NCCL's nccl.h and libnccl (the CUDA toolkit's, the nvidia-nccl wheel's, or NCCL's
// own packages); CMake's target corank::nccl links it where CORANK_WITH_NCCL is on. Nothing
// else in corank includes this header.

#if !__has_include(<nccl.h>)
#error "corank/nccl_transport.hpp needs NCCL's nccl.h: install NCCL, or build with CORANK_WITH_NCCL and link corank::nccl"
#endif

#include <corank/distributed_operation.cuh>
#include <corank/error.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace corank {

// An NCCL call failed. what() is "<context>: <ncclGetErrorString> [(<ncclGetLastError>)]".
class nccl_error : public std::runtime_error {
 public:
  nccl_error(ncclResult_t code, const std::string& context, const char* detail = nullptr)
      : std::runtime_error(context + ": " + ncclGetErrorString(code) +
                           (detail != nullptr && *detail != '\0' ? std::string(" (") + detail + ")" : std::string())),
        code_(code) {}
  ncclResult_t code() const noexcept { return code_; }

 private:
  ncclResult_t code_;
};

// The caller's communicator (not owned), as a transport. Blocking and nonblocking
// communicators both work: an operation still in progress is waited for.
class nccl_transport {
 public:
  // Throws nccl_error if NCCL cannot say the rank, and cuda_error if the current device is not
  // the communicator's.
  explicit nccl_transport(ncclComm_t comm) : comm_(comm) {
    check(ncclCommUserRank(comm_, &rank_), "ncclCommUserRank");
    check(ncclCommCount(comm_, &ranks_), "ncclCommCount");
    int device = -1, current = -1;
    check(ncclCommCuDevice(comm_, &device), "ncclCommCuDevice");
    CORANK_TRY(cudaGetDevice(&current), "corank::nccl_transport");
    if (device != current) {
      throw cuda_error(cudaErrorInvalidDevice, "corank::nccl_transport: the communicator's GPU is device " +
                                                   std::to_string(device) + ", the current device is " +
                                                   std::to_string(current) + " (cudaSetDevice first)");
    }
  }

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  ncclComm_t comm() const { return comm_; }

  void all_gather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) {
    check(ncclAllGather(send, recv, bytes, ncclUint8, comm_, stream), "ncclAllGather");
  }

  void exchange(const std::vector<distributed_send>& sends, const std::vector<distributed_receive>& receives,
                cudaStream_t stream) {
    if (sends.empty() && receives.empty()) return;  // point to point: nothing to match
    check(ncclGroupStart(), "ncclGroupStart");
    ncclResult_t status = ncclSuccess;
    for (const distributed_send& s : sends) {
      if (status == ncclSuccess) status = ncclSend(s.data, s.bytes, ncclUint8, s.peer, comm_, stream);
    }
    for (const distributed_receive& r : receives) {
      if (status == ncclSuccess) status = ncclRecv(r.data, r.bytes, ncclUint8, r.peer, comm_, stream);
    }
    const ncclResult_t ended = ncclGroupEnd();  // always: a group left open breaks the next call
    check(status != ncclSuccess ? status : ended, status != ncclSuccess ? "ncclSend/ncclRecv" : "ncclGroupEnd");
  }

 private:
  void check(ncclResult_t result, const char* what) const {
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
    while (result == ncclInProgress) {  // a nonblocking communicator: wait for the call to be enqueued
      if (ncclCommGetAsyncError(comm_, &result) != ncclSuccess) break;
    }
#endif
    if (result != ncclSuccess) {
      throw nccl_error(result, std::string("corank: ") + what, ncclGetLastError(comm_));
    }
  }

  ncclComm_t comm_;
  int rank_ = 0, ranks_ = 0;
};

// An ncclComm_t passed as a runner's `comm` is used through an nccl_transport.
template <>
struct transport_adapter<ncclComm_t> {
  static nccl_transport get(ncclComm_t comm) { return nccl_transport(comm); }
};

}  // namespace corank
