#pragma once
// The exceptions thrown by corank's GPU convenience forms and sortedness checks. The
// two-phase `corank::device` forms never throw; they return the cudaError_t that these carry.
// The CPU backend throws std::invalid_argument (unsorted_input from its check_sorted, and
// where an operation finds its inputs unsorted).

#include <cuda_runtime_api.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace corank {

// A CUDA call failed, or an argument was rejected (code() == cudaErrorInvalidValue). what() is
// "<context>: <cudaGetErrorString> (<cudaGetErrorName>)", the context naming the call and, for a
// rejected argument, the problem.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& context);
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// A CUDA call failed with cudaErrorMemoryAllocation (see CORANK_TRY): in corank's forms, the
// temporary storage or the pinned host word that a result comes back through could not be
// allocated. Derives from std::bad_alloc so that generic out-of-memory handlers catch it.
class out_of_memory : public std::bad_alloc {
 public:
  explicit out_of_memory(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// An input was found not sorted by the comparator. Two ways:
// - check_sorted names it: what() is "<context>: input A is not sorted: element i comes
//   before element i - 1"; input() is 'A' or 'B', index() that i.
// - an operation on unchecked inputs found its partition of them inconsistent (a split that
//   goes backwards, a window of negative size, a count past the output's bound), which only
//   unsorted inputs or a comparator that is not a strict weak order give: what() is
//   "<context>: the inputs are not sorted by the comparator (...)"; input() is 0 and
//   index() is -1, as where the break lies is not known (check_sorted finds it).
class unsorted_input : public std::invalid_argument {
 public:
  unsorted_input(const std::string& context, char input, std::int64_t index);
  explicit unsorted_input(const std::string& context);
  char input() const noexcept { return input_; }           // 'A' or 'B'; 0 where not known
  std::int64_t index() const noexcept { return index_; }  // first i with comp(x[i], x[i - 1]); -1 where not known

 private:
  char input_;
  std::int64_t index_;
};

namespace detail {
// Throws out_of_memory for allocation failures and cuda_error for everything else.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* context);
}  // namespace detail

}  // namespace corank

// Evaluates a cudaError_t expression and, unless it is cudaSuccess, throws: out_of_memory for
// cudaErrorMemoryAllocation (clearing the runtime's last error, which such failures leave
// set), cuda_error for any other code; `context` (a const char*) leads the message.
#define CORANK_TRY(call, context)                                        \
  do {                                                                   \
    const cudaError_t corank_status_ = (call);                           \
    if (corank_status_ != cudaSuccess) {                                 \
      ::corank::detail::throw_cuda_error(corank_status_, context);       \
    }                                                                    \
  } while (0)
