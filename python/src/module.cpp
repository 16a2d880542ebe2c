// corank._corank: the Python package's compiled core. Python (corank/_run.py) checks
// the arrays and allocates the outputs; these functions run an operation on raw pointers,
// the GIL released, on the GPU (ordered on a stream) or on CPU threads.

#include "gpu_operations.hpp"
#include "operands.hpp"

#include <corank/error.hpp>
#include <corank/memory.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <tuple>

namespace nb = nanobind;
using namespace nb::literals;

namespace corank::python {
namespace {

// Makes `device` current for the call's lifetime and restores the caller's.
class device_scope {
 public:
  explicit device_scope(int device) {
    CORANK_TRY(cudaGetDevice(&previous_), "corank: cudaGetDevice");
    if (device != previous_) CORANK_TRY(cudaSetDevice(device), "corank: cudaSetDevice");
  }
  ~device_scope() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = 0;
};

// An unsorted input as Python says it: which argument (by its Python name) and where, or,
// where an operation found its partition of unchecked inputs inconsistent (input() 0: which
// input and where are not known), that one of them is not sorted.
[[noreturn]] void raise_unsorted(const std::string& name, const std::string& a_name, const std::string& b_name,
                                 const corank::unsorted_input& e) {
  if ((e.input() != 'A' && e.input() != 'B') || e.index() < 1) {
    const std::string inputs = a_name == b_name ? "`" + a_name + "`" : "`" + a_name + "` or `" + b_name + "`";
    throw nb::value_error((name + ": " + inputs +
                           " is not sorted (found while partitioning the inputs); pass check_sorted=True to find where")
                              .c_str());
  }
  const std::string& input = e.input() == 'A' ? a_name : b_name;
  const long long i = e.index();
  throw nb::value_error((name + ": `" + input + "` is not sorted: " + input + "[" + std::to_string(i) +
                         "] comes before " + input + "[" + std::to_string(i - 1) + "] in sorted order")
                            .c_str());
}

// Runs an operation; device < 0 runs it on CPU threads. Returns the output size, or -1 where
// it was left in count_out on the device. A size outside [0, bound] (unsorted inputs) never
// comes back: the backends throw corank::unsorted_input for it, raised here as ValueError.
std::int64_t run(const std::string& name, const std::string& a_name, const std::string& b_name, int op, int key_type, std::uintptr_t a, std::int64_t size_a, std::uintptr_t b,
                 std::int64_t size_b, std::uintptr_t a_values, std::uintptr_t b_values, int a_value_bytes,
                 int b_value_bytes, std::uintptr_t keys_out, std::uintptr_t values_out, std::uintptr_t b_values_out,
                 bool count_only, std::uintptr_t count_out, int kind, bool check_sorted, int device,
                 std::uintptr_t stream, int threads, std::int64_t pairs, std::uintptr_t join_kept) {
  operands o;
  o.op = operation(op);
  o.key_type = dtype(key_type);
  o.a_value_bytes = std::size_t(a_value_bytes);
  o.b_value_bytes = std::size_t(b_value_bytes);
  o.a = reinterpret_cast<const void*>(a);
  o.size_a = size_a;
  o.b = reinterpret_cast<const void*>(b);
  o.size_b = size_b;
  o.a_values = reinterpret_cast<const void*>(a_values);
  o.b_values = reinterpret_cast<const void*>(b_values);
  o.keys_out = reinterpret_cast<void*>(keys_out);
  o.values_out = reinterpret_cast<void*>(values_out);
  o.b_values_out = reinterpret_cast<void*>(b_values_out);
  o.count_only = count_only;
  o.count_out = reinterpret_cast<index_t*>(count_out);
  o.kind = strategy(kind);
  o.check_sorted = check_sorted;
  o.pairs = pairs;
  o.join_kept = reinterpret_cast<void*>(join_kept);
  try {
    nb::gil_scoped_release released;
    if (device < 0) return run_on_host(o, unsigned(threads));
    const device_scope on(device);
    return run_on_gpu(o, reinterpret_cast<cudaStream_t>(stream));
  } catch (const corank::unsorted_input& e) {
    raise_unsorted(name, a_name, b_name, e);
  }
}

// The 8-byte words the join's count keeps for its pairs (operands::join_kept) for m left and
// n right keys of key_type; device < 0: on the host.
std::int64_t join_kept_words(int key_type, std::int64_t m, std::int64_t n, int device) {
  if (m < 0 || n < 0) throw nb::value_error("corank.join: a size is negative");
  std::size_t bytes = std::size_t(2 * m + 1) * sizeof(index_t);  // the bounds and offsets
  if (device >= 0) {
    const device_scope on(device);
    bytes = gpu_join_kept_bytes(dtype(key_type), m, n);
  }
  return std::int64_t((bytes + 7) / 8);
}

// The first i with keys[i] before keys[i - 1], or n; device < 0: on the host.
std::int64_t find_unsorted(int key_type, std::uintptr_t keys, std::int64_t n, int device, std::uintptr_t stream) {
  nb::gil_scoped_release released;
  const void* first = reinterpret_cast<const void*>(keys);
  if (device < 0) return find_unsorted_on_host(dtype(key_type), first, n);
  const device_scope on(device);
  return find_unsorted_on_gpu(dtype(key_type), first, n, reinterpret_cast<cudaStream_t>(stream));
}

// Why the GPU path cannot run, or "" where it can: no CUDA driver or device, or a device
// older than the architectures the kernels were built for.
std::string gpu_unavailable_reason(int device) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();
    return std::string("the CUDA runtime found no usable GPU (") + cudaGetErrorString(e) + ")";
  }
  if (count == 0) return "there is no CUDA GPU";
  if (device < 0 || device >= count) return "there is no CUDA device " + std::to_string(device);
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  const int capability = major * 10 + minor;
  if (capability < 80) {
    return "GPU " + std::to_string(device) + " is sm_" + std::to_string(capability) + ", and corank needs sm_80 or newer";
  }
  // The oldest built architecture runs on it if it is no newer than the device (its PTX, JIT-compiled).
  if (capability < CORANK_PYTHON_OLDEST_ARCHITECTURE) {
    return "GPU " + std::to_string(device) + " is sm_" + std::to_string(capability) +
           ", and corank was built for " CORANK_PYTHON_ARCHITECTURES
           "; reinstall with pip install . -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=" + std::to_string(capability);
  }
  return "";
}

// The CUDA device that owns a device pointer (for __cuda_array_interface__, which does not say).
int pointer_device(std::uintptr_t pointer) {
  cudaPointerAttributes attributes{};
  CORANK_TRY(cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(pointer)),
             "corank: cudaPointerGetAttributes");
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) {
    throw nb::value_error("corank: a __cuda_array_interface__ pointer is not device memory");
  }
  return attributes.device;
}

// dtype numbers of operands.hpp for a DLPack dtype; -1 for others.
int dtype_number(nb::dlpack::dtype t) {
  if (t.lanes != 1) return -1;
  const auto code = nb::dlpack::dtype_code(t.code);
  const int bits = t.bits;
  const int step = bits == 8 ? 0 : bits == 16 ? 2 : bits == 32 ? 4 : bits == 64 ? 6 : -1;
  if (step < 0) return -1;
  if (code == nb::dlpack::dtype_code::Int) return step;
  if (code == nb::dlpack::dtype_code::UInt) return step + 1;
  if (code == nb::dlpack::dtype_code::Float && bits == 32) return int(dtype::float32);
  if (code == nb::dlpack::dtype_code::Float && bits == 64) return int(dtype::float64);
  return -1;
}

nb::dlpack::dtype dlpack_dtype(dtype type) {
  return visit_dtype(type, [](auto tag) { return nb::dtype<typename decltype(tag)::type>(); });
}

// What a DLPack producer exports: (data pointer, shape, strides in elements, dtype number,
// DLPack device type, device id). The producer's object keeps the memory.
nb::tuple describe_dlpack(nb::ndarray<nb::ro> array) {
  nb::list shape, strides;
  for (std::size_t d = 0; d < array.ndim(); ++d) {
    shape.append(array.shape(d));
    strides.append(array.stride(d));
  }
  return nb::make_tuple(reinterpret_cast<std::uintptr_t>(array.data()), nb::tuple(shape), nb::tuple(strides),
                        dtype_number(array.dtype()), array.device_type(), array.device_id());
}

// A new 1-D array of n elements in device memory (cudaMalloc'd, freed by cudaFree when the
// last reference goes), exported through DLPack: the output for producers that are neither
// CuPy nor PyTorch.
// (nb::array_api: an object with __dlpack__ and __dlpack_device__; a plain ndarray<> would
// come back as a one-use DLPack capsule.)
using device_array = nb::ndarray<nb::array_api>;

device_array device_empty(std::int64_t n, int type, int device) {
  const std::size_t bytes = std::size_t(n) * dtype_size(dtype(type));
  void* data = nullptr;
  {
    nb::gil_scoped_release released;
    const device_scope on(device);
    CORANK_TRY(cudaMalloc(&data, bytes > 0 ? bytes : 1), "corank: allocating an output");
  }
  nb::capsule owner(data, [](void* p) noexcept { cudaFree(p); });
  const std::size_t shape[1] = {std::size_t(n)};
  return device_array(data, 1, shape, owner, nullptr, dlpack_dtype(dtype(type)), nb::device::cuda::value, device);
}

// n elements at `data` of `base` (a device_empty result, kept alive by the view).
device_array device_view(nb::object base, std::uintptr_t data, std::int64_t n, int type, int device) {
  const std::size_t shape[1] = {std::size_t(n)};
  return device_array(reinterpret_cast<void*>(data), 1, shape, base, nullptr, dlpack_dtype(dtype(type)),
                      nb::device::cuda::value, device);
}

// Makes `consumer` wait for the work enqueued so far on `producer` (0: the legacy default
// stream): a DLPack export or a __cuda_array_interface__ import across streams.
void stream_wait(std::uintptr_t consumer, std::uintptr_t producer, int device) {
  if (consumer == producer) return;
  const auto stream = [](std::uintptr_t s) { return s == 0 ? cudaStreamLegacy : reinterpret_cast<cudaStream_t>(s); };
  const device_scope on(device);
  cudaEvent_t done = nullptr;
  CORANK_TRY(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "corank: ordering two streams");
  cudaError_t e = cudaEventRecord(done, stream(producer));
  if (e == cudaSuccess) e = cudaStreamWaitEvent(stream(consumer), done, 0);
  cudaEventDestroy(done);
  CORANK_TRY(e, "corank: ordering two streams");
}

// Copies `bytes` from device memory into host memory (DeviceArray.get()).
void copy_to_host(std::uintptr_t to, std::uintptr_t from, std::size_t bytes, int device) {
  nb::gil_scoped_release released;
  const device_scope on(device);
  CORANK_TRY(cudaMemcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes,
                        cudaMemcpyDeviceToHost),
             "corank: copying an array to the host");
}

}  // namespace
}  // namespace corank::python

NB_MODULE(_corank, m) {
  using namespace corank::python;
  m.doc() = "corank's compiled core; use the functions of the corank package.";
  m.def("run", &run, "name"_a, "a_name"_a, "b_name"_a, "op"_a, "key_type"_a, "a"_a, "size_a"_a, "b"_a, "size_b"_a, "a_values"_a, "b_values"_a,
        "a_value_bytes"_a, "b_value_bytes"_a, "keys_out"_a, "values_out"_a, "b_values_out"_a, "count_only"_a,
        "count_out"_a, "strategy"_a, "check_sorted"_a, "device"_a, "stream"_a, "threads"_a, "pairs"_a = 0,
        "join_kept"_a = 0);
  m.def("join_kept_words", &join_kept_words, "key_type"_a, "m"_a, "n"_a, "device"_a);
  m.def("find_unsorted", &find_unsorted, "key_type"_a, "keys"_a, "n"_a, "device"_a, "stream"_a);
  m.def("gpu_unavailable_reason", &gpu_unavailable_reason, "device"_a = 0);
  m.def("pointer_device", &pointer_device, "pointer"_a);
  m.def("describe_dlpack", &describe_dlpack, "array"_a);
  m.def("device_empty", &device_empty, "n"_a, "dtype"_a, "device"_a);
  m.def("device_view", &device_view, "base"_a, "data"_a, "n"_a, "dtype"_a, "device"_a);
  m.def("stream_wait", &stream_wait, "consumer"_a, "producer"_a, "device"_a);
  m.def("copy_to_host", &copy_to_host, "to"_a, "from"_a, "bytes"_a, "device"_a);
  m.def("release_temporary_memory", [](int device) {
    nb::gil_scoped_release released;
    const device_scope on(device);
    CORANK_TRY(corank::release_temporary_memory(), "corank.release_temporary_memory");
  }, "device"_a);
  m.attr("built_architectures") = CORANK_PYTHON_ARCHITECTURES;
}
