// The GPU backend's driver (gpu_operations.hpp): 1- and 2-byte keys and values travel as 4
// bytes through temporaries from corank's pool, so that the kernels compile for 4- and
// 8-byte types only; the sortedness check; the route to each operation's kernels.
//
// The only source of the package that includes check_sorted.cuh (a second one breaks the
// link: see the note in tests/gpu/merge_api_test.cu).

#include "gpu_operations.hpp"

#include <corank/check_sorted.cuh>
#include <corank/detail/forms/temporary_pool.hpp>
#include <corank/error.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace corank::python {
namespace {

// to[i] = To(from[i]) for i < n, or i < min(*count, n) where count is given (an output size
// left on the device; negative for unsorted inputs): widening sign- or zero-extends,
// narrowing keeps the low bytes.
template <class From, class To>
__global__ void convert_elements(const From* from, To* to, index_t n, const index_t* count) {
  if (count != nullptr && *count < n) n = *count;
  for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x) {
    to[i] = To(from[i]);
  }
}

template <class From, class To>
void convert(const void* from, void* to, index_t n, cudaStream_t stream, const index_t* count = nullptr) {
  if (n <= 0) return;
  const unsigned blocks = unsigned(std::min<index_t>((n + 255) / 256, 4096));
  convert_elements<<<blocks, 256, 0, stream>>>(static_cast<const From*>(from), static_cast<To*>(to), n, count);
  CORANK_TRY(cudaGetLastError(), "corank: widening 1- or 2-byte elements");
}

// Device memory from corank's pool, freed (ordered on the stream) when the call ends.
class temporaries {
 public:
  explicit temporaries(cudaStream_t stream) : stream_(stream) {}
  temporaries(const temporaries&) = delete;
  temporaries& operator=(const temporaries&) = delete;
  ~temporaries() {
    for (void* p : memory_) cudaFreeAsync(p, stream_);
  }
  void* allocate(std::size_t bytes) {
    void* p = nullptr;
    CORANK_TRY(corank::detail::allocate_temporary(&p, std::max<std::size_t>(bytes, 1), stream_),
               "corank: temporary storage for 1- or 2-byte elements");
    memory_.push_back(p);
    return p;
  }

 private:
  cudaStream_t stream_;
  std::vector<void*> memory_;
};

// `n` elements of `bytes` (1 or 2; signed or not) widened into a temporary.
const void* widen(temporaries& temp, const void* from, index_t n, std::size_t bytes, bool is_signed,
                  cudaStream_t stream) {
  void* to = temp.allocate(std::size_t(n) * 4);
  if (bytes == 1) {
    is_signed ? convert<std::int8_t, std::int32_t>(from, to, n, stream)
              : convert<std::uint8_t, std::uint32_t>(from, to, n, stream);
  } else {
    is_signed ? convert<std::int16_t, std::int32_t>(from, to, n, stream)
              : convert<std::uint16_t, std::uint32_t>(from, to, n, stream);
  }
  return to;
}

// The reverse of widen, from the 4-byte temporary into the caller's output: n elements, or
// at most *count where the output size stays on the device.
void narrow(const void* from, void* to, index_t n, const index_t* count, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 1) convert<std::uint32_t, std::uint8_t>(from, to, n, stream, count);
  else convert<std::uint32_t, std::uint16_t>(from, to, n, stream, count);
}

bool is_signed(dtype type) { return type == dtype::int8 || type == dtype::int16; }

index_t run_kernels(const operands& o, cudaStream_t stream) {
  switch (o.op) {
    case operation::merge: return run_gpu_merge(o, stream);
    case operation::set_union: return run_gpu_union(o, stream);
    case operation::set_intersection: return run_gpu_intersection(o, stream);
    case operation::set_difference: return run_gpu_difference(o, stream);
    case operation::set_symmetric_difference: return run_gpu_symmetric_difference(o, stream);
    case operation::lower_bound:
    case operation::upper_bound: return run_gpu_bounds(o, stream);
    case operation::contains:
    case operation::not_contains: return run_gpu_contains(o, stream);
    case operation::join: return run_gpu_join(o, stream);
    default: return run_gpu_distinct(o, stream);
  }
}

}  // namespace

void check_sorted_on_gpu(const operands& o, cudaStream_t stream) {
  visit_dtype(o.key_type, [&](auto tag) {
    using Key = typename decltype(tag)::type;
    if constexpr (sizeof(Key) >= 4) {
      const Key* a = static_cast<const Key*>(o.a);
      const Key* b = static_cast<const Key*>(o.b);
      corank::check_sorted(a, a + o.size_a, b, b + o.size_b, key_order<Key>{}, stream);
    }
  });
}

index_t find_unsorted_on_gpu(dtype key_type, const void* keys, index_t n, cudaStream_t stream) {
  temporaries temp(stream);
  const std::size_t key_bytes = dtype_size(key_type);
  if (key_bytes < 4) {
    keys = widen(temp, keys, n, key_bytes, is_signed(key_type), stream);
    key_type = kernel_key_type(key_type);
  }
  return visit_dtype(key_type, [&](auto tag) -> index_t {
    using Key = typename decltype(tag)::type;
    if constexpr (sizeof(Key) < 4) {
      return -1;  // widened above
    } else {
      const Key* first = static_cast<const Key*>(keys);
      return corank::find_unsorted(first, first + n, key_order<Key>{}, stream);
    }
  });
}

index_t run_on_gpu(const operands& given, cudaStream_t stream) {
  operands o = given;
  temporaries temp(stream);
  const index_t bound = output_bound(o.op, o.size_a, o.size_b, o.pairs);
  const bool writes = !o.count_only;
  // Searches write positions or flags, the join positions: not keys.
  const bool writes_keys = writes && !is_search(o.op) && o.op != operation::join;

  // Narrow keys: widened in (not for the join's pairs from what its count kept, which read no
  // key but are laid out by the kernels' key type), narrowed out.
  const std::size_t key_bytes = dtype_size(o.key_type);
  const bool reads_keys = !(o.op == operation::join && !o.count_only && o.join_kept != nullptr);
  const bool narrow_keys = key_bytes < 4;
  if (narrow_keys) {
    const bool sign = is_signed(o.key_type);
    if (reads_keys) {
      o.a = widen(temp, o.a, o.size_a, key_bytes, sign, stream);
      o.b = widen(temp, o.b, o.size_b, key_bytes, sign, stream);
    }
    o.key_type = kernel_key_type(o.key_type);
    if (writes_keys) o.keys_out = temp.allocate(std::size_t(bound) * 4);
  }
  // Narrow values, A's and B's (which differ only in the paired intersection).
  const std::size_t a_value_bytes = o.a_value_bytes, b_value_bytes = o.b_value_bytes;
  const bool narrow_a_values = writes && a_value_bytes > 0 && a_value_bytes < 4;
  const bool narrow_b_values = writes && b_value_bytes > 0 && b_value_bytes < 4;
  if (narrow_a_values) {
    o.a_values = widen(temp, o.a_values, o.size_a, a_value_bytes, false, stream);
    if (!o.paired()) o.b_values = widen(temp, o.b_values, o.size_b, a_value_bytes, false, stream);
    o.values_out = temp.allocate(std::size_t(bound) * 4);
    o.a_value_bytes = 4;
  }
  if (o.paired() && narrow_b_values) {
    o.b_values = widen(temp, o.b_values, o.size_b, b_value_bytes, false, stream);
    o.b_values_out = temp.allocate(std::size_t(bound) * 4);
  }
  if (narrow_b_values) o.b_value_bytes = 4;

  if (o.check_sorted && reads_keys) check_sorted_on_gpu(o, stream);
  const index_t count = run_kernels(o, stream);

  // Narrow back what was written: count elements, or as many as the device word says (at
  // most bound). A size read back that the operation cannot have means unsorted inputs.
  const bool size_on_device = o.count_out != nullptr && count < 0;
  if (!size_on_device && !possible_size(o, count)) throw corank::unsorted_input("corank");
  const index_t n = size_on_device ? bound : count;
  const index_t* on_device = size_on_device ? o.count_out : nullptr;
  if (narrow_keys && writes_keys) narrow(o.keys_out, given.keys_out, n, on_device, key_bytes, stream);
  if (narrow_a_values) narrow(o.values_out, given.values_out, n, on_device, a_value_bytes, stream);
  if (o.paired() && narrow_b_values) narrow(o.b_values_out, given.b_values_out, n, on_device, b_value_bytes, stream);
  return count;
}

}  // namespace corank::python
