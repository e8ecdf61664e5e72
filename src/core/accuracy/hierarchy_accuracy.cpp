// Error bars of cascades and streams (hierarchy_accuracy.hpp).
#include "hierarchy_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

#include "../errors.hpp"
#include "../hierarchy/cascade_covariance.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../hierarchy/integer_cascade_splits.hpp"
#include "../polled_sort.hpp"
#include "cascade_kernel.hpp"
#include "lattice_bounds.hpp"
#include "lattice_gaussian_quantiles.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

using hierarchy::HierarchyTree;
using hierarchy::kNoNode;

// A strict ancestor of a selected node: its selected weight, the weight of
// its selected ancestors-or-self (A), and the sums of g over its children.
struct Ancestor {
  std::uint32_t node;
  std::uint32_t parent;
  double weight = 0, above = 0, sum = 0, squares = 0;
};

}  // namespace

HierarchyAccuracy::HierarchyAccuracy(const HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                                     double deficit_bound)
    : tree_(tree), law_(law), deficit_bound_(deficit_bound) {}

VarianceFigure HierarchyAccuracy::figure(double v) const {
  if (!integer()) return {v, v, Exactness::exact};
  return {hierarchy::integer_variance_bounds(v, deficit_bound_).lower, v, Exactness::certified};
}

VarianceFigure HierarchyAccuracy::variance(const CellQuery& nodes, const Interrupts& interrupts) const {
  check_query(nodes, tree_.n_nodes());
  // The selected nodes' weights, and their strict ancestors (each found once).
  std::unordered_map<std::uint32_t, double> selected;
  selected.reserve(nodes.size());
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    interrupts.poll_every(k);
    selected[nodes.cells[k]] += nodes.weights[k];
  }
  std::unordered_map<std::uint32_t, std::size_t> index;
  std::vector<Ancestor> ancestors;
  std::size_t step = 0;
  for (const std::uint32_t v : nodes.cells) {
    for (std::uint32_t u = tree_.parent(v); u != kNoNode; u = tree_.parent(u)) {
      interrupts.poll_every(++step);
      if (!index.emplace(u, ancestors.size()).second) break;  // the rest of the path is known
      ancestors.push_back({u, tree_.parent(u)});
    }
  }
  // Top-down (node ids grow with depth): A(u) = A(parent) + w(u).
  polled_sort(
      ancestors.begin(), ancestors.end(), [](const Ancestor& a, const Ancestor& b) { return a.node < b.node; },
      interrupts);
  for (std::size_t k = 0; k < ancestors.size(); ++k) {
    interrupts.poll_every(k);
    index[ancestors[k].node] = k;
  }
  for (std::size_t k = 0; k < ancestors.size(); ++k) {
    interrupts.poll_every(k);
    Ancestor& a = ancestors[k];
    const auto w = selected.find(a.node);
    a.weight = w == selected.end() ? 0 : w->second;
    a.above = a.weight + (a.parent == kNoNode ? 0 : ancestors[index.at(a.parent)].above);
  }
  // Selected nodes off the ancestor set are children with g = their weight.
  double root_f = 0;
  for (const auto& [v, w] : selected) {
    interrupts.poll_every(++step);
    if (index.count(v)) continue;
    const std::uint32_t p = tree_.parent(v);
    if (p == kNoNode) {
      root_f = w;  // the root alone
      continue;
    }
    Ancestor& a = ancestors[index.at(p)];
    a.sum += w;
    a.squares += w * w;
  }
  // Bottom-up: each ancestor's split term, then its g to its parent.
  double variance = 0;
  for (std::size_t k = ancestors.size(); k-- > 0;) {
    interrupts.poll_every(k);
    const Ancestor& a = ancestors[k];
    const std::uint32_t m = tree_.n_children(a.node);
    if (m >= 2 && law_.splits_freely(tree_, a.node))
      variance += law_.split_tau2(a.node, tree_.depth(a.node), m) * std::max(0.0, a.squares - a.sum * a.sum / m);
    const double g = a.weight + a.sum / m;  // f(u) - A(parent)
    if (a.parent == kNoNode) {
      root_f = a.above + a.sum / m;
    } else {
      Ancestor& p = ancestors[index.at(a.parent)];
      p.sum += g;
      p.squares += g * g;
    }
  }
  if (!law_.pinned(0)) variance += root_f * root_f * law_.level_variance(0);
  return figure(variance);
}

VarianceFigure HierarchyAccuracy::node_variance(std::uint32_t node) const {
  return figure(hierarchy::node_variance(tree_, law_, node));
}

double HierarchyAccuracy::theta_ratio(const Interrupts& interrupts) const {
  if (!integer()) return 1;
  // Every Gram-Schmidt coordinate of the tree (hierarchy/integer_cascade_splits.hpp);
  // a law whose parameters do not fit its exact integers has no bound here.
  double log_ratio = INFINITY;
  try {
    const hierarchy::IntegerSplits splits(tree_, law_, interrupts);
    log_ratio = log_theta_ratio({hierarchy::pooled_groups(hierarchy::coordinate_groups(splits), 256)});
  } catch (const OutOfRange&) {
    return INFINITY;
  }
  // The root paths: the smallest Var(X_parent | X_child) over free links,
  // at most height() of them on a path.
  const std::vector<double> var = hierarchy::node_variances(tree_, law_, interrupts);
  double smallest = INFINITY;
  for (std::uint32_t u = 0; u < tree_.n_nodes(); ++u) {
    interrupts.poll_every(u);
    const std::uint32_t m = tree_.n_children(u);
    if (m < 2 || !law_.splits_freely(tree_, u) || var[u] == 0) continue;
    for (std::uint32_t c = tree_.first_child(u); c < tree_.child_end(u); ++c)
      if (var[c] > 0) smallest = std::min(smallest, var[u] - (var[u] / m) * (var[u] / m) / var[c]);
  }
  if (smallest < INFINITY) log_ratio += log_theta_ratio_at_least(smallest * (1 - 1e-12), double(tree_.height()));
  return std::exp(log_ratio) * (1 + 1e-15);
}

CellIntervals HierarchyAccuracy::node_intervals(double level, const Interrupts& interrupts) const {
  check_level(level);
  const std::vector<double> var = hierarchy::node_variances(tree_, law_, interrupts);
  const double ratio = theta_ratio(interrupts);
  std::map<double, std::uint32_t> class_of_variance;
  std::vector<double> widths;
  std::vector<std::uint32_t> class_of_node(var.size());
  std::string method;
  Exactness kind = Exactness::exact;
  // The factor R bounds max F / min F of the node's law rho_V(t) F(t) / Z:
  // a tilt within [1 - eps, 1 + eps] of one constant, (1 + eps)/(1 - eps) = R.
  const double log_excess = std::isfinite(ratio) && ratio < 2 ? std::log1p((ratio - 1) / (ratio + 1)) : INFINITY;
  // Nodes in level order mostly repeat the variance of the node before
  // (a level's nodes share it unless the conditioning differs): that class
  // is reused without a lookup.
  double last_variance = std::nan("");
  std::uint32_t last_class = 0;
  for (std::size_t u = 0; u < var.size(); ++u) {
    interrupts.poll_every(u);
    if (var[u] == last_variance) {
      class_of_node[u] = last_class;
      continue;
    }
    auto found = class_of_variance.find(var[u]);
    if (found == class_of_variance.end()) {
      double t = 0;
      if (var[u] > 0 && !integer()) {
        t = normal_half_width(var[u], level);
        method = "exact: the normal quantile at the node's variance";
      } else if (var[u] > 0) {
        t = double(integer_half_width(sub_gaussian_half_width(var[u], level)));
        Exactness this_kind = Exactness::certified;
        if (std::isfinite(log_excess)) {
          const Quantile q = tilted_gaussian_quantile(var[u], 1, log_excess, level, interrupts);
          if (double(q.half_width) <= t) {
            t = double(q.half_width);
            if (q.exact) this_kind = Exactness::exact;
          }
        }
        kind = weaker(kind, this_kind);
        method = kind == Exactness::exact
                     ? "exact: the quantile of the node's law (the discrete Gaussian at its closed-form variance, "
                       "tilted within the theta ratio R)"
                     : "certified: the discrete Gaussian quantile at the node's closed-form variance with tails times "
                       "the theta ratio R, or the sub-Gaussian bound where smaller";
      }
      found = class_of_variance.emplace(var[u], static_cast<std::uint32_t>(widths.size())).first;
      widths.push_back(t);
    }
    class_of_node[u] = found->second;
    last_variance = var[u];
    last_class = found->second;
  }
  CellIntervals out(std::move(class_of_node), std::move(widths), integer(), kind, method);
  out.set_level(level);
  return out;
}

std::optional<TiltedFunctional> HierarchyAccuracy::subtree_parts(const CellQuery& nodes,
                                                                  const Interrupts& interrupts) const {
  // Each node's independent subtree: the deepest pinned node above it (the
  // fixed nodes cut the tree into independent cascades, cascade_law.hpp),
  // or kNoNode for the whole tree. A pinned node itself has no noise.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_block;  // (block, node)
  by_block.reserve(nodes.size());
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    interrupts.poll_every(k);
    const std::uint32_t node = nodes.cells[k];
    if (law_.pinned(node)) continue;
    std::uint32_t top = tree_.parent(node);
    // Ends: climbs one level a pass, at most the tree's depth.
    while (top != kNoNode && !law_.pinned(top)) top = tree_.parent(top);
    by_block.emplace_back(top, node);
  }
  polled_sort(by_block.begin(), by_block.end(), interrupts);
  // Per subtree, its part of the sum: one node, or some children of one node.
  std::vector<TiltedFunctional> blocks;
  for (std::size_t first = 0; first < by_block.size();) {
    interrupts.poll_every(first);
    std::size_t last = first + 1;
    // Ends: last only grows, up to by_block.size().
    while (last < by_block.size() && by_block[last].first == by_block[first].first) ++last;
    const std::uint32_t node = by_block[first].second;
    if (last - first == 1) {
      blocks.push_back(cascade_node_query(tree_, law_, node_variances_, node));
    } else {
      const std::uint32_t parent = tree_.parent(node);
      for (std::size_t k = first; k < last; ++k)
        if (tree_.parent(by_block[k].second) != parent) return std::nullopt;
      if (last - first >= tree_.n_children(parent)) return std::nullopt;  // the whole family is its parent
      blocks.push_back(cascade_children_query(tree_, law_, node_variances_, parent,
                                              static_cast<std::uint32_t>(last - first)));
    }
    first = last;
  }
  TiltedFunctional f = independent_blocks(blocks, interrupts);
  f.log_excess += tree_log_excess_;
  return f;
}

std::optional<MarginOfError> HierarchyAccuracy::lattice_margin(const CellQuery& nodes, double level,
                                                               const Interrupts& interrupts) const {
  check_level(level);
  if (!integer() || nodes.size() < 2) return std::nullopt;
  bool one_weight = true;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    interrupts.poll_every(k);
    const double w = nodes.weights[k];
    if (!(std::fabs(w) <= 0x1p40) || w != std::floor(w) || w == 0) return std::nullopt;
    one_weight = one_weight && w == nodes.weights[0];
  }
  if (node_variances_.empty()) node_variances_ = hierarchy::node_variances(tree_, law_, interrupts);
  if (tree_log_excess_ < 0) tree_log_excess_ = cascade_tree_log_excess(tree_, law_, interrupts);
  // A node or sibling set per independent subtree, of one weight; else any
  // node set through the lattice's kernel of the sum.
  std::optional<TiltedFunctional> f;
  std::uint64_t step = static_cast<std::uint64_t>(std::fabs(nodes.weights[0]));
  const char* law_of = "nodes or children of one node per independent subtree: the discrete Gaussian at the "
                       "continuous variance, tilted within the theta excess of the tree's other coordinates";
  if (one_weight && std::isfinite(tree_log_excess_)) f = subtree_parts(nodes, interrupts);
  if (!f) {
    if (!kernel_) kernel_ = std::make_unique<CascadeKernel>(tree_, law_, interrupts);
    const double variance = this->variance(nodes, interrupts).upper;
    if (!(variance > 0) || !std::isfinite(kernel_->moves_log_excess())) return std::nullopt;
    const StepFunctional s = kernel_->query(nodes, variance, interrupts);
    if (s.step == 0) return std::nullopt;
    f = s.unit;
    f->log_excess += kernel_->moves_log_excess();
    step = s.step;
    law_of = "any node set: the discrete Gaussian at the continuous variance, tilted within the theta excess of "
             "short vectors of the lattice where the sum is 0";
  }
  if (!(f->variance > 0) || !std::isfinite(f->log_excess)) return std::nullopt;
  try {
    const Quantile q = tilted_gaussian_quantile(f->variance, 1, f->log_excess, level, interrupts);
    MarginOfError out;
    out.tail = SumTail::law_quantile;
    out.half_width = double(q.half_width) * double(step);
    out.kind = q.exact ? Exactness::exact : Exactness::certified;
    out.method = std::string(q.exact ? "exact: the quantile" : "certified: a covering quantile") +
                 " of the sum's law (" + law_of + ")";
    return out;
  } catch (const OutOfRange&) {
    return std::nullopt;  // the lattice is too coarse for the bound: the sub-Gaussian tail
  }
}

namespace {

// f of the dyadic node [start, start + 2^h) over the sorted periods
// [first, last), adding each split's term tau^2 (f0 - f1)^2 / 2.
double dyadic_weight(unsigned h, std::uint64_t start, const std::vector<std::pair<std::uint64_t, double>>& periods,
                     std::size_t first, std::size_t last, double tau2, double& variance, const Interrupts& interrupts,
                     std::uint64_t& visited) {
  if (first == last) return 0;
  interrupts.poll_every(++visited);
  if (h == 0) return periods[first].second;
  const std::uint64_t mid = start + (std::uint64_t(1) << (h - 1));
  const auto begin = periods.begin();
  const std::size_t split = static_cast<std::size_t>(
      std::partition_point(begin + static_cast<std::ptrdiff_t>(first), begin + static_cast<std::ptrdiff_t>(last),
                           [mid](const std::pair<std::uint64_t, double>& p) { return p.first < mid; }) -
      begin);  // the first period >= mid
  const double f0 = dyadic_weight(h - 1, start, periods, first, split, tau2, variance, interrupts, visited);
  const double f1 = dyadic_weight(h - 1, mid, periods, split, last, tau2, variance, interrupts, visited);
  variance += tau2 * (f0 - f1) * (f0 - f1) / 2;
  return (f0 + f1) / 2;
}

}  // namespace

double stream_variance(double node_variance, std::vector<std::uint64_t> periods, std::vector<double> weights,
                       const Interrupts& interrupts) {
  if (!(node_variance > 0) || !std::isfinite(node_variance))
    throw InvalidArgument("a stream's node variance must be positive and finite");
  if (weights.size() != periods.size()) throw InvalidArgument("a query needs one weight per period");
  std::vector<std::pair<std::uint64_t, double>> sorted;
  sorted.reserve(periods.size());
  for (std::size_t k = 0; k < periods.size(); ++k) {
    interrupts.poll_every(k);
    if (periods[k] >= (std::uint64_t(1) << 62)) throw InvalidArgument("a stream period is out of range");
    if (!std::isfinite(weights[k])) throw InvalidArgument("the weight of a period in a query must be finite");
    sorted.emplace_back(periods[k], weights[k]);
  }
  polled_sort(sorted.begin(), sorted.end(), interrupts);
  std::vector<std::pair<std::uint64_t, double>> merged;  // a period listed twice counts twice
  for (const auto& p : sorted) {
    if (!merged.empty() && merged.back().first == p.first)
      merged.back().second += p.second;
    else
      merged.push_back(p);
  }
  if (merged.empty()) return 0;
  unsigned height = 0;  // the least perfect tree holding the last period
  // Ends: periods are below 2^62 (checked above), so height stops by 62.
  while ((std::uint64_t(1) << height) <= merged.back().first) ++height;
  double variance = 0;
  std::uint64_t visited = 0;
  const double f =
      dyadic_weight(height, 0, merged, 0, merged.size(), 1.5 * node_variance, variance, interrupts, visited);
  return variance + f * f * node_variance;  // tau^2 = 3 v / 2 for binary splits at uniform v
}

}  // namespace invariant_dp::accuracy
