#include "gpu_columns.hpp"

#include "set_gpu_ops.hpp"

#include <corank/check_sorted.cuh>
#include <corank/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <type_traits>

namespace corank::cli {
namespace {

// to[i] = To(from[i]) ^ flip: values of 1 and 2 bytes widened to int32 (gpu_value_payloads)
// and narrowed back, keys mapped to their device type and back (gpu_key_types; flip is the
// top bit for uint32 and uint64 keys, else 0). `from` may be `to`.
template <class From, class To>
__global__ void convert_elements(const From* from, To* to, index_t n, To flip) {
  for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    to[i] = To(To(from[i]) ^ flip);
  }
}

// `in`'s n elements converted From -> To: in place where the two are of one size, else into
// a new buffer.
template <class From, class To>
device_buffer convert(device_buffer in, index_t n, To flip, const char* what) {
  constexpr bool in_place = sizeof(From) == sizeof(To);
  device_buffer out = in_place ? device_buffer() : device_buffer(std::size_t(n) * sizeof(To), what);
  if (n > 0) {
    const unsigned blocks = unsigned(std::min<index_t>((n + 255) / 256, 4096));
    convert_elements<<<blocks, 256>>>(static_cast<const From*>(in.get()),
                                      static_cast<To*>(in_place ? in.get() : out.get()), n, flip);
    CORANK_TRY(cudaGetLastError(), what);
  }
  return in_place ? std::move(in) : std::move(out);
}

// n values of `bytes` (1 or 2) widened to int32 (zero-extended: the narrow values' bits, read
// as uint8 or uint16), or narrowed back from it.
device_buffer convert_values(device_buffer values, index_t n, std::size_t bytes, bool widen, const char* what) {
  const auto run = [&](auto narrow) {
    using Narrow = decltype(narrow);
    return widen ? convert<Narrow, std::int32_t>(std::move(values), n, 0, what)
                 : convert<std::int32_t, Narrow>(std::move(values), n, 0, what);
  };
  return bytes == 1 ? run(std::uint8_t{}) : run(std::uint16_t{});
}

// n keys of `type` mapped to their device type (device_key_t), or back from it.
device_buffer convert_keys(device_buffer keys, index_t n, dtype type, bool to_device, const char* what) {
  return visit_dtype(type, [&](auto tag) -> device_buffer {
    using Key = typename decltype(tag)::type;
    using Device = device_key_t<Key>;
    if constexpr (std::is_same_v<Key, Device>) {
      return std::move(keys);
    } else {
      constexpr Device flip = std::is_unsigned_v<Key> && sizeof(Key) == sizeof(Device)
                                  ? std::numeric_limits<Device>::min()
                                  : Device(0);
      return to_device ? convert<Key, Device>(std::move(keys), n, flip, what)
                       : convert<Device, Key>(std::move(keys), n, Key(flip), what);
    }
  });
}

// *first = the least i in [1, n) where keys[i] comes before keys[i - 1] inside one segment of
// `offsets` (S + 1); a break where a segment starts is none. Breaks are rare, so each one
// searches the offsets for a segment starting at it.
template <class Key, class Compare>
__global__ void mark_unsorted_in_segments(const Key* keys, index_t n, const std::int64_t* offsets, index_t segments,
                                          Compare comp, unsigned long long* first) {
  for (index_t i = 1 + index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    if (!comp(keys[i], keys[i - 1])) continue;
    index_t low = 0, high = segments + 1;  // the first offset >= i
    while (low < high) {
      const index_t middle = low + (high - low) / 2;
      if (offsets[middle] < i) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    if (low == segments + 1 || offsets[low] != i) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

// The first break inside a segment of `keys` (device_key_t of `type`, n on the device), or n.
index_t find_unsorted_in_segments_on_gpu(const void* keys, index_t n, const std::int64_t* offsets, index_t segments,
                                         dtype type) {
  if (n < 2) return n;
  device_buffer first(sizeof(unsigned long long), "checking the segments' order");
  const unsigned long long none = static_cast<unsigned long long>(n);
  CORANK_TRY(cudaMemcpy(first.get(), &none, sizeof none, cudaMemcpyHostToDevice), "checking the segments' order");
  visit_dtype(type, [&](auto tag) {
    using Key = device_key_t<typename decltype(tag)::type>;
    const unsigned blocks = unsigned(std::min<index_t>((n + 255) / 256, 4096));
    mark_unsorted_in_segments<<<blocks, 256>>>(static_cast<const Key*>(keys), n, offsets, segments, key_order<Key>{},
                                                static_cast<unsigned long long*>(first.get()));
  });
  CORANK_TRY(cudaGetLastError(), "checking the segments' order");
  unsigned long long at = none;
  CORANK_TRY(cudaMemcpy(&at, first.get(), sizeof at, cudaMemcpyDeviceToHost), "checking the segments' order");
  return index_t(at);
}

device_buffer upload(const column& c, const char* what) {
  device_buffer d(c.bytes(), what);
  if (c.bytes() > 0) CORANK_TRY(cudaMemcpy(d.get(), c.data(), c.bytes(), cudaMemcpyHostToDevice), what);
  return d;
}

void download(const device_buffer& d, column& to, const char* what) {
  if (to.bytes() > 0) CORANK_TRY(cudaMemcpy(to.data(), d.get(), to.bytes(), cudaMemcpyDeviceToHost), what);
}

}  // namespace

device_buffer::device_buffer(std::size_t bytes, const char* what) {
  if (bytes > 0) CORANK_TRY(cudaMalloc(&data_, bytes), what);
}

dtype device_key_type(dtype type) {
  return visit_dtype(type, [](auto tag) { return dtype_of<device_key_t<typename decltype(tag)::type>>(); });
}

std::size_t device_value_bytes(std::size_t bytes) { return bytes < 4 ? 4 : bytes; }

device_buffer upload_keys(const column& keys, const char* what) {
  return convert_keys(upload(keys, what), keys.size(), keys.type(), true, what);
}

device_buffer upload_values(const column& values, const char* what) {
  const std::size_t bytes = dtype_size(values.type());
  device_buffer d = upload(values, what);
  return bytes < 4 ? convert_values(std::move(d), values.size(), bytes, true, what) : std::move(d);
}

void download_keys(device_buffer keys, column& to, const char* what) {
  if (to.size() == 0) return;
  download(convert_keys(std::move(keys), to.size(), to.type(), false, what), to, what);
}

void download_values(device_buffer values, column& to, const char* what) {
  if (to.size() == 0) return;
  const std::size_t bytes = dtype_size(to.type());
  download(bytes < 4 ? convert_values(std::move(values), to.size(), bytes, false, what) : std::move(values), to, what);
}

void download_bytes(const device_buffer& from, column& to, const char* what) { download(from, to, what); }

index_t find_unsorted_on_gpu(const void* keys, index_t n, dtype type) {
  return visit_dtype(type, [&](auto tag) {
    using Key = device_key_t<typename decltype(tag)::type>;  // 4 checks compiled, not 10
    const Key* p = static_cast<const Key*>(keys);
    return corank::find_unsorted(p, p + n, key_order<Key>{});
  });
}

void check_sorted_on_gpu(const void* a, index_t m, const void* b, index_t n, dtype type) {
  visit_dtype(type, [&](auto tag) {
    using Key = device_key_t<typename decltype(tag)::type>;
    const Key* pa = static_cast<const Key*>(a);
    const Key* pb = static_cast<const Key*>(b);
    corank::check_sorted(pa, pa + m, pb, pb + n, key_order<Key>{});
  });
}

void check_sorted_in_segments_on_gpu(const void* a, index_t m, const std::int64_t* a_offsets, const void* b,
                                     index_t n, const std::int64_t* b_offsets, index_t segments, dtype type) {
  if (const index_t at = find_unsorted_in_segments_on_gpu(a, m, a_offsets, segments, type); at < m) {
    throw corank::unsorted_input("the segmented check", 'A', at);
  }
  if (const index_t at = find_unsorted_in_segments_on_gpu(b, n, b_offsets, segments, type); at < n) {
    throw corank::unsorted_input("the segmented check", 'B', at);
  }
}

gpu_info describe_gpu() {
  gpu_info gpu;
  CORANK_TRY(cudaGetDevice(&gpu.device), "cudaGetDevice");
  cudaDeviceProp properties{};
  CORANK_TRY(cudaGetDeviceProperties(&properties, gpu.device), "cudaGetDeviceProperties");
  gpu.where = fmt::format("GPU {}: {} ({} SMs, {:.1f} GiB)", gpu.device, properties.name,
                          properties.multiProcessorCount, properties.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
  CORANK_TRY(cudaMemGetInfo(&gpu.free_bytes, &gpu.total_bytes), "cudaMemGetInfo");
  return gpu;
}

gpu_memory_error too_little_gpu_memory(const std::string& detail, const std::string& needs) {
  return gpu_memory_error(fmt::format(
      "not enough GPU memory: {}; {} must fit on the GPU, plus the operation's temporary storage; use --device cpu",
      detail, needs));
}

void check_gpu_memory(const gpu_info& gpu, double needed_bytes, const std::string& needs) {
  if (needed_bytes > double(gpu.free_bytes)) {
    throw too_little_gpu_memory(fmt::format("GPU {} has {} free of {}", gpu.device, gib(double(gpu.free_bytes)),
                                            gib(double(gpu.total_bytes))),
                                needs);
  }
}

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

}  // namespace corank::cli
