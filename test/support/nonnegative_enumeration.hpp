// The non-negative cascade's law on small trees by brute force, for the
// tests of hierarchy/nonnegative_cascade*: every vector of leaf noises in
// a box, weighted by prod over free nodes of exp(-eps_v |e_v|) (e_v the sum
// of the leaf noises below v), kept when every pinned node's noise is 0 and
// (unless told otherwise) every leaf's released count is >= 0, normalised
// over the box. Independent of the messages and the sampler: no window, no
// convolution, just the definition.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/nonnegative_cascade_law.hpp"

namespace invariant_dp::nonnegative_test {

using hierarchy::HierarchyTree;
using hierarchy::NonnegativeLaw;

struct EnumeratedLaw {
  std::map<std::vector<std::int64_t>, double> prob;  // leaf noise (leaf order) -> probability
  std::vector<double> mean, variance;                // per node, of its noise
};

// Leaf noises range over [max(-count, -box), box] (or [-box, box] when
// nonnegative is false); epsilon per depth as the law gives it, times
// epsilon_factor; with_vectors false keeps the moments only.
inline EnumeratedLaw enumerate_law(const HierarchyTree& tree, const NonnegativeLaw& law,
                                   const std::vector<std::int64_t>& leaf_counts, std::int64_t box,
                                   bool nonnegative = true, double epsilon_factor = 1.0, bool with_vectors = true) {
  const std::size_t n_leaves = tree.n_leaves(), n = tree.n_nodes();
  std::vector<std::int64_t> lo(n_leaves), e(n_leaves);
  for (std::size_t l = 0; l < n_leaves; ++l) {
    lo[l] = nonnegative ? std::max(-leaf_counts[l], -box) : -box;
    e[l] = lo[l];
  }
  std::vector<std::uint32_t> first(n), last(n);
  std::vector<double> eps(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    first[v] = tree.leaf_begin(v);
    last[v] = tree.leaf_end(v);
    eps[v] = law.pinned(v) ? 0.0 : law.level_epsilon(tree.depth(v)) * epsilon_factor;
  }
  EnumeratedLaw out;
  std::vector<double> m1(n, 0.0), m2(n, 0.0);
  std::vector<std::int64_t> node(n);
  double total = 0;
  for (;;) {
    bool ok = true;
    double log_w = 0;
    for (std::uint32_t v = 0; v < n && ok; ++v) {
      std::int64_t sum = 0;
      for (std::uint32_t l = first[v]; l < last[v]; ++l) sum += e[l];
      node[v] = sum;
      if (law.pinned(v)) ok = sum == 0;
      log_w -= eps[v] * std::fabs(static_cast<double>(sum));
    }
    if (ok) {
      const double w = std::exp(log_w);
      if (with_vectors) out.prob[e] = w;
      total += w;
      for (std::uint32_t v = 0; v < n; ++v) {
        m1[v] += w * static_cast<double>(node[v]);
        m2[v] += w * static_cast<double>(node[v]) * static_cast<double>(node[v]);
      }
    }
    std::size_t l = 0;
    while (l < n_leaves && e[l] == box) e[l] = lo[l], ++l;
    if (l == n_leaves) break;
    ++e[l];
  }
  for (auto& [key, p] : out.prob) p /= total;
  out.mean.resize(n);
  out.variance.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    out.mean[v] = m1[v] / total;
    out.variance[v] = m2[v] / total - out.mean[v] * out.mean[v];
  }
  return out;
}

}  // namespace invariant_dp::nonnegative_test
