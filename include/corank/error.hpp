#pragma once
// The exceptions thrown by corank's convenience forms. The two-phase `corank::device`
// forms never throw; they return the cudaError_t that these carry.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace corank {

// A CUDA call failed, or an argument was rejected (code cudaErrorInvalidValue).
class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& context);
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// Device memory for the output or the temporary storage could not be allocated.
// Derives from std::bad_alloc so that generic out-of-memory handlers catch it.
class out_of_memory : public std::bad_alloc {
 public:
  explicit out_of_memory(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// An input asked to be checked was not sorted by the comparator.
class unsorted_input : public std::invalid_argument {
 public:
  unsorted_input(const std::string& context, char input, std::int64_t index);
  char input() const noexcept { return input_; }           // 'A' or 'B'
  std::int64_t index() const noexcept { return index_; }  // first i with x[i] < x[i - 1]

 private:
  char input_;
  std::int64_t index_;
};

namespace detail {
// Throws out_of_memory for allocation failures and cuda_error for everything else.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* context);
}  // namespace detail

}  // namespace corank

// Evaluates a cudaError_t expression and throws if it failed.
#define CORANK_TRY(call, context)                                        \
  do {                                                                   \
    const cudaError_t corank_status_ = (call);                           \
    if (corank_status_ != cudaSuccess) {                                 \
      ::corank::detail::throw_cuda_error(corank_status_, context);       \
    }                                                                    \
  } while (0)
