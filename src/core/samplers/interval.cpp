// Outward-rounded intervals (interval.hpp): every end is computed by one
// function of the end it bounds, rounded toward it.
#include "interval.hpp"

#include <cmath>
#include <utility>

#include "../errors.hpp"
#include "big_int.hpp"
#include "mpfr_scoped.hpp"

namespace invariant_dp {
namespace {

static_assert(sizeof(unsigned long) == 8 && sizeof(long) == 8, "LP64 is assumed by the MPFR calls");

constexpr End kEnds[2] = {End::lower, End::upper};

// The one mapping from an end to a rounding direction: each end is rounded
// toward itself, away from the value it bounds.
constexpr mpfr_rnd_t toward(End e) { return e == End::lower ? MPFR_RNDD : MPFR_RNDU; }

[[noreturn]] void lost(const char* operation) {
  throw Error("certified bound lost its enclosure", std::string("Interval operation: ") + operation + ".");
}

// An interval whose ends are NaN or crossed encloses nothing: refuse it.
void check_result(const Interval& out, const char* operation) {
  if (mpfr_nan_p(out.lower()) || mpfr_nan_p(out.upper()) || mpfr_greater_p(out.lower(), out.upper()))
    lost(operation);
}

mpfr_prec_t wider(const Interval& a, const Interval& b) {
  return a.precision() > b.precision() ? a.precision() : b.precision();
}

using Unary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
using WithScalar = int (*)(mpfr_ptr, mpfr_srcptr, unsigned long, mpfr_rnd_t);
using Binary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

// f increasing: end e of f(a) is f(end e of a), rounded toward e.
Interval increasing(const Interval& a, Unary f, const char* operation) {
  Interval out(a.precision());
  for (End e : kEnds) f(out.end(e), a.end(e), toward(e));
  check_result(out, operation);
  return out;
}

// The same for x -> f(x, c), increasing in x for the scalar c.
Interval increasing(const Interval& a, unsigned long c, WithScalar f, const char* operation) {
  Interval out(a.precision());
  for (End e : kEnds) f(out.end(e), a.end(e), c, toward(e));
  check_result(out, operation);
  return out;
}

// f decreasing: end e of f(a) is f(the other end of a), rounded toward e.
Interval decreasing(const Interval& a, Unary f, const char* operation) {
  Interval out(a.precision());
  for (End e : kEnds) f(out.end(e), a.end(opposite(e)), toward(e));
  check_result(out, operation);
  return out;
}

// For * and /: end e is the least (lower) or greatest (upper) of f at the
// four corners, each corner rounded toward e. Rounding is monotone, so this
// is the extreme corner rounded toward e.
Interval corners(const Interval& a, const Interval& b, Binary f, const char* operation) {
  const mpfr_prec_t prec = wider(a, b);
  Interval out(prec);
  Mp corner(prec);
  for (End e : kEnds) {
    bool first = true;
    for (End i : kEnds) {
      for (End j : kEnds) {
        f(corner.v, a.end(i), b.end(j), toward(e));
        if (mpfr_nan_p(corner.v)) lost(operation);
        const bool beyond = e == End::lower ? mpfr_less_p(corner.v, out.end(e)) : mpfr_greater_p(corner.v, out.end(e));
        if (first || beyond) mpfr_set(out.end(e), corner.v, MPFR_RNDN);  // same precision: exact
        first = false;
      }
    }
  }
  check_result(out, operation);
  return out;
}

}  // namespace

Interval::Interval(mpfr_prec_t prec) {
  for (mpfr_t& x : ends_) {
    mpfr_init2(x, prec);
    mpfr_set_zero(x, 1);
  }
}

Interval::Interval(mpfr_prec_t prec, mpfr_srcptr lower, mpfr_srcptr upper) : Interval(prec) {
  for (End e : kEnds) mpfr_set(end(e), e == End::lower ? lower : upper, toward(e));
  if (mpfr_nan_p(ends_[0]) || mpfr_nan_p(ends_[1]) || mpfr_greater_p(ends_[0], ends_[1])) lost("construct");
}

Interval::Interval(const Interval& other) {
  for (int i = 0; i < 2; ++i) {
    mpfr_init2(ends_[i], mpfr_get_prec(other.ends_[i]));
    mpfr_set(ends_[i], other.ends_[i], MPFR_RNDN);  // same precision: exact
  }
}

Interval::Interval(Interval&& other) noexcept {
  for (int i = 0; i < 2; ++i) {
    mpfr_init2(ends_[i], MPFR_PREC_MIN);
    mpfr_swap(ends_[i], other.ends_[i]);
  }
}

Interval& Interval::operator=(const Interval& other) {
  if (this == &other) return *this;
  for (int i = 0; i < 2; ++i) {
    mpfr_set_prec(ends_[i], mpfr_get_prec(other.ends_[i]));
    mpfr_set(ends_[i], other.ends_[i], MPFR_RNDN);  // same precision: exact
  }
  return *this;
}

Interval& Interval::operator=(Interval&& other) noexcept {
  for (int i = 0; i < 2; ++i) mpfr_swap(ends_[i], other.ends_[i]);
  return *this;
}

Interval::~Interval() {
  for (mpfr_t& x : ends_) mpfr_clear(x);
}

// ---- points and constants -------------------------------------------------

Interval exact(mpfr_prec_t prec, std::uint64_t x) {
  Interval out(prec);
  for (End e : kEnds) mpfr_set_ui(out.end(e), x, toward(e));
  return out;
}

Interval exact(mpfr_prec_t prec, Uint128 x) {
  Interval out(prec);
  for (End e : kEnds) {  // high * 2^64 + low, each step toward e
    mpfr_set_ui(out.end(e), static_cast<unsigned long>(x >> 64), toward(e));
    mpfr_mul_2ui(out.end(e), out.end(e), 64, toward(e));
    mpfr_add_ui(out.end(e), out.end(e), static_cast<unsigned long>(x), toward(e));
  }
  return out;
}

Interval exact_signed(mpfr_prec_t prec, std::int64_t x) {
  Interval out(prec);
  for (End e : kEnds) mpfr_set_si(out.end(e), x, toward(e));
  return out;
}

Interval exact(mpfr_prec_t prec, const BigInt& x) {
  Interval out(prec);
  for (End e : kEnds) mpfr_set_z(out.end(e), x.get(), toward(e));
  return out;
}

Interval exact_double(mpfr_prec_t prec, double x) {
  if (std::isnan(x)) lost("a NaN point");
  Interval out(prec);
  for (End e : kEnds) mpfr_set_d(out.end(e), x, toward(e));
  return out;
}

Interval pi(mpfr_prec_t prec) {
  Interval out(prec);
  for (End e : kEnds) mpfr_const_pi(out.end(e), toward(e));
  return out;
}

Interval ln2(mpfr_prec_t prec) {
  Interval out(prec);
  for (End e : kEnds) mpfr_const_log2(out.end(e), toward(e));
  return out;
}

Interval lngamma_at(mpfr_prec_t prec, std::uint64_t x) {
  if (x == 0) throw InvalidArgument("ln gamma is evaluated at positive integers only");
  Mp point(64);
  mpfr_set_ui(point.v, x, MPFR_RNDN);  // exact: 64 bits
  Interval out(prec);
  for (End e : kEnds) mpfr_lngamma(out.end(e), point.v, toward(e));
  check_result(out, "lngamma");
  return out;
}

// ---- arithmetic -----------------------------------------------------------

Interval add(const Interval& a, const Interval& b) {
  Interval out(wider(a, b));
  for (End e : kEnds) mpfr_add(out.end(e), a.end(e), b.end(e), toward(e));
  check_result(out, "add");
  return out;
}

Interval sub(const Interval& a, const Interval& b) {
  Interval out(wider(a, b));
  for (End e : kEnds) mpfr_sub(out.end(e), a.end(e), b.end(opposite(e)), toward(e));
  check_result(out, "sub");
  return out;
}

// With a >= 0, x y is monotone in x for each y (up if y >= 0) and the
// extreme over y is at y = end e of b, so end e is
// a.end(b.end(e) >= 0 ? e : other) * b.end(e): the extreme corner, found
// with two products instead of eight.
Interval mul(const Interval& a, const Interval& b) {
  const bool a_nonneg = mpfr_sgn(a.lower()) >= 0, b_nonneg = mpfr_sgn(b.lower()) >= 0;
  if (!a_nonneg && !b_nonneg) return corners(a, b, mpfr_mul, "mul");
  const Interval& p = a_nonneg ? a : b;  // the factor known >= 0
  const Interval& s = a_nonneg ? b : a;
  Interval out(wider(a, b));
  for (End e : kEnds) mpfr_mul(out.end(e), p.end(mpfr_sgn(s.end(e)) >= 0 ? e : opposite(e)), s.end(e), toward(e));
  check_result(out, "mul");
  return out;
}

// With b > 0, x / y is increasing in x and, for fixed x, decreasing in y
// when x >= 0 and increasing when x < 0: end e is a.end(e) divided by the
// end of b that moves the quotient towards e.
Interval div(const Interval& a, const Interval& b) {
  if (mpfr_sgn(b.lower()) <= 0 && mpfr_sgn(b.upper()) >= 0) lost("div by an interval containing 0");
  if (mpfr_sgn(b.lower()) < 0) return corners(a, b, mpfr_div, "div");
  Interval out(wider(a, b));
  for (End e : kEnds) mpfr_div(out.end(e), a.end(e), b.end(mpfr_sgn(a.end(e)) >= 0 ? opposite(e) : e), toward(e));
  check_result(out, "div");
  return out;
}

// The ends of add() in place: sum's ends are its own arguments, which MPFR
// allows.
void accumulate(Interval& sum, const Interval& term) {
  for (End e : kEnds) mpfr_add(sum.end(e), sum.end(e), term.end(e), toward(e));
  check_result(sum, "accumulate");
}

Interval share(const Interval& l, const Interval& r) {
  if (mpfr_sgn(l.lower()) < 0 || mpfr_sgn(r.lower()) < 0) lost("share of a possibly negative part");
  const mpfr_prec_t prec = wider(l, r);
  Interval out(prec);
  Mp sum(prec + 8);
  for (End e : kEnds) {
    // A larger denominator makes the share smaller: round it toward the
    // other end, as l.e + r.(other end) already moves it.
    mpfr_add(sum.v, l.end(e), r.end(opposite(e)), toward(opposite(e)));
    mpfr_div(out.end(e), l.end(e), sum.v, toward(e));
  }
  check_result(out, "share");
  return out;
}

Interval neg(const Interval& a) { return decreasing(a, mpfr_neg, "neg"); }

Interval add(const Interval& a, unsigned long c) { return increasing(a, c, mpfr_add_ui, "add"); }

Interval sub(const Interval& a, unsigned long c) { return increasing(a, c, mpfr_sub_ui, "sub"); }

Interval sub(unsigned long c, const Interval& a) {
  Interval out(a.precision());
  for (End e : kEnds) mpfr_ui_sub(out.end(e), c, a.end(opposite(e)), toward(e));
  check_result(out, "sub");
  return out;
}

Interval mul(const Interval& a, unsigned long c) { return increasing(a, c, mpfr_mul_ui, "mul"); }

Interval div(const Interval& a, unsigned long c) {
  if (c == 0) lost("div by 0");
  return increasing(a, c, mpfr_div_ui, "div");
}

Interval scale_2exp(const Interval& a, long k) {
  Interval out(a.precision());
  for (End e : kEnds) mpfr_mul_2si(out.end(e), a.end(e), k, toward(e));
  check_result(out, "scale_2exp");
  return out;
}

Interval pow(const Interval& a, unsigned long n) {
  if (n == 0 || mpfr_sgn(a.lower()) < 0) lost("pow of a possibly negative base");
  return increasing(a, n, mpfr_pow_ui, "pow");
}

// ---- elementary functions -------------------------------------------------

Interval exp(const Interval& a) { return increasing(a, mpfr_exp, "exp"); }

Interval expm1(const Interval& a) { return increasing(a, mpfr_expm1, "expm1"); }

Interval log(const Interval& a) {
  if (mpfr_sgn(a.lower()) <= 0) lost("log of an interval reaching 0");
  return increasing(a, mpfr_log, "log");
}

Interval log1p(const Interval& a) {
  if (mpfr_cmp_si(a.lower(), -1) <= 0) lost("log1p of an interval reaching -1");
  return increasing(a, mpfr_log1p, "log1p");
}

Interval erfc(const Interval& a) { return decreasing(a, mpfr_erfc, "erfc"); }

Interval sqrt(const Interval& a) {
  if (mpfr_sgn(a.lower()) < 0) lost("sqrt of a possibly negative interval");
  return increasing(a, mpfr_sqrt, "sqrt");
}

Interval cos_on_0_pi(const Interval& angle) { return cos_on_0_pi(angle, pi(angle.precision())); }

Interval cos_on_0_pi(const Interval& angle, const Interval& p) {
  if (mpfr_sgn(angle.upper()) < 0) lost("cos of an angle below 0");
  Interval out(angle.precision());
  for (End e : kEnds) {
    // Decreasing on [0, pi]: end e from the other end of the angle; where
    // that end leaves [0, pi] the angle may be 0 (cos 1) or pi (cos -1).
    mpfr_srcptr x = angle.end(opposite(e));
    if (e == End::upper && mpfr_sgn(x) <= 0)
      mpfr_set_ui(out.end(e), 1, MPFR_RNDN);
    else if (e == End::lower && !mpfr_lessequal_p(x, p.lower()))
      mpfr_set_si(out.end(e), -1, MPFR_RNDN);
    else
      mpfr_cos(out.end(e), x, toward(e));
  }
  check_result(out, "cos");
  return out;
}

// ---- set operations -------------------------------------------------------

Interval hull(const Interval& a, const Interval& b) {
  Interval out(wider(a, b));
  for (End e : kEnds) (e == End::lower ? mpfr_min : mpfr_max)(out.end(e), a.end(e), b.end(e), toward(e));
  check_result(out, "hull");
  return out;
}

Interval at_most(const Interval& a, unsigned long c) {
  if (mpfr_cmp_ui(a.lower(), c) > 0) lost("at_most below the lower end");
  Interval out(a);
  if (mpfr_cmp_ui(out.upper(), c) > 0) mpfr_set_ui(out.end(End::upper), c, toward(End::upper));
  return out;
}

Interval rounded(const Interval& a, mpfr_prec_t prec) {
  Interval out(prec);
  for (End e : kEnds) mpfr_set(out.end(e), a.end(e), toward(e));
  return out;
}

Interval integer_hull(const Interval& a) {
  Interval out(a.precision());
  mpfr_rint_floor(out.end(End::lower), a.lower(), toward(End::lower));
  mpfr_rint_ceil(out.end(End::upper), a.upper(), toward(End::upper));
  check_result(out, "integer_hull");
  return out;
}

bool certainly_positive(const Interval& a) { return mpfr_sgn(a.lower()) > 0; }
bool certainly_negative(const Interval& a) { return mpfr_sgn(a.upper()) < 0; }
bool certainly_not_positive(const Interval& a) { return mpfr_sgn(a.upper()) <= 0; }
bool certainly_at_most(const Interval& a, const Interval& b) { return mpfr_lessequal_p(a.upper(), b.lower()); }
bool certainly_below(const Interval& a, unsigned long c) { return mpfr_cmp_ui(a.upper(), c) < 0; }

bool certainly_narrower(const Interval& a, long k) {
  Mp width(a.precision());
  mpfr_sub(width.v, a.upper(), a.lower(), toward(End::upper));  // at least the width
  return mpfr_cmp_ui_2exp(width.v, 1, k) < 0;
}

double to_double(const Interval& a, End e) { return mpfr_get_d(a.end(e), toward(e)); }

// ---- bounds computed in double --------------------------------------------

double next_down_to_zero(double x) { return std::nextafter(x, 0.0); }

}  // namespace invariant_dp
