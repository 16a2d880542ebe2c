#pragma once
// Bodies of join.cuh: two search passes, a prefix sum, and (pairs) the expansion's search.

#include <corank/detail/dispatch/dispatch.cuh>
#include <corank/detail/join_expansion.hpp>
#include <corank/detail/forms/make_args.hpp>
#include <corank/detail/forms/null_check.hpp>
#include <corank/detail/forms/two_phase.hpp>
#include <corank/search.cuh>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <string>

namespace corank {
namespace detail {

// Left element i's match count (upper minus lower bound); 0 at i == m, so that an exclusive
// sum over m + 1 items ends with the number of pairs.
struct match_count {
  const index_t* lower;
  const index_t* upper;
  index_t m;
  __host__ __device__ index_t operator()(index_t i) const { return i < m ? upper[i] - lower[i] : 0; }
};

// Where a join keeps what it computes in the temporary storage: each left element's lower and
// upper bound, the m + 1 prefix sums, the passes' count words, then the scan's and the search
// passes' own storage (one region, used by one pass at a time).
struct join_layout {
  std::size_t lower_at = 0, upper_at = 0, offsets_at = 0, words_at = 0;
  std::size_t scan_at = 0, scan_bytes = 0;
  std::size_t search_at = 0, search_bytes = 0;
  std::size_t bytes = 0;
};

constexpr int join_words = 3;  // the lower, upper and expansion passes' counts

template <class Left, class Right, class Compare, class Expansion>
cudaError_t join_layout_for(Left left, index_t m, Right right, index_t n, index_t pairs, Compare comp,
                            cudaStream_t stream, strategy kind, const Expansion* expansion, join_layout& layout) {
  if (m < 0 || n < 0 || pairs < 0) return cudaErrorInvalidValue;
  std::size_t lower_bytes = 0, upper_bytes = 0, expansion_bytes = 0, scan_bytes = 0;
  index_t* none = nullptr;
  if (const cudaError_t e =
          device::sorted_lower_bound(nullptr, lower_bytes, right, n, left, m, none, none, comp, stream, kind);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e =
          device::sorted_upper_bound(nullptr, upper_bytes, right, n, left, m, none, none, comp, stream, kind);
      e != cudaSuccess)
    return e;
  if (expansion != nullptr) {
    const thrust::counting_iterator<index_t> positions(0);
    if (const cudaError_t e = device::sorted_upper_bound(nullptr, expansion_bytes, static_cast<const index_t*>(none),
                                                         m, positions, pairs, *expansion, none, corank::less{},
                                                         stream, kind);
        e != cudaSuccess)
      return e;
  }
  const auto counts = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), match_count{});
  if (const cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, none, m + 1, stream);
      e != cudaSuccess)
    return e;
  std::size_t search_bytes = lower_bytes > upper_bytes ? lower_bytes : upper_bytes;
  search_bytes = search_bytes > expansion_bytes ? search_bytes : expansion_bytes;
  const std::size_t column = align_up(std::size_t(m) * sizeof(index_t));
  layout.lower_at = 0;
  layout.upper_at = column;
  layout.offsets_at = 2 * column;
  layout.words_at = layout.offsets_at + align_up(std::size_t(m + 1) * sizeof(index_t));
  layout.scan_at = layout.words_at + align_up(join_words * sizeof(index_t));
  layout.scan_bytes = scan_bytes;
  layout.search_at = layout.scan_at + align_up(scan_bytes);
  layout.search_bytes = search_bytes;
  layout.bytes = layout.search_at + align_up(search_bytes);
  return cudaSuccess;
}

// *count_out: a pass's negative count (the inputs found unsorted), else the number of pairs
// (-1 where that is negative: an upper bound below its lower bound, from unsorted inputs).
template <int = 0>
__global__ void join_count_kernel(index_t* count_out, const index_t* words, int passes, const index_t* offsets,
                                  index_t m) {
  index_t count = offsets[m] < 0 ? -1 : offsets[m];
  for (int w = 0; w < passes; ++w) count = words[w] < 0 ? words[w] : count;
  *count_out = count;
}

// The bounds, the prefix sums and, where `expansion` is given, the pairs, in `layout`.
template <class Left, class Right, class Compare, class Expansion>
cudaError_t run_join(void* temp_storage, const join_layout& layout, Left left, index_t m, Right right, index_t n,
                     index_t pairs, Expansion* expansion, index_t* count_out, Compare comp, cudaStream_t stream,
                     strategy kind) {
  char* base = static_cast<char*>(temp_storage);
  auto* lower = reinterpret_cast<index_t*>(base + layout.lower_at);
  auto* upper = reinterpret_cast<index_t*>(base + layout.upper_at);
  auto* offsets = reinterpret_cast<index_t*>(base + layout.offsets_at);
  auto* words = reinterpret_cast<index_t*>(base + layout.words_at);
  void* search = base + layout.search_at;
  std::size_t search_bytes = layout.search_bytes;
  if (const cudaError_t e = device::sorted_lower_bound(search, search_bytes, right, n, left, m, lower, words + 0,
                                                       comp, stream, kind);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = device::sorted_upper_bound(search, search_bytes, right, n, left, m, upper, words + 1,
                                                       comp, stream, kind);
      e != cudaSuccess)
    return e;
  const auto counts =
      thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), match_count{lower, upper, m});
  std::size_t scan_bytes = layout.scan_bytes;
  if (const cudaError_t e =
          cub::DeviceScan::ExclusiveSum(base + layout.scan_at, scan_bytes, counts, offsets, m + 1, stream);
      e != cudaSuccess)
    return e;
  int passes = 2;
  if (expansion != nullptr) {
    expansion->lower = lower;
    expansion->offsets = offsets;
    const thrust::counting_iterator<index_t> positions(0);
    if (const cudaError_t e = device::sorted_upper_bound(search, search_bytes, static_cast<const index_t*>(offsets), m,
                                                         positions, pairs, *expansion, words + 2, corank::less{},
                                                         stream, kind);
        e != cudaSuccess)
      return e;
    passes = 3;
  }
  join_count_kernel<<<1, 1, 0, stream>>>(count_out, words, passes, offsets, m);
  return cudaPeekAtLastError();
}

// sorted_join_offsets's passes: the bounds (the lower ones into the caller's lower_out), the
// prefix sums into offsets_out, and the count.
template <class Left, class Right, class Compare>
cudaError_t run_join_offsets(void* temp_storage, const join_layout& layout, Left left, index_t m, Right right,
                             index_t n, index_t* lower, index_t* offsets, index_t* count_out, Compare comp,
                             cudaStream_t stream, strategy kind) {
  char* base = static_cast<char*>(temp_storage);
  auto* upper = reinterpret_cast<index_t*>(base + layout.upper_at);
  auto* words = reinterpret_cast<index_t*>(base + layout.words_at);
  void* search = base + layout.search_at;
  std::size_t search_bytes = layout.search_bytes;
  if (const cudaError_t e = device::sorted_lower_bound(search, search_bytes, right, n, left, m, lower, words + 0,
                                                       comp, stream, kind);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = device::sorted_upper_bound(search, search_bytes, right, n, left, m, upper, words + 1,
                                                       comp, stream, kind);
      e != cudaSuccess)
    return e;
  const auto counts =
      thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), match_count{lower, upper, m});
  std::size_t scan_bytes = layout.scan_bytes;
  if (const cudaError_t e =
          cub::DeviceScan::ExclusiveSum(base + layout.scan_at, scan_bytes, counts, offsets, m + 1, stream);
      e != cudaSuccess)
    return e;
  join_count_kernel<<<1, 1, 0, stream>>>(count_out, words, 2, offsets, m);
  return cudaPeekAtLastError();
}

template <class Left, class Right>
const char* join_argument_error(const Left& left, index_t m, const Right& right, index_t n) {
  if (m < 0 || n < 0) return "a size is negative";
  if (m > 0 && is_null(left)) return "the left column is a null pointer with a nonzero size";
  if (n > 0 && is_null(right)) return "the right column is a null pointer with a nonzero size";
  return nullptr;
}

// The expansion's output for these outputs (lower and offsets filled in by run_join).
template <class LeftOut, class RightOut>
auto expansion_of(LeftOut left_out, RightOut right_out) {
  auto l = unwrap(left_out);
  auto r = unwrap(right_out);
  return join_expansion<decltype(l), decltype(r)>{l, r, nullptr, nullptr};
}

}  // namespace detail

namespace device {

template <class Left, class Right, class Compare>
cudaError_t sorted_join_count(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                              index_t n, index_t* count_out, Compare comp, cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  using no_expansion = detail::join_expansion<index_t*, index_t*>;
  detail::join_layout layout;
  if (const cudaError_t e = detail::join_layout_for(l, m, r, n, 0, comp, stream, kind,
                                                    static_cast<const no_expansion*>(nullptr), layout);
      e != cudaSuccess)
    return e;
  if (temp_storage == nullptr) {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  if (temp_storage_bytes < layout.bytes || count_out == nullptr || detail::join_argument_error(l, m, r, n) != nullptr)
    return cudaErrorInvalidValue;
  return detail::run_join(temp_storage, layout, l, m, r, n, 0, static_cast<no_expansion*>(nullptr), count_out, comp,
                          stream, kind);
}

template <class Left, class Right, class LeftOut, class RightOut, class Compare>
cudaError_t sorted_join(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                        index_t n, index_t pairs, LeftOut left_out, RightOut right_out, index_t* count_out,
                        Compare comp, cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  auto expansion = detail::expansion_of(left_out, right_out);
  detail::join_layout layout;
  if (const cudaError_t e = detail::join_layout_for(l, m, r, n, pairs, comp, stream, kind, &expansion, layout);
      e != cudaSuccess)
    return e;
  if (temp_storage == nullptr) {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  if (temp_storage_bytes < layout.bytes || count_out == nullptr || detail::join_argument_error(l, m, r, n) != nullptr ||
      (pairs > 0 && (detail::is_null(expansion.left) || detail::is_null(expansion.right))))
    return cudaErrorInvalidValue;
  return detail::run_join(temp_storage, layout, l, m, r, n, pairs, &expansion, count_out, comp, stream, kind);
}

template <class Left, class Right, class Compare>
cudaError_t sorted_join_offsets(void* temp_storage, std::size_t& temp_storage_bytes, Left left, index_t m, Right right,
                                index_t n, index_t* lower_out, index_t* offsets_out, index_t* count_out, Compare comp,
                                cudaStream_t stream, strategy kind) {
  const auto l = detail::unwrap_input(left);
  const auto r = detail::unwrap_input(right);
  // sorted_join_count's storage less its lower bounds and offsets, which are the caller's
  // here: the upper bounds, the count words, the scan's and the searches' storage.
  using no_expansion = detail::join_expansion<index_t*, index_t*>;
  detail::join_layout full;
  if (const cudaError_t e = detail::join_layout_for(l, m, r, n, 0, comp, stream, kind,
                                                    static_cast<const no_expansion*>(nullptr), full);
      e != cudaSuccess)
    return e;
  detail::join_layout layout = full;
  layout.upper_at = 0;
  layout.words_at = detail::align_up(std::size_t(m) * sizeof(index_t));
  layout.scan_at = layout.words_at + detail::align_up(detail::join_words * sizeof(index_t));
  layout.search_at = layout.scan_at + detail::align_up(layout.scan_bytes);
  layout.bytes = layout.search_at + detail::align_up(layout.search_bytes);
  if (temp_storage == nullptr) {
    temp_storage_bytes = layout.bytes;
    return cudaSuccess;
  }
  if (temp_storage_bytes < layout.bytes || count_out == nullptr || offsets_out == nullptr ||
      (m > 0 && lower_out == nullptr) || detail::join_argument_error(l, m, r, n) != nullptr)
    return cudaErrorInvalidValue;
  return detail::run_join_offsets(temp_storage, layout, l, m, r, n, lower_out, offsets_out, count_out, comp, stream,
                                  kind);
}

template <class LeftOut, class RightOut>
cudaError_t sorted_join_expand(void* temp_storage, std::size_t& temp_storage_bytes, const index_t* lower,
                               const index_t* offsets, index_t m, index_t pairs, LeftOut left_out, RightOut right_out,
                               index_t* count_out, cudaStream_t stream, strategy kind) {
  if (m < 0 || pairs < 0) return cudaErrorInvalidValue;
  auto expansion = detail::expansion_of(left_out, right_out);
  expansion.lower = lower;
  expansion.offsets = offsets;
  const thrust::counting_iterator<index_t> positions(0);
  std::size_t search_bytes = 0;
  index_t* none = nullptr;
  if (const cudaError_t e = device::sorted_upper_bound(nullptr, search_bytes, offsets, m, positions, pairs, expansion,
                                                       none, corank::less{}, stream, kind);
      e != cudaSuccess)
    return e;
  // The search's count word, then its storage.
  const std::size_t search_at = detail::align_up(sizeof(index_t));
  if (temp_storage == nullptr) {
    temp_storage_bytes = search_at + detail::align_up(search_bytes);
    return cudaSuccess;
  }
  if (temp_storage_bytes < search_at + search_bytes || offsets == nullptr || (m > 0 && lower == nullptr) ||
      (pairs > 0 && (detail::is_null(expansion.left) || detail::is_null(expansion.right))))
    return cudaErrorInvalidValue;
  auto* word = static_cast<index_t*>(temp_storage);
  if (const cudaError_t e =
          device::sorted_upper_bound(static_cast<char*>(temp_storage) + search_at, search_bytes, offsets, m, positions,
                                     pairs, expansion, word, corank::less{}, stream, kind);
      e != cudaSuccess)
    return e;
  if (count_out == nullptr) return cudaSuccess;
  detail::join_count_kernel<<<1, 1, 0, stream>>>(count_out, word, 1, offsets, m);
  return cudaPeekAtLastError();
}

}  // namespace device

template <class Left, class Right, class Compare>
index_t sorted_join_count(Left left_first, Left left_last, Right right_first, Right right_last, Compare comp,
                          cudaStream_t stream, strategy kind) {
  constexpr const char* name = "corank::sorted_join_count";
  const index_t m = left_last - left_first, n = right_last - right_first;
  if (const char* problem = detail::join_argument_error(detail::unwrap_input(left_first), m,
                                                        detail::unwrap_input(right_first), n)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": " + problem);
  }
  const index_t count = detail::run_two_phase_for_result(name, stream, [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_count(temp, bytes, left_first, m, right_first, n, c, comp, stream, kind);
  });
  if (count < 0) throw unsorted_input(name);
  return count;
}

template <class Left, class Right, class LeftOut, class RightOut, class Compare>
std::pair<LeftOut, RightOut> sorted_join(Left left_first, Left left_last, Right right_first, Right right_last,
                                         LeftOut left_out, RightOut right_out, Compare comp, cudaStream_t stream,
                                         strategy kind) {
  constexpr const char* name = "corank::sorted_join";
  const index_t m = left_last - left_first, n = right_last - right_first;
  if (const char* problem = detail::join_argument_error(detail::unwrap_input(left_first), m,
                                                        detail::unwrap_input(right_first), n)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": " + problem);
  }
  // The lower bounds and the offsets live from the count to the expansion: computed once.
  void* kept = nullptr;
  CORANK_TRY(detail::allocate_temporary(&kept, std::size_t(2 * m + 1) * sizeof(index_t), stream), name);
  struct release {
    void* memory;
    cudaStream_t stream;
    ~release() { cudaFreeAsync(memory, stream); }
  } const guard{kept, stream};
  index_t* lower = static_cast<index_t*>(kept);
  index_t* offsets = lower + m;
  const index_t pairs = detail::run_two_phase_for_result(name, stream, [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_offsets(temp, bytes, left_first, m, right_first, n, lower, offsets, c, comp, stream,
                                       kind);
  });
  if (pairs < 0) throw unsorted_input(name);
  if (pairs > 0 && (detail::is_null(detail::unwrap(left_out)) || detail::is_null(detail::unwrap(right_out)))) {
    throw cuda_error(cudaErrorInvalidValue, std::string(name) + ": an output is a null pointer with a nonzero size");
  }
  // The expansion's search over the offsets is where unsorted inputs that the bounds did not
  // reveal show (counts below zero: offsets that go backwards), so its count is read back too.
  const index_t expanded = detail::run_two_phase_for_result(name, stream, [&](void* temp, std::size_t& bytes, index_t* c) {
    return device::sorted_join_expand(temp, bytes, static_cast<const index_t*>(lower),
                                      static_cast<const index_t*>(offsets), m, pairs, left_out, right_out, c, stream,
                                      kind);
  });
  if (expanded < 0) throw unsorted_input(name);
  return {left_out + pairs, right_out + pairs};
}

}  // namespace corank
