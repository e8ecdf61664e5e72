// The margin of error of a sum of released cells at a confidence level:
// the sum's noise variance (linear_accuracy.hpp, hierarchy_accuracy.hpp; its
// upper end when certified) turned into a half-width by a stated tail
// (tail_quantiles.hpp):
//   normal        z sqrt(V): exact for Gaussian laws (subspace_gaussian,
//                 cascade, streams); otherwise the normal approximation, an
//                 estimate, sound for sums of many cells (the noise of a sum
//                 of m cells is close to normal by the central limit theorem,
//                 tested by the coverage tests for sums of 30 cells and more;
//                 cells counted as the random variable's, not as asked:
//                 effective_cells.hpp);
//   sub_gaussian  certified for Gaussian and lattice Gaussian laws (a lattice
//                 Gaussian centred at 0 is sub-Gaussian at its continuous
//                 variance);
//   gauss         certified for symmetric log-concave laws (a sum of projected
//                 continuous Laplace noise, subspace_laplace, whose own law
//                 is past its work limit: projected_laplace.hpp);
//   chebyshev     certified for any law given its variance (the conditioned
//                 discrete Laplace past its laws' limits; projected discrete
//                 Laplace on general margins).
// With an estimated variance every margin is an estimate. Integer releases
// round the margin up to an integer (the sum is an integer).
#pragma once

#include <cstddef>
#include <string>

#include "cell_query.hpp"

namespace invariant_dp::accuracy {

// law_quantile: no tail bound, the quantile of the sum's own law
// (sum_quantile.hpp); margin_of_error() below takes only the tails.
enum class SumTail { normal, sub_gaussian, gauss, chebyshev, law_quantile };
const char* sum_tail_name(SumTail tail);

// What a family's noise law is, for choosing a tail.
enum class LawShape {
  gaussian,          // subspace_gaussian, cascade, streams
  lattice_gaussian,  // discrete_gaussian, integer_gaussian, integer_cascade
  log_concave,       // subspace_laplace (projected continuous Laplace)
  other,             // discrete_laplace, integer_laplace, project_l2, the l2 law
};

struct MarginOfError {
  double half_width = 0;  // the sum +/- this
  SumTail tail = SumTail::normal;
  Exactness kind = Exactness::exact;
  std::string method;
};

// Sums of at least this many cells take the normal approximation by default.
constexpr std::size_t kNormalCells = 30;

// The default: normal for Gaussian laws and for sums worth kNormalCells
// cells or more (a count of the sum's random variable where one is computed,
// LinearAccuracy::effective_cells; read within a relative 1e-9, its
// rounding); below, the certified tail of the law's shape.
SumTail recommended_tail(LawShape shape, double cells_in_sum);

MarginOfError margin_of_error(const VarianceFigure& variance, double level, SumTail tail, LawShape shape,
                              bool integer_output);

}  // namespace invariant_dp::accuracy
