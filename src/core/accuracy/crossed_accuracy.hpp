// Error bars of crossed hierarchies (a `cascade` or `integer_cascade`
// release with the option `crossed`: geography x age groups,
// hierarchy/crossed_cascade.hpp): the variance of any weighted set of
// rectangles (row node, column node), at any levels of either tree.
//
// The grid's noise has covariance Sigma_rows (x) Sigma_cols, so a query
// sum_k w_k Z(s_k, t_k) has variance tr(Sigma_r W Sigma_c W^T), W the
// row-node x column-node weights. It is the row tree's pass of
// hierarchy_accuracy.hpp with vector weights: every weight of the row pass
// becomes the vector b_s of column-node weights of row node s, a product f f'
// becomes the column quadratic form Q(f) = f^T Sigma_c f, and the split term
// sum_c Q(f_c) - Q(sum_c f_c) / m keeps its invariance under a common shift
// (DERIVATIONS.md, section 7). Each Q is a column-tree query
// (HierarchyAccuracy::variance). Cost: O(row ancestors' children x column
// query size x column depth); a single rectangle (or any product of a row
// set and a column set) is Var_rows x Var_cols.
// `cascade`: exact. `integer_cascade`: certified, [(1 - B) V, V] with the
// published variance_deficit_bound of the crossed law.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <optional>
#include <vector>

#include "crossed_kernel.hpp"
#include "hierarchy_accuracy.hpp"
#include "margin_of_error.hpp"

namespace invariant_dp::accuracy {

class CrossedAccuracy {
 public:
  // Trees and (unconditioned) laws must outlive the object; deficit_bound as
  // HierarchyAccuracy's (negative for `cascade`).
  CrossedAccuracy(const hierarchy::HierarchyTree& rows, const hierarchy::CascadeLaw& row_law,
                  const hierarchy::HierarchyTree& cols, const hierarchy::CascadeLaw& col_law, double deficit_bound);

  // Rectangles (row_nodes[k], col_nodes[k]) with weights[k]; a rectangle
  // listed twice counts twice.
  VarianceFigure variance(const std::vector<std::uint32_t>& row_nodes, const std::vector<std::uint32_t>& col_nodes,
                          const std::vector<double>& weights, const Interrupts& interrupts) const;

  // One rectangle's interval at `level`, the margin of that rectangle alone:
  // `cascade`, the normal quantile at its variance (exact);
  // `integer_cascade`, the tilted discrete Gaussian within
  // CrossedKernel::rectangle_log_excess where that bound is negligible
  // (one figure per variance), else within the rectangle's own excess
  // rounded up to a quarter power of two (exact where it decides the
  // quantile), or the sub-Gaussian bound where neither says anything
  // (certified). A rectangle's variance is its row node's times its column
  // node's; the figures are kept per variance and excess.
  struct RectangleInterval {
    double half_width = 0;
    Exactness kind = Exactness::exact;
    std::string method;
  };
  RectangleInterval rectangle_interval(std::uint32_t row_node, std::uint32_t col_node, double level,
                                       const Interrupts& interrupts) const;

  // `integer_cascade`: the margin of the rectangles' sum from its own law,
  // the tilted discrete Gaussian over short vectors of the grid where the
  // sum is 0 (crossed_kernel.hpp), for one rectangle or many, integer
  // weights; nothing where the bound says nothing (the caller's tail bound).
  std::optional<MarginOfError> lattice_margin(const std::vector<std::uint32_t>& row_nodes,
                                              const std::vector<std::uint32_t>& col_nodes,
                                              const std::vector<double>& weights, double level,
                                              const Interrupts& interrupts) const;

 private:
  const hierarchy::HierarchyTree& rows_;
  const hierarchy::CascadeLaw& row_law_;
  const hierarchy::HierarchyTree& cols_;
  const hierarchy::CascadeLaw& col_law_;
  HierarchyAccuracy columns_;
  double deficit_bound_;
  mutable std::unique_ptr<CrossedKernel> kernel_;  // built by the first margin
  mutable std::vector<double> row_variance_, col_variance_;            // per node, built by the first interval
  mutable std::map<std::tuple<double, double, double>, RectangleInterval> intervals_;  // (variance, level, excess)
};

}  // namespace invariant_dp::accuracy
