// Lazy comparison of a uniform with an enclosed probability; the argument for
// exactness is in lazy_bernoulli.hpp.
#include "lazy_bernoulli.hpp"

#include <utility>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

static_assert(sizeof(unsigned long) == 8, "a 64-bit word must fit an unsigned long (LP64)");

constexpr mpfr_prec_t kMaxPrecision = mpfr_prec_t{1} << 24;

}  // namespace

LazyUniform::LazyUniform(RandomSource& rng) : rng_(rng), first_word_(rng.next_u64()), u_(64), bits_(64) {
  mpfr_set_ui(u_.v, first_word_, MPFR_RNDN);  // exact: 64 bits
  mpfr_div_2ui(u_.v, u_.v, 64, MPFR_RNDN);    // exact: power of two
}

LazyUniform::~LazyUniform() = default;

// Appends 64 digits; every operation is exact at the widened precision.
void LazyUniform::draw_word() {
  const mpfr_prec_t bits = bits_ + 64;
  mpfr_prec_round(u_.v, bits, MPFR_RNDN);  // widening: exact
  Mp word(64);
  mpfr_set_ui(word.v, rng_.next_u64(), MPFR_RNDN);
  mpfr_div_2ui(word.v, word.v, static_cast<unsigned long>(bits), MPFR_RNDN);
  mpfr_add(u_.v, u_.v, word.v, MPFR_RNDN);  // disjoint digits: exact
  bits_ = bits;
}

bool LazyUniform::less_than(const ProbabilityBounds& bounds, mpfr_prec_t initial_prec) {
  mpfr_prec_t prec = initial_prec < 64 ? 64 : initial_prec;
  // Ends: each pass doubles the precision and refuses past 2^24 bits (header: P(U within w of p) <= 2w).
  for (;;) {
    const Interval p = rounded(bounds(prec), prec);
    for (;;) {
      Mp top(bits_ + 1);
      mpfr_set_ui_2exp(top.v, 1, -bits_, MPFR_RNDN);
      mpfr_add(top.v, top.v, u_.v, MPFR_RNDN);  // u + 2^-bits, exact
      if (mpfr_lessequal_p(top.v, p.lower())) return true;
      if (mpfr_greaterequal_p(u_.v, p.upper())) return false;
      // Undecided: refine whichever of the two intervals is wider (p's
      // unless its width is certainly below U's, 2^-bits).
      if (!certainly_narrower(p, -bits_)) break;
      draw_word();
    }
    prec *= 2;
    if (prec > kMaxPrecision)
      throw Error("could not decide an exact bernoulli draw",
                  "The enclosure of the probability did not shrink with the precision.");
  }
}

bool sample_bernoulli_lazy(RandomSource& rng, const ProbabilityBounds& bounds,
                           mpfr_prec_t initial_prec) {
  LazyUniform u(rng);
  return u.less_than(bounds, initial_prec);
}

FixedBernoulli::FixedBernoulli(ProbabilityBounds bounds) : bounds_(std::move(bounds)) {
  // 2^64 [lo, hi] widened to the integers around it: a first word w with
  // w + 1 <= floor(2^64 lo) has U < lo; one with w >= ceil(2^64 hi) has U >= hi.
  const Interval words = integer_hull(scale_2exp(rounded(bounds_(128), 128), 64));
  if (mpfr_sgn(words.lower()) > 0)
    below_ = mpfr_cmp_ui_2exp(words.lower(), 1, 64) >= 0 ? UINT64_MAX : mpfr_get_ui(words.lower(), MPFR_RNDN);
  if (mpfr_cmp_ui_2exp(words.upper(), 1, 64) < 0 && mpfr_sgn(words.upper()) > 0)
    above_ = mpfr_get_ui(words.upper(), MPFR_RNDN);
}

bool FixedBernoulli::sample(RandomSource& rng) const {
  LazyUniform u(rng);
  const std::uint64_t w = u.first_word();
  if (w < below_ && w + 1 <= below_) return true;
  if (above_ != 0 && w >= above_) return false;
  return u.less_than(bounds_);
}

}  // namespace invariant_dp
