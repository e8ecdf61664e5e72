// Error bars of crossed hierarchies (crossed_accuracy.hpp): the row pass of
// hierarchy_accuracy.cpp with sparse column-node vectors for weights.
#include "crossed_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "../errors.hpp"
#include "../hierarchy/cascade_covariance.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../polled_sort.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

using hierarchy::kNoNode;
using Vector = std::unordered_map<std::uint32_t, double>;  // column node -> weight

void add_scaled(Vector& into, const Vector& v, double scale) {
  for (const auto& [node, w] : v) into[node] += scale * w;
}

struct RowAncestor {
  std::uint32_t node, parent;
  Vector weight, sum;   // its own column weights; the sum of its children's g
  double squares = 0;   // sum of Q(g) over its children
};

}  // namespace

CrossedAccuracy::CrossedAccuracy(const hierarchy::HierarchyTree& rows, const hierarchy::CascadeLaw& row_law,
                                 const hierarchy::HierarchyTree& cols, const hierarchy::CascadeLaw& col_law,
                                 double deficit_bound)
    : rows_(rows),
      row_law_(row_law),
      cols_(cols),
      col_law_(col_law),
      columns_(cols, col_law, -1),
      deficit_bound_(deficit_bound) {}

VarianceFigure CrossedAccuracy::variance(const std::vector<std::uint32_t>& row_nodes,
                                         const std::vector<std::uint32_t>& col_nodes,
                                         const std::vector<double>& weights, const Interrupts& interrupts) const {
  if (row_nodes.size() != col_nodes.size() || weights.size() != row_nodes.size())
    throw InvalidArgument("a crossed query needs a row node, a column node and a weight per rectangle");
  std::uint64_t step = 0;
  // Q(v) = v^T Sigma_cols v, a column-tree query.
  const auto form = [&](const Vector& v) {
    CellQuery q;
    for (const auto& [node, w] : v) {
      if (w == 0) continue;
      q.cells.push_back(node);
      q.weights.push_back(w);
    }
    return q.size() ? columns_.variance(q, interrupts).upper : 0.0;
  };
  std::unordered_map<std::uint32_t, Vector> selected;
  for (std::size_t k = 0; k < row_nodes.size(); ++k) {
    interrupts.poll_every(k);
    if (row_nodes[k] >= rows_.n_nodes() || col_nodes[k] >= columns_.n_nodes())
      throw InvalidArgument("a rectangle names a node outside the trees");
    if (!std::isfinite(weights[k])) throw InvalidArgument("the weight of a rectangle must be finite");
    selected[row_nodes[k]][col_nodes[k]] += weights[k];
  }
  std::unordered_map<std::uint32_t, std::size_t> index;
  std::vector<RowAncestor> ancestors;
  for (const auto& entry : selected)
    for (std::uint32_t u = rows_.parent(entry.first); u != kNoNode; u = rows_.parent(u)) {
      interrupts.poll_every(++step);
      if (!index.emplace(u, ancestors.size()).second) break;
      ancestors.push_back({u, rows_.parent(u), {}, {}, 0});
    }
  polled_sort(
      ancestors.begin(), ancestors.end(), [](const RowAncestor& a, const RowAncestor& b) { return a.node < b.node; },
      interrupts);
  for (std::size_t k = 0; k < ancestors.size(); ++k) index[ancestors[k].node] = k;
  Vector root_f;
  for (auto& [v, w] : selected) {
    interrupts.poll_every(++step);
    const auto at = index.find(v);
    if (at != index.end()) {
      ancestors[at->second].weight = w;
      continue;
    }
    const std::uint32_t p = rows_.parent(v);
    if (p == kNoNode) {
      root_f = w;
      continue;
    }
    RowAncestor& a = ancestors[index.at(p)];
    add_scaled(a.sum, w, 1);
    a.squares += form(w);
  }
  double variance = 0;
  for (std::size_t k = ancestors.size(); k-- > 0;) {
    interrupts.poll_every(k);
    RowAncestor& a = ancestors[k];
    const std::uint32_t m = rows_.n_children(a.node);
    if (m >= 2 && row_law_.splits_freely(rows_, a.node))
      variance += row_law_.split_tau2(a.node, rows_.depth(a.node), m) * std::max(0.0, a.squares - form(a.sum) / m);
    Vector g = a.weight;  // f(u) - A(parent), as a vector
    add_scaled(g, a.sum, 1.0 / m);
    if (a.parent == kNoNode) {
      root_f = std::move(g);
    } else {
      RowAncestor& p = ancestors[index.at(a.parent)];
      p.squares += form(g);
      add_scaled(p.sum, g, 1);
    }
  }
  if (!row_law_.pinned(0)) variance += form(root_f) * row_law_.level_variance(0);
  if (deficit_bound_ < 0) return {variance, variance, Exactness::exact};
  return {hierarchy::integer_variance_bounds(variance, deficit_bound_).lower, variance, Exactness::certified};
}

CrossedAccuracy::RectangleInterval CrossedAccuracy::rectangle_interval(std::uint32_t row_node, std::uint32_t col_node,
                                                                        double level,
                                                                        const Interrupts& interrupts) const {
  check_level(level);
  // Both kept together: a cancel between the two keeps neither.
  if (row_variance_.empty() || col_variance_.empty()) {
    std::vector<double> rows = hierarchy::node_variances(rows_, row_law_, interrupts);
    col_variance_ = hierarchy::node_variances(cols_, col_law_, interrupts);
    row_variance_ = std::move(rows);
  }
  if (row_node >= row_variance_.size() || col_node >= col_variance_.size())
    throw InvalidArgument("a rectangle names a node outside the trees");
  const double v = row_variance_[row_node] * col_variance_[col_node];
  // integer_cascade: the grid's one bound where it is negligible (calibrated
  // scales: one quantile per variance); else the rectangle's own excess,
  // rounded up to a quarter power of two so that few quantiles are taken.
  double excess = 0;
  if (deficit_bound_ >= 0 && v > 0) {
    if (!kernel_) kernel_ = std::make_unique<CrossedKernel>(rows_, row_law_, cols_, col_law_, interrupts);
    excess = kernel_->rectangle_log_excess();
    if (!(excess < 1e-6) && std::isfinite(kernel_->moves_log_excess())) {
      const double own = kernel_->query({row_node}, {col_node}, {1}, v, interrupts).unit.log_excess +
                         kernel_->moves_log_excess();
      excess = own > 0 ? std::exp2(std::ceil(std::log2(own) * 4) / 4) * (1 + 1e-12) : 0;
    }
  }
  const auto cached = intervals_.find({v, level, excess});
  if (cached != intervals_.end()) return cached->second;
  RectangleInterval out;
  if (!(v > 0)) {
    out.method = "exact: no noise";
  } else if (deficit_bound_ < 0) {
    out.half_width = normal_half_width(v, level);
    out.method = "exact: the normal quantile at the rectangle's variance";
  } else {
    std::optional<Quantile> q;
    try {
      if (std::isfinite(excess)) q = tilted_gaussian_quantile(v, 1, excess, level, interrupts);
    } catch (const OutOfRange&) {
      q.reset();  // the grid is too coarse for the bound
    }
    if (q) {
      out.half_width = double(q->half_width);
      out.kind = q->exact ? Exactness::exact : Exactness::certified;
      out.method = std::string(q->exact ? "exact: the quantile" : "certified: a covering quantile") +
                   " of the rectangle's law (the discrete Gaussian at its continuous variance, tilted within the "
                   "theta excess of short vectors of the grid where it is 0)";
    } else {
      out.half_width = double(integer_half_width(sub_gaussian_half_width(v, level)));
      out.kind = Exactness::certified;
      out.method = "certified: the sub-Gaussian bound at the rectangle's continuous variance";
    }
  }
  intervals_.emplace(std::make_tuple(v, level, excess), out);
  return out;
}

std::optional<MarginOfError> CrossedAccuracy::lattice_margin(const std::vector<std::uint32_t>& row_nodes,
                                                             const std::vector<std::uint32_t>& col_nodes,
                                                             const std::vector<double>& weights, double level,
                                                             const Interrupts& interrupts) const {
  check_level(level);
  if (deficit_bound_ < 0 || row_nodes.empty()) return std::nullopt;
  for (const double w : weights)
    if (!(std::fabs(w) <= 0x1p40) || w != std::floor(w)) return std::nullopt;
  const double v = variance(row_nodes, col_nodes, weights, interrupts).upper;
  if (!(v > 0)) return std::nullopt;
  try {
    if (!kernel_) kernel_ = std::make_unique<CrossedKernel>(rows_, row_law_, cols_, col_law_, interrupts);
    if (!std::isfinite(kernel_->moves_log_excess())) return std::nullopt;
    const StepFunctional s = kernel_->query(row_nodes, col_nodes, weights, v, interrupts);
    if (s.step == 0) return std::nullopt;
    const double excess = s.unit.log_excess + kernel_->moves_log_excess();
    const Quantile q = tilted_gaussian_quantile(s.unit.variance, 1, excess, level, interrupts);
    MarginOfError out;
    out.tail = SumTail::law_quantile;
    out.half_width = double(q.half_width) * double(s.step);
    out.kind = q.exact ? Exactness::exact : Exactness::certified;
    out.method = std::string(q.exact ? "exact: the quantile" : "certified: a covering quantile") +
                 " of the sum's law (rectangles of crossed hierarchies: the discrete Gaussian at the continuous "
                 "variance, tilted within the theta excess of short vectors of the grid where the sum is 0)";
    return out;
  } catch (const OutOfRange&) {
    return std::nullopt;  // the grid is too coarse for the bound: the sub-Gaussian tail
  } catch (const TooLarge&) {
    return std::nullopt;
  }
}

}  // namespace invariant_dp::accuracy
