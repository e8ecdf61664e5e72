// The per-thread cache of group-total samplers (composition_total_cache.hpp).
#include "composition_total_cache.hpp"

#include <tuple>

namespace invariant_dp {
namespace {

CompositionTotalCache& this_threads_cache() {
  thread_local CompositionTotalCache cache(kCompositionTotalCacheBytes);
  return cache;
}

}  // namespace

bool CompositionTotalCache::Key::operator<(const Key& other) const {
  return std::tie(num, den, k, squeeze_cells) < std::tie(other.num, other.den, other.k, other.squeeze_cells);
}

std::shared_ptr<const CompositionTotalSampler> CompositionTotalCache::get(Rational scale, std::uint64_t k,
                                                                          unsigned squeeze_cells) {
  const Key key{scale.num, scale.den, k, squeeze_cells};
  ++clock_;
  const auto found = entries_.find(key);
  if (found != entries_.end()) {
    found->second.last_use = clock_;
    return found->second.sampler;
  }
  auto sampler = std::make_shared<const CompositionTotalSampler>(scale, k, squeeze_cells);
  const std::size_t bytes = sampler->memory_bytes() + kEntryOverhead;
  if (bytes > max_bytes_) return sampler;
  // Ends: each pass removes one of the finitely many entries, and an empty
  // cache has room (bytes <= max_bytes_).
  while (bytes_ + bytes > max_bytes_) evict_least_recent();
  entries_.emplace(key, Entry{sampler, bytes, clock_});
  bytes_ += bytes;
  return sampler;
}

// A linear scan: it runs only after a miss, whose build costs far more.
void CompositionTotalCache::evict_least_recent() {
  auto oldest = entries_.begin();
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->second.last_use < oldest->second.last_use) oldest = it;
  bytes_ -= oldest->second.bytes;
  entries_.erase(oldest);
}

std::shared_ptr<const CompositionTotalSampler> cached_composition_total_sampler(Rational scale, std::uint64_t k,
                                                                                unsigned squeeze_cells) {
  return this_threads_cache().get(scale, k, squeeze_cells);
}

CompositionTotalCacheUsage composition_total_cache_usage() { return this_threads_cache().usage(); }

}  // namespace invariant_dp
