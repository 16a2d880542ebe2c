#pragma once
// GPU test helpers: skip cleanly without a GPU, a minimal device buffer (cudaMalloc and
// cudaMemcpy only, so the typed tests compile no Thrust kernels), and error checks.
// Needs the CUDA runtime headers, not nvcc.

#include "support/inputs.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace corank::test {

inline bool gpu_available() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) cudaGetLastError();  // cudaErrorNoDevice and friends: not sticky
  return e == cudaSuccess && count > 0;
}

// Skips the current test when there is no usable GPU. GTEST_SKIP only leaves the
// function it is written in, so call this from a fixture's SetUp (the body then does not
// run) or use CORANK_REQUIRE_GPU() in a test body.
inline void require_gpu() {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU: skipped";
}

#define CORANK_REQUIRE_GPU()                               \
  do {                                                     \
    ::corank::test::require_gpu();                         \
    if (::testing::Test::IsSkipped()) return;              \
  } while (0)

// Every GPU test derives from this (or calls CORANK_REQUIRE_GPU() first).
class gpu_test : public ::testing::Test {
 protected:
  void SetUp() override { require_gpu(); }
};

// A GPU test with a non-blocking stream of its own, destroyed after the test.
class gpu_stream_test : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped()) ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
  cudaStream_t stream = nullptr;
};

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " " + cudaGetErrorString(e));
  }
}

// Synchronizes and reports any asynchronous error (a faulting kernel) as a test failure.
#define CORANK_EXPECT_DEVICE_OK() EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize())
#define CORANK_ASSERT_DEVICE_OK() ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize())

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : size_(n) {
    if (n > 0) cuda_check(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)), "cudaMalloc");
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept { swap(other); }
  device_buffer& operator=(device_buffer&& other) noexcept {
    swap(other);
    return *this;
  }
  ~device_buffer() {
    if (data_ != nullptr) cudaFree(data_);
  }

  // Null when empty: a null pointer with size 0 is a valid empty input.
  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }

  void upload(const std::vector<T>& host) {
    if (host.size() != size_) throw std::logic_error("device_buffer::upload: size mismatch");
    if (size_ > 0) cuda_check(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  // Done when it returns: cudaMemset runs on the legacy stream, which a non-blocking stream
  // (gpu_stream_test's) does not wait for.
  void fill_poison() {
    if (size_ > 0) cuda_check(cudaMemset(data_, poison_byte, size_ * sizeof(T)), "cudaMemset");
    cuda_check(cudaDeviceSynchronize(), "cudaMemset");
  }
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    if (size_ > 0) cuda_check(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }

 private:
  void swap(device_buffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// An output buffer with poisoned guards on both sides of `count` elements.
template <class T>
struct guarded_output {
  explicit guarded_output(std::size_t count) : buffer(count + 2 * guard_elements), count(count) {
    buffer.fill_poison();
  }
  T* first() const { return buffer.data() + guard_elements; }
  T* last() const { return first() + count; }

  // Checks the guards and returns the outputs.
  ::testing::AssertionResult check(const std::vector<T>& expected) const {
    const std::vector<T> host = buffer.to_host();
    if (auto guards = guards_intact(host, guard_elements, count); !guards) return guards;
    return equal_bits(expected, host, guard_elements);
  }
  ::testing::AssertionResult untouched() const { return all_poison(buffer.to_host()); }

  device_buffer<T> buffer;
  std::size_t count;
};

}  // namespace corank::test
