#pragma once
// Shared-memory arrays of objects that are never constructed (staged elements).

namespace corank::detail {

// Storage for N objects of a trivially copyable T without constructing them, 16-byte aligned
// at least (bulk copies and vector stores need it).
template <class T, int N>
struct uninitialized_array {
  alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char bytes[sizeof(T) * N];
  __device__ T* data() { return reinterpret_cast<T*>(bytes); }
  __device__ T& operator[](int i) { return data()[i]; }
};

}  // namespace corank::detail
