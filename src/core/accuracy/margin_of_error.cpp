// Margins of error of sums (margin_of_error.hpp).
#include "margin_of_error.hpp"

#include "../errors.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {

const char* sum_tail_name(SumTail tail) {
  switch (tail) {
    case SumTail::normal: return "normal";
    case SumTail::sub_gaussian: return "sub_gaussian";
    case SumTail::gauss: return "gauss";
    case SumTail::chebyshev: return "chebyshev";
    case SumTail::law_quantile: return "law_quantile";
  }
  return "normal";
}

SumTail recommended_tail(LawShape shape, double cells_in_sum) {
  if (shape == LawShape::gaussian || cells_in_sum >= double(kNormalCells) * (1 - 1e-9)) return SumTail::normal;
  if (shape == LawShape::lattice_gaussian) return SumTail::sub_gaussian;
  if (shape == LawShape::log_concave) return SumTail::gauss;
  return SumTail::chebyshev;
}

MarginOfError margin_of_error(const VarianceFigure& variance, double level, SumTail tail, LawShape shape,
                              bool integer_output) {
  check_level(level);
  if (tail == SumTail::law_quantile) throw InvalidArgument("a sum's own law is not a tail bound on its variance");
  const double v = variance.upper;
  if (!(v >= 0)) throw InvalidArgument("a variance must be non-negative");
  const bool valid = tail == SumTail::normal     ? shape == LawShape::gaussian
                     : tail == SumTail::sub_gaussian ? shape == LawShape::gaussian || shape == LawShape::lattice_gaussian
                     : tail == SumTail::gauss        ? shape != LawShape::other && shape != LawShape::lattice_gaussian
                                                     : true;
  if (!valid && tail != SumTail::normal)
    throw InvalidArgument(std::string("the ") + sum_tail_name(tail) + " tail bound does not hold for this noise law");
  MarginOfError out;
  out.tail = tail;
  switch (tail) {
    case SumTail::normal: out.half_width = normal_half_width(v, level); break;
    case SumTail::sub_gaussian: out.half_width = sub_gaussian_half_width(v, level); break;
    case SumTail::gauss: out.half_width = gauss_half_width(v, level); break;
    case SumTail::chebyshev: out.half_width = chebyshev_half_width(v, level); break;
    case SumTail::law_quantile: break;
  }
  if (integer_output) out.half_width = double(integer_half_width(out.half_width));
  if (v == 0 && variance.kind != Exactness::estimate) {
    // A sum of declared margins (whole lines, an exact node): no noise at
    // all, whatever the tail.
    out.kind = Exactness::exact;
    out.method = "exact: the sum's variance is 0 (it adds whole margins, which are released without noise)";
    return out;
  }
  if (variance.kind == Exactness::estimate) {
    out.kind = Exactness::estimate;
  } else if (tail == SumTail::normal) {
    out.kind = valid && variance.kind == Exactness::exact ? Exactness::exact : Exactness::estimate;
  } else {
    out.kind = Exactness::certified;
  }
  out.method = std::string(sum_tail_name(tail)) +
               (tail == SumTail::normal && !valid ? " approximation" : tail == SumTail::normal ? " law" : " bound") +
               " at the " + exactness_name(variance.kind) + " variance";
  return out;
}

}  // namespace invariant_dp::accuracy
