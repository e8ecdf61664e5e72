// Certified half-widths for linear functionals of the lattice Gaussians
// (integer_gaussian on complete tables, integer_cascade): within a factor
// R of the discrete Gaussian at the functional's continuous variance,
// where the generic bound is sub-Gaussian (DERIVATIONS.md, section 13).
//
// The law: z ~ D_{L, Sigma}, P(z) proportional to exp(-z^T Sigma^-1 z / 2)
// on a lattice L, and X = w^T z integer-valued with variance V = w^T Sigma w
// in the continuous Gaussian. Suppose L has integer coordinates y (a
// unimodular basis) in which y_1 = X / g and whose other coordinates have,
// in order, continuous conditional variances s_j^2 = Var(y_j | y_1 .. y_j-1)
// (a Klein order beginning with the functional). Then, by Poisson summation
// over the dual lattice, for every integer t
//   P(X = g t) = exp(-g^2 t^2 / (2 V)) (1 + E(t)) / C,   |E(t)| <= eps,
//   1 + eps <= prod_{j >= 2} theta_j,  theta_j = sum_m exp(-2 pi^2 s_j^2 m^2) <= 1 + 2 q_j / (1 - q_j),
// q_j = exp(-2 pi^2 s_j^2): X / g is the discrete Gaussian D_{Z, V/g^2}
// tilted by a factor in [1 - eps, 1 + eps], so every tail of X lies within
// the factor R = (1 + eps)/(1 - eps) of that discrete Gaussian's tail. The
// half-width is the smallest t whose coverage is certain under that bound
// (the discrete Gaussian's coverage by fourier_coverage.hpp); it is the
// exact quantile of the law whenever the bound decides t - 1 too (the usual
// case: at calibrated variances eps is below 1e-15).
//
// Klein orders given here, as log(1 + eps) ("log excess"):
//   - a box of a complete table (a product of level sets, one per axis,
//     each neither empty nor the whole axis): X = the box's sum, g = 1, the
//     other coordinates the Kronecker products of per-axis Gram-Schmidt
//     coordinates adapted to the box (box_log_excess);
//   - a node of a hierarchy, or a set of children of one node, under the
//     integer cascade: X first, then the chain of conditional variances up
//     its root path, then the other coordinates of the tree
//     (cascade_tree_log_excess once per release, cascade_chain_log_excess
//     per query).
#pragma once

#include <cstdint>
#include <vector>

#include "../hierarchy/cascade_law.hpp"
#include "../hierarchy/hierarchy_tree.hpp"
#include "../hierarchy/theta_sums.hpp"
#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "fourier_coverage.hpp"

namespace invariant_dp::accuracy {

// The smallest q (a multiple of g) with P(|X| <= q) >= level certain for
// every law within the tilt exp(log_excess) of D_{gZ, V}; exact when the
// bound decides q - g too. InvalidArgument for V <= 0 or g = 0;
// OutOfRange when log_excess >= log 2 (the bound says nothing).
Quantile tilted_gaussian_quantile(double V, std::uint64_t g, double log_excess, double level,
                                  const Interrupts& interrupts);

// A lower bound of Var(X) for X / g within the tilt exp(log_excess) of
// D_{Z, V/g^2}: g^2 Var(D_{Z, v}) / R, R = (1 + eps)/(1 - eps), with
// Var(D_{Z, v}) >= v - 8 pi^2 v^2 sum_(k >= 1) k^2 exp(-2 pi^2 v k^2) by
// Poisson summation (DERIVATIONS.md, section 13); 0 where that says
// nothing (v below 1/4, or the bound says nothing).
double tilted_gaussian_variance_lower(double V, std::uint64_t g, double log_excess);

// log(1 + eps) over `count` coordinates of conditional variance at least s2
// (rounded up; infinity when q = exp(-2 pi^2 s2) may reach 1/3).
double log_excess_at_least(double s2, double count);

// The box selected[k] of the levels of axis k (0 < selected[k] < shape[k])
// of a complete table of this shape under the lattice Gaussian of parameter
// sigma2: its sum's continuous variance sigma2 prod_k s_k (n_k - s_k) / n_k,
// and log(1 + eps).
double box_variance(Rational sigma2, const std::vector<std::size_t>& shape, const std::vector<std::size_t>& selected);
// `kept` shares the coordinates' terms across the boxes of one computation.
double box_log_excess(Rational sigma2, const std::vector<std::size_t>& shape, const std::vector<std::size_t>& selected,
                      hierarchy::CoordinateTerms* kept = nullptr);

// The part of the cascade's log excess common to every query: every free
// Gram-Schmidt coordinate of the tree (hierarchy/integer_cascade_splits.hpp;
// infinity when the law's parameters do not fit its exact integers).
double cascade_tree_log_excess(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                               const Interrupts& interrupts);

// A functional's continuous variance V and log(1 + eps) (or the query's own
// part of it, for the cascade: add cascade_tree_log_excess).
struct TiltedFunctional {
  double variance = 0;
  double log_excess = 0;
};

// A functional's unit part and its step: X takes the values step Z, and
// X / step is within the tilt exp(log_excess) of the discrete Gaussian at
// its continuous variance (`unit`: Var(X / step) and the log excess); step
// 0 when X is constant on the lattice (a function of the margins). Built
// from short vectors of the lattice's kernel of X (table_functional.hpp,
// cascade_kernel.hpp).
struct StepFunctional {
  TiltedFunctional unit;
  std::uint64_t step = 0;
};

// The sum of functionals of independent lattice Gaussians (blocks: the
// tables of a release, or whole trees), each with a Klein order beginning
// with it (step 1): the variances add, and the log excesses too, plus the
// merges: in the order X, X_1, .., X_(B-1), then each block's own
// coordinates, Var(X_j | X, X_1 .. X_(j-1)) = V_j R_(j+1) / R_j,
// R_j = V_j + .. + V_B (blocks of variance 0 are left out).
TiltedFunctional independent_blocks(const std::vector<TiltedFunctional>& blocks, const Interrupts& interrupts);

// A query of the cascade: `count` children of `parent` (count = 1: one
// node, that child; 1 <= count < the number of children), given the
// node variances (hierarchy/cascade_covariance.hpp): its continuous
// variance, and its own part of the log excess (the chain up the root path
// and the second run of the split's coordinates).
TiltedFunctional cascade_children_query(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                                    const std::vector<double>& node_variance, std::uint32_t parent,
                                    std::uint32_t count);
// A node's own query (its parent's split with count 1, or the root).
TiltedFunctional cascade_node_query(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                                const std::vector<double>& node_variance, std::uint32_t node);

}  // namespace invariant_dp::accuracy
