// Mahalanobis sensitivities of cascade noise (cascade_privacy.hpp).
#include "cascade_privacy.hpp"

#include <algorithm>
#include <vector>

#include "../errors.hpp"

namespace invariant_dp::hierarchy {
namespace {

// a_s of a node: the precision one split adds to each leaf below it.
double split_precision(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t node, unsigned depth) {
  const std::uint32_t m = tree.n_children(node);
  if (m < 2 || !law.splits_freely(tree, node)) return 0;
  return (m - 1.0) / (m * law.split_tau2(node, depth, m));
}

std::vector<std::uint32_t> ancestors_of_leaf(const HierarchyTree& tree, std::uint32_t leaf) {
  if (leaf >= tree.n_leaves()) throw InvalidArgument("leaf index out of range");
  std::vector<std::uint32_t> path;
  for (std::uint32_t v = tree.leaf_node(leaf); v != kNoNode; v = tree.parent(v)) path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;  // root first, the leaf last
}

std::size_t lca_index(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::size_t w = 0;
  // Ends: at most the tree's depth.
  while (w + 1 < a.size() && w + 1 < b.size() && a[w + 1] == b[w + 1]) ++w;
  return w;
}

double path_precision(const HierarchyTree& tree, const CascadeLaw& law, const std::vector<std::uint32_t>& path,
                      std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t k = from; k < to; ++k) sum += split_precision(tree, law, path[k], static_cast<unsigned>(k));
  return sum;
}

void refuse_conditioned(const CascadeLaw& law) {
  if (law.conditioned()) {
    throw InvalidArgument("add_remove neighbours are not meaningful with exact totals",
                          "Adding or removing a person changes an exact total.",
                          "Use replace_one neighbours when totals are kept exact.");
  }
}

}  // namespace

double precision_entry(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t i, std::uint32_t j) {
  refuse_conditioned(law);
  const auto path_i = ancestors_of_leaf(tree, i), path_j = ancestors_of_leaf(tree, j);
  if (i == j) return 1 / law.level_variance(0) + path_precision(tree, law, path_i, 0, path_i.size() - 1);
  const std::size_t w = lca_index(path_i, path_j);
  const std::uint32_t m = tree.n_children(path_i[w]);
  return 1 / law.level_variance(0) + path_precision(tree, law, path_i, 0, w) -
         1 / (m * law.split_tau2(path_i[w], static_cast<unsigned>(w), m));
}

double replace_one_cost(const HierarchyTree& tree, const CascadeLaw& law, std::uint32_t i, std::uint32_t j) {
  const auto path_i = ancestors_of_leaf(tree, i), path_j = ancestors_of_leaf(tree, j);
  if (i == j) return 0;
  const std::size_t w = lca_index(path_i, path_j);
  if (!law.splits_freely(tree, path_i[w])) {
    throw InvalidArgument("the move changes an exact total",
                          "Leaves " + std::to_string(i) + " and " + std::to_string(j) + " lie under different fixed nodes.");
  }
  return 2 / law.split_tau2(path_i[w], static_cast<unsigned>(w), tree.n_children(path_i[w])) +
         path_precision(tree, law, path_i, w + 1, path_i.size() - 1) +
         path_precision(tree, law, path_j, w + 1, path_j.size() - 1);
}

double max_sensitivity_squared(const HierarchyTree& tree, const CascadeLaw& law, Neighbours neighbours,
                               const Interrupts& interrupts) {
  if (neighbours == Neighbours::AddRemove) refuse_conditioned(law);
  // below[k]: the largest sum of a_s from a node of the level below down to
  // one of its leaves; bottom-up one level at a time.
  std::vector<double> below, here;
  double best_pair = 0;
  // Counts nodes and children alike: a flat level of leaves or one node
  // with millions of children is polled as often as a deep tree.
  std::uint64_t steps = 0;
  for (unsigned d = tree.height() + 1; d-- > 0;) {
    const std::uint32_t begin = tree.level_begin(d), end = tree.level_end(d);
    const std::uint32_t next_begin = d < tree.height() ? tree.level_begin(d + 1) : 0;
    here.assign(end - begin, 0.0);
    for (std::uint32_t v = begin; v < end; ++v) {
      interrupts.poll_every(steps++);
      if (tree.is_leaf(v)) continue;
      double top1 = 0, top2 = 0;
      for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) {
        interrupts.poll_every(steps++);
        const double x = below[c - next_begin];
        if (x > top1) {
          top2 = top1;
          top1 = x;
        } else if (x > top2) {
          top2 = x;
        }
      }
      here[v - begin] = split_precision(tree, law, v, d) + top1;
      const std::uint32_t m = tree.n_children(v);
      if (m >= 2 && law.splits_freely(tree, v))
        best_pair = std::max(best_pair, 2 / law.split_tau2(v, d, m) + top1 + top2);
    }
    below.swap(here);
  }
  if (neighbours == Neighbours::ReplaceOne) return best_pair;
  return 1 / law.level_variance(0) + below[0];
}

double protected_sensitivity_squared(const HierarchyTree& tree, const CascadeLaw& law, const Protected& protect,
                                     const Interrupts& interrupts) {
  double per_record = max_sensitivity_squared(tree, law, protect.neighbours, interrupts);
  if (protect.unit_mass == 1) return per_record;
  if (protect.neighbours == Neighbours::ReplaceOne && law.n_fixed_nodes() == 0)
    per_record = std::max(per_record, max_sensitivity_squared(tree, law, Neighbours::AddRemove, interrupts));
  return protect.unit_mass * protect.unit_mass * per_record;
}

}  // namespace invariant_dp::hierarchy
