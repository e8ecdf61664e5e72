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
// 1411.6698): draw C and G- from their free laws, set N+ from the
// constraint, accept with probability NB(N+) / max NB; then split N+
// uniformly. The acceptance is about (2 + Var(sum C) / Var(N+))^(-1/2),
// 0.5 to 0.7 whatever n (measured: two trials a block at epsilon = 1).
//
// The uniform split of N+ into n parts: n i.i.d. geometrics G' (given
// their sum N' a uniform composition of N', as above), then moved to N+ a
// unit at a time. Adding a unit to part j with probability
// (G'_j + 1) / (N + n) takes a uniform composition of N to a uniform one of
// N + 1: a composition h of N + 1 comes from h - e_j for each j with
// h_j >= 1, in all with probability
//   sum_j h_j / (N + n) / C(N + n - 1, n - 1)
//     = (N + 1) / (N + n) / C(N + n - 1, n - 1) = 1 / C(N + n, n - 1).
// Removing a unit from part j with probability G'_j / N takes it to a
// uniform one of N - 1: sum_j (h_j + 1) / N / C(N + n - 1, n - 1)
// = (N + n - 1) / N / C(N + n - 1, n - 1) = 1 / C(N + n - 2, n - 1). The
// units moved are |N+ - N'|, about the standard deviation of N',
// sqrt(n rho) / (1 - rho); each picks its part with one exact uniform
// integer over the units (and one more per part when adding), found in a
// Fenwick tree of the parts in O(log n). So a block costs
// O(n + sqrt(n) log n) expected, mostly 5n table lookups at two trials.
//
// Every draw of C, G- and G' is an inversion of one uniform, in a fixed
// order (2n + 1 per trial, then n), so two chains fed the same stream (a
// common-random-number coupling) make the same block whenever their sums
// and totals agree, whatever the block held before; and chains whose sums
// differ a little make blocks a little apart: every inversion is monotone
// in its law's parameter, and the unit moves of two chains whose N+
// differ by d repeat each other's choices while both move the same way,
// so their splits end d units apart. The uniforms come 16 bits at a time,
// completed to 53 only where those do not settle the inversion
// (chunked_uniforms.hpp): the same law as whole uniforms, for a quarter of
// their random words. Where the first 8 bits settle it, the inversion of
// C_j (plateaus of length at most kPlateauTable) is a lookup in a table of
// 256 entries built from the same inversion, and so is a geometric's where
// 16 bits do (a second level of 256 entries for each of the few ranges of
// 8 bits holding a tail probability).
//
// Floating point only in the weights, as in laplace_line.hpp; the negative
// binomial is tabulated where its weight exceeds 2^-64 of the mode's,
// below the resolution of a 53-bit uniform, and so are the geometric's
// tail probabilities rho^m above 2^-54, below every uniform. The unit
// moves' choices are exact integer draws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../random_source.hpp"
#include "chunked_uniforms.hpp"

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
  // line to `first` (n values); the second is s_j - first[j]; `scratch`
  // holds kScratchPerPosition n + 1 values. Returns the number of trials
  // (1 / acceptance expected). Reads only this object, so threads may
  // share it.
  std::uint64_t sample(const std::int64_t* sums, std::int64_t total, std::int64_t* first, std::int64_t* scratch,
                       ChunkedUniforms& uniforms) const;
  std::uint64_t sample(const std::int64_t* sums, std::int64_t total, std::int64_t* first, RandomSource& rng) const;

  static constexpr std::size_t kScratchPerPosition = 2;
  static constexpr std::size_t kMaxTable = std::size_t(1) << 22;
  // Plateaus up to this length are drawn through a table of 256 entries.
  static constexpr std::size_t kPlateauTable = 32;

 private:
  std::int64_t plateau_quantile(std::int64_t length, double u) const;  // C_j at u
  std::int64_t geometric_quantile(double u) const;                     // a geometric at u
  // Draws whose first 8 bits the tables do not settle.
  std::int64_t unsettled_plateau(std::int64_t length, const ChunkedUniforms::Draw& draw,
                                 ChunkedUniforms& uniforms) const;
  std::int64_t unsettled_geometric(const ChunkedUniforms::Draw& draw, ChunkedUniforms& uniforms) const;
  std::int64_t geometric(std::uint64_t chunk, ChunkedUniforms& uniforms) const {
    const std::uint8_t settled = geometric_by_chunk_(chunk);
    return settled != ChunkedUniforms::kUnsettled ? settled
                                                  : unsettled_geometric(ChunkedUniforms::Draw{chunk}, uniforms);
  }
  // Splits `total` into n parts uniformly, adding them to out (scratch: 2n + 1 values).
  void add_composition(std::int64_t total, std::int64_t* out, std::int64_t* scratch, ChunkedUniforms& uniforms) const;

  std::size_t n_;
  double rho_;
  double one_minus_rho_;
  double inverse_one_minus_rho_;
  // NB(n, rho) weights relative to the mode on [nb_first_, nb_first_ + size).
  std::int64_t nb_first_ = 0;
  std::vector<double> nb_relative_;
  std::vector<double> geometric_tail_;  // rho^m, m = 0, 1, ... while above 2^-54
  ChunkedUniforms::ChunkTable geometric_by_chunk_;                // 8 bits, then 8 more
  std::vector<ChunkedUniforms::ChunkTable> plateau_by_chunk_;  // 8 bits; lengths 0 .. kPlateauTable

};

}  // namespace invariant_dp::mcmc
