// The heat-bath step law of the l1 chain; see laplace_line.hpp.
#include "laplace_line.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"

namespace invariant_dp::mcmc {
LineRates::LineRates(double lambda) : lambda_(lambda) {
  if (!(std::isfinite(lambda) && lambda > 0)) throw InvalidArgument("the l1 rate must be finite and positive");
  for (std::size_t m = 0; m <= kMaxLinePoints; ++m) one_minus_r_[m] = -std::expm1(-lambda * double(m));
  decay_.resize(kDecayTable);
  for (std::size_t m = 0; m < kDecayTable; ++m) decay_[m] = std::exp(-lambda * double(m));
}

LaplaceLine::LaplaceLine(const std::int64_t* points, std::size_t n, const LineRates& rates, std::int64_t lo,
                         std::int64_t hi)
    : n_(n), lambda_(rates.lambda()), lo_(lo), hi_(hi) {
  if (n == 0 || n > kMaxLinePoints) throw InvalidArgument("a chain move touches too many or no cells");
  const double lambda = lambda_;
  if (lo > hi || lo < -kUnboundedStep || hi > kUnboundedStep)
    throw InvalidArgument("the step range of a chain move is empty or out of range");
  for (std::size_t k = 0; k < n; ++k) {
    if (points[k] <= -kUnboundedStep || points[k] >= kUnboundedStep)
      throw OutOfRange("lattice noise entry exceeds the sampler's range");
    points_[k] = points[k];
  }
  if (n == 4) {  // a 2x2 move: a five-comparator network, no branches
    auto order = [&](std::size_t a, std::size_t b) {
      const std::int64_t x = points_[a], y = points_[b];
      points_[a] = std::min(x, y);
      points_[b] = std::max(x, y);
    };
    order(0, 1), order(2, 3), order(0, 2), order(1, 3), order(1, 2);
  } else {
    std::sort(points_.begin(), points_.begin() + std::ptrdiff_t(n));
  }
  // Piece 0 is t <= q_0, piece j (1..n-1) is q_{j-1} < t <= q_j, piece n
  // is t > q_{n-1}: j points lie below each t of piece j, so the slope of
  // the exponent there is -lambda (j - (n - j)).
  // sum_k |t - q_k| at the sorted points, each from the previous one (the
  // slope between q_{j-1} and q_j is 2j - n), and so at any t of piece j
  // from the piece's lower point: no sum over the points per piece.
  std::array<std::int64_t, kMaxLinePoints> at_point;
  at_point[0] = 0;
  for (std::size_t k = 1; k < n; ++k) at_point[0] += points_[k] - points_[0];
  for (std::size_t j = 1; j < n; ++j)
    at_point[j] = at_point[j - 1] + (points_[j] - points_[j - 1]) * (2 * std::int64_t(j) - std::int64_t(n));
  auto distance_in_piece = [&](std::size_t j, std::int64_t t) {
    if (j == 0) return at_point[0] + (points_[0] - t) * std::int64_t(n);
    return at_point[j - 1] + (t - points_[j - 1]) * (2 * std::int64_t(j) - std::int64_t(n));
  };
  const std::size_t median = (n - 1) / 2;
  mode_ = std::clamp(points_[median], lo, hi);  // the exponent is concave, maximal at the median
  mode_distance_ = mode_ == points_[median] ? at_point[median] : distance(mode_);
  mode_exponent_ = -lambda * double(mode_distance_);
  total_ = 0;
  for (std::size_t j = 0; j <= n; ++j) {
    Piece piece;
    piece.first = j == 0 ? lo : std::max(lo, points_[j - 1] + 1);
    piece.last = j == n ? hi : std::min(hi, points_[j]);
    const std::size_t steepness = 2 * j > n ? 2 * j - n : n - 2 * j;  // |2j - n|
    piece.slope = -lambda * (2.0 * double(j) - double(n));
    piece.rate = lambda * double(steepness);
    if (piece.first > piece.last) continue;
    const bool rising = piece.slope > 0;  // heavier at the last step
    const std::int64_t heavy = rising ? piece.last : piece.first;
    const bool unbounded = (rising && piece.first == -kUnboundedStep) || (!rising && piece.last == kUnboundedStep);
    const std::int64_t len = unbounded ? kUnboundedStep : piece.last - piece.first + 1;
    if (unbounded && piece.rate == 0) throw InvalidArgument("the step law of a chain move is not normalisable");
    // sum_{i < len} exp(-rate i) = (1 - exp(-rate len)) / (1 - exp(-rate)), or len at rate 0.
    double geometric_sum;
    if (piece.rate == 0) {
      piece.truncation = 1;
      geometric_sum = double(len);
    } else {
      // 1 - exp(-rate len), rate = lambda steepness: from the table where
      // the difference keeps full precision (rate len >= 1/2, so the result
      // is >= 0.39), else expm1.
      piece.truncation = unbounded                         ? 1.0
                         : piece.rate * double(len) >= 0.5 ? 1 - rates.decay(std::int64_t(steepness) * len)
                                                           : -std::expm1(-piece.rate * double(len));
      geometric_sum = piece.truncation / rates.one_minus_r(steepness);
    }
    piece.mass = rates.decay(distance_in_piece(j, heavy) - mode_distance_) * geometric_sum;
    total_ += piece.mass;
    pieces_[n_pieces_++] = piece;
  }
}

std::int64_t LaplaceLine::distance(std::int64_t t) const {
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < n_; ++k) sum += t > points_[k] ? t - points_[k] : points_[k] - t;
  return sum;
}

double LaplaceLine::exponent(std::int64_t t) const {
  double sum = 0;
  for (std::size_t k = 0; k < n_; ++k) sum += std::fabs(double(t - points_[k]));
  return -lambda_ * sum;
}

// Inversion of the geometric law truncated to the piece: P(offset >= i)
// ∝ r^i - r^len with r = exp(-|slope|), offsets counted from the heavy end
// and turned so that t grows with u.
// Inversion of the geometric law truncated to the piece: P(offset >= i)
// ∝ r^i - r^len with r = exp(-rate), offsets counted from the heavy end and
// turned so that t grows with u.
std::int64_t LaplaceLine::piece_quantile(const Piece& piece, double u) const {
  const bool rising = piece.slope > 0;
  const bool unbounded = (rising && piece.first == -kUnboundedStep) || (!rising && piece.last == kUnboundedStep);
  const std::int64_t len = unbounded ? kUnboundedStep : piece.last - piece.first + 1;
  const double v = rising ? 1 - u : u;  // mass from the heavy end
  const std::int64_t offset =
      piece.rate == 0 ? std::int64_t(std::floor(v * double(len)))
                      : std::int64_t(std::floor(-std::log1p(-v * piece.truncation) / piece.rate));
  const std::int64_t clamped = std::clamp<std::int64_t>(offset, 0, len - 1);  // rounding at the ends
  return rising ? piece.last - clamped : piece.first + clamped;
}

std::int64_t LaplaceLine::quantile(double u) const {
  const double target = u * total_;
  double cumulative = 0;
  for (std::size_t j = 0; j < n_pieces_; ++j) {
    const double mass = pieces_[j].mass;
    if (target < cumulative + mass || j + 1 == n_pieces_)
      return piece_quantile(pieces_[j], mass > 0 ? std::clamp((target - cumulative) / mass, 0.0, 1.0) : 0.5);
    cumulative += mass;
  }
  return mode_;  // unreachable: there is at least one piece
}

double LaplaceLine::log_pmf(std::int64_t t) const {
  if (t < lo_ || t > hi_) return -INFINITY;
  return exponent(t) - mode_exponent_ - std::log(total_);
}

}  // namespace invariant_dp::mcmc
