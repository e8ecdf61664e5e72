// Crossed (Kronecker) cascade noise (crossed_cascade.hpp).
#include "crossed_cascade.hpp"

#include <algorithm>

#include "../errors.hpp"
#include "cascade_covariance.hpp"
#include "cascade_kernel.hpp"
#include "cascade_privacy.hpp"
#include "normal_stream.hpp"

namespace invariant_dp::hierarchy {
namespace {

void require_unconditioned(const CascadeLaw& a, const CascadeLaw& b) {
  if (a.conditioned() || b.conditioned()) {
    throw InvalidArgument("exact totals are not supported with crossed hierarchies",
                          "Crossed cascade noise is drawn without conditioning.");
  }
}

// Per split node of one tree: q(w) = Sigma^-1_ij for leaves whose lowest
// common ancestor is w, and the two largest precision diagonals below two
// distinct children of w.
struct SplitSummary {
  double q, top1, top2;
};

struct TreePrecision {
  double max_diagonal = 0;
  double max_replace = 0;
  std::vector<SplitSummary> splits;
};

TreePrecision summarize(const HierarchyTree& tree, const CascadeLaw& law, const Interrupts& interrupts) {
  const std::size_t n = tree.n_nodes();
  std::vector<double> a(n, 0), prefix(n, 0), best_down(n, 0);
  for (std::uint32_t v = 0; v < n; ++v) {
    interrupts.poll_every(v);
    const std::uint32_t m = tree.n_children(v);
    if (m >= 2) a[v] = (m - 1.0) / (m * law.split_tau2(v, tree.depth(v), m));
  }
  // The passes over children count every child (one node may have millions).
  std::uint64_t steps = 0;
  prefix[0] = 1 / law.level_variance(0);  // 1/v_0 + a of the strict ancestors
  for (std::uint32_t v = 0; v < n; ++v)
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) {
      interrupts.poll_every(steps++);
      prefix[c] = prefix[v] + a[v];
    }
  for (std::size_t v = n; v-- > 0;) {
    interrupts.poll_every(steps++);
    double best = 0;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) {
      interrupts.poll_every(steps++);
      best = std::max(best, best_down[c]);
    }
    best_down[v] = a[v] + best;
  }
  TreePrecision out;
  out.max_diagonal = prefix[0] + best_down[0];
  out.max_replace = max_sensitivity_squared(tree, law, Neighbours::ReplaceOne, interrupts);
  for (std::uint32_t w = 0; w < n; ++w) {
    interrupts.poll_every(steps++);
    const std::uint32_t m = tree.n_children(w);
    if (m < 2) continue;
    SplitSummary s{prefix[w] - 1 / (m * law.split_tau2(w, tree.depth(w), m)), 0, 0};
    for (std::uint32_t c = tree.first_child(w); c < tree.child_end(w); ++c) {
      interrupts.poll_every(steps++);
      const double p = prefix[c] + best_down[c];  // largest diagonal below c
      if (p > s.top1) {
        s.top2 = s.top1;
        s.top1 = p;
      } else if (p > s.top2) {
        s.top2 = p;
      }
    }
    out.splits.push_back(s);
  }
  return out;
}

}  // namespace

std::vector<double> crossed_cascade_noise(const HierarchyTree& rows, const CascadeLaw& row_law,
                                          const HierarchyTree& cols, const CascadeLaw& col_law, RandomSource& rng,
                                          const Interrupts& interrupts) {
  require_unconditioned(row_law, col_law);
  const std::size_t width = cols.n_leaves();
  std::vector<double> grid(rows.n_leaves() * width);
  NormalStream normals(rng);
  auto column_draw = [&](double* out) {
    detail::run_cascade(cols, col_law, 1, [&](double* x) { *x = normals.next(); }, out, interrupts);
  };
  detail::run_cascade(rows, row_law, width, column_draw, grid.data(), interrupts);
  return grid;
}

double crossed_rectangle_variance(const HierarchyTree& rows, const CascadeLaw& row_law, const HierarchyTree& cols,
                                  const CascadeLaw& col_law, std::uint32_t row_lo, std::uint32_t row_hi,
                                  std::uint32_t col_lo, std::uint32_t col_hi) {
  require_unconditioned(row_law, col_law);
  // Var(1_A (x) 1_B . Z) = (1_A' Sigma_r 1_A)(1_B' Sigma_c 1_B).
  return range_variance(rows, row_law, row_lo, row_hi) * range_variance(cols, col_law, col_lo, col_hi);
}

double crossed_max_sensitivity_squared(const HierarchyTree& rows, const CascadeLaw& row_law,
                                       const HierarchyTree& cols, const CascadeLaw& col_law, Neighbours neighbours,
                                       const Interrupts& interrupts) {
  require_unconditioned(row_law, col_law);
  const TreePrecision r = summarize(rows, row_law, interrupts), c = summarize(cols, col_law, interrupts);
  if (neighbours == Neighbours::AddRemove) return r.max_diagonal * c.max_diagonal;
  double best = std::max(r.max_diagonal * c.max_replace, c.max_diagonal * r.max_replace);
  // Every pair of splits (about as many as the grid has cells): the poll
  // counts pairs, not row splits.
  std::uint64_t pairs = 0;
  for (const SplitSummary& w1 : r.splits)
    for (const SplitSummary& w2 : c.splits) {
      interrupts.poll_every(pairs++);
      best = std::max(best, w1.top1 * w2.top1 + w1.top2 * w2.top2 - 2 * w1.q * w2.q);
    }
  return best;
}

double crossed_protected_sensitivity_squared(const HierarchyTree& rows, const CascadeLaw& row_law,
                                             const HierarchyTree& cols, const CascadeLaw& col_law,
                                             const Protected& protect, const Interrupts& interrupts) {
  double per_record = crossed_max_sensitivity_squared(rows, row_law, cols, col_law, protect.neighbours, interrupts);
  if (protect.unit_mass == 1) return per_record;
  if (protect.neighbours == Neighbours::ReplaceOne)
    per_record = std::max(per_record, crossed_max_sensitivity_squared(rows, row_law, cols, col_law,
                                                                      Neighbours::AddRemove, interrupts));
  return protect.unit_mass * protect.unit_mass * per_record;
}

}  // namespace invariant_dp::hierarchy
