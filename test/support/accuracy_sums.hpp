// Building coverage checks (coverage_checks.hpp) from the error-bar library:
// a sum's margin of error at a level by the tail its law recommends, and
// what that tail predicts or promises; per-cell intervals pooled.
#pragma once

#include <cmath>
#include <string>

#include "accuracy/cell_intervals.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy/margin_of_error.hpp"
#include "coverage_checks.hpp"

namespace invariant_dp::accuracy_sums {

using namespace accuracy;

// A sum's check from its variance figure and the cells it is worth (its
// cell count, or LinearAccuracy::effective_cells); `scale` multiplies the
// variance the margin is computed from (1, or 0.8 for the power checks,
// which keep the prediction of the wrong variance).
inline coverage::SumCheck counted_sum_check(const std::string& name, CellQuery query, const VarianceFigure& variance,
                                            double cells, double level, LawShape shape, bool integer, double scale) {
  const SumTail tail = recommended_tail(shape, cells);
  VarianceFigure claimed = variance;
  claimed.lower *= scale;
  claimed.upper *= scale;
  const MarginOfError moe = margin_of_error(claimed, level, tail, shape, integer);
  coverage::SumCheck s;
  s.name = name + " [" + sum_tail_name(tail) + "]";
  s.query = std::move(query);
  s.half_width = moe.half_width;
  s.variance_lower = claimed.lower;
  s.variance_upper = claimed.upper;
  s.coverage.name = s.name;
  if (tail == SumTail::normal) {
    s.coverage.expected = integer ? coverage::normal_integer_coverage(moe.half_width, claimed.upper)
                                  : std::erf(moe.half_width / std::sqrt(2 * claimed.upper));
    s.coverage.conservative = false;
  } else {
    s.coverage.expected = level;
    s.coverage.conservative = true;
  }
  return s;
}

// A sum of nodes or periods, counted as asked.
inline coverage::SumCheck sum_check(const std::string& name, CellQuery query, const VarianceFigure& variance,
                                    double level, LawShape shape, bool integer, double scale = 1) {
  const double cells = double(query.size());
  return counted_sum_check(name, std::move(query), variance, cells, level, shape, integer, scale);
}

// A sum of cells of a flat release, counted as the release counts it.
inline coverage::SumCheck sum_check(const std::string& name, const LinearAccuracy& accuracy, CellQuery query,
                                    double level, LawShape shape, bool integer, double scale = 1) {
  const VarianceFigure v = accuracy.variance(query, Interrupts());
  const double cells = accuracy.effective_cells(query, Interrupts());
  return counted_sum_check(name, std::move(query), v, cells, level, shape, integer, scale);
}

// The share of cells whose interval covers the truth in one release.
template <class Noise>
double cell_share(const CellIntervals& intervals, const Noise& z) {
  double covered = 0;
  for (std::uint32_t i = 0; i < intervals.n_cells(); ++i)
    covered += std::abs(double(z[i])) <= intervals.half_width(i) ? 1 : 0;
  return covered / double(intervals.n_cells());
}

}  // namespace invariant_dp::accuracy_sums
