// The proposal tables of the non-negative cascade's sampler
// (nonnegative_cascade_table.hpp).
#include "nonnegative_cascade_table.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/discrete_laplace.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Tails whose truncation keeps more than half their series are written out
// (up to this many points).
constexpr std::int64_t kLongestWrittenTail = std::int64_t{1} << 16;

// An integer-valued double >= 0 below 2^127 as an unsigned 128-bit integer.
Uint128 weight_to_u128(double x) {
  if (!(x >= 0) || !(x < 0x1p127)) throw Error("a proposal weight of the non-negative cascade is out of range");
  if (x < 0x1p64) return static_cast<Uint128>(static_cast<std::uint64_t>(x));
  const double high = std::floor(std::ldexp(x, -64));
  const double low = x - std::ldexp(high, 64);  // exact: x has 53 significant bits
  return (static_cast<Uint128>(static_cast<std::uint64_t>(high)) << 64) + static_cast<std::uint64_t>(low);
}

// ceil(x 2^e * margin), at least 1 (x > 0 stands for a positive weight).
Uint128 scaled_weight(double x, int e, double margin) {
  const double w = std::ceil(std::ldexp(x, e) * margin);
  return w >= 1 ? weight_to_u128(w) : Uint128{1};
}

// Uniform on [0, n), n >= 1, exactly.
Uint128 uniform_below_wide(RandomSource& rng, Uint128 n) {
  if (n <= Uint128{~std::uint64_t{0}}) return rng.uniform_below(static_cast<std::uint64_t>(n));
  unsigned bits = 128;
  // Ends: at most 128 steps (n - 1 >= 2^64 here, so at bits = 65 at the latest).
  while (((n - 1) >> (bits - 1)) == 0) --bits;
  const Uint128 mask = bits == 128 ? ~Uint128{0} : ((Uint128{1} << bits) - 1);
  // Ends: a pass accepts with probability n / 2^bits > 1/2.
  for (;;) {
    const Uint128 r = ((static_cast<Uint128>(rng.next_u64()) << 64) | rng.next_u64()) & mask;
    if (r < n) return r;
  }
}

// One side of the table beyond E: n points, the first of weight `first`
// (mantissa), then ratio r = exp(-rate) d1 d2.
struct Tail {
  std::int64_t n = 0;
  double first = 0, rate = 0, d1 = 1, d2 = 1;
  double ratio() const { return std::exp(-rate) * d1 * d2; }  // in double: the fast path's and the bounds' value
};

// sum_{j<n} r^j for the tail's r, an upper bound (r rounded up first).
double series_bound(const Tail& t) {
  const double r = std::min(t.ratio() * kBoundSlack, 1.0);
  if (r >= 1) return t.n >= kUnbounded ? INFINITY : double(t.n);
  const double infinite = 1 / (1 - r);
  if (t.n >= kUnbounded) return infinite * kBoundSlack;
  const double truncated = -std::expm1(double(t.n) * std::log(r)) / (1 - r);
  return std::min(infinite, truncated) * kBoundSlack;
}

// j in [0, n) with P(j) proportional to r^j.
std::uint64_t draw_tail_index(RandomSource& rng, const Tail& t, const Interrupts& interrupts) {
  const double quanta = std::ldexp(t.rate, 40);  // an integer: rates are multiples of 2^-40
  const Rational scale{std::uint64_t{1} << 40, static_cast<std::uint64_t>(quanta)};
  for (std::uint64_t attempt = 0;; ++attempt) {
    interrupts.poll_every(attempt);
    const Uint128 j = sample_discrete_geometric(rng, scale);
    if (t.n < kUnbounded && j >= static_cast<Uint128>(t.n)) continue;
    bool kept = true;
    for (Uint128 i = 0; i < j && kept; ++i) {
      interrupts.poll_every(static_cast<std::uint64_t>(i));
      kept = sample_bernoulli_double(rng, t.d1) && sample_bernoulli_double(rng, t.d2);
    }
    if (kept) return static_cast<std::uint64_t>(j);
  }
}

}  // namespace

bool sample_bernoulli_double(RandomSource& rng, double d) {
  if (d >= 1) return true;
  if (!(d > 0)) return false;
  // U < d, U's digits read 64 at a time against d's.
  double rest = d;
  // Ends: a pass decides with probability 1 - 2^-64, and d's finitely many
  // digits (at most 1,074 + 53 bits) run out after 18 passes.
  for (;;) {
    const double digits = std::floor(std::ldexp(rest, 64));
    const auto D = static_cast<std::uint64_t>(std::min(digits, 0x1p64 - 2048));
    const std::uint64_t w = rng.next_u64();
    if (w < D) return true;
    if (w > D) return false;
    rest = std::ldexp(rest, 64) - digits;  // exact: d has finitely many digits
    if (rest == 0) return false;           // U >= the digits so far, d's next digits are 0
  }
}

ProposalDraw ProposalTable::draw(const ChildMessage& g, const Suffix* F, std::int64_t rem, RandomSource& rng,
                                 const Interrupts& interrupts) {
  const std::int64_t la = g.support;
  const std::int64_t rb = F == nullptr || F->support() <= kNoSupport ? kUnbounded : rem - F->support();
  if (rb < la) throw Error("a proposal of the non-negative cascade has no feasible value");
  // E: written out. It holds the point of the support nearest 0, g's kinks
  // and every s whose F(rem - s) is inside F's kinks; beyond it both
  // factors are geometric.
  const std::int64_t e0 = std::min(std::max<std::int64_t>(0, la), rb);
  std::int64_t elo = std::min(e0, g.kink_lo()), ehi = std::max(e0, g.kink_hi());
  if (F != nullptr) {
    elo = std::min(elo, rem - F->kink_hi());
    ehi = std::max(ehi, rem - F->kink_lo());
  }
  elo = std::max(elo, la);
  ehi = std::min(ehi, rb);
  Tail left, right;
  auto describe = [&](Tail& t, bool on_left) {
    const int rate_factors = F == nullptr ? 0 : F->rate_factors();
    t.rate = g.rho() + (rate_factors > 0 ? F->child->rho() : 0.0);
    t.d1 = g.leaf ? 1.0 : (on_left ? g.left : g.right);
    if (F == nullptr) {
      t.d2 = 1;
    } else if (F->window != nullptr) {
      t.d2 = on_left ? F->window->right : F->window->left;  // rem - s moves the other way
    } else {
      t.d2 = F->child->leaf ? 1.0 : (on_left ? F->child->right : F->child->left);
    }
  };
  describe(left, true);
  describe(right, false);
  // Short tails, or tails whose truncation keeps most of their series, are
  // written out.
  auto written_length = [&](const Tail& t) -> std::int64_t {
    if (written_tail_ == 0) return 0;
    const double r = t.ratio();
    const double half_life = r < 1 ? std::ceil(0.7 / (1 - r)) : double(kLongestWrittenTail);
    return static_cast<std::int64_t>(std::min(std::max(double(written_tail_), half_life), double(kLongestWrittenTail)));
  };
  if (elo - la <= written_length(left)) elo = la;
  if (rb < kUnbounded && rb - ehi <= written_length(right)) ehi = rb;

  const std::size_t n = static_cast<std::size_t>(ehi - elo + 1);
  x_.resize(n);
  interrupts.poll();
  g.write(elo, x_);
  if (F != nullptr) {
    f_.resize(n);
    F->write(rem - ehi, f_);  // F(rem - s) for s = ehi .. elo
    for (std::size_t i = 0; i < n; ++i) x_[i] *= f_[n - 1 - i];
  }
  double top = 0;
  for (double x : x_) top = std::max(top, x);
  // Tails: [la, elo - 1] (s < 0) and [ehi + 1, rb] (s > 0).
  left.n = elo - la;
  right.n = ehi >= rb ? 0 : rb >= kUnbounded ? kUnbounded : rb - ehi;
  auto value = [&](std::int64_t s) { return g.g(s) * (F == nullptr ? 1.0 : F->at(rem - s)); };
  if (left.n > 0) left.first = value(elo - 1);
  if (right.n > 0) right.first = value(ehi + 1);
  top = std::max({top, left.first, right.first});
  int e = 0;
  std::frexp(top, &e);
  // Where the largest product is near the bottom of the double range or
  // below it (a split whose value lies far out: exp(-rho |s|) hundreds of
  // nats down, tails read thousands of points beyond their windows, two
  // factors floored near 2^-1000 multiplying to 2^-2000), the products are
  // taken again with their exponents kept apart, factor by factor: in
  // double they would round to 0 or to subnormal numbers that carry an
  // absolute error, and the weights would no longer follow the products.
  // Kept apart, every factor and product carries a relative error only,
  // which kSeparatedWeightMargin covers (the stored values and the powers'
  // upper bounds are exact doubles, subnormal or not).
  bool separated = false;
  int left_exp = 0, right_exp = 0;
  if (!(top >= 0x1p-900)) {
    separated = true;
    xe_.resize(n);
    auto product = [&](std::int64_t s, int* exponent) {
      Separated x = g.g_separated(s);
      if (F != nullptr) x = times(x, F->at_separated(rem - s));
      *exponent = x.e;
      return x.m;
    };
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(i);
      x_[i] = product(elo + static_cast<std::int64_t>(i), &xe_[i]);
    }
    if (left.n > 0) left.first = product(elo - 1, &left_exp);
    if (right.n > 0) right.first = product(ehi + 1, &right_exp);
    bool any = false;
    auto consider = [&](double m, int exponent) {
      if (m == 0) return;
      if (!any || exponent > e) e = exponent;
      any = true;
    };
    for (std::size_t i = 0; i < n; ++i) consider(x_[i], xe_[i]);
    consider(left.first, left_exp);
    consider(right.first, right_exp);
    if (!any) throw Error("the proposal weights of the non-negative cascade underflowed");
  } else if (!std::isfinite(top)) {
    throw Error("the proposal weights of the non-negative cascade are not finite");
  }
  const int sexp = 61 - e;

  ProposalDraw d;
  d.scale_exp2 = sexp - (g.exp2 + (F == nullptr ? 0 : F->exp2()));
  // Unseparated, the largest product is at least 2^-900, so sigma is at
  // most 2^960, and what a product lost below the normal doubles (at most
  // 2^-1070) weighs less than the floor of 1 every weight has.
  auto mass = [&](const Tail& t, int exponent) {
    if (t.n == 0) return Uint128{0};
    const double series = series_bound(t);
    return scaled_weight(t.first * series, exponent + sexp, separated ? kSeparatedWeightMargin : kWeightMargin);
  };
  const Uint128 left_mass = mass(left, left_exp), right_mass = mass(right, right_exp);
  prefix_.resize(n);
  Uint128 acc = 0;
  // Explicit weights are below 2^62: ceil(x 2^sexp margin) in 64 bits.
  const double scale = std::ldexp(kWeightMargin, sexp);
  for (std::size_t i = 0; i < n; ++i) {
    const double w =
        separated ? std::ceil(std::ldexp(x_[i] * kSeparatedWeightMargin, xe_[i] + sexp)) : std::ceil(x_[i] * scale);
    acc += w >= 1 ? static_cast<std::uint64_t>(w) : std::uint64_t{1};
    prefix_[i] = acc;
  }
  d.total = left_mass + acc + right_mass;
  Uint128 v = uniform_below_wide(rng, d.total);
  const Tail* chosen = nullptr;
  if (v < left_mass) {
    chosen = &left;
    d.weight = left_mass;
    d.tail_index = draw_tail_index(rng, left, interrupts);
    d.s = elo - 1 - static_cast<std::int64_t>(d.tail_index);
  } else if ((v -= left_mass) < acc) {
    const auto i = static_cast<std::size_t>(std::upper_bound(prefix_.begin(), prefix_.end(), v) - prefix_.begin());
    d.s = elo + static_cast<std::int64_t>(i);
    d.weight = prefix_[i] - (i == 0 ? Uint128{0} : prefix_[i - 1]);
  } else {
    chosen = &right;
    d.weight = right_mass;
    d.tail_index = draw_tail_index(rng, right, interrupts);
    d.s = ehi + 1 + static_cast<std::int64_t>(d.tail_index);
  }
  const double p = static_cast<double>(d.weight) / static_cast<double>(d.total);
  if (chosen == nullptr) {
    d.probability = p;
  } else {
    d.tail = true;
    d.tail_length = chosen->n;
    d.tail_rate = chosen->rate;
    d.tail_d1 = chosen->d1;
    d.tail_d2 = chosen->d2;
    const double r = chosen->ratio();
    const double series = chosen->n >= kUnbounded ? 1 / (1 - r) : -std::expm1(double(chosen->n) * std::log(r)) / (1 - r);
    d.probability = p * ratio_power(r, static_cast<std::int64_t>(d.tail_index)) / series;
  }
  return d;
}

Interval proposal_probability(const ProposalDraw& d, mpfr_prec_t prec) {
  Interval p = div(exact(prec, d.weight), exact(prec, d.total));
  if (!d.tail) return p;
  // r = exp(-rate) d1 d2; P(j | tail) = (1 - r) r^j / (1 - r^n).
  const Interval r = mul(exp(neg(exact_double(prec, d.tail_rate))),
                         mul(exact_double(prec, d.tail_d1), exact_double(prec, d.tail_d2)));
  const Interval one_minus_r = sub(1ul, r);
  const Interval r_j = d.tail_index == 0 ? exact(prec, std::uint64_t{1}) : pow(r, d.tail_index);
  Interval q = mul(p, mul(one_minus_r, r_j));
  if (d.tail_length < kUnbounded) q = div(q, sub(1ul, pow(r, static_cast<unsigned long>(d.tail_length))));
  return q;
}

}  // namespace invariant_dp::hierarchy
