// The l2 Laplace law q(z) ∝ exp(-lambda ||z||_2) on the lattice of complete
// K-way tables with all their (K-1)-way margins (integer_laplace_l2 with
// crossing margins), by a two-block Gibbs sampler on (z, t):
//   t | z  ~ p(t | ||z||_2)            (latent_precision.hpp), then
//   z | t  ~ the lattice Gaussian exp(-||z||^2 t / 2), each table at once
//            and exactly (samplers/kronecker_gaussian.hpp),
// whose z-marginal is q (exp(-lambda r) is a mixture over t of
// exp(-t r^2 / 2)). Each iteration redraws the whole table, so the chain
// forgets z through one scalar: two chains whose t agree draw the same z
// from the same stream. The coupling (Biswas, Jacob and Vanetti 2019,
// arXiv:1905.09971, section 2) couples t maximally and then draws both z
// from one replayed stream, so a pair meets with the probability that its
// t agree, bounded below at every size (measured: test/bench/README.md).
//
// Why it mixes at every size: for rank m, ||z||^2 given t concentrates at
// m / t and t given r at lambda / r, so log r moves as r' ~ sqrt(m r /
// lambda): the distance to the fixed point m / lambda halves per iteration
// whatever m. The chain starts at the variance 1/t = (m + 1) / lambda^2
// (the latent variance's stationary mean when the lattice sum is replaced
// by its integral: 1/t is then Gamma((m + 1)/2, lambda^2 / 2)), with z
// drawn given it; nothing depends on the data.
//
// The lattice Gaussian takes a rational variance: 1/t is rounded up to a
// denominator <= 2^20 (rational_at_least), a relative change below 1e-6
// wherever the Gaussian is not a point mass at 0 (1/t >= 1) and below 1e-9
// at the variances of tables of 100 cells or more. Where the exact sampler's
// acceptance bound fails (1/t below ~4: small tables only), z | t is
// instead moved by kFallbackSweeps Metropolis sweeps of the table chain at
// that Gaussian, which leave it invariant just as well (the joint law of
// (z, t) stays invariant); such iterations are counted.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/rational.hpp"
#include "coupling.hpp"
#include "latent_precision.hpp"
#include "table_swap_chain.hpp"

namespace invariant_dp::mcmc {

class ScaleMixtureChain {
 public:
  static constexpr std::uint64_t kFallbackSweeps = 20;

  // The moves give the tables (every table free, at most kMaxTableAxes
  // axes) and must outlive the chain; lambda is the l2 rate.
  ScaleMixtureChain(const TableMoves& moves, double lambda);

  // The start described above: z drawn at the variance (m + 1) / lambda^2.
  void start(RandomSource& rng, const Interrupts& interrupts);
  // z drawn at a given latent variance (> 0): over-dispersed starts.
  void start_at(double variance, RandomSource& rng, const Interrupts& interrupts);
  // Starts at z, which the caller guarantees lies in the tables' lattice
  // (InvalidArgument on a wrong length); the next iteration draws t | z.
  void reset_to(const std::vector<std::int64_t>& z);
  // t | z, then z | t.
  void iterate(RandomSource& rng, const Interrupts& interrupts);
  void run(std::uint64_t iterations, RandomSource& rng, const Interrupts& interrupts);

  const std::vector<std::int64_t>& z() const { return z_; }
  double l2() const;               // ||z||_2
  double variance() const { return variance_.to_double(); }  // 1/t of the last draw of z
  std::uint64_t iterations() const { return iterations_; }
  std::uint64_t fallbacks() const { return fallbacks_; }
  const TableMoves& moves() const { return *moves_; }
  const LatentPrecision& precision() const { return precision_; }

  // z | t at the precision t (> 0), from rng.
  void draw_given(double t, RandomSource& rng, const Interrupts& interrupts);

 private:
  void draw_at(Rational variance, RandomSource& rng, const Interrupts& interrupts);

  const TableMoves* moves_;
  LatentPrecision precision_;
  std::uint64_t rank_;
  std::vector<std::int64_t> z_;
  std::vector<std::int64_t> scratch_;
  Rational variance_;
  std::uint64_t iterations_ = 0, fallbacks_ = 0;
};

// One coupled iteration: t maximally coupled, then both z from one
// replayed stream. Equal chains stay equal.
void coupled_iterate(ScaleMixtureChain& x, ScaleMixtureChain& y, RandomSource& rng, const Interrupts& interrupts);

// The L-lag meeting time with one iteration = one Gibbs iteration: both
// chains start as start() does, independently; the leading one runs `lag`
// iterations alone, then coupled ones until they meet or `cap` have passed.
MeetingTime sample_scale_mixture_meeting_time(const TableMoves& moves, double lambda, std::int64_t lag,
                                              std::int64_t cap, RandomSource& rng, const Interrupts& interrupts);

}  // namespace invariant_dp::mcmc
