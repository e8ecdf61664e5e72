// The core's operator new and delete: malloc and free, as libstdc++'s are,
// except that a block of 4 MB or more has its whole 2 MB pages marked for
// transparent huge pages (large_buffer.hpp's advice).
//
// Why: a release of millions of cells allocates vectors of tens of
// megabytes (codes, counts, noise, projections) and touches them once or
// twice. Each first touch of a 4 kB page is a page fault, several
// microseconds on a virtual machine: measured on the 2-core development VM,
// faults were most of a 5M-cell integer_laplace release's core time (1.45 s
// against 0.49 s with huge pages, test/bench/README.md). Being malloc and
// free underneath, these operators are interchangeable with libstdc++'s: a
// block allocated by either may be freed by the other. The extension exports
// only its SQL entry points (src/pg/exports.map), so these serve the core
// linked into it and never the server's other libraries.
#include <cstdlib>
#include <new>

#include "large_buffer.hpp"

namespace {

constexpr std::size_t kLargeBlock = std::size_t(4) << 20;

void* allocate(std::size_t size) {
  void* block = std::malloc(size == 0 ? 1 : size);
  if (block == nullptr) throw std::bad_alloc();
  if (size >= kLargeBlock) invariant_dp::advise_huge_pages(block, size);
  return block;
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* block) noexcept { std::free(block); }
void operator delete[](void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
void operator delete[](void* block, std::size_t) noexcept { std::free(block); }
