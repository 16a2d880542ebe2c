#pragma once
// Custom op example: the dot product of two sparse vectors stored as sorted (index, value)
// pairs. The op is intersection by key writing the product of the matched values; summing
// those products is left to a reduction (thrust::reduce on the GPU, std::accumulate on the
// CPU), as in sparse_dot() below.

#include <corank/op.hpp>

struct sparse_dot_op {
  static constexpr corank::partitioning partition = corank::partitioning::balanced_path;
  static constexpr bool output_size_is_input_size = false;

  CORANK_HOST_DEVICE constexpr corank::action operator()(corank::relation r) const {
    switch (r) {
      case corank::relation::a_first: return corank::skip_a();
      case corank::relation::b_first: return corank::skip_b();
      default: return {corank::emit::combined, corank::advance::both};
    }
  }

  template <class Value>
  CORANK_HOST_DEVICE Value combine(const Value& a, const Value& b) const {
    return a * b;
  }
};

#if defined(__CUDACC__)
#include <corank/operation.cuh>
#include <thrust/device_vector.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/reduce.h>

// The dot product on the GPU: products of matched entries, then their sum.
template <class Index, class Value>
Value sparse_dot(const thrust::device_vector<Index>& a_index, const thrust::device_vector<Value>& a_value,
                 const thrust::device_vector<Index>& b_index, const thrust::device_vector<Value>& b_value) {
  const std::size_t matches_at_most = a_index.size() < b_index.size() ? a_index.size() : b_index.size();
  if (matches_at_most == 0) return Value(0);  // an empty vector: no products to sum
  thrust::device_vector<Value> products(matches_at_most);
  const auto ends = corank::by_key_operation<sparse_dot_op>{}(
      a_index.begin(), a_index.end(), b_index.begin(), b_index.end(), a_value.begin(), b_value.begin(),
      thrust::make_discard_iterator(), products.begin());
  return thrust::reduce(products.begin(), ends.second, Value(0));
}
#endif
