// The synthetic national geography of the benchmarks (1 nation, 50 states,
// 3,143 counties, 85,000 tracts, 240,000 block groups, 8M blocks), built
// the same way wherever a benchmark needs it, so their figures compare.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "hierarchy/hierarchy_tree.hpp"
#include "interrupts.hpp"

namespace invariant_dp::bench {

// Children per parent: each at least one, the rest spread with exponential
// weights (skewed like real geographies), deterministic.
inline std::vector<std::uint32_t> spread(std::size_t parents, std::size_t children, std::mt19937_64& gen) {
  std::vector<double> w(parents);
  std::exponential_distribution<double> exp1(1.0);
  double total = 0;
  for (double& x : w) total += x = exp1(gen);
  std::vector<std::uint32_t> out(parents, 1);
  std::size_t placed = parents;
  for (std::size_t i = 0; i < parents; ++i) {
    const auto extra = static_cast<std::uint32_t>(std::floor(w[i] / total * double(children - parents)));
    out[i] += extra;
    placed += extra;
  }
  for (std::size_t i = 0; placed < children; i = (i + 1) % parents, ++placed) ++out[i];
  return out;
}

inline hierarchy::HierarchyTree national_tree() {
  const std::vector<std::size_t> sizes{1, 50, 3143, 85000, 240000, 8000000};
  std::mt19937_64 gen(2020);
  std::vector<std::int64_t> parent{-1};
  parent.reserve(8328194);
  std::int64_t level_start = 0;
  for (std::size_t d = 1; d < sizes.size(); ++d) {
    const auto per_parent = spread(sizes[d - 1], sizes[d], gen);
    for (std::size_t p = 0; p < per_parent.size(); ++p)
      parent.insert(parent.end(), per_parent[p], level_start + static_cast<std::int64_t>(p));
    level_start += static_cast<std::int64_t>(sizes[d - 1]);
  }
  return hierarchy::HierarchyTree::from_parents(parent, Interrupts());
}

}  // namespace invariant_dp::bench
