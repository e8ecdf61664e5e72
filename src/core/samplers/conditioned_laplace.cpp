// Discrete Laplace conditioned on zero group sums; the argument for
// exactness is in conditioned_laplace.hpp.
#include "conditioned_laplace.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "composition_total.hpp"
#include "composition_total_cache.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {
namespace {

// Floyd's algorithm: a uniform sample of `count` distinct positions among
// [0, positions), returned sorted. For j = positions - count, ...,
// positions - 1 draw t uniform on [0, j]; insert t, or j if t is taken.
// A bitmap when it is no larger than a few words per part, else a hash set.
void floyd_sorted(RandomSource& rng, std::uint64_t positions, std::uint64_t count,
                  std::vector<std::uint64_t>& out, const Interrupts& interrupts) {
  out.clear();
  if (positions <= 128 * count + 4096) {
    std::vector<std::uint64_t> bits((positions + 63) / 64, 0);
    for (std::uint64_t j = positions - count; j < positions; ++j) {
      interrupts.poll_every(j);
      const std::uint64_t t = rng.uniform_below(j + 1);
      const std::uint64_t pick = (bits[t >> 6] >> (t & 63)) & 1 ? j : t;
      bits[pick >> 6] |= std::uint64_t{1} << (pick & 63);
    }
    for (std::uint64_t w = 0; w < bits.size(); ++w)
      for (std::uint64_t word = bits[w]; word != 0; word &= word - 1)
        out.push_back(w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(word)));
    return;
  }
  // Open addressing on position + 1 (0 marks an empty slot).
  std::uint64_t size = 16;
  // Ends: doubles up to twice count, at most 64 times.
  while (size < 2 * count) size *= 2;
  std::vector<std::uint64_t> table(size, 0);
  auto insert_if_absent = [&](std::uint64_t key) {
    std::uint64_t slot = (key * 0x9e3779b97f4a7c15ull) & (size - 1);
    for (; table[slot] != 0; slot = (slot + 1) & (size - 1))
      if (table[slot] == key + 1) return false;
    table[slot] = key + 1;
    return true;
  };
  for (std::uint64_t j = positions - count; j < positions; ++j) {
    interrupts.poll_every(j);
    const std::uint64_t t = rng.uniform_below(j + 1);
    out.push_back(insert_if_absent(t) ? t : j);
    if (out.back() == j) insert_if_absent(j);
  }
  polled_sort(out.begin(), out.end(), interrupts);
}

void check_group_arguments(Rational scale, const ZeroSumPartition& groups, const std::int64_t* z,
                           const Interrupts& interrupts) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("laplace scale must be positive");
  check_zero_sum_groups(groups, z, interrupts);
}

}  // namespace

void sample_uniform_composition(RandomSource& rng, std::uint64_t total,
                                std::vector<std::uint64_t>& parts, const Interrupts& interrupts) {
  const std::uint64_t k = parts.size();
  if (k == 0) throw InvalidArgument("a composition needs at least one part");
  if (total > kMaxCompositionTotal || k - 1 > kMaxCompositionTotal)
    throw OutOfRange("composition total does not fit in a bigint");
  std::vector<std::uint64_t> bars;
  floyd_sorted(rng, total + k - 1, k - 1, bars, interrupts);
  std::uint64_t next = 0;  // first position after the previous bar
  for (std::uint64_t i = 0; i + 1 < k; ++i) {
    parts[i] = bars[i] - next;
    next = bars[i] + 1;
  }
  parts[k - 1] = total + k - 1 - next;
}

ZeroSumGroupSampler::ZeroSumGroupSampler(Rational scale, std::uint64_t k, unsigned squeeze_cells)
    : total_(cached_composition_total_sampler(scale, k, squeeze_cells)) {}

void ZeroSumGroupSampler::draw(RandomSource& rng, const Interrupts& interrupts) {
  const std::uint64_t k = total_->cells();
  const std::uint64_t total = total_->sample(rng, interrupts);
  g1_.assign(k, 0);
  g2_.assign(k, 0);
  sample_uniform_composition(rng, total, g1_, interrupts);
  sample_uniform_composition(rng, total, g2_, interrupts);
}

void sample_laplace_with_zero_group_sums(RandomSource& rng, Rational scale, const ZeroSumPartition& groups,
                                         NoiseOutput z, const Interrupts& interrupts) {
  check_group_arguments(scale, groups, z.out, interrupts);
  // Cells ordered by group, each group in cell order; runs are the groups.
  const GroupRuns runs(groups, interrupts);
  // One sampler per group size; a size shared by many groups gets the squeeze.
  std::map<std::uint64_t, std::size_t> groups_of_size;
  for (std::size_t g = 0; g < runs.n_runs(); ++g) ++groups_of_size[runs.size(g)];
  std::map<std::uint64_t, std::unique_ptr<ZeroSumGroupSampler>> samplers;
  for (std::size_t g = 0; g < runs.n_runs(); ++g) {
    interrupts.poll();
    const std::uint64_t k = runs.size(g);
    const std::size_t first = runs.start(g);
    if (k == 1) z.write(runs.cell(first), 0);
    if (k < 2) continue;
    auto& sampler = samplers[k];
    if (!sampler) {
      const std::size_t sharing = groups_of_size[k];
      // About one grid point (4 lngamma evaluations) per group sharing k.
      const unsigned squeeze_cells = sharing < 8 ? 0 : static_cast<unsigned>(std::min<std::size_t>(1024, sharing));
      sampler = std::make_unique<ZeroSumGroupSampler>(scale, k, squeeze_cells);
    }
    sampler->sample(rng, interrupts, [&](std::uint64_t t, std::int64_t v) { z.write(runs.cell(first + t), v); });
  }
}

}  // namespace invariant_dp
