// Short vectors of an integer cascade's lattice where a node query is 0
// (cascade_kernel.hpp).
#include "cascade_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <utility>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "kernel_lengths.hpp"

namespace invariant_dp::accuracy {
namespace {

using hierarchy::kNoNode;

}  // namespace

CascadeKernel::CascadeKernel(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                             const Interrupts& interrupts)
    : tree_(tree), law_(law) {
  const std::size_t n = tree.n_nodes();
  down_.assign(n, 0.0);
  inv_tau2_.assign(n, 0.0);
  KernelLengths& pool = moves_;
  // Deepest level first: a node's D needs its first child's.
  for (unsigned d = tree.height() + 1; d-- > 0;) {
    for (std::uint32_t v = tree.level_begin(d); v < tree.level_end(d); ++v) {
      interrupts.poll_every(v);
      if (tree.is_leaf(v)) continue;
      const std::uint32_t m = tree.n_children(v), first = tree.first_child(v);
      if (m >= 2 && law.splits_freely(tree, v)) {
        const double tau2 = law.split_tau2(v, d, m);
        if (!(tau2 > 0) || !std::isfinite(tau2)) {
          moves_ = {};
          moves_excess_ = INFINITY;
          return;
        }
        inv_tau2_[v] = 1 / tau2;
        down_[v] = (1 - 1 / double(m)) * inv_tau2_[v] + down_[first];
        for (std::uint32_t c = first; c + 1 < tree.child_end(v); ++c) {
          interrupts.poll_every(c);
          const double length2 = 2 * inv_tau2_[v] + down_[c] + down_[c + 1];
          pool.add(length2);
          max_length2_ = std::max(max_length2_, length2);
        }
      } else {
        down_[v] = down_[first];  // one child copies its parent; pinned children add nothing
      }
    }
  }
  if (!law.pinned(0)) {
    const double v0 = law.node_variance(0, 0);
    if (!(v0 > 0)) {
      moves_ = {};
      moves_excess_ = INFINITY;
      return;
    }
    root_length2_ = 1 / v0 + down_[0];
    pool.add(root_length2_);
    max_length2_ = std::max(max_length2_, root_length2_);
  }
  moves_excess_ = pool.log_excess(interrupts);
}

std::vector<CascadeKernel::PathValue> CascadeKernel::path_of(std::uint32_t left_child) const {
  std::vector<PathValue> out;
  const auto down = [&](std::uint32_t node, int value) {
    // Ends: descends one level a pass, at most the tree's depth.
    for (;; node = tree_.first_child(node)) {
      out.push_back({node, value});
      if (tree_.is_leaf(node)) break;
    }
  };
  if (left_child == kNoNode) {
    down(0, 1);
  } else {
    down(left_child, 1);
    down(left_child + 1, -1);
  }
  std::sort(out.begin(), out.end(), [](const PathValue& x, const PathValue& y) { return x.node < y.node; });
  return out;
}

double CascadeKernel::bilinear(const std::vector<PathValue>& x, const std::vector<PathValue>& y) const {
  double out = 0;
  std::size_t j = 0;
  for (const PathValue& e : x) {
    // Ends: j only grows, up to y.size().
    while (j < y.size() && y[j].node < e.node) ++j;
    if (j == y.size() || y[j].node != e.node) continue;
    const double both = double(e.value) * double(y[j].value);
    // The node as a child of its split, as a split over its children, and
    // as the free root.
    const std::uint32_t parent = tree_.parent(e.node);
    if (parent != kNoNode) out += both * inv_tau2_[parent];
    if (!tree_.is_leaf(e.node)) out -= both * inv_tau2_[e.node] / double(tree_.n_children(e.node));
    if (e.node == 0 && root_length2_ > 0) out += both / law_.node_variance(0, 0);
  }
  return out;
}

double CascadeKernel::move_length2(std::uint32_t left_child) const {
  const std::uint32_t split = tree_.parent(left_child);
  return 2 * inv_tau2_[split] + down_[left_child] + down_[left_child + 1];
}

std::vector<CascadeKernel::Move> CascadeKernel::changed_moves(const CellQuery& nodes, const Interrupts& interrupts) const {
  // W(leaf) as a step function of the leaf position: +w where a node's
  // leaves begin, -w where they end.
  std::vector<std::pair<std::uint32_t, std::int64_t>> events;
  events.reserve(2 * nodes.size());
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    interrupts.poll_every(k);
    const double w = nodes.weights[k];
    if (!(std::fabs(w) <= 0x1p40) || w != std::floor(w) || nodes.cells[k] >= tree_.n_nodes())
      throw InvalidArgument("a cascade query's node is out of range or its weight is no integer up to 2^40");
    const auto weight = static_cast<std::int64_t>(w);
    events.emplace_back(tree_.leaf_begin(nodes.cells[k]), weight);
    events.emplace_back(tree_.leaf_end(nodes.cells[k]), -weight);
  }
  polled_sort(events.begin(), events.end(), interrupts);
  std::vector<std::uint32_t> position;
  std::vector<std::int64_t> level;  // W from position[i] on
  for (const auto& [x, w] : events) {
    if (position.empty() || position.back() != x) {
      position.push_back(x);
      level.push_back(level.empty() ? 0 : level.back());
    }
    level.back() += w;
  }
  const auto W = [&](std::uint32_t x) -> std::int64_t {
    const auto after = std::upper_bound(position.begin(), position.end(), x);
    return after == position.begin() ? 0 : level[static_cast<std::size_t>(after - position.begin()) - 1];
  };
  // The moves whose span (first leaf of c, first leaf of c + 1] holds a
  // boundary: one per free split above the boundary's leaf.
  std::vector<std::uint32_t> moved;  // their left children
  for (std::size_t i = 0; i < position.size(); ++i) {
    const std::uint32_t x = position[i];
    if (x == 0 || x >= tree_.n_leaves()) continue;
    std::uint32_t c = tree_.leaf_node(x);
    // Ends: climbs one level a pass, at most the tree's depth.
    for (std::uint32_t s = tree_.parent(c); s != kNoNode; c = s, s = tree_.parent(s)) {
      interrupts.poll_every(i);
      if (inv_tau2_[s] == 0) continue;
      if (x == tree_.leaf_begin(c)) {
        if (c != tree_.first_child(s)) moved.push_back(c - 1);
      } else if (c + 1 < tree_.child_end(s)) {
        moved.push_back(c);
      }
    }
  }
  polled_sort(moved.begin(), moved.end(), interrupts);
  moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
  // Their values a (and the root's unit vector's, W of the first leaf).
  std::vector<Move> changed;
  for (std::size_t k = 0; k < moved.size(); ++k) {
    interrupts.poll_every(k);
    const std::int64_t a = W(tree_.leaf_begin(moved[k])) - W(tree_.leaf_begin(moved[k] + 1));
    if (a != 0) changed.push_back({a, move_length2(moved[k]), moved[k]});
  }
  if (root_length2_ > 0 && W(0) != 0) changed.push_back({W(0), root_length2_, kNoNode});
  return changed;
}

StepFunctional CascadeKernel::query(const CellQuery& nodes, double variance, const Interrupts& interrupts) const {
  const std::vector<Move> changed = changed_moves(nodes, interrupts);
  // The step (the moves' gcd) and the pivot.
  StepFunctional out;
  std::uint64_t step = 0;
  std::size_t pivot = 0;
  for (std::size_t k = 0; k < changed.size(); ++k) {
    const auto size = static_cast<std::uint64_t>(std::llabs(changed[k].a));
    step = std::gcd(step, size);
    if (size < static_cast<std::uint64_t>(std::llabs(changed[pivot].a))) pivot = k;
  }
  if (step == 0) return out;  // X is 0 on the lattice
  out.step = step;
  out.unit.variance = variance / (double(step) * double(step));
  const std::int64_t a_p = changed[pivot].a;
  const std::vector<PathValue> pivot_path = path_of(changed[pivot].left_child);
  KernelLengths pool;
  for (std::size_t k = 0; k < changed.size(); ++k) {
    interrupts.poll_every(k);
    if (k == pivot) continue;
    const std::int64_t a_m = changed[k].a;
    // B(M, P) is 0 unless the two first-leaf paths meet.
    pool.add(kernel_vector_length2(a_p, a_m, changed[k].length2, changed[pivot].length2,
                                   bilinear(path_of(changed[k].left_child), pivot_path)));
  }
  out.unit.log_excess = pool.log_excess(interrupts);
  return out;
}

}  // namespace invariant_dp::accuracy
