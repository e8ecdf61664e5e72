// Exact sampler of the group total N; the law, the envelope and the argument
// for exactness are in composition_total.hpp.
#include "composition_total.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../errors.hpp"
#include "lazy_bernoulli.hpp"

namespace invariant_dp {
namespace {

static_assert(sizeof(unsigned long) == 8 && sizeof(long) == 8, "LP64 is assumed by the MPFR calls");

constexpr mpfr_prec_t kCompositionPrecision = 128;  // makes (n - m) * den exact
// With the mode below 2^50 a right-tail proposal reaches 2^62 only after
// thousands of heads in a row, so the OutOfRange there never happens.
constexpr std::uint64_t kMaxCompositionMode = std::uint64_t{1} << 50;

// a = exp(-den/num).
Interval a_bounds(mpfr_prec_t prec, Rational scale) {
  return exp(neg(div(exact(prec, scale.den), scale.num)));
}

// Sign of (n+k) a - (n+1), which is never 0 (a is transcendental), from
// enclosures at doubling precision.
bool composition_ratio_above_one(Rational scale, std::uint64_t n, std::uint64_t k) {
  // Ends: the precision doubles up to 2^20 bits, then refuses: at most 14 passes.
  for (mpfr_prec_t prec = kCompositionPrecision;; prec *= 2) {
    const Interval d = sub(mul(a_bounds(prec, scale), n + k), n + 1);
    if (certainly_positive(d)) return true;
    if (certainly_negative(d)) return false;
    if (prec > (mpfr_prec_t{1} << 20)) throw Error("could not locate the mode of a group total");
  }
}

std::uint64_t ceil_u64(long double x) { return x <= 0 ? 0 : static_cast<std::uint64_t>(std::ceil(x)); }

}  // namespace

CompositionTotalSampler::CompositionTotalSampler(Rational scale, std::uint64_t k, unsigned squeeze_cells)
    : scale_(scale), k_(k), mode_term_(kCompositionPrecision) {
  if (scale.num == 0 || scale.den == 0)
    throw InvalidArgument("laplace scale must be positive");
  if (k < 2) throw InvalidArgument("a zero-sum group needs at least two cells");
  m_ = find_mode();
  mode_term_ = mode_term_bounds(kCompositionPrecision);
  choose_envelope();
  if (squeeze_cells > 0) build_squeeze(squeeze_cells);
}

std::size_t CompositionTotalSampler::memory_bytes() const {
  const std::size_t limbs_per_end = (static_cast<std::size_t>(mode_term_.precision()) + 63) / 64;
  return sizeof(*this) + (grid_lo_.capacity() + grid_hi_.capacity()) * sizeof(double) +
         2 * limbs_per_end * sizeof(std::uint64_t);
}

// lnG(m+k) - lnG(m+1).
Interval CompositionTotalSampler::mode_term_bounds(mpfr_prec_t prec) const {
  return sub(lngamma_at(prec, m_ + k_), lngamma_at(prec, m_ + 1));
}

// The mode estimated in long double, then moved to the exact one.
std::uint64_t CompositionTotalSampler::find_mode() const {
  const long double r = static_cast<long double>(scale_.den) / scale_.num;
  const long double a = std::exp(-r), one_minus_a = -std::expm1(-r);
  const long double estimate = (k_ * a - 1) / one_minus_a;
  if (!(estimate <= static_cast<long double>(kMaxCompositionMode)))
    throw OutOfRange("laplace scale is too large for a group of " + std::to_string(k_) + " cells",
                     "The expected group total k * a / (1 - a) must stay below 2^50.");
  std::uint64_t m = ceil_u64(estimate);
  // Ends: the double estimate of the mode is within a few units of it.
  while (m > 0 && !composition_ratio_above_one(scale_, m - 1, k_)) --m;
  while (composition_ratio_above_one(scale_, m, k_)) ++m;
  return m;
}

Interval CompositionTotalSampler::log_ratio_bounds(mpfr_prec_t prec, std::uint64_t n, std::uint64_t j) const {
  if (prec < kCompositionPrecision) prec = kCompositionPrecision;
  // 2 [lnG(n+k) - lnG(n+1) - (lnG(m+k) - lnG(m+1))], the mode's term computed once at 128 bits.
  const Interval mode = prec == kCompositionPrecision ? mode_term_ : mode_term_bounds(prec);
  const Interval binomials = scale_2exp(sub(sub(lngamma_at(prec, n + k_), lngamma_at(prec, n + 1)), mode), 1);
  // - 2 (n - m) den / num: (n - m) den is exact at 128 bits.
  const long diff = n >= m_ ? static_cast<long>(n - m_) : -static_cast<long>(m_ - n);
  const Interval powers = div(scale_2exp(mul(exact_signed(prec, diff), scale_.den), 1), scale_.num);
  const Interval log_ratio = sub(binomials, powers);
  return j > 0 ? add(log_ratio, mul(ln2(prec), j)) : log_ratio;  // + j ln 2
}

// Certifies w(to) <= w(from) / 2, i.e. log w(to) - log w(from) + ln 2 <= 0.
bool CompositionTotalSampler::halves_within(std::uint64_t from, std::uint64_t to) const {
  return certainly_not_positive(
      sub(log_ratio_bounds(kCompositionPrecision, to, 1), log_ratio_bounds(kCompositionPrecision, from, 0)));
}

void CompositionTotalSampler::choose_envelope() {
  // Var N ~ 1 / |d/dn log(w(n+1)/w(n))| at the mode = (m+k)(m+1) / (2(k-1)).
  const long double var = (static_cast<long double>(m_) + k_) * (m_ + 1.0L) / (2.0L * (k_ - 1));
  const std::uint64_t s = std::max<std::uint64_t>(1, ceil_u64(std::sqrt(var)));
  const std::uint64_t h = std::max<std::uint64_t>(1, ceil_u64(0.6L * std::sqrt(var)));
  R_ = m_ + s;
  L_ = m_ > s ? m_ - s : 0;
  for (hR_ = h; !halves_within(R_, R_ + hR_); hR_ *= 2) {
    if (R_ + 2 * hR_ > kMaxCompositionTotal) throw OutOfRange("laplace scale is too large for a zero-sum group");
  }
  for (hL_ = h; L_ >= hL_ && !halves_within(L_, L_ - hL_); hL_ *= 2) {
  }
  total_ = (R_ - L_) + 2 * hR_ + (L_ > 0 ? 2 * hL_ : 0);
}

// Certified double bounds of w(x)/M at the grid points (see the header).
// The grid spans left blocks j < 6 and right blocks j < 8 (all but 1/64 and
// 1/256 of the tail proposals).
void CompositionTotalSampler::build_squeeze(unsigned cells) {
  grid_start_ = L_ > 6 * hL_ ? L_ - 6 * hL_ : 0;
  const std::uint64_t end = std::min(R_ + 8 * hR_, kMaxCompositionTotal);
  grid_step_ = std::max<std::uint64_t>(1, (end - grid_start_ + cells - 1) / cells);
  const std::uint64_t points = (end - grid_start_ + grid_step_ - 1) / grid_step_ + 1;
  grid_lo_.reserve(points);
  grid_hi_.reserve(points);
  for (std::uint64_t i = 0; i < points; ++i) {
    const Interval ratio = exp(log_ratio_bounds(kCompositionPrecision, grid_start_ + i * grid_step_, 0));
    grid_lo_.push_back(to_double(ratio, End::lower));
    grid_hi_.push_back(to_double(ratio, End::upper));
  }
}

// Decides 1[U < p] from U's first 64 digits when the grid bounds allow.
bool CompositionTotalSampler::squeeze_decides(std::uint64_t n, std::uint64_t j, std::uint64_t word,
                                              bool& accept) const {
  if (grid_lo_.empty() || n < grid_start_ || j > 60) return false;
  const std::uint64_t i = (n - grid_start_) / grid_step_;
  if (i + 1 >= grid_lo_.size()) return false;
  const std::uint64_t x0 = grid_start_ + i * grid_step_, x1 = x0 + grid_step_;
  double plo = std::min(grid_lo_[i], grid_lo_[i + 1]), phi = 1.0;  // w <= M
  if (n == x0) {
    plo = grid_lo_[i];
    phi = grid_hi_[i];
  } else if (x0 >= m_) {
    phi = grid_hi_[i];
  } else if (x1 <= m_) {
    phi = grid_hi_[i + 1];
  }
  plo = std::ldexp(plo, static_cast<int>(j));
  phi = std::ldexp(phi, static_cast<int>(j));
  // U in [word, word + 1) / 2^64; the products by 2^64 are exact.
  if (plo >= 1.0 || static_cast<double>(word) < std::floor(std::ldexp(plo, 64)) - 4096.0) {
    accept = true;
    return true;
  }
  if (phi < 1.0 && static_cast<double>(word) > std::ceil(std::ldexp(phi, 64)) + 4096.0) {
    accept = false;
    return true;
  }
  return false;
}

std::uint64_t CompositionTotalSampler::sample(RandomSource& rng, const Interrupts& interrupts) const {
  for (std::uint64_t attempt = 0;; ++attempt) {
    interrupts.poll_every(attempt);
    const std::uint64_t t = rng.uniform_below(total_);
    std::uint64_t n, j = 0;
    if (t < R_ - L_) {
      n = L_ + t;
    } else {
      // Ends: a geometric number of fair bits: two passes on average.
      while (rng.fair_bit()) ++j;
      const bool right = t < (R_ - L_) + 2 * hR_;
      const std::uint64_t h = right ? hR_ : hL_;
      const std::uint64_t offset = rng.uniform_below(h);
      if (right) {
        if (j >= (kMaxCompositionTotal - R_) / h) throw OutOfRange("group total of the laplace noise does not fit in a bigint");
        n = R_ + j * h + offset;
      } else {
        if (j >= L_ / h + 1 || j * h + offset + 1 > L_) continue;  // below 0: w = 0
        n = L_ - j * h - offset - 1;
      }
    }
    LazyUniform u(rng);
    bool accept;
    if (squeeze_decides(n, j, u.first_word(), accept)) {
      if (accept) return n;
      continue;
    }
    const ProbabilityBounds p = [this, n, j](mpfr_prec_t prec) { return exp(log_ratio_bounds(prec, n, j)); };
    if (u.less_than(p, kCompositionPrecision)) return n;
  }
}

}  // namespace invariant_dp
