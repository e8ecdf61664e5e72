#include "group_rejection.hpp"

#include "../samplers/composition_total.hpp"
#include "../samplers/conditioned_laplace.hpp"
#include "../samplers/discrete_laplace.hpp"

namespace invariant_dp {
namespace {

// The exact zero-sum discrete Laplace of conditioned_laplace.hpp for one
// group of k >= 2 cells: N from its law, then G - G' for two independent
// uniform compositions of N.
void zero_sum_noise(const CompositionTotalSampler& totals, RandomSource& rng, const Interrupts& interrupts,
                    std::vector<std::uint64_t>& g1, std::vector<std::uint64_t>& g2, std::vector<std::int64_t>& z) {
  const std::uint64_t total = totals.sample(rng, interrupts);
  g1.assign(z.size(), 0);
  g2.assign(z.size(), 0);
  sample_uniform_composition(rng, total, g1, interrupts);
  sample_uniform_composition(rng, total, g2, interrupts);
  for (std::size_t t = 0; t < z.size(); ++t) z[t] = static_cast<std::int64_t>(g1[t]) - static_cast<std::int64_t>(g2[t]);
}

}  // namespace

std::vector<std::uint32_t> sample_groups_by_rejection(const CongenialTarget& target, Rational scale,
                                                      const std::vector<std::uint32_t>& group_of_cell,
                                                      std::size_t n_groups, bool constrained, std::uint64_t budget,
                                                      CompositionSamplers& samplers, RandomSource& rng,
                                                      const Interrupts& interrupts, std::vector<std::int64_t>& y,
                                                      std::uint64_t& proposals) {
  std::vector<std::vector<std::uint32_t>> cells(n_groups);
  for (std::uint32_t i = 0; i < group_of_cell.size(); ++i) cells[group_of_cell[i]].push_back(i);
  std::vector<std::uint32_t> failed;
  std::vector<std::int64_t> z;
  std::vector<std::uint64_t> g1, g2;
  for (std::uint32_t g = 0; g < n_groups; ++g) {
    const auto& members = cells[g];
    z.assign(members.size(), 0);
    const CompositionTotalSampler* totals = nullptr;
    if (constrained && members.size() >= 2) {
      auto& cached = samplers[members.size()];
      if (!cached) cached = std::make_unique<CompositionTotalSampler>(scale, members.size(), 64);
      totals = cached.get();
    }
    bool accepted = false;
    for (std::uint64_t t = 0; t < budget && !accepted; ++t) {
      interrupts.poll_every(++proposals);
      if (totals != nullptr)
        zero_sum_noise(*totals, rng, interrupts, g1, g2, z);
      else if (!constrained)
        for (auto& v : z) v = sample_discrete_laplace(rng, scale);
      // else: a group of one cell is pinned, z = 0
      accepted = true;
      for (std::size_t k = 0; k < members.size() && accepted; ++k) accepted = target.center[members[k]] + z[k] >= 0;
    }
    if (!accepted) {
      failed.push_back(g);
      continue;
    }
    for (std::size_t k = 0; k < members.size(); ++k) y[members[k]] = target.center[members[k]] + z[k];
  }
  return failed;
}

}  // namespace invariant_dp
