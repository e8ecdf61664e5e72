// Two Laplace combinations whose law has a closed form (DERIVATIONS.md,
// section 18, "A group's cell in closed form"): with L_j i.i.d.
// Laplace(1) and T_m = L_1 + ... + L_m,
//   T_n                    (one weight carried by n variables), and
//   Y = r L_0 - T_m, r > 1 (one weight carried once, r times another
//                           carried by m variables),
// the second being a subspace_laplace cell of a margin group of g = m + 1
// cells (r = m), scaled by b/g. T_m's density is e^(-|t|) times a
// polynomial in |t| of positive coefficients, so P(|Y| > y) is a sum of
// Poisson probabilities weighted by positive numbers: O(m) a coverage,
// where the Fourier series (laplace_combination.hpp) takes some 600 terms
// of logarithms and exponentials to set up and more to sum; a margin
// whose groups take hundreds of sizes needs a law per size.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "../interrupts.hpp"
#include "fourier_coverage.hpp"

namespace invariant_dp::accuracy {

struct LaplaceTerm;

// The most variables a closed form takes (its coefficients stay within
// double's range below about 1,000; larger groups take the series).
constexpr std::size_t kMaxClosedFormVariables = 1000;

class LaplaceClosedForm {
 public:
  // X = unit (r L_0 - T_m), or unit T_m for r = 0.
  LaplaceClosedForm(double unit, double r, std::size_t m);
  // The form of sum_j v_j L_j (L_j Laplace(b), terms as LaplaceCombination
  // takes them: |weights|, counts) when it is one of the two, within
  // kMaxClosedFormVariables.
  static std::optional<LaplaceClosedForm> of(double b, const std::vector<LaplaceTerm>& terms);

  // P(|X| <= x), enclosed, for x >= 0; `slope`, when given, receives its
  // derivative in x (twice the density at x).
  CoverageBounds coverage(double x, const Interrupts& interrupts, double* slope = nullptr) const;
  std::size_t variables() const { return m_ + (r_ > 0 ? 1 : 0); }

 private:
  double unit_ = 0, r_ = 0;
  std::size_t m_ = 0;
  // Weights over k < m with their prefix sums (sum[k] = the weights below
  // k), in double (each within 11m units of it).
  struct Weights {
    std::vector<double> w, sum;
  };
  // d_k = c_k k!, T_m's density e^(-|t|) sum_k c_k |t|^k; for r > 0 also
  // d_k / beta1^(k+1) and d_k / beta2^(k+1), beta = 1 -+ 1/r.
  Weights d_, over_beta1_, over_beta2_;
};

}  // namespace invariant_dp::accuracy
