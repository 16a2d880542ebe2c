#pragma once
// Bodies of operation.cuh.

#include <corank/detail/dispatch_partitioned.cuh>
#include <corank/detail/make_args.hpp>
#include <corank/detail/two_phase.hpp>

#include <string>

namespace corank {
namespace detail {

template <class Base, class PartnerOut>
set_args<Base, PartnerOut> with_partner(const Base& base, PartnerOut partner_out) {
  return {base, partner_out};
}

template <class Args>
void throw_on_bad_arguments(const Args& args, const char* context) {
  if (const char* problem = merge_argument_error(args)) {
    throw cuda_error(cudaErrorInvalidValue, std::string(context) + ": " + problem);
  }
}

// Runs a data-dependent operation and returns its output size: the count lives beside the
// temporary storage, and is read back once the stream has run everything.
template <class Op, class Args, class Compare>
index_t run_counted(const char* context, const Op& op, const Args& args, Compare comp, cudaStream_t stream,
                    strategy kind) {
  throw_on_bad_arguments(args, context);
  std::size_t bytes = 0;
  CORANK_TRY(dispatch_partitioned(nullptr, bytes, op, args, nullptr, comp, stream, kind), context);
  const std::size_t count_at = align_up(bytes);
  void* temp = nullptr;
  CORANK_TRY(allocate_temporary(&temp, count_at + sizeof(index_t), stream), context);
  auto* count = reinterpret_cast<index_t*>(static_cast<char*>(temp) + count_at);
  index_t* host_count = nullptr;
  cudaError_t status = pinned_result(host_count);
  if (status == cudaSuccess) status = dispatch_partitioned(temp, bytes, op, args, count, comp, stream, kind);
  if (status == cudaSuccess) {
    status = cudaMemcpyAsync(host_count, count, sizeof(index_t), cudaMemcpyDeviceToHost, stream);
  }
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  CORANK_TRY(status, context);
  CORANK_TRY(freed, context);
  CORANK_TRY(cudaStreamSynchronize(stream), context);
  return *host_count;
}

}  // namespace detail

namespace device {

template <class Op>
template <class KeysA, class KeysB, class KeysOut, class Compare>
cudaError_t keys_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                                           index_t size_a, KeysB keys_b, index_t size_b, KeysOut keys_out,
                                           index_t* count_out, Compare comp, cudaStream_t stream,
                                           strategy kind) const {
  using detail::unused;
  const auto args = detail::make_args(keys_a, size_a, keys_b, size_b, unused{}, unused{}, keys_out, unused{});
  return detail::dispatch_partitioned(temp_storage, temp_storage_bytes, op, detail::with_partner(args, unused{}),
                                 count_out, comp, stream, kind);
}

template <class Op>
template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut, class Compare>
cudaError_t by_key_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                                             ValuesA values_a, index_t size_a, KeysB keys_b, ValuesB values_b,
                                             index_t size_b, KeysOut keys_out, ValuesOut values_out,
                                             index_t* count_out, Compare comp, cudaStream_t stream,
                                             strategy kind) const {
  const auto args = detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out);
  return detail::dispatch_partitioned(temp_storage, temp_storage_bytes, op,
                                 detail::with_partner(args, detail::unused{}), count_out, comp, stream, kind);
}

template <class Op>
template <class KeysA, class KeysB, class Compare>
cudaError_t count_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes, KeysA keys_a,
                                            index_t size_a, KeysB keys_b, index_t size_b, index_t* count_out,
                                            Compare comp, cudaStream_t stream, strategy kind) const {
  using detail::unused;
  const auto args = detail::make_args(keys_a, size_a, keys_b, size_b, unused{}, unused{}, unused{}, unused{});
  return detail::dispatch_partitioned(temp_storage, temp_storage_bytes, op, detail::with_partner(args, unused{}),
                                 count_out, comp, stream, kind);
}

template <class Op>
template <class KeysA, class ValuesA, class KeysB, class ValuesB, class KeysOut, class ValuesOut,
          class BValuesOut, class Compare>
cudaError_t paired_by_key_operation<Op>::operator()(void* temp_storage, std::size_t& temp_storage_bytes,
                                                    KeysA keys_a, ValuesA values_a, index_t size_a,
                                                    KeysB keys_b, ValuesB values_b, index_t size_b,
                                                    KeysOut keys_out, ValuesOut values_out,
                                                    BValuesOut b_values_out, index_t* count_out,
                                                    Compare comp, cudaStream_t stream, strategy kind) const {
  const auto args = detail::make_args(keys_a, size_a, keys_b, size_b, values_a, values_b, keys_out, values_out);
  return detail::dispatch_partitioned(temp_storage, temp_storage_bytes, op,
                                 detail::with_partner(args, detail::unwrap(b_values_out)), count_out, comp,
                                 stream, kind);
}

}  // namespace device

template <class Op>
template <class KeysA, class KeysB, class KeysOut, class Compare>
KeysOut keys_operation<Op>::operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, KeysOut out,
                                       Compare comp, cudaStream_t stream, strategy kind) const {
  using detail::unused;
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      unused{}, unused{}, out, unused{});
  return out + detail::run_counted(name, op, detail::with_partner(args, unused{}), comp,
                                   stream, kind);
}

template <class Op>
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut, class Compare>
std::pair<KeysOut, ValuesOut> by_key_operation<Op>::operator()(KeysA a_first, KeysA a_last, KeysB b_first,
                                                               KeysB b_last, ValuesA a_values, ValuesB b_values,
                                                               KeysOut keys_out, ValuesOut values_out,
                                                               Compare comp, cudaStream_t stream,
                                                               strategy kind) const {
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      a_values, b_values, keys_out, values_out);
  const index_t count = detail::run_counted(name, op,
                                            detail::with_partner(args, detail::unused{}), comp, stream, kind);
  return {keys_out + count, values_out + count};
}

template <class Op>
template <class KeysA, class KeysB, class Compare>
index_t count_operation<Op>::operator()(KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, Compare comp,
                                        cudaStream_t stream, strategy kind) const {
  using detail::unused;
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      unused{}, unused{}, unused{}, unused{});
  return detail::run_counted(name, op, detail::with_partner(args, unused{}), comp, stream,
                             kind);
}

template <class Op>
template <class KeysA, class KeysB, class ValuesA, class ValuesB, class KeysOut, class ValuesOut,
          class BValuesOut, class Compare>
std::tuple<KeysOut, ValuesOut, BValuesOut> paired_by_key_operation<Op>::operator()(
    KeysA a_first, KeysA a_last, KeysB b_first, KeysB b_last, ValuesA a_values, ValuesB b_values,
    KeysOut keys_out, ValuesOut values_out, BValuesOut b_values_out, Compare comp, cudaStream_t stream,
    strategy kind) const {
  const auto args = detail::make_args(a_first, index_t(a_last - a_first), b_first, index_t(b_last - b_first),
                                      a_values, b_values, keys_out, values_out);
  if (index_t(a_last - a_first) + index_t(b_last - b_first) > 0 && detail::is_null(detail::unwrap(b_values_out))) {
    throw cuda_error(cudaErrorInvalidValue,
                     std::string(name) + ": the B value output is a null pointer with a nonzero size");
  }
  const index_t count = detail::run_counted(name, op,
                                            detail::with_partner(args, detail::unwrap(b_values_out)), comp,
                                            stream, kind);
  return {keys_out + count, values_out + count, b_values_out + count};
}

}  // namespace corank
