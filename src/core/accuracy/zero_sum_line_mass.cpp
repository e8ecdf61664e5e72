// Tails of the l1 mass of zero-sum lines of discrete Laplace cells
// (zero_sum_line_mass.hpp; DERIVATIONS.md, section 12).
#include "zero_sum_line_mass.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../errors.hpp"

namespace invariant_dp::accuracy {
namespace {

// The lambdas a bound is taken at: kLambdas of them, evenly in (0, 0.95 / b].
constexpr int kLambdas = 64;
constexpr double kLambdaReach = 0.95;
// Relative margins for the floating-point sums: the trapezoid of G^r sums
// positive terms; that of its derivative mixes signs, dominated by the
// positive ones near theta = 0.
constexpr double kSumMargin = 1e-9, kDerivativeMargin = 1e-6;
constexpr double kPi = 3.14159265358979323846;

struct Trapezoid {
  double z = 0;   // (1/M) sum_k G(theta_k)^r, at least Z(a)
  double dz = 0;  // the same of d/da G^r = r G^(r-1) dG/da, at least Z'(a)
};

// The M-point trapezoid over theta_k = 2 pi k / M, by the symmetry
// theta -> -theta (k and M - k). With 1 - 2 a cos + a^2 = (1 - a)^2 + 4 a
// sin^2(theta/2), exact near a = 1.
Trapezoid trapezoid(double a, int r, std::uint64_t M, const Interrupts& interrupts) {
  const double one_minus_a = -std::expm1(std::log(a)), one_minus_a2 = one_minus_a * (1 + a);
  Trapezoid out;
  for (std::uint64_t k = 0; 2 * k <= M; ++k) {
    interrupts.poll_every(k);
    const double s = std::sin(kPi * double(k) / double(M)), s2 = s * s;
    const double den = one_minus_a * one_minus_a + 4 * a * s2;
    const double g = one_minus_a2 / den;
    const double dg = (2 * one_minus_a * one_minus_a - 4 * (1 + a * a) * s2) / (den * den);
    const double g_r1 = std::pow(g, r - 1);
    const double weight = (k == 0 || 2 * k == M) ? 1 : 2;
    out.z += weight * g_r1 * g;
    out.dz += weight * r * g_r1 * dg;
  }
  out.z /= double(M);
  out.dz /= double(M);
  return out;
}

// The N whose mass 2N reaches a mass point x (none past INT64_MAX).
std::int64_t half_of_mass(std::int64_t x) { return x == INT64_MAX ? x : x / 2 + x % 2; }

// Points enough that the coefficients the trapezoid adds at a are below
// e^-(reach) of Z (a^(M/2) with M (1 - a) >= 2 reach), within [lo, hi].
std::uint64_t points_for(double a, double reach, std::uint64_t lo, std::uint64_t hi) {
  const double wanted = std::ceil(2 * reach / -std::expm1(std::log(a)));
  return std::clamp(static_cast<std::uint64_t>(std::min(wanted, double(hi))), lo, hi);
}

}  // namespace

ZeroSumLineMass::ZeroSumLineMass(Rational b, int r, const Interrupts& interrupts) {
  if (b.num == 0 || b.den == 0 || r < 2) throw InvalidArgument("a zero-sum line needs a positive scale and two cells");
  const double scale = b.to_double();
  if (!(scale <= kMaxScale)) return;
  const double inv_b = double(b.den) / double(b.num), a = std::exp(-inv_b);
  // Z(a) from below: at M (1 - a) >= 200 the coefficients the sum adds,
  // each at most a^(|t|/2) ((1 + sqrt a)/(1 - sqrt a))^r at |t| >= M, are
  // below 1e-25 of Z >= 1 for every b <= kMaxScale.
  const double log_z =
      std::log(trapezoid(a, r, points_for(a, 100, 1024, std::uint64_t(1) << 22), interrupts).z * (1 - kSumMargin));
  for (int k = 1; k <= kLambdas; ++k) {
    const double lambda = kLambdaReach * inv_b * double(k) / kLambdas;
    const double tilted = a * std::exp(lambda);
    // Any number of points bounds Z(tilted) from above; these make it tight.
    const Trapezoid t = trapezoid(tilted, r, points_for(tilted, 20, 256, std::uint64_t(1) << 16), interrupts);
    lambda_.push_back(lambda);
    log_mgf_.push_back(std::log(t.z * (1 + kSumMargin)) - log_z);
    log_mass_mgf_.push_back(std::log(tilted * t.dz * (1 + kDerivativeMargin)) - log_z);
  }
}

double ZeroSumLineMass::tail_bound(double lines, double x) const {
  double best = 0;  // log 1
  for (std::size_t k = 0; k < lambda_.size(); ++k) best = std::min(best, lines * log_mgf_[k] - lambda_[k] * x);
  return lambda_.empty() ? 1 : std::exp(best);
}

std::int64_t ZeroSumLineMass::tail_point(double lines, double p) const {
  if (!(p > 0 && p < 1)) throw InvalidArgument("a tail probability must lie strictly between 0 and 1");
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < lambda_.size(); ++k)
    best = std::min(best, (lines * log_mgf_[k] - std::log(p)) / lambda_[k]);
  if (!(best < 0x1p62)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::ceil(std::max(best, 0.0)));
}

double ZeroSumLineMass::product_tail_bound(double lines, double x) const {
  if (!(lines >= 2)) throw InvalidArgument("a product of two lines' masses needs two lines");
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < lambda_.size(); ++k)
    best = std::min(best, 2 * log_mass_mgf_[k] + (lines - 2) * log_mgf_[k] - lambda_[k] * x);
  return std::exp(best);
}

std::int64_t ZeroSumLineMass::product_tail_point(double lines, double p) const {
  if (!(lines >= 2)) throw InvalidArgument("a product of two lines' masses needs two lines");
  if (!(p > 0)) throw InvalidArgument("a tail bound's target must be positive");
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < lambda_.size(); ++k)
    best = std::min(best, (2 * log_mass_mgf_[k] + (lines - 2) * log_mgf_[k] - std::log(p)) / lambda_[k]);
  if (!(best < 0x1p62)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::ceil(std::max(best, 0.0)));
}

LinesAliasing::LinesAliasing(Rational b, int r, std::uint64_t lines, const Interrupts& interrupts)
    : cells_(IntegerNoise{IntegerNoise::Kind::laplace, b}),
      mass_(b, r, interrupts),
      line_sums_{{1, lines}},
      d_(r - 1),
      lines_(double(lines)) {}

double LinesAliasing::bound(double N) const {
  return std::min(cells_.tail_bound(line_sums_, N) * d_, mass_.tail_bound(lines_, 2 * N));
}

std::int64_t LinesAliasing::point(double p) const {
  return std::min(cells_.tail_point(line_sums_, p), half_of_mass(mass_.tail_point(lines_, p * d_)));
}

double LinesAliasing::product_bound(double N) const {
  const auto lines = static_cast<std::uint64_t>(lines_);
  return std::min(cells_.product_tail_bound(lines, N) * d_, mass_.product_tail_bound(lines_, 2 * N));
}

std::int64_t LinesAliasing::product_point(double p) const {
  const auto lines = static_cast<std::uint64_t>(lines_);
  return std::min(cells_.product_tail_point(lines, p), half_of_mass(mass_.product_tail_point(lines_, p * d_)));
}

}  // namespace invariant_dp::accuracy
