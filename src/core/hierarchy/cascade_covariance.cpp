// Closed-form covariances of cascade noise (cascade_covariance.hpp).
#include "cascade_covariance.hpp"

#include <algorithm>
#include <vector>

#include "../errors.hpp"

namespace invariant_dp::hierarchy {
namespace {

std::vector<std::uint32_t> root_path(const HierarchyTree& tree, std::uint32_t node) {
  std::vector<std::uint32_t> path;
  for (; node != kNoNode; node = tree.parent(node)) path.push_back(node);
  std::reverse(path.begin(), path.end());
  return path;
}

void check_leaf(const HierarchyTree& tree, std::uint32_t leaf) {
  if (leaf >= tree.n_leaves()) {
    throw InvalidArgument("leaf index out of range", "Leaf " + std::to_string(leaf) + " of " +
                                                         std::to_string(tree.n_leaves()) + " was asked for.");
  }
}

// The variance of a child's noise from its parent u's (var_u, at depth d),
// conditioned laws included: a child's noise is X/m plus an increment of
// variance v_c - v_p/m^2, and 0 when pinned.
double child_variance(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t u, unsigned d, double var_u,
                      std::uint32_t child) {
  const double m = tree.n_children(u);
  if (law.pinned(child)) return 0;
  if (m == 1) return var_u;
  return var_u / (m * m) + law.level_variance(d + 1) - law.node_variance(u, d) / (m * m);
}

double root_variance(const CascadeLaw& law) { return law.pinned(0) ? 0.0 : law.level_variance(0); }

// Variance of the noise of each node of path (root first).
std::vector<double> path_variances(const HierarchyTree& tree, const CascadeLaw& law,
                                   const std::vector<std::uint32_t>& path) {
  std::vector<double> var(path.size());
  var[0] = root_variance(law);
  for (std::size_t k = 1; k < path.size(); ++k)
    var[k] = child_variance(tree, law, path[k - 1], static_cast<unsigned>(k - 1), var[k - 1], path[k]);
  return var;
}

// Product of 1/m over the nodes from path[from] to the parent of the leaf.
double share_down(const HierarchyTree& tree, const std::vector<std::uint32_t>& path, std::size_t from) {
  double share = 1;
  for (std::size_t k = from; k + 1 < path.size(); ++k) share /= tree.n_children(path[k]);
  return share;
}

struct RangeSum {
  const HierarchyTree& tree;
  const CascadeLaw& law;
  std::uint32_t lo, hi;  // [lo, hi)
  double variance = 0;

  // f(u) for a node the range cuts partially; adds its split's term.
  double weight(std::uint32_t u, std::uint32_t begin, std::uint32_t end) {
    const std::uint32_t m = tree.n_children(u);
    double sum = 0, sum_sq = 0;
    for (std::uint32_t c = tree.first_child(u); c < tree.child_end(u); ++c) {
      const std::uint32_t b = tree.leaf_begin(c), e = c + 1 < tree.child_end(u) ? tree.leaf_begin(c + 1) : end;
      double f = 0;
      if (e <= lo || b >= hi) {
        f = 0;
      } else if (lo <= b && e <= hi) {
        f = 1;
      } else {
        f = weight(c, b, e);
      }
      sum += f;
      sum_sq += f * f;
    }
    if (m >= 2 && law.splits_freely(tree, u)) {
      variance += law.split_tau2(u, tree.depth(u), m) * (sum_sq - sum * sum / m);
    }
    return sum / m;
  }
};

}  // namespace

double leaf_covariance(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t i, std::uint32_t j) {
  check_leaf(tree, i);
  check_leaf(tree, j);
  const auto path_i = root_path(tree, tree.leaf_node(i)), path_j = root_path(tree, tree.leaf_node(j));
  if (i == j) return path_variances(tree, law, path_i).back();
  std::size_t w = 0;  // index of the lowest common ancestor on both paths
  // Ends: at most the tree's depth.
  while (w + 1 < path_i.size() && w + 1 < path_j.size() && path_i[w + 1] == path_j[w + 1]) ++w;
  const std::uint32_t lca = path_i[w];
  if (!law.splits_freely(tree, lca)) return 0;  // pinned children: independent subtrees
  const double var_w = path_variances(tree, law, path_i)[w];  // conditioned, if pinned above
  const std::uint32_t m = tree.n_children(lca);
  const double siblings = var_w / (double(m) * m) - law.split_tau2(lca, static_cast<unsigned>(w), m) / m;
  return siblings * share_down(tree, path_i, w + 1) * share_down(tree, path_j, w + 1);
}

double range_variance(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t lo, std::uint32_t hi) {
  check_leaf(tree, hi);
  if (lo > hi) throw InvalidArgument("range of leaves is empty", "It starts after it ends.");
  RangeSum range{tree, law, lo, hi + 1};
  const double f_root = (lo == 0 && hi + 1 == tree.n_leaves()) ? 1.0 : range.weight(0, 0, tree.n_leaves());
  if (!law.pinned(0)) range.variance += f_root * f_root * law.level_variance(0);
  return range.variance;
}

double node_variance(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t node) {
  if (node >= tree.n_nodes()) throw InvalidArgument("node index out of range");
  return path_variances(tree, law, root_path(tree, node)).back();
}

std::vector<double> node_variances(const HierarchyTree& tree, const CascadeLaw& law, const Interrupts& interrupts) {
  std::vector<double> var(tree.n_nodes());
  if (var.empty()) return var;
  var[0] = root_variance(law);
  for (std::uint32_t u = 0; u < tree.n_nodes(); ++u) {
    interrupts.poll_every(u);
    if (tree.is_leaf(u)) continue;
    const unsigned d = tree.depth(u);
    for (std::uint32_t c = tree.first_child(u); c < tree.child_end(u); ++c)
      var[c] = child_variance(tree, law, u, d, var[u], c);
  }
  return var;
}

}  // namespace invariant_dp::hierarchy
