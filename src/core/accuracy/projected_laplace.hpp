// The law of a linear functional of projected Laplace noise Pi_N e:
// w . Pi_N e = (Pi_N w) . e, a combination of the independent cells of e
// weighted by v = Pi_N w (DERIVATIONS.md, section 18).
//   subspace_laplace  e continuous Laplace(b): the combination's law by its
//                     Fourier series (laplace_combination.hpp);
//   project_l2        e discrete Laplace(b): on the partition and table
//                     forms v is a lattice vector, integer numerators over
//                     one denominator D, so D X is a weighted sum of
//                     independent integer cells (independent_sum_quantiles.hpp)
//                     and X lives on (1/D) Z.
// v, as its distinct sizes with their numbers of cells, exactly as integer
// numerators over each block's cell count:
//   none       v = w;
//   partition  per group of k cells, k w - S on its listed cells and -S on
//              the others: O(query);
//   tables     two-way: rc v = rc w - r R_i - c C_j + T, the cells off the
//              query counted by groups of rows and of columns of one value:
//              O(query log query); three axes or more: the table made dense
//              and centred along every axis (up to 2^20 cells in all);
//   general    the form's projection of w over every cell (one solve,
//              continuous Laplace only); sizes below 1e-12 of the largest
//              are the solve's rounding of a 0 and are left out.
// So a GROUP BY of thousands of sums over one large two-way release costs
// each sum its own cells, not the table's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"
#include "cell_query.hpp"
#include "fourier_coverage.hpp"
#include "integer_noise_transforms.hpp"
#include "laplace_combination.hpp"
#include "margin_of_error.hpp"
#include "projector_form.hpp"

namespace invariant_dp::accuracy {

// v = numerators / denominator, each size with its number of cells.
struct ScaledWeights {
  std::vector<WeightedCells> numerators;  // sizes > 0, increasing
  std::uint64_t denominator = 1;
};

// Pi_N w on the none, partition and table forms, exactly; nothing for the
// general form, weights that are no integers (within 2^40), touched tables
// of three axes or more of over 2^20 cells in all (each is held dense), a
// two-way table whose query takes over 2^20 pairs of row and column sums,
// or numerators (over the blocks' common denominator) past 2^62.
std::optional<ScaledWeights> projected_numerators(const ProjectorForm& form, const CellQuery& query,
                                                  const Interrupts& interrupts);

// The sizes of Pi_N w over the release's cells, on any form; nothing as above
// (but for the general form).
std::optional<std::vector<LaplaceTerm>> projected_weights(const ProjectorForm& form, const CellQuery& query,
                                                          const Interrupts& interrupts);

// One cell of a block that is a complete table of this shape (a group of
// k cells: {k}): the cell's row of Pi_b, prod_k (delta_k - 1/n_k), by the
// axes on which the other cell shares the cell's level; numerators over
// prod n_k.
ScaledWeights cell_projected_numerators(const std::vector<std::size_t>& shape);
std::vector<LaplaceTerm> cell_projected_weights(const std::vector<std::size_t>& shape);

// The smallest half-width t with P(|v . e| <= t) >= level for e i.i.d.
// discrete Laplace(b): the quantile q of D X on the integers, as
// (q + 1/2) / D (a released value is a float within far less than half a
// lattice step of x + v . e, and every t in [q/D, (q+1)/D) covers the same
// lattice points). TooLarge past the inversion's limits.
MarginOfError discrete_combination_margin(Rational b, const ScaledWeights& weights, double level,
                                          const Interrupts& interrupts);

// The same margin from D X's quantile q however it was computed (`how`:
// "Fourier inversion", "convolution").
MarginOfError lattice_combination_margin(const Quantile& q, std::uint64_t denominator, const char* how);

// The margin of error of the sum `query` of a subspace_laplace release of
// scale b (continuous), or of a project_l2 release of parameter b
// (discrete): the quantile of its law; nothing where its weights are not
// computed (above) or the law passes its work limit.
std::optional<MarginOfError> projected_laplace_margin(const ProjectorForm& form, double b, const CellQuery& query,
                                                      double level, const Interrupts& interrupts);
std::optional<MarginOfError> projected_discrete_laplace_margin(const ProjectorForm& form, Rational b,
                                                               const CellQuery& query, double level,
                                                               const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
