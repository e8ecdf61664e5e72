// Zero-filled buffers of hundreds of megabytes (the node noise of a national
// hierarchy) whose first touch should not dominate the work done in them.
//
// Touching fresh memory costs one page fault per 4 KB page; on virtualised
// hosts that is several microseconds each, i.e. seconds per gigabyte, more
// than drawing the noise. The buffer's whole 2 MB pages are therefore marked
// for transparent huge pages (madvise MADV_HUGEPAGE, Linux) before they are
// zeroed: one fault per 2 MB. A hint only: where huge pages are off or
// unavailable nothing changes but the speed; the contents and the memory
// accounting (std::vector) are the same.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace invariant_dp {

// Marks the whole 2 MB pages inside [block, block + bytes) for transparent
// huge pages (the ends, partial pages, stay as they are).
inline void advise_huge_pages(void* block, std::size_t bytes) {
  constexpr std::uintptr_t kHugePage = std::uintptr_t(1) << 21;
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
#ifdef MADV_HUGEPAGE
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // a hint; errors ignored
#endif
}

template <class T>
std::vector<T> zeroed_large_buffer(std::size_t n) {
  std::vector<T> buffer;
  buffer.reserve(n);
  advise_huge_pages(buffer.data(), n * sizeof(T));
  buffer.resize(n);
  return buffer;
}

}  // namespace invariant_dp
