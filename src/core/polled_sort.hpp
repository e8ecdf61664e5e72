// A sort that polls for cancellation. std::sort and std::stable_sort hold
// no poll, and the core sorts arrays as long as a release or a query: 8M
// cells under a four-key comparison took std::sort 4 s, which neither
// statement_timeout nor a cancel could stop. polled_sort is a merge sort:
// runs of 2^15 elements sorted by std::stable_sort, then merged pairwise,
// one poll before each run and each merge (the last merge of n elements is
// one pass, about 0.1 s at n = 16M). Stable: the result is std::stable_sort's,
// so a sort of the same elements in the same order always gives the same
// order. It needs a buffer of n elements beside the range.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <vector>

#include "interrupts.hpp"

namespace invariant_dp {

template <class It, class Compare>
void polled_sort(It first, It last, Compare before, const Interrupts& interrupts) {
  using T = typename std::iterator_traits<It>::value_type;
  constexpr std::size_t kRun = std::size_t(1) << 15;
  const std::size_t n = static_cast<std::size_t>(last - first);
  interrupts.poll();
  if (n <= kRun) {
    std::stable_sort(first, last, before);
    return;
  }
  for (std::size_t begin = 0; begin < n; begin += kRun) {
    interrupts.poll();
    std::stable_sort(first + std::ptrdiff_t(begin), first + std::ptrdiff_t(std::min(n, begin + kRun)), before);
  }
  // Each pass merges pairs of runs from one array into the other: the
  // range and the buffer by turns.
  std::vector<T> buffer(n);
  const auto pass = [&](auto from, auto to, std::size_t width) {
    for (std::size_t begin = 0; begin < n; begin += 2 * width) {
      interrupts.poll();
      const std::size_t middle = std::min(n, begin + width), end = std::min(n, begin + 2 * width);
      std::merge(std::make_move_iterator(from + std::ptrdiff_t(begin)),
                 std::make_move_iterator(from + std::ptrdiff_t(middle)),
                 std::make_move_iterator(from + std::ptrdiff_t(middle)),
                 std::make_move_iterator(from + std::ptrdiff_t(end)), to + std::ptrdiff_t(begin), before);
    }
  };
  bool in_buffer = false;
  for (std::size_t width = kRun; width < n; width *= 2) {
    if (in_buffer)
      pass(buffer.begin(), first, width);
    else
      pass(first, buffer.begin(), width);
    in_buffer = !in_buffer;
  }
  if (in_buffer) std::move(buffer.begin(), buffer.end(), first);
}

template <class It>
void polled_sort(It first, It last, const Interrupts& interrupts) {
  polled_sort(first, last, std::less<>(), interrupts);
}

}  // namespace invariant_dp
