// One cell's law in a zero-sum group of discrete Laplace variables
// (conditioned_marginal.hpp).
#include "conditioned_marginal.hpp"

#include <cmath>

#include "../errors.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

constexpr double kRescale = 1e250;
// The cell law is kept on 0 .. 45 b: past this many entries (32 MB, b about
// 93,000) the conservative quantile is used instead.
constexpr std::size_t kMaxSupport = std::size_t(1) << 22;
constexpr double kTailSlack = 1e-9;

// Where the downward recurrence starts: 12 sd of S_m, plus 70 b for the
// exponential tail and the decay of the start's error.
std::size_t start_index(double a, std::uint64_t m) {
  const double v = 2 * a / ((1 - a) * (1 - a));  // one discrete Laplace's variance
  const double b = -1 / std::log(a);
  return static_cast<std::size_t>(std::ceil(12 * std::sqrt(double(m) * v) + 70 * b + 10));
}

}  // namespace

double sum_pmf_steps(double a, std::uint64_t m) { return double(start_index(a, m)); }

std::vector<double> discrete_laplace_sum_pmf(double a, std::uint64_t m, std::size_t s_max,
                                            const Interrupts& interrupts) {
  if (!(a > 0 && a < 1) || m == 0) throw InvalidArgument("a sum of discrete Laplace variables needs 0 < a < 1, m >= 1");
  const std::size_t start = std::max(start_index(a, m), s_max + 1);
  std::vector<double> p(s_max + 1, 0.0);
  // Down from p_{start+1} = 0, p_start = 1 (any scale):
  //   p_{s-1} = ((1 + a^2) s p_s - a (s + 1 - m) p_{s+1}) / (a (s + m - 1)).
  double above = 0, here = 1, sum = 0;  // p_{s+1}, p_s, sum_{s' >= s} p_s' (s' >= 1)
  const double md = double(m), a2 = 1 + a * a;
  for (std::size_t s = start; s >= 1; --s) {
    interrupts.poll_every(s);
    const double sd = double(s);
    sum += here;
    if (s <= s_max) p[s] = here;
    const double below = (a2 * sd * here - a * (sd + 1 - md) * above) / (a * (sd + md - 1));
    above = here;
    here = below;
    if (here > kRescale) {  // keep the magnitudes in range; the scale cancels
      above /= kRescale;
      here /= kRescale;
      sum /= kRescale;
      for (std::size_t j = s; j <= std::min(s_max, start); ++j) p[j] /= kRescale;
    }
  }
  p[0] = here;
  const double total = here + 2 * sum;
  for (double& x : p) x /= total;
  return p;
}

std::vector<double> conditioned_laplace_marginal(Rational b, std::uint64_t k, double max_steps,
                                                const Interrupts& interrupts) {
  if (k < 2) throw InvalidArgument("a zero-sum group needs at least two cells");
  const double scale = b.to_double(), a = std::exp(-double(b.den) / double(b.num));
  if (!(45 * scale < double(kMaxSupport))) return {};
  const auto top = static_cast<std::size_t>(std::ceil(45 * scale)) + 2;
  if (sum_pmf_steps(a, k - 1) + double(top) > max_steps) return {};
  const std::vector<double> sums = discrete_laplace_sum_pmf(a, k - 1, top, interrupts);
  std::vector<double> q(top + 1);
  double total = 0;
  for (std::size_t t = 0; t <= top; ++t) {
    q[t] = std::pow(a, double(t)) * sums[t];  // p(t) up to its constant
    total += (t ? 2 : 1) * q[t];
  }
  for (double& x : q) x /= total;
  return q;
}

std::int64_t marginal_half_width(const std::vector<double>& pmf, double level) {
  check_level(level);
  // Tails from the top: tail(t) = 2 sum_{x > t} pmf[x].
  std::vector<double> tail(pmf.size() + 1, 0.0);
  for (std::size_t x = pmf.size(); x-- > 0;) tail[x] = tail[x + 1] + pmf[x];
  for (std::size_t t = 0; t + 1 < tail.size(); ++t)
    if (2 * tail[t + 1] * (1 + kTailSlack) <= 1 - level) return static_cast<std::int64_t>(t);
  throw OutOfRange("the interval of this law is wider than its computed support");
}

}  // namespace invariant_dp::accuracy
