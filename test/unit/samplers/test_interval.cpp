// Unit tests of the outward-rounded intervals (samplers/interval.hpp) and of
// the certified bounds the exact samplers build on them: every operation's
// result contains the true value, computed at four times the precision
// (lower <= reference <= upper is exact for a correct enclosure of a point:
// the ends are representable at the reference precision and rounding is
// monotone), is no wider than the rounding of its ends needs, and refuses
// arguments outside its domain. Edge cases: zero, huge and tiny arguments,
// overflow, intervals straddling zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "errors.hpp"
#include "samplers/big_int.hpp"
#include "samplers/composition_total.hpp"
#include "samplers/interval.hpp"
#include "samplers/klein_correction.hpp"
#include "samplers/mpfr_scoped.hpp"

namespace invariant_dp {
namespace {

constexpr mpfr_prec_t kPrec = 64;
constexpr mpfr_prec_t kRef = 4 * kPrec;

std::string text(mpfr_srcptr x) {
  char* s = nullptr;
  mpfr_asprintf(&s, "%.25Rg", x);
  std::string out(s);
  mpfr_free_str(s);
  return out;
}

::testing::AssertionResult contains(const Interval& a, mpfr_srcptr x) {
  if (mpfr_lessequal_p(a.lower(), x) && mpfr_lessequal_p(x, a.upper())) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << text(x) << " is outside [" << text(a.lower()) << ", " << text(a.upper())
                                       << "]";
}

// Width at most `ulps` units in the last place of the reference (0 for 0).
::testing::AssertionResult tight(const Interval& a, mpfr_srcptr ref, int ulps) {
  Mp width(kRef);
  mpfr_sub(width.v, a.upper(), a.lower(), MPFR_RNDU);
  if (mpfr_zero_p(ref)) {
    if (mpfr_zero_p(width.v)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "width " << text(width.v) << " around 0";
  }
  Mp ulp(kRef);
  mpfr_set_ui_2exp(ulp.v, static_cast<unsigned long>(ulps), mpfr_get_exp(ref) - a.precision(), MPFR_RNDN);
  if (mpfr_lessequal_p(width.v, ulp.v)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "width " << text(width.v) << " exceeds " << ulps << " ulps of " << text(ref);
}

// A 64-bit point from a decimal string (the point is the rounded value; the
// reference computations start from the same point, so they are exact inputs).
Interval point(const char* decimal) {
  Mp x(kPrec);
  mpfr_set_str(x.v, decimal, 10, MPFR_RNDN);
  return Interval(kPrec, x.v, x.v);
}

Interval between(const char* lo, const char* hi) {
  Mp a(kPrec), b(kPrec);
  mpfr_set_str(a.v, lo, 10, MPFR_RNDD);
  mpfr_set_str(b.v, hi, 10, MPFR_RNDU);
  return Interval(kPrec, a.v, b.v);
}

const std::vector<const char*> kPoints = {"0",     "1",     "-1",       "0.3",         "-2.25",      "7e-300",
                                          "3e300", "1e-20", "123456789", "-0.00048828125", "2.718281828459045"};

using RefUnary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
using RefBinary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

void expect_unary(const std::function<Interval(const Interval&)>& op, RefUnary ref, const Interval& x, int ulps) {
  const Interval got = op(x);
  Mp r(kRef);
  ref(r.v, x.lower(), MPFR_RNDN);  // x is a point
  EXPECT_TRUE(contains(got, r.v)) << text(x.lower());
  EXPECT_TRUE(tight(got, r.v, ulps)) << text(x.lower());
}

void expect_binary(const std::function<Interval(const Interval&, const Interval&)>& op, RefBinary ref,
                   const Interval& x, const Interval& y) {
  const Interval got = op(x, y);
  Mp r(kRef);
  ref(r.v, x.lower(), y.lower(), MPFR_RNDN);
  EXPECT_TRUE(contains(got, r.v)) << text(x.lower()) << " " << text(y.lower());
  EXPECT_TRUE(tight(got, r.v, 1)) << text(x.lower()) << " " << text(y.lower());
}

TEST(Interval, ArithmeticOfPointsContainsTheExactResult) {
  for (const char* a : kPoints) {
    for (const char* b : kPoints) {
      const Interval x = point(a), y = point(b);
      expect_binary([](const Interval& p, const Interval& q) { return add(p, q); }, mpfr_add, x, y);
      expect_binary([](const Interval& p, const Interval& q) { return sub(p, q); }, mpfr_sub, x, y);
      expect_binary([](const Interval& p, const Interval& q) { return mul(p, q); }, mpfr_mul, x, y);
      if (!mpfr_zero_p(y.lower()))
        expect_binary([](const Interval& p, const Interval& q) { return div(p, q); }, mpfr_div, x, y);
    }
    expect_unary([](const Interval& p) { return neg(p); }, mpfr_neg, point(a), 0);
  }
}

TEST(Interval, ArithmeticOfIntervalsContainsEveryCorner) {
  // Straddling zero on either side, both sides, or neither.
  const std::vector<std::pair<const char*, const char*>> ranges = {
      {"-2", "3"}, {"-5", "-0.5"}, {"0.25", "7"}, {"0", "1e-300"}, {"-1e300", "2"}};
  for (auto [alo, ahi] : ranges) {
    for (auto [blo, bhi] : ranges) {
      const Interval a = between(alo, ahi), b = between(blo, bhi);
      const bool b_has_zero = mpfr_sgn(b.lower()) <= 0 && mpfr_sgn(b.upper()) >= 0;
      for (mpfr_srcptr x : {a.lower(), a.upper()}) {
        for (mpfr_srcptr y : {b.lower(), b.upper()}) {
          Mp r(kRef);
          mpfr_add(r.v, x, y, MPFR_RNDN);
          EXPECT_TRUE(contains(add(a, b), r.v));
          mpfr_sub(r.v, x, y, MPFR_RNDN);
          EXPECT_TRUE(contains(sub(a, b), r.v));
          mpfr_mul(r.v, x, y, MPFR_RNDN);
          EXPECT_TRUE(contains(mul(a, b), r.v));
          if (!b_has_zero) {
            mpfr_div(r.v, x, y, MPFR_RNDN);
            EXPECT_TRUE(contains(div(a, b), r.v));
          }
        }
      }
      if (b_has_zero) {
        EXPECT_THROW(div(a, b), Error);
      }
    }
  }
  // The corners decide: [-2, 3] * [-5, 7] = [-15, 21] exactly.
  const Interval m = mul(between("-2", "3"), between("-5", "7"));
  EXPECT_EQ(mpfr_cmp_si(m.lower(), -15), 0);
  EXPECT_EQ(mpfr_cmp_si(m.upper(), 21), 0);
  const Interval q = div(between("-1", "3"), between("2", "4"));
  EXPECT_EQ(mpfr_cmp_d(q.lower(), -0.5), 0);
  EXPECT_EQ(mpfr_cmp_d(q.upper(), 1.5), 0);
}

TEST(Interval, ScalarOperations) {
  for (const char* a : kPoints) {
    const Interval x = point(a);
    for (unsigned long c : {0ul, 1ul, 3ul, 1000000007ul, ~0ul}) {
      Mp r(kRef);
      mpfr_add_ui(r.v, x.lower(), c, MPFR_RNDN);
      EXPECT_TRUE(contains(add(x, c), r.v));
      mpfr_sub_ui(r.v, x.lower(), c, MPFR_RNDN);
      EXPECT_TRUE(contains(sub(x, c), r.v));
      mpfr_ui_sub(r.v, c, x.lower(), MPFR_RNDN);
      EXPECT_TRUE(contains(sub(c, x), r.v));
      mpfr_mul_ui(r.v, x.lower(), c, MPFR_RNDN);
      EXPECT_TRUE(contains(mul(x, c), r.v));
      if (c != 0) {
        mpfr_div_ui(r.v, x.lower(), c, MPFR_RNDN);
        EXPECT_TRUE(contains(div(x, c), r.v));
        EXPECT_TRUE(tight(div(x, c), r.v, 1));
      }
    }
    for (long k : {-100000L, -64L, 0L, 64L, 100000L}) {
      Mp r(kRef);
      mpfr_mul_2si(r.v, x.lower(), k, MPFR_RNDN);
      EXPECT_TRUE(contains(scale_2exp(x, k), r.v));
    }
  }
  EXPECT_THROW(div(point("1"), 0ul), Error);
  // c - [1, 2] = [c - 2, c - 1]: the decreasing direction.
  const Interval d = sub(5ul, between("1", "2"));
  EXPECT_EQ(mpfr_cmp_ui(d.lower(), 3), 0);
  EXPECT_EQ(mpfr_cmp_ui(d.upper(), 4), 0);
}

TEST(Interval, ElementaryFunctionsContainTheirValues) {
  for (const char* a : {"0", "1", "-1", "0.3", "-745.5", "709.5", "1e-20", "-1e6", "1e6", "123.456"})
    expect_unary([](const Interval& p) { return exp(p); }, mpfr_exp, point(a), 1);
  for (const char* a : {"1", "0.3", "7e-300", "3e300", "1e-20", "2.718281828459045", "123456789"}) {
    expect_unary([](const Interval& p) { return log(p); }, mpfr_log, point(a), 1);
    expect_unary([](const Interval& p) { return sqrt(p); }, mpfr_sqrt, point(a), 1);
  }
  expect_unary([](const Interval& p) { return sqrt(p); }, mpfr_sqrt, point("0"), 0);
  for (unsigned long n : {1ul, 2ul, 7ul, 1000ul}) {
    for (const char* a : {"0", "0.5", "0.999", "1", "3"}) {
      const Interval x = point(a);
      Mp r(kRef);
      mpfr_pow_ui(r.v, x.lower(), n, MPFR_RNDN);
      EXPECT_TRUE(contains(pow(x, n), r.v)) << a << "^" << n;
    }
  }
  // Interval arguments: the image of the ends, monotone.
  const Interval e = exp(between("-1", "2"));
  Mp r(kRef);
  mpfr_set_si(r.v, -1, MPFR_RNDN);
  mpfr_exp(r.v, r.v, MPFR_RNDN);
  EXPECT_TRUE(contains(e, r.v));
  mpfr_set_si(r.v, 2, MPFR_RNDN);
  mpfr_exp(r.v, r.v, MPFR_RNDN);
  EXPECT_TRUE(contains(e, r.v));
  EXPECT_EQ(mpfr_cmp_ui(exp(point("0")).lower(), 1), 0);
  EXPECT_EQ(mpfr_cmp_ui(exp(point("0")).upper(), 1), 0);
  // Domains.
  EXPECT_THROW(log(between("0", "1")), Error);
  EXPECT_THROW(log(point("-1")), Error);
  EXPECT_THROW(sqrt(between("-1", "4")), Error);
  EXPECT_THROW(pow(between("-1", "4"), 2), Error);
  EXPECT_THROW(pow(point("2"), 0), Error);
}

TEST(Interval, OverflowGivesAnInfiniteEndAndNaNIsRefused) {
  // exp(2^40) is beyond MPFR's exponent range: the upper end is +inf, the
  // lower end a finite bound; still an enclosure.
  const Interval huge = exp(scale_2exp(point("1"), 40));
  EXPECT_TRUE(mpfr_inf_p(huge.upper()));
  EXPECT_TRUE(mpfr_number_p(huge.lower()));
  EXPECT_GT(mpfr_get_exp(huge.lower()), 1000000);
  // inf * 0 has no value: refused rather than carried.
  EXPECT_THROW(mul(huge, point("0")), Error);
  // exp of a very negative argument underflows to a positive lower end of 0.
  const Interval tiny = exp(neg(scale_2exp(point("1"), 40)));
  EXPECT_GE(mpfr_sgn(tiny.lower()), 0);
  EXPECT_GT(mpfr_sgn(tiny.upper()), 0);
}

TEST(Interval, CosineOnZeroToPi) {
  const Interval p = pi(kPrec);
  const auto check = [&](const Interval& angle, double expect) {
    const Interval c = cos_on_0_pi(angle);
    Mp r(kRef);
    mpfr_set_d(r.v, expect, MPFR_RNDN);
    EXPECT_LE(mpfr_get_d(c.lower(), MPFR_RNDD), expect + 1e-15);
    EXPECT_GE(mpfr_get_d(c.upper(), MPFR_RNDU), expect - 1e-15);
    EXPECT_GE(mpfr_cmp_si(c.lower(), -1), 0);
    EXPECT_LE(mpfr_cmp_ui(c.upper(), 1), 0);
  };
  check(point("0"), 1.0);
  check(p, -1.0);  // the upper end of pi is past pi: the lower end is -1
  check(div(p, 3ul), 0.5);
  check(div(mul(p, 2ul), 3ul), -0.5);
  check(div(p, 2ul), 0.0);
  check(between("0", "0.001"), 1.0);
  EXPECT_EQ(mpfr_cmp_ui(cos_on_0_pi(point("0")).upper(), 1), 0);
  EXPECT_EQ(mpfr_cmp_si(cos_on_0_pi(p).lower(), -1), 0);
  // pi/3 at 256 bits, against the reference cos.
  const Interval third = div(pi(kRef), 3ul);
  Mp r(4 * kRef);
  mpfr_const_pi(r.v, MPFR_RNDN);
  mpfr_div_ui(r.v, r.v, 3, MPFR_RNDN);
  mpfr_cos(r.v, r.v, MPFR_RNDN);
  EXPECT_TRUE(contains(cos_on_0_pi(third), r.v));
  EXPECT_THROW(cos_on_0_pi(point("-0.5")), Error);
}

TEST(Interval, PointsAndConstants) {
  Mp r(kRef);
  mpfr_const_pi(r.v, MPFR_RNDN);
  EXPECT_TRUE(contains(pi(kPrec), r.v));
  EXPECT_TRUE(tight(pi(kPrec), r.v, 1));
  mpfr_const_log2(r.v, MPFR_RNDN);
  EXPECT_TRUE(contains(ln2(kPrec), r.v));
  EXPECT_TRUE(tight(ln2(kPrec), r.v, 1));
  // 128-bit integers: exact at 128 bits, rounded outward at 64.
  const Uint128 big = (static_cast<Uint128>(1) << 127) + 12345;
  const Interval at128 = exact(128, big), at64 = exact(64, big);
  EXPECT_TRUE(mpfr_equal_p(at128.lower(), at128.upper()));
  EXPECT_TRUE(contains(at64, at128.lower()));
  EXPECT_TRUE(mpfr_less_p(at64.lower(), at64.upper()));
  EXPECT_EQ(mpfr_cmp_si(exact_signed(kPrec, -5).lower(), -5), 0);
  EXPECT_EQ(mpfr_cmp_ui(exact(kPrec, ~std::uint64_t{0}).upper(), ~0ul), 0);
  // ln Gamma at integers: 0 at 1 and 2, ln 9! at 10, and a huge argument.
  EXPECT_TRUE(mpfr_zero_p(lngamma_at(kPrec, 1).lower()) && mpfr_zero_p(lngamma_at(kPrec, 1).upper()));
  EXPECT_TRUE(mpfr_zero_p(lngamma_at(kPrec, 2).lower()) && mpfr_zero_p(lngamma_at(kPrec, 2).upper()));
  for (std::uint64_t x : {std::uint64_t{10}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
    Mp arg(64);
    mpfr_set_ui(arg.v, x, MPFR_RNDN);
    mpfr_lngamma(r.v, arg.v, MPFR_RNDN);
    EXPECT_TRUE(contains(lngamma_at(kPrec, x), r.v)) << x;
    EXPECT_TRUE(tight(lngamma_at(kPrec, x), r.v, 1)) << x;
  }
  EXPECT_THROW(lngamma_at(kPrec, 0), InvalidArgument);
}

TEST(Interval, SetOperationsAndPredicates) {
  const Interval h = hull(between("-1", "2"), between("0.5", "3"));
  EXPECT_EQ(mpfr_cmp_si(h.lower(), -1), 0);
  EXPECT_EQ(mpfr_cmp_ui(h.upper(), 3), 0);
  const Interval clamped = at_most(between("0.5", "3"), 1);
  EXPECT_EQ(mpfr_cmp_ui(clamped.upper(), 1), 0);
  EXPECT_EQ(mpfr_cmp_d(clamped.lower(), 0.5), 0);
  EXPECT_THROW(at_most(between("2", "3"), 1), Error);
  EXPECT_TRUE(certainly_positive(between("1e-300", "1")));
  EXPECT_FALSE(certainly_positive(between("0", "1")));
  EXPECT_TRUE(certainly_negative(between("-2", "-1e-300")));
  EXPECT_FALSE(certainly_negative(between("-2", "0")));
  EXPECT_TRUE(certainly_not_positive(between("-2", "0")));
  EXPECT_FALSE(certainly_not_positive(between("-2", "1e-300")));
  // to_double rounds each end outward.
  const Interval third = div(exact(kPrec, std::uint64_t{1}), 3ul);
  EXPECT_LT(to_double(third, End::lower), to_double(third, End::upper));
  EXPECT_LE(to_double(third, End::lower), 1.0 / 3.0);
  EXPECT_GE(to_double(third, End::upper), 1.0 / 3.0);
}

TEST(Interval, DirectedRoundingComposes) {
  // Rounding a 256-bit enclosure to 64 bits gives exactly the 64-bit
  // enclosure: the samplers rely on this to compute at a working precision.
  for (std::uint64_t a : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{12345}, ~std::uint64_t{0}}) {
    for (unsigned long b : {3ul, 7ul, 1000003ul}) {
      const Interval wide = rounded(div(exact(kRef, a), b), kPrec), direct = div(exact(kPrec, a), b);
      EXPECT_TRUE(mpfr_equal_p(wide.lower(), direct.lower())) << a << "/" << b;
      EXPECT_TRUE(mpfr_equal_p(wide.upper(), direct.upper())) << a << "/" << b;
    }
  }
}

TEST(Interval, MoreElementaryFunctionsContainTheirValues) {
  for (const char* a : {"0", "1", "-1", "0.3", "-745.5", "709.5", "1e-20", "-1e-20", "20", "-20"})
    expect_unary([](const Interval& p) { return expm1(p); }, mpfr_expm1, point(a), 1);
  for (const char* a : {"0", "1", "0.3", "-0.5", "-0.999", "1e-20", "-1e-20", "3e300", "123456789"})
    expect_unary([](const Interval& p) { return log1p(p); }, mpfr_log1p, point(a), 1);
  for (const char* a : {"0", "1", "-1", "0.3", "-2.25", "5", "27.5", "-30", "1e-20"})
    expect_unary([](const Interval& p) { return erfc(p); }, mpfr_erfc, point(a), 1);
  // erfc decreases: its lower end comes from the upper end of the argument.
  const Interval e = erfc(between("0.5", "2"));
  for (const char* x : {"0.5", "2"}) {
    Mp r(kRef), arg(kRef);
    mpfr_set_str(arg.v, x, 10, MPFR_RNDN);
    mpfr_erfc(r.v, arg.v, MPFR_RNDN);
    EXPECT_TRUE(contains(e, r.v)) << x;
  }
  EXPECT_TRUE(mpfr_less_p(e.lower(), e.upper()));
  EXPECT_THROW(log1p(between("-1", "0")), Error);
  EXPECT_THROW(log1p(point("-2")), Error);
}

TEST(Interval, MorePointsContainTheirValues) {
  // A 200-bit integer: exact at 256 bits, rounded outward at 64.
  BigInt big = (BigInt(~std::uint64_t{0}) << 136) + 12345;
  Mp r(kRef);
  mpfr_set_z(r.v, big.get(), MPFR_RNDN);  // exact: 200 bits
  const Interval at64 = exact(kPrec, big), at256 = exact(kRef, big);
  EXPECT_TRUE(contains(at64, r.v));
  EXPECT_TRUE(tight(at64, r.v, 1));
  EXPECT_TRUE(mpfr_less_p(at64.lower(), at64.upper()));
  EXPECT_TRUE(mpfr_equal_p(at256.lower(), r.v) && mpfr_equal_p(at256.upper(), r.v));
  EXPECT_TRUE(contains(exact(kPrec, BigInt(Int128{-7})), exact_signed(kRef, -7).lower()));
  // Doubles: exact from 53 bits on, rounded outward below.
  for (double x : {0.1, -0.1, 1e300, -3.0, 0.0}) {
    mpfr_set_d(r.v, x, MPFR_RNDN);  // exact
    const Interval at24 = exact_double(24, x), at53 = exact_double(53, x);
    EXPECT_TRUE(contains(at24, r.v)) << x;
    EXPECT_TRUE(mpfr_equal_p(at53.lower(), r.v) && mpfr_equal_p(at53.upper(), r.v)) << x;
  }
  EXPECT_TRUE(mpfr_less_p(exact_double(24, 0.1).lower(), exact_double(24, 0.1).upper()));
  EXPECT_THROW(exact_double(kPrec, NAN), Error);
}

TEST(Interval, SumsAndSharesContainTheirValues) {
  // A long sum in place has the ends of add() and contains the exact sum.
  Interval sum(kPrec), added(kPrec);
  Mp r(kRef), t(kRef);
  mpfr_set_zero(r.v, 1);
  for (unsigned long k = 1; k <= 200; ++k) {
    const Interval term = div(exact(kPrec, std::uint64_t{1}), k);
    accumulate(sum, term);
    added = add(added, term);
    mpfr_set_ui(t.v, 1, MPFR_RNDN);
    mpfr_div_ui(t.v, t.v, k, MPFR_RNDN);
    mpfr_add(r.v, r.v, t.v, MPFR_RNDN);
  }
  EXPECT_TRUE(mpfr_equal_p(sum.lower(), added.lower()) && mpfr_equal_p(sum.upper(), added.upper()));
  EXPECT_TRUE(contains(sum, r.v));
  // l / (l + r): every corner inside, and no wider than the division that
  // lets l move in the numerator and the denominator independently.
  const std::vector<std::pair<const char*, const char*>> ranges = {
      {"0.25", "0.5"}, {"1", "1"}, {"0", "3"}, {"1e-300", "2e-300"}, {"7", "1e6"}};
  for (auto [llo, lhi] : ranges) {
    for (auto [rlo, rhi] : ranges) {
      const Interval l = between(llo, lhi), rr = between(rlo, rhi);
      if (mpfr_zero_p(l.lower()) && mpfr_zero_p(rr.lower())) continue;
      const Interval got = share(l, rr);
      for (mpfr_srcptr x : {l.lower(), l.upper()}) {
        for (mpfr_srcptr y : {rr.lower(), rr.upper()}) {
          mpfr_add(t.v, x, y, MPFR_RNDN);  // exact at 256 bits
          mpfr_div(r.v, x, t.v, MPFR_RNDN);
          EXPECT_TRUE(contains(got, r.v)) << llo << " " << rlo;
        }
      }
      const Interval loose = div(l, add(l, rr));
      EXPECT_TRUE(mpfr_lessequal_p(loose.lower(), got.lower()) && mpfr_lessequal_p(got.upper(), loose.upper()));
    }
  }
  // Points: one rounding each way, so within an ulp or two.
  const Interval third = share(point("1"), point("2"));
  mpfr_set_ui(r.v, 1, MPFR_RNDN);
  mpfr_div_ui(r.v, r.v, 3, MPFR_RNDN);
  EXPECT_TRUE(contains(third, r.v));
  EXPECT_TRUE(tight(third, r.v, 2));
  EXPECT_THROW(share(point("-1"), point("2")), Error);
}

TEST(Interval, IntegerHullRoundsEachEndOutward) {
  const Interval h = integer_hull(between("-2.5", "3.25"));
  EXPECT_EQ(mpfr_cmp_si(h.lower(), -3), 0);
  EXPECT_EQ(mpfr_cmp_ui(h.upper(), 4), 0);
  const Interval seven = integer_hull(point("7"));
  EXPECT_EQ(mpfr_cmp_ui(seven.lower(), 7), 0);
  EXPECT_EQ(mpfr_cmp_ui(seven.upper(), 7), 0);
  // Just above and below an integer, at 2^64 scale (the CDF tables' words).
  const Interval words = integer_hull(scale_2exp(between("0.2500000000000000001", "0.7499999999999999999"), 64));
  Mp r(kRef);
  for (const char* x : {"0.2500000000000000001", "0.7499999999999999999"}) {
    mpfr_set_str(r.v, x, 10, MPFR_RNDN);
    mpfr_mul_2ui(r.v, r.v, 64, MPFR_RNDN);
    EXPECT_TRUE(contains(words, r.v)) << x;
  }
  EXPECT_TRUE(mpfr_integer_p(words.lower()) && mpfr_integer_p(words.upper()));
  const Interval huge = integer_hull(point("3e300"));  // already an integer
  EXPECT_TRUE(mpfr_equal_p(huge.lower(), point("3e300").lower()));
}

TEST(Interval, CertainComparisons) {
  EXPECT_TRUE(certainly_at_most(between("1", "2"), between("2", "3")));
  EXPECT_FALSE(certainly_at_most(between("1", "2.5"), between("2", "3")));
  EXPECT_TRUE(certainly_below(between("0.5", "0.9"), 1));
  EXPECT_FALSE(certainly_below(between("0.5", "1"), 1));
  // Width 1/4: narrower than 2^-1, not than 2^-2; the width is rounded up.
  EXPECT_TRUE(certainly_narrower(between("1", "1.25"), -1));
  EXPECT_FALSE(certainly_narrower(between("1", "1.25"), -2));
  EXPECT_TRUE(certainly_narrower(point("3"), -1000));
  // A width that rounds up to 2^-2 at 8 bits is not certainly below it.
  Mp a(8), b(8);
  mpfr_set_ui(a.v, 0, MPFR_RNDN);
  mpfr_set_ui_2exp(b.v, 255, -10, MPFR_RNDN);  // 0.249..., exactly representable
  EXPECT_TRUE(certainly_narrower(Interval(8, a.v, b.v), -2));
  mpfr_set_si_2exp(a.v, -1, -20, MPFR_RNDN);   // width 255/1024 + 2^-20 rounds up to 1/4 at 8 bits
  EXPECT_FALSE(certainly_narrower(Interval(8, a.v, b.v), -2));
}

TEST(Interval, BoundsComputedInDoubleStepOutward) {
  for (double x : {1.0, -1.0, 0.1, 1e-300, 1e300}) {
    EXPECT_LT(next_down(x), x);
    EXPECT_GT(next_up(x), x);
    EXPECT_EQ(std::nextafter(next_down(x), INFINITY), x);
    EXPECT_EQ(std::nextafter(next_up(x), -INFINITY), x);
  }
  // As std::nextafter on every kind of double, the signed zeros and
  // subnormals, the largest finite, the infinities and NaN included.
  const double max = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  for (double x : {0.0, -0.0, tiny, -tiny, 2 * tiny, -2 * tiny, 1e-310, -1e-310, 2.2250738585072014e-308, 1.0, -1.0,
                   3.5, -3.5, max, -max, double(INFINITY), -double(INFINITY)}) {
    EXPECT_EQ(next_up(x), std::nextafter(x, INFINITY)) << x;
    EXPECT_EQ(next_down(x), std::nextafter(x, -INFINITY)) << x;
    EXPECT_EQ(std::signbit(next_up(x)), std::signbit(std::nextafter(x, INFINITY))) << x;
    EXPECT_EQ(std::signbit(next_down(x)), std::signbit(std::nextafter(x, -INFINITY))) << x;
  }
  EXPECT_TRUE(std::isnan(next_up(NAN)));
  EXPECT_TRUE(std::isnan(next_down(NAN)));
  EXPECT_EQ(next_down_to_zero(0.0), 0.0);
  EXPECT_LT(next_down_to_zero(1e-300), 1e-300);
  EXPECT_GE(next_down_to_zero(4.9e-324), 0.0);
  EXPECT_EQ(next_down_to_zero(2.0), next_down(2.0));
}

TEST(BigInt, ArithmeticAndConversions) {
  const BigInt a(std::uint64_t{12});
  EXPECT_EQ((a * 5 + 3).to_u128(), Uint128{63});
  EXPECT_EQ((a << 100).to_u128(), Uint128{12} << 100);
  EXPECT_EQ(abs(BigInt(Int128{-9})).to_u128(), Uint128{9});
  EXPECT_EQ((a << 124).bits(), 128u);
  EXPECT_THROW((a << 126).to_u128(), InvalidArgument);
  EXPECT_THROW(BigInt(Int128{-1}).to_u128(), InvalidArgument);
  const Uint128 top = ~Uint128{0};
  EXPECT_EQ(BigInt(top).to_u128(), top);
  BigInt num(std::uint64_t{84}), den = BigInt(std::uint64_t{3}) << 5;  // 84 / 96 = 7 / 8
  reduce_fraction(num, den);
  EXPECT_EQ(num.to_u128(), Uint128{7});
  EXPECT_EQ(den.to_u128(), Uint128{8});
}

TEST(Interval, CopiesAndMovesKeepTheValue) {
  Interval a = between("1", "2");
  Interval b(a);
  Interval c(std::move(a));
  Interval d(8);
  d = b;
  Interval e(8);
  e = std::move(c);
  for (const Interval* x : {&b, &d, &e}) {
    EXPECT_EQ(x->precision(), kPrec);
    EXPECT_EQ(mpfr_cmp_ui(x->lower(), 1), 0);
    EXPECT_EQ(mpfr_cmp_ui(x->upper(), 2), 0);
  }
}

// ---- the bounds the samplers use -------------------------------------------

// rho_s(Z + f) / rho_s(Z) summed directly at 1200 bits (terms beyond |n| = N
// are below 2^-1000 of the largest).
void shift_ratio_reference(double s2, std::uint64_t F, std::uint64_t Q, std::uint64_t sn, std::uint64_t sd,
                           mpfr_ptr out) {
  const mpfr_prec_t p = 1200;
  const long N = static_cast<long>(std::ceil(std::sqrt(2 * s2 * 1000 * 0.7)) + 4);
  Mp s(p), num(p), den(p), x(p), t(p);
  mpfr_set_ui(s.v, sn, MPFR_RNDN);
  mpfr_div_ui(s.v, s.v, sd, MPFR_RNDN);
  mpfr_mul_2ui(s.v, s.v, 1, MPFR_RNDN);  // 2 s^2
  mpfr_set_zero(num.v, 1);
  mpfr_set_zero(den.v, 1);
  for (long n = -N; n <= N; ++n) {
    mpfr_set_ui(x.v, F, MPFR_RNDN);
    mpfr_div_ui(x.v, x.v, Q, MPFR_RNDN);
    mpfr_add_si(x.v, x.v, n, MPFR_RNDN);  // n + f
    mpfr_sqr(t.v, x.v, MPFR_RNDN);
    mpfr_div(t.v, t.v, s.v, MPFR_RNDN);
    mpfr_neg(t.v, t.v, MPFR_RNDN);
    mpfr_exp(t.v, t.v, MPFR_RNDN);
    mpfr_add(num.v, num.v, t.v, MPFR_RNDN);
    mpfr_set_si(t.v, n * n, MPFR_RNDN);
    mpfr_div(t.v, t.v, s.v, MPFR_RNDN);
    mpfr_neg(t.v, t.v, MPFR_RNDN);
    mpfr_exp(t.v, t.v, MPFR_RNDN);
    mpfr_add(den.v, den.v, t.v, MPFR_RNDN);
  }
  mpfr_div(out, num.v, den.v, MPFR_RNDN);
}

TEST(SamplerBounds, ShiftRatioContainsTheDirectSum) {
  struct Case {
    std::uint64_t sn, sd, F, Q;
  };
  for (Case c : {Case{1, 20, 1, 4}, Case{1, 10, 1, 2}, Case{3, 10, 1, 3}, Case{1, 2, 3, 7}, Case{2, 1, 1, 2},
                 Case{7, 5, 4, 9}, Case{60, 1, 5, 11}, Case{400, 3, 1, 1000}, Case{5, 1, 0, 3}}) {
    for (mpfr_prec_t prec : {mpfr_prec_t{128}, mpfr_prec_t{300}}) {
      const Interval r = gaussian_shift_ratio_bounds(prec, c.sn, c.sd, c.F, c.Q);
      Mp ref(1200);
      shift_ratio_reference(double(c.sn) / double(c.sd), c.F, c.Q, c.sn, c.sd, ref.v);
      EXPECT_TRUE(contains(r, ref.v)) << c.sn << "/" << c.sd << " " << c.F << "/" << c.Q << " @" << prec;
      Mp width(prec);
      mpfr_sub(width.v, r.upper(), r.lower(), MPFR_RNDU);
      EXPECT_LT(mpfr_cmp_ui_2exp(width.v, 1, -(prec - 40)), 0) << c.sn << "/" << c.sd << " @" << prec;
      EXPECT_LE(mpfr_cmp_ui(r.upper(), 1), 0);  // R <= 1
    }
  }
}

TEST(SamplerBounds, KleinAcceptanceBoundIsBelowEveryRatio) {
  // L(min s^2) <= R(s^2, f) for s^2 >= min s^2 and any f, and L contains
  // 1 - 4 q/(1 - q) computed at 1200 bits. (At s^2 = 1/2, f = 1/2 the gap
  // R - L is about 12 q^2: variances with q^2 below 2^-256 would need more
  // than 256 bits to show it.)
  for (auto [num, den] : {std::pair<std::uint64_t, std::uint64_t>{1, 2}, {3, 4}, {2, 1}}) {
    const Interval L = klein_acceptance_bound(256, num, den);
    Mp q(1200), t(1200);
    mpfr_const_pi(q.v, MPFR_RNDN);
    mpfr_sqr(q.v, q.v, MPFR_RNDN);
    mpfr_mul_ui(q.v, q.v, 2 * num, MPFR_RNDN);
    mpfr_div_ui(q.v, q.v, den, MPFR_RNDN);
    mpfr_neg(q.v, q.v, MPFR_RNDN);
    mpfr_exp(q.v, q.v, MPFR_RNDN);
    mpfr_ui_sub(t.v, 1, q.v, MPFR_RNDN);
    mpfr_div(t.v, q.v, t.v, MPFR_RNDN);
    mpfr_mul_ui(t.v, t.v, 4, MPFR_RNDN);
    mpfr_ui_sub(t.v, 1, t.v, MPFR_RNDN);
    EXPECT_TRUE(contains(L, t.v)) << num << "/" << den;
    for (std::uint64_t scale : {1, 2, 5}) {
      for (auto [F, Q] : {std::pair<std::uint64_t, std::uint64_t>{1, 2}, {1, 3}, {2, 7}, {499, 1000}}) {
        const Interval R = gaussian_shift_ratio_bounds(256, num * scale, den, F, Q);
        EXPECT_TRUE(mpfr_lessequal_p(L.upper(), R.lower())) << num << "/" << den << " x" << scale << " " << F << "/" << Q;
      }
    }
  }
}

TEST(SamplerBounds, CompositionLogRatioContainsTheDirectValue) {
  // log w(n) - log w(m) + j ln 2 with w(n) = C(n+k-1, k-1)^2 exp(-2n/b),
  // from ln Gamma at 1024 bits.
  for (auto [b, k] : {std::pair<Rational, std::uint64_t>{Rational{2, 1}, 2}, {Rational{125, 12}, 50},
                      {Rational{1, 4}, 7}, {Rational{1000, 1}, 3}}) {
    const CompositionTotalSampler s(b, k, 0);
    const std::uint64_t m = s.mode();
    for (std::uint64_t n : {std::uint64_t{0}, m, m + 5, 3 * m + 100}) {
      for (std::uint64_t j : {std::uint64_t{0}, std::uint64_t{3}}) {
        for (mpfr_prec_t prec : {mpfr_prec_t{128}, mpfr_prec_t{256}}) {
          const Interval got = s.log_ratio_bounds(prec, n, j);
          const mpfr_prec_t p = 1024;
          Mp ref(p), g(p), arg(p);
          const auto lngamma = [&](std::uint64_t x) {
            mpfr_set_ui(arg.v, x, MPFR_RNDN);
            mpfr_lngamma(g.v, arg.v, MPFR_RNDN);
          };
          lngamma(n + k);
          mpfr_set(ref.v, g.v, MPFR_RNDN);
          lngamma(n + 1);
          mpfr_sub(ref.v, ref.v, g.v, MPFR_RNDN);
          lngamma(m + k);
          mpfr_sub(ref.v, ref.v, g.v, MPFR_RNDN);
          lngamma(m + 1);
          mpfr_add(ref.v, ref.v, g.v, MPFR_RNDN);
          mpfr_mul_2ui(ref.v, ref.v, 1, MPFR_RNDN);
          mpfr_set_si(g.v, static_cast<long>(n) - static_cast<long>(m), MPFR_RNDN);
          mpfr_mul_ui(g.v, g.v, 2 * b.den, MPFR_RNDN);
          mpfr_div_ui(g.v, g.v, b.num, MPFR_RNDN);
          mpfr_sub(ref.v, ref.v, g.v, MPFR_RNDN);
          mpfr_const_log2(g.v, MPFR_RNDN);
          mpfr_mul_ui(g.v, g.v, j, MPFR_RNDN);
          mpfr_add(ref.v, ref.v, g.v, MPFR_RNDN);
          EXPECT_TRUE(contains(got, ref.v)) << b.num << "/" << b.den << " k=" << k << " n=" << n << " j=" << j;
          Mp width(prec);
          mpfr_sub(width.v, got.upper(), got.lower(), MPFR_RNDU);
          EXPECT_LT(mpfr_cmp_ui_2exp(width.v, 1, -(prec - 80)), 0) << n << " @" << prec;
        }
      }
    }
  }
}

}  // namespace
}  // namespace invariant_dp
