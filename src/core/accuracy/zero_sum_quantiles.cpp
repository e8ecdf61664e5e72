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

constexpr double kGroupAlias = 1e-30;
constexpr double kGroupNegligible = 1e-18;
// Powers below this are dropped from the tables (each factor is at most 1).
constexpr double kTiny = 1e-280;
// A tabulated power is within 20 u |log| + 2 u of itself, |log| <= 745 here.
constexpr double kTermError = (20 * 745 + 8) * kDoubleUnit;
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
      // Ends: bisection over a 64-bit range: at most 64 passes.
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

// The reduced problem (section 11: every case is 0, a sign change, twice a
// smaller one, a single halved cell, or a group with plus > 0 and zero > 0).
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
  if (g.plus + g.minus + g.zero == 2) r.kind = Reduced::Kind::single_halved;  // z_1 given z_1 + z_2 = 0
  r.counts = g;
  return r;
}

// `groups` independent groups of one reduced pattern, each entering X times `scale`.
struct ZeroSumPattern {
  SignedCounts counts;
  std::int64_t scale = 1;
  std::uint64_t groups = 0;
};

// One pattern's sums over eta at period N (section 11): Psi_N at any node,
// all terms non-negative, with the relative and absolute errors of each sum.
class PatternSums {
 public:
  PatternSums(const NoiseTransform& law, const ZeroSumPattern& p, std::uint64_t N)
      : N_(N), plus_(law, p.counts.plus, N), minus_(law, p.counts.minus, N), zero_(law, p.counts.zero, N) {
    const std::uint64_t top = std::max({p.counts.plus, p.counts.minus, p.counts.zero});
    const PowerTable& widest = top == p.counts.zero ? zero_ : top == p.counts.plus ? plus_ : minus_;
    centre_sign_ = top == p.counts.zero ? 0 : top == p.counts.plus ? -1 : 1;
    reach_ = widest.extent();
    whole_ = 2 * reach_ + 1 >= N;
    window_ = whole_ ? N : 2 * reach_ + 1;
    rel_ = kTermError + (double(window_) + 2) * kDoubleUnit;
    abs_ = 3 * double(N) * kTiny;
  }
  std::uint64_t window() const { return window_; }
  void fill(const Interrupts& interrupts) {
    plus_.fill(interrupts);
    minus_.fill(interrupts);
    zero_.fill(interrupts);
  }
  // N Psi_N(2 pi j / N), j >= 0.
  double sum(std::uint64_t j, const Interrupts& interrupts) const {
    const auto residue = [this](std::int64_t x) {
      const auto n = static_cast<std::int64_t>(N_);
      return static_cast<std::uint64_t>(((x % n) + n) % n);
    };
    const auto jj = static_cast<std::int64_t>(j % N_);
    const std::int64_t first = whole_ ? 0 : centre_sign_ * jj - static_cast<std::int64_t>(reach_);
    std::uint64_t rp = residue(first + jj), rm = residue(first - jj), rz = residue(first);
    double s = 0;
    for (std::uint64_t d = 0; d < window_; ++d) {
      interrupts.poll_every(d);
      s += plus_.at(rp) * minus_.at(rm) * zero_.at(rz);
      if (++rp == N_) rp = 0;
      if (++rm == N_) rm = 0;
      if (++rz == N_) rz = 0;
    }
    return s;
  }
  // N P(sum of the zero cells = 0 mod N), at least N p_C(0).
  double zero_cells_at_zero(const Interrupts& interrupts) const {
    double s = 0;
    for (std::uint64_t r = 0; r < N_; ++r) {
      interrupts.poll_every(r);
      s += zero_.at(r);
    }
    return s * (1 + (double(N_) + 2) * kDoubleUnit + kTermError);
  }
  double rel() const { return rel_; }
  double abs() const { return abs_; }

 private:
  std::uint64_t N_;
  PowerTable plus_, minus_, zero_;
  int centre_sign_ = 0;
  std::uint64_t reach_ = 0, window_ = 0;
  bool whole_ = false;
  double rel_ = 0, abs_ = 0;
};

// Halved single cells (a group of two with one cell taken: exactly the law
// at half the parameter), by the factor they enter X with.
struct HalvedCells {
  std::uint64_t cells[3] = {0, 0, 0};  // [scale], scale 1 or 2
  bool any() const { return cells[1] + cells[2] > 0; }
};

// The inversion of a sum over independent zero-sum groups (and halved single
// cells), DERIVATIONS.md section 11. Every group is conditioned on its own
// total being 0 modulo N: the groups stay independent, and each law is
// within P(|S_g| >= N) / P(S_g = 0) of its true conditioned law in total
// variation (their sum is tv_).
class GroupsInversion {
 public:
  GroupsInversion(IntegerNoise noise, std::vector<ZeroSumPattern> patterns, HalvedCells halved, double alpha,
                  std::int64_t t_fixed, const Interrupts& interrupts)
      : law_(noise), halved_law_(halved_noise(noise, halved)), patterns_(std::move(patterns)), halved_(halved),
        kappa_(patterns_.size(), 0.0) {
    std::int64_t x_total = 0;  // every group's total below it but with probability kGroupAlias / groups
    for (const ZeroSumPattern& p : patterns_)
      x_total = std::max(x_total, law_.tail_point({{1, p.counts.plus + p.counts.minus + p.counts.zero}},
                                                  kGroupAlias / double(p.groups)));
    // t and N from the conditioned Chernoff bound, whose constants kappa
    // come from the tables: both are checked again once those are known.
    std::int64_t t = t_fixed >= 0 ? t_fixed : tail_point(alpha / 2);
    std::uint64_t N = period(x_total, t);
    for (int pass = 0; pass < 5; ++pass) {
      build(N, t, interrupts);
      const std::int64_t needed = t_fixed >= 0 ? t_fixed : std::max(t, tail_point(alpha / 2));
      const std::uint64_t wanted = period(x_total, needed);
      if (needed == t && wanted <= N) {
        t_max_ = t;
        return;
      }
      t = needed;
      N = std::max(N, wanted);
    }
    throw OutOfRange("the groups' noise could not be bounded for an exact quantile");
  }

  std::int64_t t_max() const { return t_max_; }

  // P(|X| <= t): the inversion's Q for the laws conditioned modulo N, less
  // its aliasing P(|X_N| >= N - t) <= P(|X| >= N - t) + tv_, and within tv_
  // of the true laws' coverage.
  CoverageBounds coverage(std::int64_t t, const Interrupts& interrupts) const {
    const CoverageBounds q = periodic_coverage(s_, t, interrupts);
    const double alias = tail_bound(double(s_.period) - double(t)) + tv_;
    return {std::max(0.0, next_down(q.lower - next_up(alias + tv_))), std::min(1.0, next_up(q.upper + tv_))};
  }

 private:
  static IntegerNoise halved_noise(IntegerNoise noise, const HalvedCells& h) { return h.any() ? halved(noise) : noise; }

  // log E e^(lambda X) bound for the conditioned X: per group its kappa (for
  // a Laplace group with weights of both signs; 0 otherwise) plus the
  // unconditioned log E e^(lambda scale (A - B)) (section 11).
  double log_mgf(double lambda) const {
    double v = 0;
    for (std::size_t i = 0; i < patterns_.size(); ++i) {
      const ZeroSumPattern& p = patterns_[i];
      v += double(p.groups) *
           (kappa_[i] + double(p.counts.plus + p.counts.minus) * law_.log_mgf(lambda * double(p.scale)));
    }
    for (int scale = 1; scale <= 2; ++scale)
      if (halved_.cells[scale]) v += double(halved_.cells[scale]) * halved_law_.log_mgf(lambda * scale);
    return v;
  }
  double lambda_limit() const {
    double limit = INFINITY;
    for (const ZeroSumPattern& p : patterns_) limit = std::min(limit, law_.mgf_limit() / double(p.scale));
    for (int scale = 1; scale <= 2; ++scale)
      if (halved_.cells[scale]) limit = std::min(limit, halved_law_.mgf_limit() / scale);
    // The Gaussian's bound is defined everywhere: search up to far beyond
    // any useful lambda (1000 over the cell's standard deviation).
    return std::isfinite(limit) ? limit : 1e3 / std::sqrt(law_.variance());
  }
  double tail_bound(double x) const {
    if (!(x > 0)) return 1;
    const double best =
        NoiseTransform::minimise([&](double lambda) { return log_mgf(lambda) - lambda * x; }, lambda_limit());
    return std::min(1.0, 2 * std::exp(best) * (1 + 1e-6));
  }
  std::int64_t tail_point(double p) const {
    std::int64_t hi = 1;
    // Ends: hi doubles, and past 2^58 the search refuses: at most 59 passes.
    while (tail_bound(double(hi)) > p) {
      if (hi > (std::int64_t(1) << 58)) throw OutOfRange("the groups' noise is too wide for an exact quantile");
      hi *= 2;
    }
    std::int64_t lo = hi / 2;
    // Ends: bisection over a 64-bit range: at most 64 passes.
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (tail_bound(double(mid)) <= p ? hi : lo) = mid;
    }
    return hi;
  }
  std::uint64_t period(std::int64_t x_total, std::int64_t t) const {
    const std::int64_t n = std::max({x_total + 1, 2 * t + 1, t + tail_point(kGroupAlias) + 1});
    if (n >= (std::int64_t(1) << 60)) throw OutOfRange("the groups' noise is too wide for an exact quantile");
    return static_cast<std::uint64_t>(n);
  }

  void build(std::uint64_t N, std::int64_t t_max, const Interrupts& interrupts) {
    s_ = SampledTransform{};
    s_.period = N;
    const std::uint64_t half = N / 2;
    std::vector<PatternSums> sums;
    sums.reserve(patterns_.size());
    for (const ZeroSumPattern& p : patterns_) sums.emplace_back(law_, p, N);
    // The theta nodes: up to J, where the decreasing majorant of the scale-1
    // parts (the pair majorant per disjoint pair of each group, phi of the
    // halved cells; prepare() leaves one at least) makes the rest negligible.
    const double width = 2 * double(t_max) + 1;
    const auto log_majorant = [&](std::uint64_t j) {
      double v = 0;
      for (const ZeroSumPattern& p : patterns_)
        if (p.scale == 1)
          v += double(p.groups) * double(std::min(p.counts.plus + p.counts.minus, p.counts.zero)) *
               std::log(law_.pair_majorant(j, N));
      if (halved_.cells[1]) v += double(halved_.cells[1]) * halved_law_.log_phi(j, N);
      return v;
    };
    const auto negligible_from = [&](std::uint64_t j) {
      return log_majorant(j) + std::log(width) <= std::log(kGroupNegligible);
    };
    std::uint64_t J = half;
    if (half >= 1 && negligible_from(half)) {
      std::uint64_t lo = 0, hi = half;
      // Ends: bisection over a 64-bit range: at most 64 passes.
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (negligible_from(mid) ? hi : lo) = mid;
      }
      J = hi;
    }
    double work = 0;
    for (const PatternSums& ps : sums) work += double(J + 1) * double(ps.window());
    if (work > kMaxGroupWork)
      throw TooLarge("the zero-sum groups are too small for their scale to invert exactly",
                     "The inversion would sum " + format_double(work) + " terms.",
                     "For a set of cells of groups, the same cells' quantile without the margins is a certified "
                     "bound.");
    if (J > kMaxTransformNodes)
      throw TooLarge("the zero-sum groups' noise is too wide for an exact quantile",
                     "More than " + std::to_string(kMaxTransformNodes) + " points of its transform matter.",
                     "For a set of cells of groups, the same cells' quantile without the margins is a certified "
                     "bound.");
    std::vector<double> at_zero(sums.size());
    tv_ = 0;
    for (std::size_t i = 0; i < sums.size(); ++i) {
      PatternSums& ps = sums[i];
      ps.fill(interrupts);
      at_zero[i] = ps.sum(0, interrupts);
      const ZeroSumPattern& p = patterns_[i];
      const std::uint64_t k = p.counts.plus + p.counts.minus + p.counts.zero;
      // P(S_g = 0), lower: P(S_g = 0 mod N) less the aliases P(|S_g| >= N).
      const double alias = law_.tail_bound({{1, k}}, double(N));
      const double total = next_down((at_zero[i] * (1 - ps.rel()) - ps.abs()) / double(N) - alias);
      if (!(total > 0)) throw OutOfRange("the groups' noise could not be bounded for an exact quantile");
      tv_ += double(p.groups) * alias / total;
      // kappa = log(p_C(0) / P(S_g = 0)) for a Laplace group with both signs.
      if (p.counts.minus > 0 && law_.noise().kind == IntegerNoise::Kind::laplace)
        kappa_[i] = std::max(0.0, std::log(ps.zero_cells_at_zero(interrupts) / double(N) / total) * (1 + 1e-12));
    }
    tv_ = next_up(tv_ * 1.01);
    // Node values: the product of every group's ratio (at most 1) and of the
    // halved cells' transform, so their errors add up (telescoping).
    for (std::uint64_t j = 1; j <= J; ++j) {
      double log_value = 0, error = 0;
      bool vanishes = false;
      for (std::size_t i = 0; i < sums.size(); ++i) {
        const ZeroSumPattern& p = patterns_[i];
        const double r =
            std::min(1.0, sums[i].sum(static_cast<std::uint64_t>(p.scale) * j, interrupts) / at_zero[i]);
        error += double(p.groups) * (r * 2 * sums[i].rel() + (sums[i].abs() + r * sums[i].abs()) / at_zero[i]) * 1.01;
        if (r <= 0)
          vanishes = true;
        else
          log_value += double(p.groups) * std::log(r);
      }
      for (int scale = 1; scale <= 2; ++scale) {
        if (!halved_.cells[scale]) continue;
        const double lp = double(halved_.cells[scale]) * halved_law_.log_phi(std::uint64_t(scale) * j, N);
        log_value += lp;
        error += std::exp(lp) * (std::expm1(20 * kDoubleUnit * std::abs(lp)) + 2 * kDoubleUnit);
      }
      const double value = vanishes ? 0.0 : std::exp(log_value);
      s_.node.push_back(j);
      s_.value.push_back(value);
      s_.error.push_back(next_up(error + value * (double(sums.size()) + 4) * kDoubleUnit + 1e-300));
    }
    if (J < half) s_.omitted = next_up(2 * double(half - J) * std::exp(log_majorant(J)) * 1.01);
  }

  NoiseTransform law_, halved_law_;
  std::vector<ZeroSumPattern> patterns_;
  HalvedCells halved_;
  std::vector<double> kappa_;
  SampledTransform s_;
  double tv_ = 0;
  std::int64_t t_max_ = 0;
};

// The terms reduced and merged; `scale`: the common factor 2 of every part
// when there is one, taken out (so that some part has scale 1 and the
// majorant decreases).
struct Prepared {
  std::vector<ZeroSumPattern> patterns;
  HalvedCells halved;
  std::int64_t scale = 1;
  double variance = 0;  // about Var X, where the search starts
  bool empty() const { return patterns.empty() && !halved.any(); }
};

Prepared prepare(IntegerNoise noise, const std::vector<GroupTerm>& terms) {
  Prepared out;
  for (const GroupTerm& term : terms) {
    if (term.groups == 0) continue;
    const Reduced r = reduce(term.counts);
    if (r.kind == Reduced::Kind::zero) continue;
    if (r.kind == Reduced::Kind::single_halved) {
      out.halved.cells[r.scale] += term.groups;
      continue;
    }
    bool merged = false;
    for (ZeroSumPattern& p : out.patterns)
      if (!merged && p.scale == r.scale && p.counts.plus == r.counts.plus && p.counts.minus == r.counts.minus &&
          p.counts.zero == r.counts.zero) {
        p.groups += term.groups;
        merged = true;
      }
    if (!merged) out.patterns.push_back({r.counts, r.scale, term.groups});
  }
  bool any_one = out.halved.cells[1] > 0;
  for (const ZeroSumPattern& p : out.patterns) any_one = any_one || p.scale == 1;
  if (!any_one && !out.empty()) {  // every part doubled: X = 2 X'
    out.scale = 2;
    for (ZeroSumPattern& p : out.patterns) p.scale = 1;
    out.halved.cells[1] = out.halved.cells[2];
    out.halved.cells[2] = 0;
  }
  const double var1 = NoiseTransform(noise).variance();
  for (const ZeroSumPattern& p : out.patterns) {
    const double k = double(p.counts.plus + p.counts.minus + p.counts.zero), s = double(p.counts.plus + p.counts.minus);
    out.variance += double(p.groups) * double(p.scale * p.scale) * var1 * s * (k - s) / k;
  }
  out.variance += (double(out.halved.cells[1]) + 4 * double(out.halved.cells[2])) * var1 / 2;
  return out;
}

}  // namespace

SignedCounts two_line_counts(std::uint64_t n, std::uint64_t first, std::uint64_t second) {
  if (first + second > n) throw InvalidArgument("a set of cells of a 2 x n table names more than n columns");
  return {first, second, n - first - second};
}

CoverageBounds zero_sum_coverage(IntegerNoise noise, const std::vector<GroupTerm>& terms, std::int64_t t,
                                 const Interrupts& interrupts) {
  if (t < 0) throw InvalidArgument("a half-width must be non-negative");
  const Prepared p = prepare(noise, terms);
  if (p.empty()) return {1, 1};
  const std::int64_t t1 = t / p.scale;
  const GroupsInversion inversion(noise, p.patterns, p.halved, 0.5, t1, interrupts);
  return inversion.coverage(t1, interrupts);
}

Quantile zero_sum_quantile(IntegerNoise noise, const std::vector<GroupTerm>& terms, double level,
                           const Interrupts& interrupts) {
  check_level(level);
  const Prepared p = prepare(noise, terms);
  Quantile q;
  if (p.empty()) {
    q.coverage_lower = 1;
    q.exact = true;
    return q;
  }
  const GroupsInversion inversion(noise, p.patterns, p.halved, 1 - level, -1, interrupts);
  const auto guess = static_cast<std::int64_t>(std::floor(normal_quantile(level) * std::sqrt(p.variance)));
  q = smallest_covering([&](std::int64_t t) { return inversion.coverage(t, interrupts); }, level,
                        std::min(guess, inversion.t_max()), inversion.t_max(), interrupts);
  q.half_width *= p.scale;
  return q;
}

CoverageBounds zero_sum_coverage(IntegerNoise noise, SignedCounts group, std::int64_t t,
                                 const Interrupts& interrupts) {
  return zero_sum_coverage(noise, std::vector<GroupTerm>{{group, 1}}, t, interrupts);
}

Quantile zero_sum_quantile(IntegerNoise noise, SignedCounts group, double level, const Interrupts& interrupts) {
  return zero_sum_quantile(noise, std::vector<GroupTerm>{{group, 1}}, level, interrupts);
}

}  // namespace invariant_dp::accuracy
