// Appending leaves to a released ordered (time) binary hierarchy without
// redrawing the old ones (Dharangutte, Gao, Gong, Wang 2024,
// arXiv:2402.07066, Remark 3.6; the algorithm of its Appendix D.1 is not in
// the text, so the construction below is ours: DERIVATIONS.md, section 7).
//
// Growth: with 2^h leaves released under a root of noise R, the next leaf
// opens a new root R' whose right child S is drawn conditionally on R,
//   S = -R/2 + (sqrt(3)/2) sqrt(v) Y,   R' = R + S,
// which gives (R', R, S) the law of a top-down split of R' (S | R ~
// N(-R/2, 3v/4)). Then only the path from S down to the new leaf is split
// (paper eq. 2), and each unused right child waits in the secret state.
// Output law: after n appends the leaves have exactly the law of the first n
// leaves of a perfect binary cascade of any height H >= log2(n) with every
// node at variance v, and each is drawn once: a refresh never changes an
// earlier leaf. O(1) amortized draws per leaf, at most log2(n) + 1.
//
// Privacy accounting. Calibrate v once for the horizon K (at most 2^K leaves
// ever; append refuses more): the whole stream is then a prefix of one
// release of the depth-K cascade, whose Mahalanobis sensitivity is
// 1 + K/3 (add_remove) or (2K + 2)/3 (replace_one) at unit variance
// (unit_sensitivity_squared; calibrate with analytic_gaussian_sigma or rho =
// M/(2v)). Every refresh publishes a prefix of that vector, a marginal,
// and a marginal's Mahalanobis sensitivity is at most the full one (Schur
// complement), so all refreshes together cost the one (eps, delta) or rho of
// the horizon, not one budget per refresh. Each person must contribute to one
// leaf (one time step). The argument treats the counts as fixed in advance;
// counts chosen after seeing earlier releases are covered for linear
// Gaussian mechanisms by the adaptive continual-release analysis of
// Denisov, McMahan, Rush, Smith, Thakurta (NeurIPS 2022), not proved here.
// The state holds the noise of released leaves and of pending nodes: it is as
// secret as the noise itself (anyone holding it can subtract the noise) and
// must never be published; losing it only means no further appends.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../interrupts.hpp"
#include "../privacy/neighbours.hpp"
#include "../random_source.hpp"

namespace invariant_dp::hierarchy {

class StreamingCascade {
 public:
  // variance: of every node; horizon: at most 2^horizon leaves (<= 62).
  StreamingCascade(double variance, unsigned horizon);

  // Noise of the next `count` leaves, in time order. TooLarge past the horizon
  // (nothing is drawn then).
  std::vector<double> append(std::uint64_t count, RandomSource& rng, const Interrupts& interrupts);

  std::uint64_t n_released() const { return n_; }
  double variance() const { return variance_; }
  unsigned horizon() const { return horizon_; }

  // Exact text form (hex floats) for a database to keep between refreshes;
  // deserialize() throws InvalidData on anything malformed or inconsistent.
  std::string serialize() const;
  static StreamingCascade deserialize(const std::string& state);

  // Var of the sum of released leaves lo..hi (inclusive): O(log n).
  double range_variance(std::uint64_t lo, std::uint64_t hi) const;

  // The same variance from public parameters only (no state): a prefix of
  // the stream has the law of any perfect cascade above it, so the variance
  // of leaves lo..hi does not depend on how many leaves follow them.
  static double prefix_range_variance(double variance, std::uint64_t lo, std::uint64_t hi);

  // max dx' Sigma^-1 dx of the depth-horizon cascade at unit variance.
  static double unit_sensitivity_squared(unsigned horizon, Neighbours neighbours);

 private:
  double variance_;
  unsigned horizon_;
  std::uint64_t n_ = 0;
  unsigned height_ = 0;  // the current root covers 2^height_ leaves
  double root_ = 0;      // its noise
  // Sampled nodes not yet entered: (height, noise); the lowest on top.
  std::vector<std::pair<unsigned, double>> pending_;
};

}  // namespace invariant_dp::hierarchy
