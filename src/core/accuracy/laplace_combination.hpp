// The law of a linear combination of independent continuous Laplace
// variables, X = sum_j v_j L_j with L_j i.i.d. Laplace(b): the noise of any
// linear functional w of a subspace_laplace release, v = Pi_N w
// (projected_laplace.hpp). Its characteristic function is a product,
//   phi(theta) = prod_j 1 / (1 + b^2 v_j^2 theta^2),
// so the coverage of [-x, x] is a Fourier series on a period 2L
// (DERIVATIONS.md, section 18):
//   P(|X mod 2L| <= x) = x/L + (2/pi) sum_{k >= 1} phi(pi k/L) sin(pi k x/L) / k,
// enclosed with three errors: the wrapped mass, at most P(|X| >= 2L - x)
// (a Chernoff bound on the moment generating function, which lowers the
// coverage only); the series' tail past K terms (phi's decay through its
// largest factors); the rounding of the sum (a bound on each term's
// arithmetic). L and K are chosen so that the first two are below 1e-13.
// One weight alone is Laplace, in closed form, and so are one weight
// carried by several variables and a margin group's cell
// (laplace_closed_form.hpp).
#pragma once

#include <optional>
#include <vector>

#include "../interrupts.hpp"
#include "fourier_coverage.hpp"
#include "laplace_closed_form.hpp"

namespace invariant_dp::accuracy {

// A weight |v_j| of the combination and how many variables carry it.
struct LaplaceTerm {
  double weight = 0;
  double count = 0;
};

// The work of one law: distinct weights times series terms (about 40 ns
// each, a log1p and its share of an exponential and of the searches'
// series); past it a law is refused before its series is computed (about
// 0.4 s).
constexpr double kCombinationWork = 1e7;

struct RealQuantile {
  double half_width = 0;      // x: P(|X| <= x) >= level, certainly
  double coverage_lower = 0;  // a lower bound of P(|X| <= x)
  double narrower_upper = 0;  // an upper bound of P(|X| <= x (1 - kQuantileResolution))
  bool exact = false;         // narrower_upper < level: x is the quantile within that resolution
  double work = 0;            // distinct weights times series terms (variables in closed form)
  bool closed_form = false;   // the law in closed form (laplace_closed_form.hpp), not its series
};
constexpr double kQuantileResolution = 1e-9;
// How a quantile's law was read, for its method: "in closed form" or "by
// its Fourier series".
inline const char* laplace_law_method(const RealQuantile& q) {
  return q.closed_form ? "in closed form" : "by its Fourier series";
}

class LaplaceCombination {
 public:
  // b > 0; terms with finite weights (zeros ignored) and counts >= 1, at
  // least one weight > 0; coverage is asked for x in [0, ceiling].
  // InvalidArgument otherwise; TooLarge when the series passes max_work.
  LaplaceCombination(double b, std::vector<LaplaceTerm> terms, double ceiling, const Interrupts& interrupts,
                     double max_work = kCombinationWork);
  // P(|X| <= x), enclosed (0 <= x <= ceiling); `slope`, when given,
  // receives its derivative in x, about (twice the density at x).
  CoverageBounds coverage(double x, const Interrupts& interrupts, double* slope = nullptr) const;
  double variance() const { return variance_; }
  std::size_t series_terms() const { return phi_.size(); }
  double work() const { return closed_ ? double(closed_->variables()) : double(phi_.size()) * double(terms_.size()); }
  // One weight carried by several variables, and a margin group's cell,
  // have a closed form, taken instead of the series.
  bool closed_form() const { return closed_.has_value(); }

 private:
  // The series at x: its value and its derivative in x.
  void series(double x, double& value, double& slope, const Interrupts& interrupts) const;
  double alias_bound(double t) const;

  double b_ = 0, ceiling_ = 0, variance_ = 0;
  std::vector<LaplaceTerm> terms_;
  bool single_ = false;           // one variable: Laplace(b |v|)
  std::optional<LaplaceClosedForm> closed_;
  double period_half_ = 0;        // L
  std::vector<double> phi_;       // phi(pi k/L), k = 1 .. K
  std::vector<double> term_;      // the sine series' terms 2/(pi k) phi(pi k/L), computed once
  double truncation_ = 0, rounding_ = 0;
  std::vector<double> chernoff_lambda_, chernoff_log_mgf_;
};

// The smallest x whose certified coverage reaches the level (within
// kQuantileResolution), searched up to Chebyshev's half-width, which always
// covers and is returned, not exact, where the enclosure cannot certify
// less (levels within about 1e-12 of 1). InvalidArgument and TooLarge as
// above.
RealQuantile laplace_combination_quantile(double b, std::vector<LaplaceTerm> terms, double level,
                                          const Interrupts& interrupts, double max_work = kCombinationWork);

}  // namespace invariant_dp::accuracy
