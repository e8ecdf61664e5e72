// The exact law of a pair of lines of a two-way table; see pair_block.hpp.
#include "pair_block.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"

namespace invariant_dp::mcmc {

PairBlockLaw::PairBlockLaw(std::size_t n, double lambda) : n_(n) {
  if (n == 0) throw InvalidArgument("a pair block needs at least one position");
  if (!(std::isfinite(lambda) && lambda > 0)) throw InvalidArgument("the l1 rate must be finite and positive");
  rho_ = std::exp(-2 * lambda);
  one_minus_rho_ = -std::expm1(-2 * lambda);
  // NB(n, rho): P(m) ∝ C(m + n - 1, m) rho^m, ratio P(m+1)/P(m) = rho (m + n) / (m + 1),
  // largest at floor((n - 1) rho / (1 - rho)). Walk out from the mode in
  // both directions while the weight exceeds 2^-64 of the mode's.
  const double nd = double(n);
  // The table spans about 19 standard deviations sqrt(n rho) / (1 - rho).
  if (19 * std::sqrt(nd * rho_) / one_minus_rho_ > double(kMaxTable))
    throw TooLarge("the l1 rate is too small for the table chain's block updates");
  const std::int64_t mode = std::int64_t(std::floor((nd - 1) * rho_ / one_minus_rho_));
  constexpr double kNegligible = 5.421010862427522e-20;  // 2^-64
  std::vector<double> below, above{1.0};
  // Ends: the table grows by one a pass and is refused past kMaxTable.
  for (double w = 1; ;) {  // m = mode + above.size() - 1 -> next
    const double m = double(mode) + double(above.size()) - 1;
    w *= rho_ * (m + nd) / (m + 1);
    if (w < kNegligible) break;
    above.push_back(w);
    if (above.size() > kMaxTable) throw TooLarge("the l1 rate is too small for the table chain's block updates");
  }
  // Ends: the table grows by one a pass and is refused past kMaxTable.
  for (double w = 1; mode - std::int64_t(below.size()) > 0;) {  // m -> m - 1
    const double m = double(mode) - double(below.size());
    w *= m / (rho_ * (m - 1 + nd));
    if (w < kNegligible) break;
    below.push_back(w);
    if (below.size() > kMaxTable) throw TooLarge("the l1 rate is too small for the table chain's block updates");
  }
  nb_first_ = mode - std::int64_t(below.size());
  nb_relative_.assign(below.rbegin(), below.rend());
  nb_relative_.insert(nb_relative_.end(), above.begin(), above.end());
  nb_cumulative_.resize(nb_relative_.size());
  double sum = 0;
  for (std::size_t i = 0; i < nb_relative_.size(); ++i) nb_cumulative_[i] = sum += nb_relative_[i];
  // 1/k for every denominator R - g + parts - 1 of a composition: R is at
  // most the largest tabulated N+ or N-.
  const std::size_t largest = std::size_t(nb_first_) + nb_relative_.size() + n_;
  reciprocal_.resize(largest + 1);
  reciprocal_[0] = 0;
  for (std::size_t k = 1; k <= largest; ++k) reciprocal_[k] = 1.0 / double(k);
  inverse_one_minus_rho_ = 1 / one_minus_rho_;
}

// alpha on {0..L}: weight 1 at both ends, 1 - rho inside (L >= 1).
// Inversion, so the draw is monotone in L for a fixed u.
std::int64_t PairBlockLaw::plateau_quantile(std::int64_t length, double u) const {
  const double inside = double(length - 1) * one_minus_rho_;
  double x = u * (2 + inside);
  if (x < 1) return 0;
  x -= 1;
  if (x >= inside) return length;
  return std::min<std::int64_t>(length - 1, 1 + std::int64_t(x * inverse_one_minus_rho_));
}

std::int64_t PairBlockLaw::negative_binomial_quantile(double u) const {
  const double target = u * nb_cumulative_.back();
  const auto it = std::upper_bound(nb_cumulative_.begin(), nb_cumulative_.end(), target);
  const std::size_t i = std::min<std::size_t>(std::size_t(it - nb_cumulative_.begin()), nb_cumulative_.size() - 1);
  return nb_first_ + std::int64_t(i);
}

// A uniform composition of `total` into n parts, part by part: given the
// rest R over c parts, the next part is >= g with probability
// prod_{i<g} (R - i) / (R + c - 1 - i) (the compositions of the remainder
// counted by binomials), inverted by walking g up. One uniform per part
// whatever `total`, and the part grows with R for a fixed uniform by at
// most one when R grows by one, so a larger total by one adds one unit to
// a single part.
void PairBlockLaw::add_composition(std::int64_t total, int sign, std::int64_t* out, RandomSource& rng) const {
  std::int64_t rest = total;
  for (std::size_t j = 0; j + 1 < n_; ++j) {
    const double u = rng.uniform_open01();
    const std::size_t others = n_ - j - 1;  // parts after this one
    std::int64_t g = 0;
    double survival = 1;
    // Four steps at a time while no factor can vanish: the count of
    // survivals above u is the number of steps taken (they decrease), with
    // one branch per four steps instead of one per step.
    // Ends: g grows by four a pass up to rest.
    while (rest - g >= 4) {
      const std::int64_t m = rest - g;
      const double* r = &reciprocal_[std::size_t(m) + others];
      const double a = survival * double(m) * r[0];
      const double b = a * double(m - 1) * r[-1];
      const double c = b * double(m - 2) * r[-2];
      const double d = c * double(m - 3) * r[-3];
      const int steps = int(a > u) + int(b > u) + int(c > u) + int(d > u);
      g += steps;
      if (steps < 4) goto done;
      survival = d;
    }
    // Ends: g grows by one a pass up to rest.
    while (g < rest) {
      survival *= double(rest - g) * reciprocal_[std::size_t(rest - g) + others];
      if (survival <= u) break;
      ++g;
    }
  done:
    out[j] += sign * g;
    rest -= g;
  }
  out[n_ - 1] += sign * rest;
}

void PairBlockLaw::sample(const std::int64_t* sums, std::int64_t total, std::int64_t* first, RandomSource& rng) const {
  std::int64_t lows = 0;  // sum of a_j
  for (std::size_t j = 0; j < n_; ++j) lows += std::min<std::int64_t>(0, sums[j]);
  const std::int64_t target = total - lows;  // sum of C + N+ - N-
  const std::int64_t nb_last = nb_first_ + std::int64_t(nb_relative_.size()) - 1;
  std::int64_t plus, minus;
  // Ends: a trial is accepted with probability about (2 + Var(sum C) / Var(N+))^(-1/2), 0.5 to 0.7 (above),
  // each pass O(n).
  for (;;) {
    ++trials_;
    std::int64_t k = 0;
    // One uniform per position even where the plateau is the point 0:
    // chains whose sums differ somewhere keep reading the same uniform for
    // the same position (a skipped draw would shift every later one).
    for (std::size_t j = 0; j < n_; ++j) {
      const std::int64_t s = sums[j];
      const double u = rng.uniform_open01();
      const std::int64_t c = s == 0 ? 0 : plateau_quantile(s < 0 ? -s : s, u);
      first[j] = std::min<std::int64_t>(0, s) + c;
      k += c;
    }
    minus = negative_binomial_quantile(rng.uniform_open01());
    plus = minus + target - k;
    const double v = rng.uniform_open01();
    if (plus >= nb_first_ && plus <= nb_last && v < nb_relative_[std::size_t(plus - nb_first_)]) break;
  }
  add_composition(plus, 1, first, rng);
  add_composition(minus, -1, first, rng);
}

}  // namespace invariant_dp::mcmc
