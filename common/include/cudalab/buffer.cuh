/// @file buffer.cuh
/// @brief DeviceBuffer<T>: an owning, move-only cudaMalloc'd array with upload/download/poison.
#pragma once

#include "cudalab/data.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace cudalab {

/// @brief Owning device array of @p T. Methods return the CUDA error instead of exiting, so the
/// caller decides: a test fails itself, a demo exits.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~DeviceBuffer() { cudaFree(ptr_); }

  /// @brief (Re)allocates room for @p n elements; contents undefined.
  cudaError_t allocate(std::size_t n) {
    cudaFree(ptr_);
    ptr_ = nullptr;
    n_ = n;
    return cudaMalloc(&ptr_, (n ? n : 1) * sizeof(T));
  }
  /// @brief Allocates and copies @p host to the device.
  cudaError_t upload(const std::vector<T> &host) {
    cudaError_t err = allocate(host.size());
    if (err != cudaSuccess) return err;
    return cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  /// @brief Copies the device contents into @p host (resized to size()).
  cudaError_t download(std::vector<T> *host) const {
    host->resize(n_);
    return cudaMemcpy(host->data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost);
  }
  /// @brief Fills every byte with kPoisonByte, so unwritten elements can be recognised.
  cudaError_t poison() { return cudaMemset(ptr_, kPoisonByte, n_ * sizeof(T)); }

  T *get() const { return ptr_; }            ///< device pointer
  std::size_t size() const { return n_; }    ///< number of elements
  std::size_t bytes() const { return n_ * sizeof(T); }  ///< size in bytes

 private:
  T *ptr_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace cudalab
