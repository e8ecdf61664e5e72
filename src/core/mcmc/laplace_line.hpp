// The law of the step t in Z along one move of the l1 lattice chain, for the
// heat-bath (exact conditional) update: moving a table's noise z by t m,
// where the move m has signs s_k on cells k, changes ||z||_1 on those cells
// to sum_k |z_k + s_k t| = sum_k |t - p_k| with p_k = -s_k z_k, so
//   P(t) ∝ exp(-lambda sum_k |t - p_k|),  lo <= t <= hi.
// The exponent is piecewise linear in t with kinks at the points: between
// consecutive sorted points q_j < t <= q_{j+1} (j points at or below t) its
// slope is -lambda (2j - n), so each piece is a (truncated) geometric law.
// The sampler picks a piece by its mass (relative to the weight at the mode,
// so the heaviest piece never underflows), then a step inside it by
// inversion oriented from the piece's heavier end; the unbounded outer
// pieces (slope +-n lambda toward infinity) are exact geometric tails.
// Floating-point only in the weights (as in the Metropolis ratios elsewhere
// in mcmc/); O(n log n) for n points, about three exponentials per piece and
// one logarithm per draw, no allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../random_source.hpp"

namespace invariant_dp::mcmc {

// A move of a K-way table touches 2^K cells; K <= 6.
constexpr std::size_t kMaxLinePoints = 64;
// Bounds meaning "no bound" (well beyond any reachable noise entry).
constexpr std::int64_t kUnboundedStep = std::int64_t(1) << 40;

// 1 - exp(-lambda m) for m = 0..kMaxLinePoints: the pieces' normalisers
// depend on lambda and the piece's slope only, so a chain computes them once.
// And exp(-lambda m) for integers m below kDecayTable: every weight of a
// line law relative to its mode is one of these (the exponent is lambda
// times an integer, the points being integers), so a step needs no
// exponential (it was half of a heat-bath step's instructions).
class LineRates {
 public:
  static constexpr std::size_t kDecayTable = 4096;

  explicit LineRates(double lambda);  // InvalidArgument unless finite and > 0
  double lambda() const { return lambda_; }
  double one_minus_r(std::size_t m) const { return one_minus_r_[m]; }
  double decay(std::int64_t m) const {  // exp(-lambda m), m >= 0
    return m < std::int64_t(kDecayTable) ? decay_[std::size_t(m)] : std::exp(-lambda_ * double(m));
  }

 private:
  double lambda_;
  std::array<double, kMaxLinePoints + 1> one_minus_r_{};
  std::vector<double> decay_;
};

class LaplaceLine {
 public:
  // points: n values p_k (duplicates allowed), 1 <= n <= kMaxLinePoints;
  // lo <= hi, each within +-kUnboundedStep (the bound itself means
  // unbounded on that side). InvalidArgument otherwise.
  LaplaceLine(const std::int64_t* points, std::size_t n, const LineRates& rates, std::int64_t lo = -kUnboundedStep,
              std::int64_t hi = kUnboundedStep);
  LaplaceLine(const std::int64_t* points, std::size_t n, double lambda, std::int64_t lo = -kUnboundedStep,
              std::int64_t hi = kUnboundedStep)
      : LaplaceLine(points, n, LineRates(lambda), lo, hi) {}

  std::int64_t sample(RandomSource& rng) const { return quantile(rng.uniform_open01()); }
  // The inverse distribution function at u in (0, 1): non-decreasing in u.
  // Two chains that feed it the same u (a common-random-number coupling)
  // take steps that land on the same point whenever their laws are shifts
  // of each other, and stay close otherwise.
  std::int64_t quantile(double u) const;
  // log P(t), normalised; -infinity outside [lo, hi].
  double log_pmf(std::int64_t t) const;
  // The step of largest probability (the median of the points, clamped).
  std::int64_t mode() const { return mode_; }

 private:
  struct Piece {
    std::int64_t first, last;  // integer range; first > last when empty
    double slope;              // d/dt of the log-weight on the piece
    double rate;               // |slope|
    double truncation;         // 1 - exp(-rate len): the geometric law's mass on the piece
    double mass;               // sum of the weights relative to the mode's
  };
  double exponent(std::int64_t t) const;  // -lambda sum |t - p_k|
  std::int64_t distance(std::int64_t t) const;  // sum |t - p_k|
  std::int64_t piece_quantile(const Piece& piece, double u) const;

  // Not value-initialised: only the first n_ (n_pieces_) entries are ever
  // read, all written by the constructor; zeroing 3 KB was most of a step.
  std::array<std::int64_t, kMaxLinePoints> points_;  // sorted
  std::size_t n_ = 0;
  double lambda_ = 0;
  std::int64_t lo_ = 0, hi_ = 0, mode_ = 0;
  std::array<Piece, kMaxLinePoints + 1> pieces_;
  std::size_t n_pieces_ = 0;
  double total_ = 0;       // sum of the pieces' masses
  double mode_exponent_ = 0;
  std::int64_t mode_distance_ = 0;
};

}  // namespace invariant_dp::mcmc
