// Transforms and tails of the integer noise laws (integer_noise_transforms.hpp).
#include "integer_noise_transforms.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../math_constants.hpp"
#include "../samplers/discrete_gaussian.hpp"
#include "../samplers/interval.hpp"
#include "../samplers/two_line_table.hpp"

namespace invariant_dp::accuracy {
namespace {

// Terms of the theta series below this share of the sum are dropped: every
// remaining term is smaller still (they decrease geometrically).
constexpr double kSeriesCut = 1e-20;

}  // namespace

IntegerNoise halved(IntegerNoise noise) {
  noise.parameter = half_of(noise.parameter);
  return noise;
}

std::uint64_t folded_residue(std::uint64_t r, std::uint64_t N) {
  const std::uint64_t x = r % N;
  return std::min(x, N - x);
}

double sin_pi_fraction(std::uint64_t x, std::uint64_t N) { return std::sin(kPi * (double(x) / double(N))); }

NoiseTransform::NoiseTransform(IntegerNoise noise) : noise_(noise) {
  if (noise.parameter.num == 0 || noise.parameter.den == 0)
    throw InvalidArgument("an integer noise law needs a positive parameter");
  if (noise.kind == IntegerNoise::Kind::laplace) {
    inv_b_ = double(noise.parameter.den) / double(noise.parameter.num);
    const double a = std::exp(-inv_b_), one_minus_a = -std::expm1(-inv_b_);
    kappa_ = 4 * a / (one_minus_a * one_minus_a);
    const double one_minus_a2 = -std::expm1(-2 * inv_b_);
    kappa2_ = 4 * a * a / (one_minus_a2 * one_minus_a2);
    variance_ = 2 * a / (one_minus_a * one_minus_a);
  } else {
    s2_ = noise.parameter.to_double();
    // The norm serves the Poisson form alone (s2 >= 1/4): below, its series
    // would need about 1/sqrt(s2) terms.
    double norm = 0;
    if (s2_ >= 0.25) {
      // Ends: s2 >= 1/4 here, so the terms fall below exp(-pi^2 k^2 / 2): k <= 4.
      for (int k = 1;; ++k) {
        const double term = std::exp(-2 * kPi * kPi * s2_ * k * k);
        norm += 2 * term;
        if (term <= kSeriesCut * (1 + norm)) break;
      }
    }
    log_norm_ = std::log1p(norm);
    variance_ = discrete_gaussian_variance(noise.parameter);
  }
}

double NoiseTransform::log_phi(std::uint64_t r, std::uint64_t N) const {
  const std::uint64_t x = folded_residue(r, N);
  if (x == 0) return 0;
  if (noise_.kind == IntegerNoise::Kind::laplace) {
    const double s = sin_pi_fraction(x, N);
    return -std::log1p(kappa_ * s * s);
  }
  const double theta = 2 * kPi * (double(x) / double(N));  // in (0, pi]
  if (s2_ >= 0.25) {
    // Poisson form: exp(-s2 theta^2 / 2) times 1 + the aliases k != 0,
    // exp(-s2 ((theta - 2 pi k)^2 - theta^2) / 2) = exp(-2 s2 pi k (pi k - theta)).
    double aliases = 0;
    // Ends: s2 >= 1/4 and theta <= pi, so from k = 2 the terms fall as exp(-pi^2 k (k - 1) / 2): k <= 5.
    for (int k = 1;; ++k) {
      const double above = std::exp(-2 * s2_ * kPi * k * (kPi * k - theta));
      const double below = std::exp(-2 * s2_ * kPi * k * (kPi * k + theta));
      aliases += above + below;
      if (above <= kSeriesCut * (1 + aliases)) break;
    }
    return -s2_ * theta * theta / 2 + std::log1p(aliases) - log_norm_;
  }
  // Direct form: phi = 1 + (sum_y 2 rho(y) (cos(theta y) - 1)) / (1 + 2 sum_y rho(y)),
  // cos(theta y) - 1 = -2 sin^2(pi x y / N), the angle x y reduced exactly.
  double diff = 0, den = 1;
  // Ends: s2 < 1/4 here, so rho(y) <= exp(-2 y^2) reaches the cut by y = 5.
  for (std::uint64_t y = 1;; ++y) {
    const double rho = std::exp(-double(y) * double(y) / (2 * s2_));
    const auto xy = static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * y) % N);
    const double s = sin_pi_fraction(folded_residue(xy, N), N);
    diff -= 4 * rho * s * s;
    den += 2 * rho;
    if (rho <= kSeriesCut) break;
  }
  return std::log1p(diff / den);
}

double NoiseTransform::pair_majorant_mean_power(int k) const {
  if (noise_.kind != IntegerNoise::Kind::laplace)
    throw InvalidArgument("the pair majorant's mean power is taken for the l1 law");
  if (k < 0 || k > 64) throw InvalidArgument("the pair majorant's mean power is taken for powers 0 to 64");
  if (k == 0) return 1;
  // (1/pi) int_0^pi (A + B cos t)^-k dt = P_(k-1)(A / sqrt(A^2 - B^2)) /
  // (A^2 - B^2)^(k/2) for A > |B|; here A = 1 + kappa_2/2, B = -kappa_2/2.
  // Bonnet's recurrence, stable upwards for z >= 1 (every term positive
  // after the first two), in 80-bit arithmetic: z^(k-1) and (1 + kappa_2)^(k/2)
  // stay far inside its range for every scale a grid takes.
  const long double q = 1 + (long double)kappa2_, z = (1 + (long double)kappa2_ / 2) / std::sqrt(q);
  long double previous = 1, current = z;  // P_0, P_1
  for (int m = 1; m < k - 1; ++m) {
    const long double next = ((2 * m + 1) * z * current - m * previous) / (m + 1);
    previous = current;
    current = next;
  }
  const long double legendre = k == 1 ? 1 : current;
  return next_up(double(legendre / std::pow(q, (long double)k / 2)) * (1 + 1e-13));
}

double NoiseTransform::pair_majorant(std::uint64_t r, std::uint64_t N) const {
  const std::uint64_t x = folded_residue(r, N);
  if (x == 0) return 1;
  if (noise_.kind == IntegerNoise::Kind::laplace) {
    const double s = sin_pi_fraction(x, N);
    return 1 / (1 + kappa2_ * s * s);
  }
  // The split is D_{Z, s2/2, c} with c = s/2, an integer or a half-integer:
  // its transform is e^(i theta c) times that of the centred law on Z
  // (positive and decreasing on [0, pi]) or on Z + 1/2 (|cos(theta/2)| times a
  // positive decreasing product), by Jacobi's triple products for theta_3
  // and theta_2. Their maximum.
  const double theta = 2 * kPi * (double(x) / double(N));
  const double h = s2_ / 2;  // the split's parameter
  const auto centred = [&](bool half) {
    double num = 0, den = 0;
    if (h > 4) {  // Poisson: sum_k (+-1)^k exp(-h (theta - 2 pi k)^2 / 2) / sum_k (+-1)^k exp(-2 pi^2 h k^2)
      for (int k = -2; k <= 2; ++k) {
        const double sign = half && (k & 1) ? -1.0 : 1.0;
        num += sign * std::exp(-h * (theta - 2 * kPi * k) * (theta - 2 * kPi * k) / 2);
        den += sign * std::exp(-2 * kPi * kPi * h * k * k);
      }
    } else {  // direct, the angles reduced exactly: theta v = pi x (2v) / N
      // Ends: h <= 4 here, so rho(v) = exp(-v^2 / 2h) reaches the cut (den >= 1) by v = 20.
      for (std::int64_t u = 0;; ++u) {
        const std::uint64_t twice = half ? 2 * std::uint64_t(u) + 1 : 2 * std::uint64_t(u);  // 2v
        const double v = double(twice) / 2, rho = std::exp(-v * v / (2 * h));
        const auto r = static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * twice) % (2 * N));
        const double cosine = std::cos(kPi * (double(r) / double(N)));
        const double m = twice == 0 ? 1.0 : 2.0;  // +-v
        num += m * rho * cosine;
        den += m * rho;
        if (rho <= kSeriesCut * den) break;
      }
    }
    return std::abs(num / den);
  };
  return std::min(1.0, std::max(centred(false), centred(true)) * (1 + 1e-12));
}

double NoiseTransform::log_mgf(double lambda) const {
  if (noise_.kind == IntegerNoise::Kind::gaussian) return lambda * lambda * s2_ / 2;  // sub-Gaussian (Poisson)
  return 2 * std::log(-std::expm1(-inv_b_)) - std::log(-std::expm1(lambda - inv_b_)) -
         std::log(-std::expm1(-lambda - inv_b_));
}

double NoiseTransform::tail_bound(const std::vector<WeightedCells>& terms, double x) const {
  if (!(x > 0)) return 1;
  double w_max = 0, quadratic = 0;
  for (const WeightedCells& t : terms) {
    if (t.cells == 0) continue;
    w_max = std::max(w_max, double(t.weight));
    quadratic += double(t.cells) * double(t.weight) * double(t.weight);
  }
  if (w_max == 0) return 0;
  if (noise_.kind == IntegerNoise::Kind::gaussian)
    return std::min(1.0, 2 * std::exp(-x * x / (2 * s2_ * quadratic)) * (1 + 1e-9));
  // f(lambda) = log E e^(lambda X) - lambda x, convex on [0, 1/(b w_max)).
  const auto f = [&](double lambda) {
    double v = -lambda * x;
    for (const WeightedCells& t : terms)
      if (t.cells) v += double(t.cells) * log_mgf(lambda * double(t.weight));
    return v;
  };
  return std::min(1.0, 2 * std::exp(minimise(f, inv_b_ / w_max)) * (1 + 1e-6));
}

double NoiseTransform::minimise(const std::function<double(double)>& f, double limit) {
  double lo = 0, hi = limit * (1 - 1e-9);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = f(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = f(x2);
    }
  }
  return std::min(f1, f2);
}

double NoiseTransform::log_abs_mgf(double lambda) const {
  if (noise_.kind == IntegerNoise::Kind::gaussian)  // Cauchy-Schwarz: sqrt(E X^2 E e^(2 lambda X))
    return 0.5 * std::log(variance_) + lambda * lambda * s2_;
  // ((1 - a)/(1 + a)) (g(a e^l) + g(a e^-l)), g(t) = sum_{y>=1} y t^y = t / (1 - t)^2.
  const auto g = [](double log_t) {
    const double one_minus = -std::expm1(log_t);
    return std::exp(log_t) / (one_minus * one_minus);
  };
  const double ratio = -std::expm1(-inv_b_) / (1 + std::exp(-inv_b_));
  return std::log(ratio * (g(lambda - inv_b_) + g(-lambda - inv_b_)));
}

double NoiseTransform::product_tail_bound(std::uint64_t cells, double x) const {
  if (cells < 2) throw InvalidArgument("a product tail needs at least two cells");
  const auto f = [&](double lambda) {
    return 2 * log_abs_mgf(lambda) + double(cells - 2) * log_mgf(lambda) - lambda * x;
  };
  const double limit = noise_.kind == IntegerNoise::Kind::gaussian ? 1e3 / std::sqrt(s2_) : inv_b_;
  return 2 * std::exp(minimise(f, limit)) * (1 + 1e-6);
}

std::int64_t NoiseTransform::product_tail_point(std::uint64_t cells, double p) const {
  std::int64_t hi = 1;
  // Ends: hi doubles, and past 2^61 the search refuses: at most 62 passes.
  while (product_tail_bound(cells, double(hi)) > p) {
    if (hi > (std::int64_t(1) << 61)) throw OutOfRange("the tail of this sum reaches beyond 2^62");
    hi *= 2;
  }
  std::int64_t lo = hi / 2;
  // Ends: bisection over a 64-bit range: at most 64 passes.
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (product_tail_bound(cells, double(mid)) <= p ? hi : lo) = mid;
  }
  return hi;
}

std::int64_t NoiseTransform::tail_point(const std::vector<WeightedCells>& terms, double p) const {
  if (!(p > 0 && p < 1)) throw InvalidArgument("a tail probability must lie strictly between 0 and 1");
  std::int64_t hi = 1;
  // Ends: hi doubles, and past 2^61 the search refuses: at most 62 passes.
  while (tail_bound(terms, double(hi)) > p) {
    if (hi > (std::int64_t(1) << 61)) throw OutOfRange("the tail of this sum reaches beyond 2^62");
    hi *= 2;
  }
  std::int64_t lo = hi / 2;  // tail(lo) > p, or lo = 0
  if (lo == 0 && tail_bound(terms, 0) <= p) return 0;
  // Ends: bisection over a 64-bit range: at most 64 passes.
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (tail_bound(terms, double(mid)) <= p ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace invariant_dp::accuracy
