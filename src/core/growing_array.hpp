// An array of plain values that grows while rows arrive (their number is not
// known in advance), without the costs std::vector's doubling has at
// hundreds of megabytes: it lives in its own anonymous mapping, marked for
// transparent huge pages (one page fault per 2 MB instead of per 4 kB, see
// large_buffer.hpp), and grows with mremap, which moves page tables instead
// of copying the elements and touching every page again. Linux only, as the
// extension's packages are.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace invariant_dp {

template <class T>
class GrowingArray {
  static_assert(std::is_trivially_copyable_v<T>, "elements are moved as bytes");

 public:
  GrowingArray() = default;
  GrowingArray(const GrowingArray&) = delete;
  GrowingArray& operator=(const GrowingArray&) = delete;
  GrowingArray(GrowingArray&& other) noexcept { swap(other); }
  GrowingArray& operator=(GrowingArray&& other) noexcept {
    swap(other);
    return *this;
  }
  ~GrowingArray() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Bytes mapped (the caller's memory accounting).
  std::size_t bytes() const { return bytes_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

  void push_back(const T& value) {
    if (size_ * sizeof(T) == bytes_) reserve(size_ + 1);
    data_[size_++] = value;
  }

  // The bytes reserve(n) would add to bytes() (0 when n fit), for a caller
  // that must refuse before it allocates.
  std::size_t growth_for(std::size_t n) const { return mapped_bytes_for(n) - bytes_; }

  // Room for n elements (new memory reads as zeros).
  void reserve(std::size_t n) {
    const std::size_t bytes = mapped_bytes_for(n);
    if (bytes == bytes_) return;
    void* grown = data_ == nullptr ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                   : mremap(data_, bytes_, bytes, MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(grown, bytes, MADV_HUGEPAGE);  // a hint; errors ignored
#endif
    data_ = static_cast<T*>(grown);
    bytes_ = bytes;
  }

 private:
  // Small arrays (a test's, a domain's few levels) stay small; doubling
  // reaches whole huge pages after five steps.
  static constexpr std::size_t kFirstBytes = std::size_t(64) << 10;

  std::size_t mapped_bytes_for(std::size_t n) const {
    if (n * sizeof(T) <= bytes_) return bytes_;
    std::size_t bytes = bytes_ == 0 ? kFirstBytes : bytes_;
    // Ends: doubles up to n elements, at most 64 times.
    while (bytes < n * sizeof(T)) bytes *= 2;
    return bytes;
  }

  void swap(GrowingArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(bytes_, other.bytes_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace invariant_dp
