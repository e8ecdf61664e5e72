// Two crossed hierarchies (Dharangutte, Gao, Gong, Wang 2024,
// arXiv:2402.07066, Appendix D.3, Algorithm 4, generalized to any two trees
// and per-level targets; DERIVATIONS.md, section 6): noise on
// the grid of (row leaf, column leaf) cells with covariance
// Sigma_rows (x) Sigma_cols (Kronecker). Every rectangle of a row node s and
// a column node t then has variance v_rows(s) * v_cols(t); the paper's
// "every dyadic rectangle at sigma^2" is rows at sigma^2, columns at 1.
//
// Sampler: the row cascade where every scalar draw is replaced by an
// independent column cascade (a vector of column-leaf noise), each split
// applied elementwise (cascade_kernel.hpp). Cost O(row nodes x column leaves
// + column nodes x row nodes).
//
// Privacy (ours; the paper defers it): Sigma^-1 = Sigma_rows^-1 (x) Sigma_cols^-1, so with P the
// diagonal of a tree's precision and q(w) its off-diagonal at lowest common
// ancestor w (cascade_privacy.hpp):
//   add_remove: max P_rows * max P_cols ((1 + k1/3)(1 + k2/3) for two
//     perfect binary trees at unit variance);
//   replace_one, e_(i1,i2) - e_(j1,j2): P_r(i1) P_c(i2) + P_r(j1) P_c(j2)
//     - 2 Sigma_r^-1(i1, j1) Sigma_c^-1(i2, j2), maximized in closed form:
//     same row leaf: max P_r * max replace_one of the columns (and vice
//     versa); otherwise, per pair of splits (w1, w2), A1 B1 + A2 B2 -
//     2 q_r(w1) q_c(w2) with A1 >= A2 the largest P_r below two distinct
//     children of w1 (B likewise) (rearrangement inequality).
// Both laws must be unconditioned.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../privacy/neighbours.hpp"
#include "../random_source.hpp"
#include "cascade_law.hpp"
#include "cascade_privacy.hpp"
#include "hierarchy_tree.hpp"
#include "rollup.hpp"

namespace invariant_dp::hierarchy {

// Row-major: cell (i, j) at i * cols.n_leaves() + j (leaf orders).
std::vector<double> crossed_cascade_noise(const HierarchyTree& rows, const CascadeLaw& row_law,
                                          const HierarchyTree& cols, const CascadeLaw& col_law, RandomSource& rng,
                                          const Interrupts& interrupts);

// Var of the sum over row leaves [row_lo, row_hi] x column leaves [col_lo, col_hi].
double crossed_rectangle_variance(const HierarchyTree& rows, const CascadeLaw& row_law, const HierarchyTree& cols,
                                  const CascadeLaw& col_law, std::uint32_t row_lo, std::uint32_t row_hi,
                                  std::uint32_t col_lo, std::uint32_t col_hi);

// O(row nodes + column nodes + row splits x column splits), polled throughout.
double crossed_max_sensitivity_squared(const HierarchyTree& rows, const CascadeLaw& row_law,
                                       const HierarchyTree& cols, const CascadeLaw& col_law, Neighbours neighbours,
                                       const Interrupts& interrupts);

// With a privacy unit (Protected, cascade_privacy.hpp): unit_mass^2 times
// one record's maximum, under replace_one the larger of the replace_one and
// add_remove maxima, by the argument of protected_sensitivity_squared (the
// Kronecker law keeps no total exact).
double crossed_protected_sensitivity_squared(const HierarchyTree& rows, const CascadeLaw& row_law,
                                             const HierarchyTree& cols, const CascadeLaw& col_law,
                                             const Protected& protect, const Interrupts& interrupts);

// Every (row node, column node) value, row-major over node orders: column
// rollups of each row leaf, then row rollups of each column node. So (s, t)
// is bit-exactly the fold of (children of s, t); the fold over the children
// of t agrees to rounding (exactly for int64).
template <class T>
std::vector<T> crossed_rollup(const HierarchyTree& rows, const HierarchyTree& cols, const std::vector<T>& grid,
                              const Interrupts& interrupts) {
  const std::size_t nr = rows.n_leaves(), nc = cols.n_leaves(), width = cols.n_nodes();
  if (grid.size() != nr * nc) throw InvalidArgument("wrong number of cells for the crossed hierarchies");
  std::vector<T> out(rows.n_nodes() * width);
  for (std::uint32_t i = 0; i < nr; ++i) {
    const std::vector<T> row(grid.begin() + i * nc, grid.begin() + (i + 1) * nc);
    const auto nodes = rollup(cols, row, interrupts);
    std::copy(nodes.begin(), nodes.end(), out.begin() + std::size_t(rows.leaf_node(i)) * width);
  }
  // Gathering and scattering a column touch every row: with few columns and
  // millions of rows, those loops poll as well as the rollup between them.
  std::vector<T> column(nr);
  std::uint64_t steps = 0;
  for (std::size_t t = 0; t < width; ++t) {
    for (std::uint32_t i = 0; i < nr; ++i) {
      interrupts.poll_every(steps++);
      column[i] = out[std::size_t(rows.leaf_node(i)) * width + t];
    }
    const auto nodes = rollup(rows, column, interrupts);
    for (std::size_t s = 0; s < nodes.size(); ++s) {
      interrupts.poll_every(steps++);
      out[s * width + t] = nodes[s];
    }
  }
  return out;
}

}  // namespace invariant_dp::hierarchy
