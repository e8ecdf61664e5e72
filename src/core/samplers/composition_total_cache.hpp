// The group-total samplers (composition_total.hpp) kept per thread across
// releases. Building one costs MPFR work (the exact mode, the certified
// envelope, the squeeze's grid of lngamma bounds) that for the small tables
// of a typical release outweighs the draws themselves; and every release
// of a law asks again for the same few group sizes at the same scale.
//
// What is kept is a pure function of its key: the scale b = num/den (the
// exact integers, so b = 2/1 and b = 4/2 are two keys), the group size k
// and the squeeze's cell count (which callers set from how many groups
// share k, a property of the partition). None of the released counts
// enters it, so a release that finds its sampler here draws, word for
// word, what a fresh one would, and nothing of one release's data reaches
// another's draws.
//
// Bounded: at most kCompositionTotalCacheBytes of samplers (their
// memory_bytes plus a fixed overhead each) per thread; the least recently
// used entry leaves first. A sampler still held by a caller outlives its
// eviction (shared ownership), and the next request builds a new one.
// thread_local, as klein_correction.cpp's cache: the helper threads of
// mcmc/worker_threads.hpp each fill their own, which ends with the thread,
// and the shared samplers are only read (sample is const).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "composition_total.hpp"
#include "rational.hpp"

namespace invariant_dp {

constexpr std::size_t kCompositionTotalCacheBytes = std::size_t{1} << 20;

struct CompositionTotalCacheUsage {
  std::size_t entries = 0;
  std::size_t bytes = 0;  // charged: memory_bytes plus kEntryOverhead each
};

// One cache: the thread's (below) has kCompositionTotalCacheBytes; tests
// make small ones to watch the eviction.
class CompositionTotalCache {
 public:
  // Map node, control block of the shared sampler, allocator headers.
  static constexpr std::size_t kEntryOverhead = 192;

  explicit CompositionTotalCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  // The sampler CompositionTotalSampler(scale, k, squeeze_cells) would
  // build, kept or built and kept; throws as that constructor does (and
  // keeps nothing then). One too large for the whole budget is returned
  // without being kept.
  std::shared_ptr<const CompositionTotalSampler> get(Rational scale, std::uint64_t k, unsigned squeeze_cells);

  CompositionTotalCacheUsage usage() const { return {entries_.size(), bytes_}; }

 private:
  struct Key {
    std::uint64_t num, den, k;
    unsigned squeeze_cells;
    bool operator<(const Key& other) const;
  };
  struct Entry {
    std::shared_ptr<const CompositionTotalSampler> sampler;
    std::size_t bytes;
    std::uint64_t last_use;
  };
  void evict_least_recent();

  std::size_t max_bytes_;
  std::map<Key, Entry> entries_;
  std::size_t bytes_ = 0;
  std::uint64_t clock_ = 0;  // requests so far: the order of use
};

// This thread's cache (kCompositionTotalCacheBytes).
std::shared_ptr<const CompositionTotalSampler> cached_composition_total_sampler(Rational scale, std::uint64_t k,
                                                                                unsigned squeeze_cells);
CompositionTotalCacheUsage composition_total_cache_usage();

}  // namespace invariant_dp
