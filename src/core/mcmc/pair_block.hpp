// The exact law of two lines of a two-way table's l1 noise given the rest of
// the table (a pair of rows, or a pair of columns), for the block updates
// of the table chain (table_swap_chain.hpp).
//
// With the other lines fixed, the pair's sums s_j = z_1j + z_2j per
// position and the first line's total are fixed, so the block is the first
// line u alone:
//   P(u) ∝ prod_j exp(-lambda (|u_j| + |s_j - u_j|)),   sum_j u_j = total.
// Each factor is a plateau on [min(0, s_j), max(0, s_j)] with geometric
// tails of ratio rho = exp(-2 lambda):
//   g_j(a_j + w) ∝ rho^dist(w, [0, L_j]),  a_j = min(0, s_j), L_j = |s_j|.
// Such a plateau is a mixture of the two-sided geometric kernel rho^|e|:
//   g_j = alpha_j * rho^|.|,  alpha_j ∝ 1 at 0 and L_j, 1 - rho inside
// (apply the kernel's inverse, ((1 + rho^2) f(w) - rho f(w-1) - rho f(w+1))
// / (1 - rho^2), to the plateau: zero on the tails, nonnegative on it), and
// a two-sided geometric is the difference of two geometrics. So
//   u_j = a_j + C_j + G+_j - G-_j,
// C_j ~ alpha_j, G+ and G- i.i.d. geometric(rho) on {0, 1, ...}, all
// independent, conditioned on sum_j u_j = total. Given their totals N+
// and N-, the G+ (and the G-) are a uniform composition (the weight
// rho^N+ does not depend on how N+ is split), and N+, N- are negative
// binomial NB(n, rho). The sampler is the exact rejection of
// probabilistic divide-and-conquer with a deterministic second half
// (Arratia and DeSalvo 2016, arXiv:1110.3856; DeSalvo 2014, arXiv:
// 1411.6698): draw C and N- from their free laws, set N+ from the
// constraint, accept with probability NB(N+) / max NB; then split N+ and
// N- uniformly. The acceptance is about
// (2 + Var(sum C) / Var(N+))^(-1/2), 0.5 to 0.7 whatever n, so a block
// costs O(n + N+ + N-) = O(n) expected.
//
// Every draw is an inversion of one uniform, in a fixed order (n + 2 per
// trial, then n - 1 per composition), so two chains fed the same stream
// (a common-random-number coupling) make the same block whenever their
// sums and totals agree, whatever the block held before; and a sum that
// differs by one moves a few parts by one (every inversion is monotone in
// its law's parameter).
//
// Floating point only in the weights, as in laplace_line.hpp; the negative
// binomial is tabulated where its weight exceeds 2^-64 of the mode's,
// below the resolution of a 53-bit uniform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../random_source.hpp"

namespace invariant_dp::mcmc {

class PairBlockLaw {
 public:
  // n positions (n >= 1) and the l1 rate lambda (finite, > 0); else
  // InvalidArgument. TooLarge when the negative binomial's table would
  // exceed kMaxTable entries (lambda far below any calibrated epsilon).
  PairBlockLaw(std::size_t n, double lambda);

  std::size_t n() const { return n_; }
  double rho() const { return rho_; }

  // sums: n values s_j; total: sum of the first line. Writes the first
  // line to `first` (n values); the second is s_j - first[j].
  void sample(const std::int64_t* sums, std::int64_t total, std::int64_t* first, RandomSource& rng) const;

  // The expected number of trials is 1 / acceptance; exposed for tests.
  std::uint64_t trials() const { return trials_; }

  static constexpr std::size_t kMaxTable = std::size_t(1) << 22;

 private:
  std::int64_t plateau_quantile(std::int64_t length, double u) const;  // C_j
  std::int64_t negative_binomial_quantile(double u) const;             // N-
  // Splits `total` into n parts uniformly, adding +-1 per unit to out.
  void add_composition(std::int64_t total, int sign, std::int64_t* out, RandomSource& rng) const;

  std::size_t n_;
  double rho_;
  double one_minus_rho_;
  // NB(n, rho) weights relative to the mode on [nb_first_, nb_first_ + size),
  // and their running sums for the inversion.
  std::int64_t nb_first_ = 0;
  std::vector<double> nb_relative_;
  std::vector<double> nb_cumulative_;
  std::vector<double> reciprocal_;  // 1/k, the compositions' denominators
  double inverse_one_minus_rho_;
  mutable std::uint64_t trials_ = 0;
};

}  // namespace invariant_dp::mcmc
