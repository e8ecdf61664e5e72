// Quantiles of sums of cells of a zero-sum group (zero_sum_quantiles.hpp).
#include "zero_sum_quantiles.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "../errors.hpp"
#include "../samplers/interval.hpp"
#include "independent_sum_quantiles.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

constexpr double kU = 0x1p-53;
constexpr double kAlias = 1e-30;
constexpr double kNegligible = 1e-18;
// Powers below this are dropped from the tables (each factor is at most 1).
constexpr double kTiny = 1e-280;
// A tabulated power is within 20 u |log| + 2 u of itself, |log| <= 745 here.
constexpr double kTermError = (20 * 745 + 8) * kU;
constexpr std::uint64_t kMaxTable = std::uint64_t(1) << 22;  // 32 MB a table

// phi(2 pi d / N)^e for d = 0 .. D, D the last d above kTiny (phi decreases
// on [0, pi], so every later power is below kTiny too). D is found by
// bisection when the table is made; its values are computed by fill(),
// once the work is known to be bounded.
class PowerTable {
 public:
  PowerTable(const NoiseTransform& law, std::uint64_t e, std::uint64_t N) : law_(&law), e_(e), N_(N) {
    if (e == 0) {
      constant_ = true;
      return;
    }
    const std::uint64_t half = N / 2;
    const double floor = std::log(kTiny);
    std::uint64_t lo = 0, hi = half;  // the last d with e log phi >= floor
    if (double(e) * law.log_phi(half, N) >= floor) {
      lo = half;
    } else {
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (double(e) * law.log_phi(mid, N) >= floor ? lo : hi) = mid;
      }
    }
    last_ = lo;
  }
  void fill(const Interrupts& interrupts) {
    if (constant_) return;
    if (last_ + 1 > kMaxTable)
      throw TooLarge("the zero-sum group's noise is too wide for an exact quantile",
                     "Its transform would be tabulated at " + std::to_string(last_ + 1) + " points.",
                     "For a set of cells of a group, the same cells' quantile without the margin is a certified "
                     "bound.");
    value_.resize(last_ + 1);
    for (std::uint64_t d = 0; d <= last_; ++d) {
      interrupts.poll_every(d);
      value_[d] = std::exp(double(e_) * law_->log_phi(d, N_));
    }
  }
  std::uint64_t extent() const { return constant_ ? N_ / 2 : last_; }
  // The power at residue r in [0, N).
  double at(std::uint64_t r) const {
    if (constant_) return 1;
    const std::uint64_t d = std::min(r, N_ - r);
    return d < value_.size() ? value_[d] : 0.0;
  }

 private:
  const NoiseTransform* law_;
  std::uint64_t e_ = 0, N_ = 1, last_ = 0;
  bool constant_ = false;
  std::vector<double> value_;
};

// The reduced problem: plus > 0, zero > 0 (section 11: every other case is
// 0, a sign change, twice a smaller one or a single halved cell).
struct Reduced {
  SignedCounts counts;
  std::int64_t scale = 1;  // X = scale * X_reduced
  enum class Kind { zero, single_halved, group } kind = Kind::group;
};

Reduced reduce(SignedCounts g) {
  Reduced r;
  if (g.plus + g.minus == 0 || g.plus + g.minus + g.zero < 2) {
    r.kind = Reduced::Kind::zero;
    return r;
  }
  if (g.zero == 0) {  // X = A - B with A + B = 0: X = 2 A, A a set of the plus cells
    if (g.plus == 0 || g.minus == 0) {
      r.kind = Reduced::Kind::zero;
      return r;
    }
    g = {g.plus, 0, g.minus};
    r.scale = 2;
  }
  if (g.plus == 0) std::swap(g.plus, g.minus);  // X and -X have one law
  if (g.plus + g.minus + g.zero == 2) {
    r.kind = Reduced::Kind::single_halved;  // z_1 given z_1 + z_2 = 0: P ~ p(t)^2
  }
  r.counts = g;
  return r;
}

class GroupInversion {
 public:
  GroupInversion(const NoiseTransform& law, SignedCounts g, double alpha, std::int64_t t_fixed,
                 const Interrupts& interrupts)
      : law_(law), g_(g) {
    const std::uint64_t k = g.plus + g.minus + g.zero;
    total_terms_ = {{1, k}};
    sum_terms_ = {{1, g.plus + g.minus}};
    const std::int64_t x_total = law.tail_point(total_terms_, kAlias);
    const std::int64_t x_sum = law.tail_point(sum_terms_, kAlias);
    // t from the unconditioned sum first; then, unless t is given, from
    // the conditioned tail P(|X| >= t | total 0) <= P(|X| >= t) / P(total = 0).
    const auto period = [&](std::int64_t t) {
      const std::int64_t n = std::max({x_total + 1, 2 * t + 1, t + x_sum + 1});
      if (n >= (std::int64_t(1) << 60)) throw OutOfRange("the group's noise is too wide for an exact quantile");
      return static_cast<std::uint64_t>(n);
    };
    std::int64_t t = t_fixed >= 0 ? t_fixed : law.tail_point(sum_terms_, alpha / 2);
    build(period(t), t, interrupts);
    for (int pass = 0; t_fixed < 0 && pass < 4; ++pass) {
      const std::int64_t needed = law.tail_point(sum_terms_, alpha / 2 * total_lower_);
      if (needed <= t) break;
      t = needed;
      build(period(t), t, interrupts);
    }
    t_max_ = t;
  }

  std::int64_t t_max() const { return t_max_; }

  CoverageBounds coverage(std::int64_t t, const Interrupts& interrupts) const {
    const CoverageBounds q = periodic_coverage(s_, t, interrupts);
    const double N = double(s_.period);
    const double d_total = law_.tail_bound(total_terms_, N), d_sum = law_.tail_bound(sum_terms_, N - double(t));
    CoverageBounds c;
    c.lower = std::max(0.0, next_down(q.lower - next_up((d_total + d_sum) / total_lower_)));
    c.upper = std::min(1.0, next_up(q.upper / next_down(1 - d_total / total_lower_)));
    return c;
  }

 private:
  void build(std::uint64_t N, std::int64_t t_max, const Interrupts& interrupts) {
    s_ = SampledTransform{};
    s_.period = N;
    const std::uint64_t half = N / 2;
    PowerTable plus(law_, g_.plus, N), minus(law_, g_.minus, N), zero(law_, g_.zero, N);
    // The eta window: around the centre of the factor of largest exponent.
    const std::uint64_t top = std::max({g_.plus, g_.minus, g_.zero});
    const PowerTable& widest = top == g_.zero ? zero : top == g_.plus ? plus : minus;
    const int centre_sign = top == g_.zero ? 0 : top == g_.plus ? -1 : 1;  // l - centre_sign j in the window
    const std::uint64_t reach = widest.extent();
    const bool whole = 2 * reach + 1 >= N;
    const std::uint64_t window = whole ? N : 2 * reach + 1;
    // The theta nodes: up to J, the majorant M^pairs making the rest negligible.
    const std::uint64_t pairs = std::min(g_.plus + g_.minus, g_.zero);
    const double width = 2 * double(t_max) + 1;
    const auto rest_negligible = [&](std::uint64_t j) {
      return double(pairs) * std::log(law_.pair_majorant(j, N)) + std::log(width) <= std::log(kNegligible);
    };
    std::uint64_t J = half;
    if (half >= 1 && rest_negligible(half)) {
      std::uint64_t lo = 0, hi = half;  // rest_negligible(hi)
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (rest_negligible(mid) ? hi : lo) = mid;
      }
      J = hi;
    }
    if (double(J + 1) * double(window) > kMaxGroupWork)
      throw TooLarge("the zero-sum group is too small for its scale to invert exactly",
                     "The inversion would sum " + format_double(double(J + 1) * double(window)) + " terms.",
                     "For a set of cells of a group, the same cells' quantile without the margin is a certified "
                     "bound.");
    if (J > kMaxTransformNodes)
      throw TooLarge("the zero-sum group's noise is too wide for an exact quantile",
                     "More than " + std::to_string(kMaxTransformNodes) + " points of its transform matter.",
                     "For a set of cells of a group, the same cells' quantile without the margin is a certified "
                     "bound.");
    plus.fill(interrupts);
    minus.fill(interrupts);
    zero.fill(interrupts);
    // Sum_l over the window at node j (all terms >= 0).
    std::uint64_t visited = 0;
    const auto residue = [N](std::int64_t x) {
      const auto n = static_cast<std::int64_t>(N);
      return static_cast<std::uint64_t>(((x % n) + n) % n);
    };
    const auto psi = [&](std::uint64_t j) {
      const auto jj = static_cast<std::int64_t>(j);
      const std::int64_t first = whole ? 0 : centre_sign * jj - static_cast<std::int64_t>(reach);
      std::uint64_t rp = residue(first + jj), rm = residue(first - jj), rz = residue(first);
      double sum = 0;
      for (std::uint64_t d = 0; d < window; ++d) {
        interrupts.poll_every(++visited);
        sum += plus.at(rp) * minus.at(rm) * zero.at(rz);
        if (++rp == N) rp = 0;
        if (++rm == N) rm = 0;
        if (++rz == N) rz = 0;
      }
      return sum;
    };
    // Relative error of each sum: its terms' and the summation's; absolute:
    // the dropped terms, each below kTiny.
    const double rel = kTermError + (double(window) + 2) * kU;
    const double abs_err = 3 * double(N) * kTiny;
    const double psi0 = psi(0);
    // P(total = 0), lower: P(total = 0 mod N) less the aliases P(|total| >= N).
    total_lower_ = next_down((psi0 * (1 - rel) - abs_err) / double(N) - law_.tail_bound(total_terms_, double(N)));
    for (std::uint64_t j = 1; j <= J; ++j) {
      const double c = psi(j) / psi0;
      s_.node.push_back(j);
      s_.value.push_back(c);
      s_.error.push_back(next_up((c * 2 * rel + (abs_err + c * abs_err) / psi0) * 1.01 + 2 * kU * c));
    }
    if (J < half) s_.omitted = next_up(2 * double(half - J) * std::pow(law_.pair_majorant(J, N), double(pairs)) * 1.01);
  }

  const NoiseTransform& law_;
  SignedCounts g_;
  std::vector<WeightedCells> total_terms_, sum_terms_;
  SampledTransform s_;
  double total_lower_ = 0;
  std::int64_t t_max_ = 0;
};

}  // namespace

SignedCounts two_line_counts(std::uint64_t n, std::uint64_t first, std::uint64_t second) {
  if (first + second > n) throw InvalidArgument("a set of cells of a 2 x n table names more than n columns");
  return {first, second, n - first - second};
}

CoverageBounds zero_sum_coverage(IntegerNoise noise, SignedCounts group, std::int64_t t,
                                 const Interrupts& interrupts) {
  if (t < 0) throw InvalidArgument("a half-width must be non-negative");
  const Reduced r = reduce(group);
  const std::int64_t t1 = t / r.scale;
  switch (r.kind) {
    case Reduced::Kind::zero: return {1, 1};
    case Reduced::Kind::single_halved: return independent_sum_coverage(halved(noise), {{1, 1}}, t1, interrupts);
    case Reduced::Kind::group: break;
  }
  const NoiseTransform law(noise);
  const GroupInversion inversion(law, r.counts, 0.5, t1, interrupts);
  return inversion.coverage(t1, interrupts);
}

Quantile zero_sum_quantile(IntegerNoise noise, SignedCounts group, double level, const Interrupts& interrupts) {
  check_level(level);
  const Reduced r = reduce(group);
  Quantile q;
  switch (r.kind) {
    case Reduced::Kind::zero:
      q.coverage_lower = 1;
      q.exact = true;
      return q;
    case Reduced::Kind::single_halved: q = independent_sum_quantile(halved(noise), {{1, 1}}, level, interrupts); break;
    case Reduced::Kind::group: {
      const NoiseTransform law(noise);
      const GroupInversion inversion(law, r.counts, 1 - level, -1, interrupts);
      const SignedCounts c = r.counts;
      const double k = double(c.plus + c.minus + c.zero), s = double(c.plus + c.minus);
      // Var X given the total: s (k - s) / (k - 1) times one cell's conditioned variance scale (a guess only).
      const double sd = std::sqrt(law.variance() * s * (k - s) / k);
      const auto guess = static_cast<std::int64_t>(std::floor(normal_quantile(level) * sd));
      q = smallest_covering([&](std::int64_t t) { return inversion.coverage(t, interrupts); }, level, guess,
                            inversion.t_max(), interrupts);
      break;
    }
  }
  q.half_width *= r.scale;
  return q;
}

}  // namespace invariant_dp::accuracy
