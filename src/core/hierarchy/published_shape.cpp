// Range variances on a published shape without a node per leaf
// (published_shape.hpp).
#include "published_shape.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "cascade_law.hpp"

namespace invariant_dp::hierarchy {
namespace {

// A published tree's levels have no names (HierarchyTree::from_parents').
std::string depth_name(unsigned d) { return "depth " + std::to_string(d); }

// How many of the sorted ids lie in [begin, end).
std::uint64_t count_in(const std::vector<std::uint64_t>& sorted, std::uint64_t begin, std::uint64_t end) {
  return std::uint64_t(std::lower_bound(sorted.begin(), sorted.end(), end) -
                       std::lower_bound(sorted.begin(), sorted.end(), begin));
}

}  // namespace

PublishedShape::PublishedShape(const std::uint32_t* children, std::size_t n_listed, const Interrupts& interrupts) {
  // No list: the root alone, a leaf.
  children_ = n_listed == 0 ? std::vector<std::uint32_t>{0} : std::vector<std::uint32_t>(children, children + n_listed);
  const std::size_t n = children_.size();
  first_child_.resize(n);
  depth_.resize(n);
  std::uint64_t next_id = 1;  // the id of the next child created
  std::size_t parent = 0;
  for (std::size_t v = 0; v < n; ++v) {
    interrupts.poll_every(v);
    if (v > 0) {
      if (v >= next_id) throw InvalidArgument("the published tree is malformed", "An internal node has no parent.");
      // Ends: parent only grows, over the nodes once in all.
      while (first_child_[parent] + children_[parent] <= v) ++parent;
      depth_[v] = depth_[parent] + 1;
    }
    first_child_[v] = next_id;
    next_id += children_[v];
  }
  n_nodes_ = next_id;
  // Leaves per subtree bottom-up (children have larger ids), then each
  // listed node's first leaf and its run's first leaf top-down.
  n_leaves_.assign(n, 0);
  for (std::size_t v = n; v-- > 0;) {
    interrupts.poll_every(v);
    const auto u = static_cast<std::uint32_t>(v);
    if (children_[u] == 0) {
      n_leaves_[u] = 1;
      continue;
    }
    std::uint64_t leaves = run_length(u);
    for (std::uint64_t c = first_child(u); c < listed_end(u); ++c) leaves += n_leaves_[c];
    n_leaves_[u] = leaves;
    height_ = std::max(height_, depth_[u] + 1);
  }
  first_leaf_.assign(n, 0);
  run_leaf_.assign(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    interrupts.poll_every(v);
    const auto u = static_cast<std::uint32_t>(v);
    std::uint64_t leaf = first_leaf_[u];
    for (std::uint64_t c = first_child(u); c < listed_end(u); ++c) {
      first_leaf_[c] = leaf;
      leaf += n_leaves_[c];
    }
    run_leaf_[u] = leaf;
  }
}

std::uint64_t PublishedShape::listed_end(std::uint32_t v) const {
  const std::uint64_t begin = first_child_[v], end = begin + children_[v];
  return std::clamp<std::uint64_t>(children_.size(), begin, end);
}

double PublishedShape::range_variance(const std::vector<double>& level_variance, std::vector<std::uint64_t> fixed_nodes,
                                      std::uint64_t lo, std::uint64_t hi, const Interrupts& interrupts) const {
  const std::size_t n = children_.size();
  const std::vector<double>& V = level_variance;
  // The law's checks, as CascadeLaw makes them, node by node.
  law_checks::check_target_count(V.size(), height_);
  for (unsigned d = 0; d < V.size(); ++d) law_checks::check_target(V[d], law_checks::level_label(d, depth_name(d)));
  // Each listed node's variance: its level's target, or below a one-child
  // node its parent's (the child carries the parent's noise).
  std::vector<double> node_variance(n);
  node_variance[0] = V[0];
  for (std::uint32_t v = 0; v < n; ++v) {
    interrupts.poll_every(v);
    for (std::uint64_t c = first_child(v); c < listed_end(v); ++c)
      node_variance[c] = children_[v] == 1 ? node_variance[v] : V[depth_[v] + 1];
    if (children_[v] >= 2)
      law_checks::check_split(node_variance[v], V[depth_[v]], V[depth_[v] + 1], children_[v], depth_[v],
                              depth_name(depth_[v]), depth_name(depth_[v] + 1));
  }

  // Conditioning on exact totals (CascadeLaw::conditioned_on): a node is
  // pinned when fixed or above a fixed node; the pinned nodes must cut the
  // tree into whole subtrees covering every leaf. Unlisted leaves are
  // pinned exactly when fixed (kept sorted).
  std::vector<std::uint8_t> pinned, covered;
  std::vector<std::uint64_t> fixed_leaves;
  if (!fixed_nodes.empty()) {
    pinned.assign(n, 0);
    for (std::size_t k = 0; k < fixed_nodes.size(); ++k) {
      interrupts.poll_every(k);
      const std::uint64_t node = fixed_nodes[k];
      if (node >= n_nodes_) law_checks::refuse_fixed_node(node);
      if (listed(node))
        pinned[node] = 1;
      else
        fixed_leaves.push_back(node);
    }
    polled_sort(fixed_leaves.begin(), fixed_leaves.end(), interrupts);
    fixed_leaves.erase(std::unique(fixed_leaves.begin(), fixed_leaves.end()), fixed_leaves.end());
    interrupts.poll();
    covered = pinned;
    for (std::size_t v = n; v-- > 0;) {
      interrupts.poll_every(v);
      const auto u = static_cast<std::uint32_t>(v);
      for (std::uint64_t c = first_child(u); c < listed_end(u) && !pinned[u]; ++c) pinned[u] = pinned[c];
      if (!pinned[u] && run_length(u) > 0) pinned[u] = count_in(fixed_leaves, listed_end(u), listed_end(u) + run_length(u)) > 0;
    }
    for (std::uint32_t v = 0; v < n; ++v) {
      interrupts.poll_every(v);
      std::uint64_t pinned_children = count_in(fixed_leaves, listed_end(v), listed_end(v) + run_length(v));
      for (std::uint64_t c = first_child(v); c < listed_end(v); ++c) {
        covered[c] |= covered[v];
        pinned_children += pinned[c];
      }
      if (pinned_children != 0 && pinned_children != children_[v])
        law_checks::refuse_partial_cut(law_checks::level_label(depth_[v], depth_name(depth_[v])), pinned_children,
                                       children_[v]);
      if (children_[v] == 0 && !covered[v]) law_checks::refuse_uncovered_leaf(first_leaf_[v]);
    }
    // The unlisted leaves, in id order: each under a covered parent, or fixed.
    for (std::uint32_t v = 0; v < n; ++v) {
      interrupts.poll_every(v);
      if (covered[v] || run_length(v) == 0) continue;
      const std::uint64_t begin = listed_end(v);
      auto fixed = std::lower_bound(fixed_leaves.begin(), fixed_leaves.end(), begin);
      for (std::uint64_t id = begin; id < begin + run_length(v); ++id, ++fixed) {
        interrupts.poll_every(id);
        if (fixed == fixed_leaves.end() || *fixed != id) law_checks::refuse_uncovered_leaf(run_leaf_[v] + (id - begin));
      }
    }
  }
  auto is_pinned = [&](std::uint64_t node) {
    if (fixed_nodes.empty()) return false;
    return listed(node) ? pinned[node] != 0 : std::binary_search(fixed_leaves.begin(), fixed_leaves.end(), node);
  };

  if (lo > hi || hi >= n_leaves())
    throw InvalidArgument("leaf range out of bounds",
                          "The release has " + std::to_string(n_leaves()) + " leaves, numbered from 0; got " +
                              std::to_string(lo) + ".." + std::to_string(hi) + ".");
  // Var(w.Z) = f(root)^2 v_0 + sum over splits s of tau_s^2 (sum_c f(c)^2 -
  // (sum_c f(c))^2 / m_s) (cascade_covariance.hpp): only the nodes the range
  // cuts partially have unequal f among their children, and they lie on the
  // paths from the root to leaves lo and hi, so they are found by descending
  // those paths and weighed deepest first.
  const std::uint64_t end = hi + 1;
  auto inside = [&](std::uint64_t b, std::uint64_t e) { return lo <= b && e <= end; };
  std::vector<std::uint32_t> cut;
  for (const std::uint64_t leaf : {lo, hi}) {
    std::uint32_t u = 0;
    // Ends: descends one level a pass: the shape's depth.
    while (children_[u] > 0 && leaf < run_begin(u)) {
      if (!inside(first_leaf_[u], first_leaf_[u] + n_leaves_[u])) cut.push_back(u);
      // The listed child whose leaves hold `leaf`: the last one starting at or before it.
      const auto begin = first_leaf_.begin() + std::ptrdiff_t(first_child(u));
      const auto end_of_listed = first_leaf_.begin() + std::ptrdiff_t(listed_end(u));
      u = static_cast<std::uint32_t>(std::upper_bound(begin, end_of_listed, leaf) - first_leaf_.begin() - 1);
    }
    if (children_[u] > 0 && !inside(first_leaf_[u], first_leaf_[u] + n_leaves_[u])) cut.push_back(u);
  }
  std::sort(cut.begin(), cut.end());
  cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
  std::vector<double> weight(cut.size());  // f(u) of the cut nodes
  auto weight_of = [&](std::uint64_t c) {
    const std::uint64_t b = first_leaf_[c], e = b + n_leaves_[c];
    if (e <= lo || b >= end) return 0.0;
    if (inside(b, e)) return 1.0;
    return weight[std::size_t(std::lower_bound(cut.begin(), cut.end(), c) - cut.begin())];
  };
  double variance = 0;
  std::uint64_t steps = 0;
  for (std::size_t k = cut.size(); k-- > 0;) {
    const std::uint32_t u = cut[k];
    double sum = 0, sum_sq = 0;
    for (std::uint64_t c = first_child(u); c < listed_end(u); ++c) {
      interrupts.poll_every(steps++);
      const double f = weight_of(c);
      sum += f;
      sum_sq += f * f;
    }
    // The run of unlisted leaves: f = 1 for those in the range.
    const std::uint64_t rb = run_begin(u), re = rb + run_length(u);
    const std::uint64_t in_range = std::min(re, end) > std::max(rb, lo) ? std::min(re, end) - std::max(rb, lo) : 0;
    sum += double(in_range);
    sum_sq += double(in_range);
    const std::uint32_t m = children_[u];
    if (m >= 2 && !is_pinned(first_child(u)))
      variance += split_tau2_of(node_variance[u], V[depth_[u] + 1], m) * (sum_sq - sum * sum / m);
    weight[k] = sum / m;
  }
  const double f_root = cut.empty() || cut[0] != 0 ? 1.0 : weight[0];
  if (!is_pinned(0)) variance += f_root * f_root * V[0];
  return variance;
}

}  // namespace invariant_dp::hierarchy
