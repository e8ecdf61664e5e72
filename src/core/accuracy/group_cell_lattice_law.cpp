// One cell's lattice law in zero-sum groups of every size at once
// (group_cell_lattice_law.hpp).
#include "group_cell_lattice_law.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/interval.hpp"
#include "integer_noise_transforms.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

// Mass left out: below any level's resolution, and far below the
// enclosures' own rounding.
constexpr double kDropped = 1e-18;
// The window's half-width at most: three arrays of 2^20 doubles.
constexpr std::int64_t kMaxWindow = std::int64_t(1) << 19;

// In double, at half the time of 80-bit arithmetic: at b = 2 it decided
// every size of 2 to 300 cells at 300 random levels, as 80-bit arithmetic
// did (the window's dropped mass, the same in both, is most of an
// enclosure's width there); at b = 10 one size in 18,000, which 80-bit
// arithmetic left undecided too.
using Real = double;
constexpr Real kUnit = 0x1p-53;  // double's unit roundoff

// The pmf of T_m on [-W, W] (index y + W), and what the pass needs to
// enclose what it computes.
class SumOfCells {
 public:
  SumOfCells(Rational b, std::int64_t W) : W_(W), f_(std::size_t(2 * W + 1), 0), F_(f_.size()) {
    x_ = Real(b.den) / Real(b.num);  // 1/b
    a_ = std::exp(-x_);
    c_ = -std::expm1(-x_) / (1 + a_);  // (1 - a)/(1 + a)
    f_[std::size_t(W)] = 1;            // T_0 = 0
    // a's relative error: x's rounding (u) through exp (x u) and exp's own
    // (2 u); a term reaching distance d carries d factors of a and 2 d + 1
    // roundings; c and the step's last add and product some 2x + 20 u.
    const Real delta_a = (x_ + 3) * kUnit * Real(1.01);
    rho_step_ = std::expm1(Real(2 * W) * (delta_a + 2 * kUnit) + (2 * x_ + 20) * kUnit);
  }

  // T_(m+1) from T_m on [-reach, reach] (reach never shrinking, at most
  // W): f <- c (F + a B(. + 1)), F(y) = f(y) + a F(y - 1), B(y) = f(y) +
  // a B(y + 1); what leaves it is dropped.
  void convolve(std::int64_t reach, const Interrupts& interrupts) {
    const auto first = std::size_t(W_ - reach), end = std::size_t(W_ + reach + 1);
    Real run = 0;
    for (std::size_t i = first; i < end; ++i) {
      interrupts.poll_every(i);
      run = f_[i] + a_ * run;
      F_[i] = run;
    }
    Real back = 0;  // B(y + 1) of the old f
    for (std::size_t i = end; i-- > first;) {
      interrupts.poll_every(i);
      const Real old = f_[i];
      f_[i] = c_ * (F_[i] + a_ * back);
      back = old + a_ * back;
    }
    ++m_;
    reach_ = reach;
  }

  std::int64_t cells() const { return m_; }
  // The values outside [-reach, reach] are 0.
  std::int64_t reach() const { return reach_; }
  Real at(std::int64_t y) const { return f_[std::size_t(y + W_)]; }
  // Relative error of every computed value against the window's exact
  // (truncated) recursion.
  Real rho() const { return std::expm1(Real(m_) * std::log1p(rho_step_)); }

  // Prefix sums over [-reach, reach]: P[i] = the sum of the values at
  // y < i - reach.
  void prefix(std::vector<Real>& P, const Interrupts& interrupts) const {
    const auto n = std::size_t(2 * reach_ + 1), first = std::size_t(W_ - reach_);
    P.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(i);
      P[i + 1] = P[i] + f_[first + i];
    }
  }

 private:
  std::int64_t W_;
  std::int64_t m_ = 0, reach_ = 0;
  std::vector<Real> f_, F_;
  Real x_ = 0, a_ = 0, c_ = 0, rho_step_ = 0;
};

// The pass over the sizes `wanted` (sorted, distinct, each >= 2).
std::map<std::size_t, Quantile> one_pass(Rational b, const std::vector<std::size_t>& wanted, double level,
                                         const Interrupts& interrupts) {
  std::map<std::size_t, Quantile> out;
  const auto m_max = static_cast<std::int64_t>(wanted.back() - 1);

  // The window: T_(m_max)'s tails past R and e_0's past K are below
  // kDropped (Chernoff; the closed form 2 a^(K+1)/(1 + a)).
  const IntegerNoise noise{IntegerNoise::Kind::laplace, b};
  const NoiseTransform law(noise);
  const double bd = b.to_double();
  const double k_reach = std::ceil(bd * std::log(2 / kDropped));
  if (!(k_reach <= double(kMaxWindow))) throw TooLarge("the groups' cell laws are too wide for one pass");
  const auto K = static_cast<std::int64_t>(k_reach);
  const std::int64_t R = law.tail_point({{1, static_cast<std::uint64_t>(m_max)}}, kDropped);
  const std::int64_t W = std::max(R, K);
  // Work: three passes of T_m's reach per cell added; per size a prefix
  // pass over it and some 16 coverages (the search starts from the last
  // size's quantile), each reading the k >= 0 whose windows meet it (about
  // (reach + q)/m of them); memory: three arrays of the window (8 MB each
  // at most).
  // T_m's pass reaches R sqrt(m / m_max) + K (T_m's spread grows as
  // sqrt(m); K keeps a cell's own tail): what it drops is counted.
  const auto reach = [&](std::int64_t m) {
    return std::min(W, K + static_cast<std::int64_t>(std::ceil(double(R) * std::sqrt(double(m) / double(m_max)))));
  };
  // Their sum is at most M K + R (2/3) (M + 1)^(3/2) / sqrt(M) + M (the sum
  // of sqrt(m) below the integral), M = m_max.
  const double M = double(m_max);
  double work = 3 * (2 * (M * double(K) + double(R) * (2.0 / 3) * std::pow(M + 1, 1.5) / std::sqrt(M) + M) + M);
  for (const std::size_t g : wanted) {
    const double spread = 2 * double(reach(std::int64_t(g - 1))) + 1;
    work += spread + 16 * (std::min(double(K), 2 * spread / double(g - 1)) + 1);
  }
  if (!(work <= kMaxGroupLawWork) || W > kMaxWindow) throw TooLarge("the groups' cell laws are too wide for one pass");

  SumOfCells T(b, W);
  T.convolve(reach(1), interrupts);  // T_1: e_0's law too
  std::vector<Real> p(std::size_t(2 * K + 1));
  for (std::int64_t k = -K; k <= K; ++k) p[std::size_t(k + K)] = T.at(k);
  const Real rho_p = T.rho();
  // P(|e_0| > K) <= 2 a^(K+1).
  const double tail_k = next_up(2 * std::exp(-double(K + 1) / bd) * (1 + 1e-9));
  const double variance_cell = law.variance();

  std::vector<Real> P;
  std::int64_t last_q = 0;
  double last_sd = 0;
  for (const std::size_t g : wanted) {
    const auto m = static_cast<std::int64_t>(g - 1);
    // Ends: at most m_max passes, each a bounded pass over the window.
    while (T.cells() < m) T.convolve(reach(T.cells() + 1), interrupts);
    T.prefix(P, interrupts);
    const Real rho = T.rho();
    const Real total = P.back();
    const std::int64_t V = T.reach();  // T_m's computed values: on [-V, V]
    const Real abs_prefix = Real(2 * V + 2) * kUnit * Real(1.01) * std::max<Real>(1, total);
    // The window's exact mass is at least total / (1 + rho) less the sums'
    // rounding: what it dropped is at most the rest.
    const Real deficit = std::max<Real>(0, 1 - (total - abs_prefix) / (1 + rho));
    // The computed mass of T in [lo, hi] (clipped to the window).
    const auto window_mass = [&](std::int64_t lo, std::int64_t hi) -> Real {
      lo = std::max(lo, -V), hi = std::min(hi, V);
      if (lo > hi) return -1;  // nothing of the window: exactly 0
      return P[std::size_t(hi + V + 1)] - P[std::size_t(lo + V)];
    };
    const Real sum_rounding = Real(4 * K + 8) * kUnit;
    const auto coverage = [&](std::int64_t q) {
      Real low = 0, up = 0;
      // Past |k| = (V + q)/m the window [m k - q, m k + q] misses [-V, V].
      // The window's exact pmf and p are even, so k and -k are one term,
      // twice (each enclosure holds for both).
      const std::int64_t k_reach = std::min(K, (V + q) / m);
      for (std::int64_t k = 0; k <= k_reach; ++k) {
        interrupts.poll_every(std::uint64_t(k));
        const Real w = window_mass(m * k - q, m * k + q);
        if (w < 0) continue;
        const Real pk = (k == 0 ? 1 : 2) * p[std::size_t(k + K)];
        low += pk * std::max<Real>(0, w - 3 * abs_prefix);
        up += pk * (w + 3 * abs_prefix);
      }
      CoverageBounds c;
      c.lower = next_down(double(low * (1 - sum_rounding) / ((1 + rho) * (1 + rho_p))));
      c.lower = std::max(0.0, next_down(c.lower));
      const Real upper = up * (1 + sum_rounding) / ((1 - rho) * (1 - rho_p)) + deficit;
      c.upper = std::min(1.0, next_up(next_up(double(upper)) + tail_k));
      return c;
    };
    // The search's ceiling: a q that covers with room to spare, m K' + R'
    // with P(|e_0| > K') and P(|T_m| > R') each at most a quarter of
    // 1 - level (the closed form; Chebyshev), so that its coverage is
    // certain and reads few k; g X's variance is (m^2 + m) times a cell's.
    const double quarter = (1 - level) / 4;
    const auto k_room = static_cast<std::int64_t>(std::ceil(bd * std::log(2 / quarter)));
    const auto r_room = static_cast<std::int64_t>(std::ceil(std::sqrt(double(m) * variance_cell / quarter)));
    const std::int64_t ceiling = std::min(m * K + W, m * std::min(k_room, K) + std::min(r_room, W));
    // The search starts from the last size's quantile scaled by the sd
    // (within a count or two for neighbouring sizes), else the normal one.
    const double sd = std::sqrt((double(m) * double(m) + double(m)) * variance_cell);
    const auto guess = static_cast<std::int64_t>(
        std::floor(last_sd > 0 ? double(last_q) * sd / last_sd : normal_quantile(level) * sd));
    const Quantile q = smallest_covering(coverage, level, guess, ceiling, interrupts);
    last_q = q.half_width, last_sd = sd;
    out.emplace(g, q);
  }
  return out;
}

}  // namespace

std::map<std::size_t, Quantile> group_cell_lattice_quantiles(Rational b, const std::vector<std::size_t>& sizes,
                                                             double level, const Interrupts& interrupts) {
  check_level(level);
  if (b.num == 0 || b.den == 0) throw InvalidArgument("a discrete Laplace law needs a positive scale");
  std::vector<std::size_t> wanted(sizes);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  if (wanted.empty()) return {};
  if (wanted.front() < 2) throw InvalidArgument("a zero-sum group's cell law needs at least two cells");
  return one_pass(b, wanted, level, interrupts);
}

}  // namespace invariant_dp::accuracy
