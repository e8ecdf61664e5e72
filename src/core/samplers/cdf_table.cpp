// The certified CDF table and its exact fallback; the argument is in
// cdf_table.hpp (steps 1-2 below refer to it).
#include "cdf_table.hpp"

#include <algorithm>

#include "../errors.hpp"
#include "interval.hpp"
#include "lazy_bernoulli.hpp"

namespace invariant_dp {
namespace {

static_assert(sizeof(unsigned long) == 8, "a 64-bit word must fit an unsigned long (LP64)");

constexpr unsigned kMaxGuideBits = 16;

}  // namespace

void CdfTable::words(const Interval& cdf, std::uint64_t& lower, std::uint64_t& upper_minus_one) {
  // [floor(2^64 lo), ceil(2^64 hi)]: integers, so reading one below 2^64 as
  // a word is exact.
  const Interval t = integer_hull(scale_2exp(cdf, 64));
  if (mpfr_sgn(t.lower()) <= 0)
    lower = 0;
  else if (mpfr_cmp_ui_2exp(t.lower(), 1, 64) >= 0)
    lower = UINT64_MAX;
  else
    lower = mpfr_get_ui(t.lower(), MPFR_RNDN);
  if (mpfr_cmp_ui_2exp(t.upper(), 1, 64) >= 0)
    upper_minus_one = UINT64_MAX;
  else if (mpfr_sgn(t.upper()) <= 0)
    upper_minus_one = 0;  // a CDF is > 0 always; defensive
  else
    upper_minus_one = mpfr_get_ui(t.upper(), MPFR_RNDN) - 1;
}

CdfTable::CdfTable(std::int64_t x0, std::vector<std::uint64_t> lower, std::vector<std::uint64_t> upper_minus_one)
    : x0_(x0), lower_(std::move(lower)), upper_minus_one_(std::move(upper_minus_one)) {
  if (lower_.empty() || lower_.size() != upper_minus_one_.size()) throw Error("a CDF table needs its words");
  const std::size_t n = lower_.size();
  // Guide: bucket j of the top bits covers words [j 2^shift, (j + 1) 2^shift).
  unsigned bits = 1;
  // Ends: at most kMaxGuideBits passes.
  while (bits < kMaxGuideBits && (std::size_t(1) << bits) < 2 * n) ++bits;
  guide_shift_ = 64 - bits;
  guide_.assign(std::size_t(1) << bits, 0);
  std::size_t k = 0;
  for (std::size_t j = 0; j < guide_.size(); ++j) {
    const std::uint64_t start = static_cast<std::uint64_t>(j) << guide_shift_;
    // Ends: k only grows, over the table once in all.
    while (k < n && lower_[k] <= start) ++k;
    guide_[j] = static_cast<std::uint32_t>(k);
  }
}

std::size_t CdfTable::memory_bytes() const {
  return lower_.size() * 2 * sizeof(std::uint64_t) + guide_.size() * sizeof(std::uint32_t);
}

std::int64_t CdfTable::sample_exactly(RandomSource& rng, const CdfEnclosure& cdf, std::uint64_t w,
                                      std::size_t guess) const {
  LazyUniform v(rng);  // U = (w + V) / 2^64
  const std::int64_t x1 = x0_ + static_cast<std::int64_t>(lower_.size()) - 1;
  // 1[U < CDF(x)]: from the table when its words decide, else exactly.
  auto below = [&](std::int64_t x) {
    if (x >= x0_ && x <= x1) {
      const auto k = static_cast<std::size_t>(x - x0_);
      if (w < lower_[k]) return true;
      if (w > upper_minus_one_[k]) return false;
    }
    // V < 2^64 CDF(x) - w.
    return v.less_than([&](mpfr_prec_t prec) { return sub(scale_2exp(cdf.cdf(prec + 32, x), 64), w); });
  };
  // X = min{x : U < CDF(x)}; CDF increases, so step from the guess.
  constexpr std::int64_t kFar = std::int64_t(1) << 62;
  std::int64_t x = x0_ + static_cast<std::int64_t>(std::min(guess, lower_.size() - 1));
  if (below(x)) {
    // Ends: the table covers all but 2^-64 of the law, and each step beyond its ends has geometrically less
    // mass: a few steps, past 2^62 refused.
    while (below(x - 1))
      if (--x < -kFar) throw Error("CDF table: draw out of range");
    return x;
  }
  // Ends: the table covers all but 2^-64 of the law, and each step beyond its ends has geometrically less mass:
  // a few steps, past 2^62 refused.
  do {
    if (++x > kFar) throw Error("CDF table: draw out of range");
  } while (!below(x));
  return x;
}

}  // namespace invariant_dp
