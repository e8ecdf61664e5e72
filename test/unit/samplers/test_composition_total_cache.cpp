// The per-thread cache of group-total samplers
// (samplers/composition_total_cache.hpp) changes no draw: fingerprints of
// draws under fixed seeds, recorded from the samplers as they were before
// the cache (each release building its own), are reproduced word for word
// by every sampler that draws zero-sum groups (the partition sampler with
// and without the squeeze, the group sampler, the two-line tables, row
// rejection), across repeated releases that hit the cache and scales that
// alternate.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "random_source.hpp"
#include "samplers/composition_total.hpp"
#include "samplers/conditioned_laplace.hpp"
#include "samplers/row_rejection_table.hpp"
#include "samplers/two_line_table.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

// FNV-1a over the draws' 64-bit words.
class Fingerprint {
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
  Fingerprint f;
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
  Fingerprint f;
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
  Fingerprint f;
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

}  // namespace
}  // namespace invariant_dp
