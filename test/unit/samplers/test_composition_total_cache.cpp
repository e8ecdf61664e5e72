// The per-thread cache of group-total samplers
// (samplers/composition_total_cache.hpp) changes no draw: fingerprints of
// draws under fixed seeds, recorded from the samplers as they were before
// the cache (each release building its own), are reproduced word for word
// by every sampler that draws zero-sum groups (the partition sampler with
// and without the squeeze, the group sampler, the two-line tables, row
// rejection), across repeated releases that hit the cache and scales that
// alternate. And the cache keeps its promises: one sampler per exact key
// (scale's numerator and denominator, group size, squeeze cells), never
// one key's sampler for another; a byte budget, least recently used out
// first; a cache of its own per thread.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "errors.hpp"
#include "random_source.hpp"
#include "samplers/composition_total.hpp"
#include "samplers/composition_total_cache.hpp"
#include "samplers/conditioned_laplace.hpp"
#include "samplers/row_rejection_table.hpp"
#include "samplers/two_line_table.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

// FNV-1a over the draws' 64-bit words.
class DrawFingerprint {
 public:
  void add(std::int64_t v) {
    const auto u = static_cast<std::uint64_t>(v);
    for (int byte = 0; byte < 8; ++byte) {
      hash_ ^= (u >> (8 * byte)) & 0xff;
      hash_ *= 0x100000001b3ull;
    }
  }
  void add(const std::vector<std::int64_t>& z) {
    for (std::int64_t v : z) add(v);
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

const std::vector<Rational> kScales{{125, 12}, {2, 1}, {1, 4}, {1000000, 1}, {4, 2}};

// Groups of sizes 2..6 (one each: no squeeze) and 12 groups of 9 cells
// (the squeeze), interleaved.
std::vector<std::uint32_t> mixed_partition(std::size_t& n_groups) {
  std::vector<std::uint32_t> sizes{2, 3, 4, 5, 6};
  sizes.insert(sizes.end(), 12, 9);
  std::vector<std::uint32_t> groups;
  for (std::size_t cell = 0, left = 1; left > 0; ++cell) {
    left = 0;
    for (std::uint32_t g = 0; g < sizes.size(); ++g)
      if (cell < sizes[g]) {
        groups.push_back(g);
        ++left;
      }
  }
  n_groups = sizes.size();
  return groups;
}

TEST(CompositionTotalCache, PartitionReleasesAreUnchanged) {
  std::size_t n_groups = 0;
  const std::vector<std::uint32_t> groups = mixed_partition(n_groups);
  DrawFingerprint f;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    auto rng = make_seeded_random_source(seed);
    // The scales alternate release after release, each seen several times.
    for (int round = 0; round < 4; ++round)
      for (const Rational& b : kScales) {
        std::vector<std::int64_t> z(groups.size());
        sample_laplace_with_zero_group_sums(*rng, b, {groups.data(), groups.size(), n_groups}, z.data(), {});
        f.add(z);
      }
  }
  EXPECT_EQ(f.value(), 0x2ac46b7e0e4333bdull);
}

TEST(CompositionTotalCache, GroupDrawsAreUnchanged) {
  DrawFingerprint f;
  for (const Rational& b : kScales)
    for (std::uint64_t k : {2, 7, 100})
      for (unsigned squeeze : {0u, 256u}) {
        auto rng = make_seeded_random_source(k * 1000 + squeeze);
        for (int release = 0; release < 3; ++release) {
          ZeroSumGroupSampler sampler(b, k, squeeze);
          std::vector<std::int64_t> z(k);
          for (int draw = 0; draw < 20; ++draw) {
            sampler.sample(*rng, z.data(), {});
            f.add(z);
          }
        }
      }
  EXPECT_EQ(f.value(), 0xeddbe4274a51ac7full);
}

TEST(CompositionTotalCache, TableReleasesAreUnchanged) {
  using table_checks::table;
  const std::vector<LatticeTable> tables{table(2, 23), table(7, 2, 46), table(2, 2, 60), table(2, 7, 64)};
  const std::size_t n = table_checks::total_cells(tables);
  DrawFingerprint f;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    auto rng = make_seeded_random_source(seed);
    for (int round = 0; round < 3; ++round)
      for (const Rational& b : kScales) {
        std::vector<std::int64_t> z(n);
        sample_laplace_on_two_line_tables(*rng, b, tables, n, z.data(), {});
        f.add(z);
        if (b.num > 1000 * b.den) continue;  // row rejection is hopeless at b = 10^6
        std::vector<std::int64_t> t(3 * 4);
        RowRejectionSampler rows(b, 3, 4);
        for (int draw = 0; draw < 5; ++draw) {
          rows.sample(*rng, t.data(), {});
          f.add(t);
        }
      }
  }
  EXPECT_EQ(f.value(), 0x692362ef0bf95650ull);
}

// The total's draws of a sampler, under one seed.
std::vector<std::int64_t> totals(const CompositionTotalSampler& sampler, std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  std::vector<std::int64_t> out(50);
  for (auto& n : out) n = static_cast<std::int64_t>(sampler.sample(*rng, {}));
  return out;
}

TEST(CompositionTotalCache, OneSamplerPerExactKey) {
  CompositionTotalCache cache(kCompositionTotalCacheBytes);
  const auto first = cache.get({125, 12}, 7, 0);
  EXPECT_EQ(cache.get({125, 12}, 7, 0), first);
  EXPECT_EQ(cache.usage().entries, 1u);
  // Each part of the key makes another entry: the same value of b written
  // another way, the next representable scales, another size, a squeeze.
  const std::vector<std::shared_ptr<const CompositionTotalSampler>> others{
      cache.get({250, 24}, 7, 0), cache.get({125, 11}, 7, 0), cache.get({126, 12}, 7, 0),
      cache.get({125, 12}, 8, 0), cache.get({125, 12}, 7, 256), cache.get({125, 12}, 7, 255)};
  EXPECT_EQ(cache.usage().entries, 1 + others.size());
  for (const auto& other : others) EXPECT_NE(other, first);
  // Each is what its own key builds.
  EXPECT_EQ(totals(*cache.get({125, 11}, 7, 0), 3), totals(CompositionTotalSampler({125, 11}, 7, 0), 3));
  EXPECT_EQ(totals(*cache.get({125, 12}, 8, 0), 3), totals(CompositionTotalSampler({125, 12}, 8, 0), 3));
  EXPECT_EQ(cache.get({125, 12}, 8, 0)->cells(), 8u);
}

TEST(CompositionTotalCache, RefusalsKeepNothing) {
  CompositionTotalCache cache(kCompositionTotalCacheBytes);
  EXPECT_THROW(cache.get({0, 1}, 3, 0), InvalidArgument);
  EXPECT_THROW(cache.get({2, 1}, 1, 0), InvalidArgument);
  EXPECT_THROW(cache.get({std::uint64_t{1} << 52, 1}, 3, 0), OutOfRange);
  EXPECT_EQ(cache.usage().entries, 0u);
  EXPECT_EQ(cache.usage().bytes, 0u);
}

TEST(CompositionTotalCache, BudgetEvictsTheLeastRecentlyUsed) {
  // Room for three samplers of small groups at b = 2 (no squeeze: each
  // charges the same bytes).
  const std::size_t each = CompositionTotalSampler({2, 1}, 2, 0).memory_bytes() + CompositionTotalCache::kEntryOverhead;
  CompositionTotalCache cache(3 * each + each / 2);
  const auto a = cache.get({2, 1}, 2, 0), b = cache.get({2, 1}, 3, 0), c = cache.get({2, 1}, 4, 0);
  EXPECT_EQ(cache.usage().entries, 3u);
  EXPECT_EQ(cache.get({2, 1}, 2, 0), a);  // a is now the most recent: b is the oldest
  const auto d = cache.get({2, 1}, 5, 0);
  EXPECT_EQ(cache.usage().entries, 3u);
  EXPECT_EQ(cache.usage().bytes, 3 * each);
  EXPECT_EQ(cache.get({2, 1}, 2, 0), a);
  EXPECT_EQ(cache.get({2, 1}, 4, 0), c);
  EXPECT_EQ(cache.get({2, 1}, 5, 0), d);
  // b was evicted: a new one is built (the old one lives on with its holder).
  const auto b_again = cache.get({2, 1}, 3, 0);
  EXPECT_NE(b_again, b);
  EXPECT_EQ(totals(*b_again, 5), totals(*b, 5));
  // A sampler larger than the whole budget is returned but not kept.
  CompositionTotalCache tiny(each / 2);
  EXPECT_NE(tiny.get({2, 1}, 2, 0), nullptr);
  EXPECT_EQ(tiny.usage().entries, 0u);
}

TEST(CompositionTotalCache, TheThreadsCacheStaysWithinItsBudget) {
  // 3000 samplers of one group size at scales 1/d (no squeeze: about 420
  // bytes each, 1.2 MB in all): the budget forces evictions.
  constexpr std::uint64_t kMade = 3000;
  const std::size_t before = composition_total_cache_usage().entries;
  for (std::uint64_t d = 1; d <= kMade; ++d) {
    cached_composition_total_sampler({1, 1000 + d}, 13, 0);
    ASSERT_LE(composition_total_cache_usage().bytes, kCompositionTotalCacheBytes);
  }
  EXPECT_LT(composition_total_cache_usage().entries, before + kMade);
  EXPECT_GT(composition_total_cache_usage().entries, 1000u);  // the budget holds many of them
}

TEST(CompositionTotalCache, EachThreadHasItsOwn) {
  const auto here = cached_composition_total_sampler({7, 2}, 11, 0);
  std::shared_ptr<const CompositionTotalSampler> there;
  std::thread([&] {
    there = cached_composition_total_sampler({7, 2}, 11, 0);
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);  // MPFR's constants of this thread (pi, log 2), else leaked
  }).join();
  ASSERT_NE(there, nullptr);
  EXPECT_NE(there, here);
  EXPECT_EQ(cached_composition_total_sampler({7, 2}, 11, 0), here);
  // The other thread's sampler outlives its cache and draws the same.
  EXPECT_EQ(totals(*there, 9), totals(*here, 9));
}

}  // namespace
}  // namespace invariant_dp
