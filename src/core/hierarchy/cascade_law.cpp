// Validation of per-level variance targets and of fixed nodes (cascade_law.hpp).
#include "cascade_law.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "../errors.hpp"

namespace invariant_dp::hierarchy {
namespace {

// The variance of every node when some one-child node sits between levels
// with different targets (its child carries its noise); empty otherwise.
std::vector<double> inherited_variances(const HierarchyTree& tree, const std::vector<double>& v,
                                        const Interrupts& interrupts) {
  bool needed = false;
  for (std::uint32_t node = 0; node < tree.n_nodes() && !needed; ++node) {
    interrupts.poll_every(node);
    needed = tree.n_children(node) == 1 && v[tree.depth(node) + 1] != v[tree.depth(node)];
  }
  if (!needed) return {};
  std::vector<double> out(tree.n_nodes());
  out[0] = v[0];
  for (unsigned d = 0; d < tree.height(); ++d) {
    for (std::uint32_t node = tree.level_begin(d); node < tree.level_end(d); ++node) {
      const bool chain = tree.n_children(node) == 1;
      for (std::uint32_t c = tree.first_child(node); c < tree.child_end(node); ++c) {
        interrupts.poll_every(c);  // every node but the root, once
        out[c] = chain ? out[node] : v[d + 1];
      }
    }
  }
  return out;
}

}  // namespace

CascadeLaw::CascadeLaw(const HierarchyTree& tree, std::vector<double> level_variance, const Interrupts& interrupts)
    : level_variance_(std::move(level_variance)) {
  law_checks::check_target_count(level_variance_.size(), tree.height());
  for (unsigned d = 0; d < level_variance_.size(); ++d)
    law_checks::check_target(level_variance_[d], law_checks::level_label(tree, d));
  inherited_ = inherited_variances(tree, level_variance_, interrupts);
  // Refuse the targets if some split cannot reach them (DERIVATIONS.md, section 1).
  for (unsigned d = 0; d < tree.height(); ++d) {
    for (std::uint32_t node = tree.level_begin(d); node < tree.level_end(d); ++node) {
      interrupts.poll_every(node);
      const std::uint32_t fanout = tree.n_children(node);
      if (fanout < 2) continue;
      law_checks::check_split(node_variance(node, d), level_variance_[d], level_variance_[d + 1], fanout, d,
                              tree.level_name(d), tree.level_name(d + 1));
    }
  }
}

CascadeLaw CascadeLaw::uniform(const HierarchyTree& tree, double variance, const Interrupts& interrupts) {
  return CascadeLaw(tree, std::vector<double>(tree.height() + 1, variance), interrupts);
}

CascadeLaw CascadeLaw::scaled(double factor) const {
  if (!std::isfinite(factor) || factor <= 0) throw InvalidArgument("variance scale must be finite and positive");
  CascadeLaw out = *this;
  for (double& v : out.level_variance_) v *= factor;
  for (double& v : out.inherited_) v *= factor;
  // A tiny epsilon or rho times large relative targets can overflow (or
  // underflow): refuse rather than draw infinite or NaN noise.
  for (double v : out.level_variance_)
    if (!std::isfinite(v) || v <= 0)
      throw OutOfRange("the calibrated noise variance is not a finite positive number",
                       "Scaling the variance targets to the privacy budget gave " + law_checks::six_digits(v) + ".",
                       "Raise epsilon (or rho), or give variance targets of ordinary size.");
  return out;
}

CascadeLaw CascadeLaw::conditioned_on(const HierarchyTree& tree, const std::vector<std::uint32_t>& fixed_nodes,
                                      const Interrupts& interrupts) const {
  const std::size_t n = tree.n_nodes();
  // One count over nodes and children for every pass: a node with millions
  // of children is polled inside its own loop.
  std::uint64_t steps = 0;
  std::vector<std::uint8_t> fixed(n, 0);
  for (std::uint32_t node : fixed_nodes) {
    interrupts.poll_every(steps++);
    if (node >= n) law_checks::refuse_fixed_node(node);
    fixed[node] = 1;
  }
  CascadeLaw out = *this;
  out.pinned_ = fixed;
  out.n_fixed_ = 0;
  for (std::uint8_t f : fixed) {
    interrupts.poll_every(steps++);
    out.n_fixed_ += f;
  }
  // Pinned: fixed, or an ancestor of a fixed node (its total is then a sum of
  // fixed totals only if the cut is clean, which is checked next).
  for (std::size_t v = n; v-- > 0;) {
    interrupts.poll_every(steps++);
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v) && !out.pinned_[v]; ++c) {
      interrupts.poll_every(steps++);
      out.pinned_[v] = out.pinned_[c];
    }
  }
  std::vector<std::uint8_t> covered = fixed;
  for (std::uint32_t v = 0; v < n; ++v) {
    interrupts.poll_every(steps++);
    std::uint32_t pinned_children = 0;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) {
      interrupts.poll_every(steps++);
      covered[c] |= covered[v];
      pinned_children += out.pinned_[c];
    }
    if (pinned_children != 0 && pinned_children != tree.n_children(v))
      law_checks::refuse_partial_cut(law_checks::level_label(tree, tree.depth(v)), pinned_children, tree.n_children(v));
    if (tree.is_leaf(v) && !covered[v]) law_checks::refuse_uncovered_leaf(tree.leaf_begin(v));
  }
  return out;
}

namespace law_checks {

std::string level_label(unsigned depth, const std::string& level_name) {
  return "level " + std::to_string(depth) + " (" + level_name + ")";
}

std::string level_label(const HierarchyTree& tree, unsigned depth) {
  return level_label(depth, tree.level_name(depth));
}

std::string six_digits(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

void check_target_count(std::size_t given, unsigned height) {
  if (given == std::size_t(height) + 1) return;
  throw InvalidArgument("wrong number of per-level variance targets",
                        "The hierarchy has " + std::to_string(std::size_t(height) + 1) + " levels (total included); " +
                            std::to_string(given) + " targets were given.");
}

void check_target(double variance, const std::string& level_label) {
  if (std::isfinite(variance) && variance > 0) return;
  throw InvalidArgument("variance target of " + level_label + " must be finite and positive",
                        "It is " + six_digits(variance) + ".");
}

// Refuse the targets if the split cannot reach them (DERIVATIONS.md, section 1).
void check_split(double vp, double level_vp, double vc, std::uint32_t fanout, unsigned depth,
                 const std::string& parent_name, const std::string& child_name) {
  const double m = fanout, floor = vp / (m * m);
  if (vc > floor) return;
  const std::string parent_label = level_label(depth, parent_name), child_label = level_label(depth + 1, child_name);
  const std::string inherited = vp != level_vp ? " (inherited from a one-child chain above it)" : std::string();
  throw InvalidArgument(
      "per-level variance targets are infeasible at " + parent_label,
      "A node of " + parent_label + " with variance " + six_digits(vp) + inherited + " splits into " +
          std::to_string(fanout) + " children, so each child's variance must exceed " + six_digits(vp) + "/" +
          six_digits(m * m) + " = " + six_digits(floor) + "; " + child_label + " asks for " + six_digits(vc) + ".",
      "A parent's standard deviation must stay below m times its children's (m: the fan-out): raise the "
      "variance of " + child_label + " or lower that of " + parent_label + ".");
}

void refuse_fixed_node(std::uint64_t node) {
  throw InvalidArgument("fixed node out of range", "Node " + std::to_string(node) + " was given.");
}

void refuse_partial_cut(const std::string& level_label, std::uint64_t pinned_children, std::uint64_t children) {
  throw InvalidArgument("exact totals do not cut the hierarchy into whole nodes",
                        "A node of " + level_label + " has " + std::to_string(pinned_children) + " of its " +
                            std::to_string(children) +
                            " children under exact totals; its other children's totals would be fixed by difference.",
                        "Keep whole levels exact (e.g. every state), or the grand total.");
}

void refuse_uncovered_leaf(std::uint64_t leaf) {
  throw InvalidArgument("exact totals leave cells outside every fixed node",
                        "Leaf " + std::to_string(leaf) + " lies under no node with an exact total.",
                        "Exact totals of a hierarchy must cover every cell, e.g. every state.");
}

}  // namespace law_checks

}  // namespace invariant_dp::hierarchy
