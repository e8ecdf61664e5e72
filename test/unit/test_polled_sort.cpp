// The sort that polls (src/core/polled_sort.hpp): the order
// std::stable_sort gives, ties in their first order, at every length around
// its runs of 2^15; one poll per run and per merge; a stop asked in the
// middle of a sort of a million elements is obeyed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "polled_sort.hpp"

namespace invariant_dp {
namespace {

using Item = std::pair<std::uint32_t, std::uint32_t>;  // (key, position given)

std::vector<Item> items(std::size_t n, std::uint32_t keys, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Item> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = {std::uint32_t(random() % keys), std::uint32_t(i)};
  return out;
}

bool by_key(const Item& a, const Item& b) { return a.first < b.first; }

TEST(PolledSort, TheOrderOfAStableSort) {
  const std::size_t run = std::size_t(1) << 15;
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), run, run + 1, 3 * run + 7,
                              std::size_t(300000)}) {
    for (const std::uint32_t keys : {3u, 1000u, 4000000000u}) {
      std::vector<Item> sorted = items(n, keys, n + keys), expected = sorted;
      std::stable_sort(expected.begin(), expected.end(), by_key);
      polled_sort(sorted.begin(), sorted.end(), by_key, Interrupts());
      ASSERT_EQ(sorted, expected) << n << " items, " << keys << " keys";
    }
  }
  std::vector<int> plain{5, 3, 9, 1, 3};
  polled_sort(plain.begin(), plain.end(), Interrupts());
  EXPECT_EQ(plain, (std::vector<int>{1, 3, 3, 5, 9}));
}

// Polls: one before the sort, one per run of 2^15, one per merge of two
// runs: a million elements make 31 runs and 5 passes of merges (16 + 8 +
// 4 + 2 + 1 merges), 63 polls in all; asked to stop at the 40th, during
// the merges, it throws.
TEST(PolledSort, PollsPerRunAndPerMerge) {
  std::vector<Item> v = items(1000000, 1000, 5);
  int polls_left = 1000000;
  polled_sort(v.begin(), v.end(), by_key, Interrupts(test_interrupts::pending_after, &polls_left));
  EXPECT_EQ(1000000 - polls_left, 1 + 31 + 31);
  std::vector<Item> w = items(1000000, 1000, 6);
  polls_left = 39;
  EXPECT_THROW(polled_sort(w.begin(), w.end(), by_key, Interrupts(test_interrupts::pending_after, &polls_left)),
               Interrupted);
}

}  // namespace
}  // namespace invariant_dp
