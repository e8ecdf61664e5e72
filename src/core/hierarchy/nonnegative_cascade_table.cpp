// The proposal tables of the non-negative cascade's sampler
// (nonnegative_cascade_table.hpp).
#include "nonnegative_cascade_table.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/discrete_laplace.hpp"
#include "nonnegative_cascade_law.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Tails this short are written out instead.
constexpr std::int64_t kShortTail = 64;

// An integer-valued double >= 0 below 2^127 as an unsigned 128-bit integer.
Uint128 to_u128(double x) {
  if (!(x >= 0) || !(x < 0x1p127)) throw Error("a proposal weight of the non-negative cascade is out of range");
  if (x < 0x1p64) return static_cast<Uint128>(static_cast<std::uint64_t>(x));
  const double high = std::floor(std::ldexp(x, -64));
  const double low = x - std::ldexp(high, 64);  // exact: x has 53 significant bits
  return (static_cast<Uint128>(static_cast<std::uint64_t>(high)) << 64) + static_cast<std::uint64_t>(low);
}

// ceil(x 2^e * margin), at least 1 (x > 0 stands for a positive weight).
Uint128 scaled_weight(double x, int e) {
  const double w = std::ceil(std::ldexp(x, e) * kWeightMargin);
  return w >= 1 ? to_u128(w) : Uint128{1};
}

// Uniform on [0, n), n >= 1, exactly.
Uint128 uniform_below_wide(RandomSource& rng, Uint128 n) {
  if (n <= Uint128{~std::uint64_t{0}}) return rng.uniform_below(static_cast<std::uint64_t>(n));
  unsigned bits = 128;
  while (((n - 1) >> (bits - 1)) == 0) --bits;
  const Uint128 mask = bits == 128 ? ~Uint128{0} : ((Uint128{1} << bits) - 1);
  for (;;) {
    const Uint128 r = ((static_cast<Uint128>(rng.next_u64()) << 64) | rng.next_u64()) & mask;
    if (r < n) return r;
  }
}

// j ~ Geometric with ratio exp(-rho), conditioned on j < n.
std::uint64_t truncated_geometric(RandomSource& rng, double rho, std::int64_t n, const Interrupts& interrupts) {
  const double quanta = std::ldexp(rho, 40);  // an integer: rho is a multiple of 2^-40
  const Rational scale{std::uint64_t{1} << 40, static_cast<std::uint64_t>(quanta)};
  for (std::uint64_t attempt = 0;; ++attempt) {
    interrupts.poll_every(attempt);
    const Uint128 j = sample_discrete_geometric(rng, scale);
    if (n >= kUnbounded || j < static_cast<Uint128>(n)) return static_cast<std::uint64_t>(j);
  }
}

}  // namespace

ProposalDraw ProposalTable::draw(const ChildMessage& g, const WindowFn* F, std::int64_t rem, RandomSource& rng,
                                 const Interrupts& interrupts) {
  const RatePowers& pow = *g.pow;
  const std::int64_t la = g.support;
  const std::int64_t rb = F == nullptr || F->support <= kNoSupport ? kUnbounded : rem - F->support;
  if (rb < la) throw Error("a proposal of the non-negative cascade has no feasible value");
  // E: the window where W is written out. It holds the point of the support
  // nearest 0 (the kink of exp(-rho |s|)), every s whose F(rem - s) is in
  // F's window and the window of h; outside it both factors are geometric.
  const std::int64_t e0 = std::min(std::max<std::int64_t>(0, la), rb);
  std::int64_t elo = e0, ehi = e0;
  if (F != nullptr) {
    elo = std::min(elo, rem - F->hi());
    ehi = std::max(ehi, rem - F->lo);
  }
  if (!g.leaf) {
    elo = std::min(elo, g.lo);
    ehi = std::max(ehi, g.hi());
  }
  elo = std::max(elo, la);
  ehi = std::min(ehi, rb);
  if (elo - la <= kShortTail) elo = la;
  if (rb < kUnbounded && rb - ehi <= kShortTail) ehi = rb;

  const double f_out = F == nullptr ? 1.0 : F->outside;
  const double h_out = g.leaf ? 1.0 : g.kappa;
  const std::size_t n = static_cast<std::size_t>(ehi - elo + 1);
  std::vector<double> x(n);
  double max_x = 0;
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    const std::int64_t s = elo + static_cast<std::int64_t>(i);
    x[i] = g.g(s) * (F == nullptr ? 1.0 : F->at(rem - s));
    max_x = std::max(max_x, x[i]);
  }
  // Tails: [la, elo - 1] (all s < 0) and [ehi + 1, rb] (all s > 0).
  const bool left = elo > la, right = ehi < rb;
  const std::int64_t left_n = left ? elo - la : 0;
  const std::int64_t right_n = !right ? 0 : rb >= kUnbounded ? kUnbounded : rb - ehi;
  const double left_first = left ? h_out * f_out * pow.at(1 - elo) : 0;   // at s = elo - 1
  const double right_first = right ? h_out * f_out * pow.at(ehi + 1) : 0;  // at s = ehi + 1
  const double top = std::max({max_x, left_first, right_first});
  if (!(top > 0) || !std::isfinite(top)) throw Error("the proposal weights of the non-negative cascade underflowed");
  int e = 0;
  std::frexp(top, &e);
  const int sexp = 61 - e;

  ProposalDraw d;
  d.scale_exp2 = sexp - (g.exp2 + (F == nullptr ? 0 : F->exp2));
  const Uint128 left_mass = left ? scaled_weight(left_first * pow.partial_sum(left_n), sexp) : 0;
  const Uint128 right_mass = right ? scaled_weight(right_first * pow.partial_sum(right_n), sexp) : 0;
  prefix_.resize(n);
  Uint128 acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += x[i] > 0 ? scaled_weight(x[i], sexp) : Uint128{1};
    prefix_[i] = acc;
  }
  d.total = left_mass + acc + right_mass;
  Uint128 v = uniform_below_wide(rng, d.total);
  if (v < left_mass) {
    d.tail = true;
    d.weight = left_mass;
    d.tail_length = left_n;
    d.tail_index = truncated_geometric(rng, pow.rho(), left_n, interrupts);
    d.s = elo - 1 - static_cast<std::int64_t>(d.tail_index);
  } else if ((v -= left_mass) < acc) {
    const std::size_t i = static_cast<std::size_t>(std::upper_bound(prefix_.begin(), prefix_.end(), v) - prefix_.begin());
    d.s = elo + static_cast<std::int64_t>(i);
    d.weight = prefix_[i] - (i == 0 ? Uint128{0} : prefix_[i - 1]);
  } else {
    d.tail = true;
    d.weight = right_mass;
    d.tail_length = right_n;
    d.tail_index = truncated_geometric(rng, pow.rho(), right_n, interrupts);
    d.s = ehi + 1 + static_cast<std::int64_t>(d.tail_index);
  }
  const double p = static_cast<double>(d.weight) / static_cast<double>(d.total);
  d.probability = d.tail ? p * pow.at(static_cast<std::int64_t>(d.tail_index)) / pow.partial_sum(d.tail_length) : p;
  return d;
}

Interval proposal_probability(const ProposalDraw& d, double rho, mpfr_prec_t prec) {
  Interval p = div(exact(prec, d.weight), exact(prec, d.total));
  if (!d.tail) return p;
  const Interval r = exact_double(prec, rho);
  const Interval q_j = exp(neg(mul(r, exact(prec, d.tail_index))));
  const Interval one_minus_q = neg(expm1(neg(r)));
  // sum_{i<n} q^i = (1 - q^n) / (1 - q); 1 / (1 - q) for an infinite tail.
  const Interval series = d.tail_length >= kUnbounded
                              ? div(exact(prec, std::uint64_t{1}), one_minus_q)
                              : div(neg(expm1(neg(mul(r, exact(prec, static_cast<std::uint64_t>(d.tail_length)))))),
                                    one_minus_q);
  return div(mul(p, q_j), series);
}

}  // namespace invariant_dp::hierarchy
