// Discrete Gaussian conditioned on zero group sums; the argument for
// exactness is in conditioned_gaussian.hpp (steps 1-5 below refer to it).
#include "zero_sum_groups.hpp"
#include "conditioned_gaussian.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../errors.hpp"
#include "discrete_gaussian.hpp"
#include "discrete_laplace.hpp"
#include "klein_correction.hpp"

namespace invariant_dp {
namespace {

using u128 = Uint128;
__extension__ typedef __int128 i128;

static_assert(sizeof(mp_limb_t) == 8, "a GMP limb must hold 64 random bits");
static_assert(sizeof(unsigned long) == 8, "a 64-bit word must fit an unsigned long (LP64)");

// sigma2 <= 2^40: partial sums stay below ~2^20 sqrt(k) * 40, far from 2^63.
constexpr std::uint64_t kMaxSigma2 = std::uint64_t{1} << 40;
// Naive rejection only while its expected number of draws is at most this.
constexpr double kMaxNaiveDraws = 134217728.0;  // 2^27

struct Mpz {
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
  mpz_t v;
};


void set_u128(mpz_t out, u128 x) {
  mpz_set_ui(out, static_cast<unsigned long>(x >> 64));
  mpz_mul_2exp(out, out, 64);
  mpz_add_ui(out, out, static_cast<unsigned long>(x));
}

void set_i128(mpz_t out, i128 x) {
  set_u128(out, x < 0 ? -static_cast<u128>(x) : static_cast<u128>(x));
  if (x < 0) mpz_neg(out, out);
}


// ---- exact coins on GMP rationals (the overflow path of step 3) ----------

// Uniform on [0, n), n >= 1, by rejection from the smallest covering power
// of two (accepts with probability > 1/2).
void uniform_below_mpz(RandomSource& rng, const mpz_t n, mpz_t out) {
  const std::size_t bits = mpz_sizeinbase(n, 2);
  const std::size_t limbs = (bits + 63) / 64;
  const std::size_t top_bits = bits - 64 * (limbs - 1);
  const mp_limb_t mask = top_bits == 64 ? ~mp_limb_t{0} : (mp_limb_t{1} << top_bits) - 1;
  for (;;) {
    mp_limb_t* p = mpz_limbs_write(out, static_cast<mp_size_t>(limbs));
    for (std::size_t i = 0; i < limbs; ++i) p[i] = rng.next_u64();
    p[limbs - 1] &= mask;
    mpz_limbs_finish(out, static_cast<mp_size_t>(limbs));
    if (mpz_cmp(out, n) < 0) return;
  }
}

// Bernoulli(exp(-num/den)), num >= 0, den > 0: CKS Algorithm 1 exactly as in
// bernoulli_exp.cpp, with GMP integers.
bool bernoulli_exp_neg_mpz(RandomSource& rng, const mpz_t num, const mpz_t den) {
  Mpz whole, frac, u;
  mpz_fdiv_qr(whole.v, frac.v, num, den);
  // Each exp(-1) factor fails with probability 1 - 1/e: few iterations.
  for (; mpz_sgn(whole.v) > 0; mpz_sub_ui(whole.v, whole.v, 1))
    if (!sample_bernoulli_exp_neg_wide(rng, 1, 1)) return false;
  if (mpz_sgn(frac.v) == 0) return true;
  for (std::uint64_t k = 1;; ++k) {
    uniform_below_mpz(rng, den, u.v);
    const bool a = mpz_cmp(u.v, frac.v) < 0 && (k == 1 || rng.uniform_below(k) == 0);
    if (!a) return (k & 1) == 1;
  }
}

// ---- step 3: D_{Z, s, c} --------------------------------------------------

std::uint64_t floor_sqrt_u64(std::uint64_t q) {
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(q)));
  while (static_cast<u128>(r) * r > q) --r;
  while (static_cast<u128>(r + 1) * (r + 1) <= q) ++r;
  return r;
}

u128 gcd_u128(u128 a, u128 b) {
  while (b != 0) {
    const u128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// The acceptance exponent of step 3 for proposal offset x >= 0 and centre
// fraction f = F/Q (apply with (-x, -F) for x < 0). With g = gcd(Sd, Q),
//   A     = x Sd (Q/g) t - F (Sd/g) t - Sn (Q/g),
//   gamma = [A^2 + (|F| - F) 2 Sn (Sd/g) (Q/g) t] / [2 Sn Sd (Q/g)^2 t^2].
// Computes it in checked 128-bit integers; false on overflow.
bool gamma_wide(u128 x, i128 F, u128 Q, u128 g, u128 Sn, u128 Sd, u128 t, u128& num, u128& den) {
  const u128 qg = Q / g, sg = Sd / g;
  u128 a1, a2, a3, p;
  if (__builtin_mul_overflow(x, Sd, &p) || __builtin_mul_overflow(p, qg, &p) ||
      __builtin_mul_overflow(p, t, &a1))
    return false;
  const u128 absF = F < 0 ? -static_cast<u128>(F) : static_cast<u128>(F);
  if (__builtin_mul_overflow(absF, sg, &p) || __builtin_mul_overflow(p, t, &a2)) return false;
  if (__builtin_mul_overflow(Sn, qg, &a3)) return false;
  // A = a1 - (+/-a2) - a3 as a sign and magnitude.
  u128 pos = a1, neg = a3;
  if (F < 0) {
    if (__builtin_add_overflow(pos, a2, &pos)) return false;
  } else if (__builtin_add_overflow(neg, a2, &neg)) {
    return false;
  }
  const u128 absA = pos >= neg ? pos - neg : neg - pos;
  u128 n;
  if (__builtin_mul_overflow(absA, absA, &n)) return false;
  if (F < 0) {  // (|F| - F) = 2 |F|; 0 for F >= 0
    u128 extra;
    if (__builtin_mul_overflow(2 * absF, 2, &extra) || __builtin_mul_overflow(extra, Sn, &extra) ||
        __builtin_mul_overflow(extra, sg, &extra) || __builtin_mul_overflow(extra, qg, &extra) ||
        __builtin_mul_overflow(extra, t, &extra) || __builtin_add_overflow(n, extra, &n))
      return false;
  }
  u128 d;
  if (__builtin_mul_overflow(Sn, 2, &d) || __builtin_mul_overflow(d, Sd, &d) ||
      __builtin_mul_overflow(d, qg, &d) || __builtin_mul_overflow(d, qg, &d) ||
      __builtin_mul_overflow(d, t, &d) || __builtin_mul_overflow(d, t, &d))
    return false;
  num = n;
  den = d;
  return true;
}

// The same exponent with GMP integers.
void gamma_mpz(u128 x, i128 F, u128 Q, u128 g, u128 Sn, u128 Sd, u128 t, mpz_t num, mpz_t den) {
  Mpz X, FF, QG, SG, SN, SD, T, a, b;
  set_u128(X.v, x);
  set_i128(FF.v, F);
  set_u128(QG.v, Q / g);
  set_u128(SG.v, Sd / g);
  set_u128(SN.v, Sn);
  set_u128(SD.v, Sd);
  set_u128(T.v, t);
  // A
  mpz_mul(a.v, X.v, SD.v);
  mpz_mul(a.v, a.v, QG.v);
  mpz_mul(a.v, a.v, T.v);
  mpz_mul(b.v, FF.v, SG.v);
  mpz_mul(b.v, b.v, T.v);
  mpz_sub(a.v, a.v, b.v);
  mpz_mul(b.v, SN.v, QG.v);
  mpz_sub(a.v, a.v, b.v);
  mpz_mul(num, a.v, a.v);
  if (F < 0) {  // (|F| - F) = -2F
    mpz_mul_si(b.v, FF.v, -4);
    mpz_mul(b.v, b.v, SN.v);
    mpz_mul(b.v, b.v, SG.v);
    mpz_mul(b.v, b.v, QG.v);
    mpz_mul(b.v, b.v, T.v);
    mpz_add(num, num, b.v);
  }
  mpz_mul_ui(den, SN.v, 2);
  mpz_mul(den, den, SD.v);
  mpz_mul(den, den, QG.v);
  mpz_mul(den, den, QG.v);
  mpz_mul(den, den, T.v);
  mpz_mul(den, den, T.v);
}

}  // namespace

std::int64_t sample_discrete_gaussian_centred(RandomSource& rng, u128 s2_num, u128 s2_den,
                                              std::int64_t c_num, std::int64_t c_den) {
  if (s2_num == 0 || s2_den == 0) throw InvalidArgument("discrete gaussian variance must be positive");
  if (c_den <= 0) throw InvalidArgument("centre of a discrete gaussian must have a positive denominator");
  const u128 s2_floor = s2_num / s2_den;
  if (s2_floor > kMaxSigma2) throw OutOfRange("discrete gaussian variance is too large");
  // c = r + F/Q with F/Q in [-1/2, 1/2): r = floor((2 c_num + Q) / (2 Q)).
  const i128 Q = c_den;
  const i128 twice = 2 * static_cast<i128>(c_num) + Q;
  i128 r = twice / (2 * Q);
  if (twice % (2 * Q) != 0 && twice < 0) --r;  // floor division
  const i128 F = static_cast<i128>(c_num) - r * Q;
  const u128 t = floor_sqrt_u64(static_cast<std::uint64_t>(s2_floor)) + 1;
  const u128 g = gcd_u128(s2_den, static_cast<u128>(Q));
  for (;;) {
    const std::int64_t y = sample_discrete_laplace(rng, Rational{static_cast<std::uint64_t>(t), 1});
    const bool neg = y < 0;
    const u128 ax = neg ? -static_cast<u128>(static_cast<i128>(y)) : static_cast<u128>(y);
    const i128 f = neg ? -F : F;
    u128 num, den;
    bool accept;
    if (gamma_wide(ax, f, static_cast<u128>(Q), g, s2_num, s2_den, t, num, den)) {
      accept = sample_bernoulli_exp_neg_wide(rng, num, den);
    } else {
      Mpz n, d;
      gamma_mpz(ax, f, static_cast<u128>(Q), g, s2_num, s2_den, t, n.v, d.v);
      accept = bernoulli_exp_neg_mpz(rng, n.v, d.v);
    }
    if (accept) {
      const i128 out = r + y;
      if (out > INT64_MAX || out < INT64_MIN) throw OutOfRange("discrete gaussian draw is out of range");
      return static_cast<std::int64_t>(out);
    }
  }
}

namespace {

// ---- the group samplers ---------------------------------------------------

// Every step's s_i^2 = sigma2 i/(i+1) is at least sigma2/2.
KleinCorrection smallest_step_correction(Rational sigma2) {
  return KleinCorrection(static_cast<u128>(sigma2.num), static_cast<u128>(sigma2.den) * 2);
}

// Steps 1-4 for one group of k >= 2 cells: writes out[0..k).
void klein_group(RandomSource& rng, Rational s, const KleinCorrection& correction, std::size_t k,
                 std::vector<std::int64_t>& partial, std::int64_t* const* out_cells, const Interrupts& interrupts) {
  partial.assign(k + 1, 0);  // partial[i] = z_i, z_0 = z_k = 0
  for (std::uint64_t attempt = 0;; ++attempt) {
    interrupts.poll();
    bool accepted = true;
    for (std::size_t i = k - 1; i >= 1; --i) {
      interrupts.poll_every(i);
      // c_i = i z_{i+1} / (i+1); s_i^2 = sigma2 i / (i+1).
      const std::uint64_t Q = i + 1;
      const u128 Sn = static_cast<u128>(s.num) * i, Sd = static_cast<u128>(s.den) * Q;
      const i128 c_num = static_cast<i128>(partial[i + 1]) * static_cast<i128>(i);
      if (c_num > INT64_MAX || c_num < INT64_MIN) throw OutOfRange("conditioned gaussian partial sum is out of range");
      partial[i] = sample_discrete_gaussian_centred(rng, Sn, Sd, static_cast<std::int64_t>(c_num),
                                                    static_cast<std::int64_t>(Q));
      // The fraction of the centre, in [0, Q): R depends only on c mod 1.
      i128 fm = c_num % static_cast<i128>(Q);
      if (fm < 0) fm += Q;
      if (fm != 0 && !correction.coin(rng, Sn, Sd, static_cast<std::uint64_t>(fm), Q)) {
        accepted = false;
        break;
      }
    }
    if (!accepted) continue;
    for (std::size_t j = 1; j <= k; ++j) {
      const i128 v = static_cast<i128>(partial[j]) - partial[j - 1];  // partial[k] = 0
      *out_cells[j - 1] = static_cast<std::int64_t>(v);
    }
    return;
  }
}

// Step 5: i.i.d. discrete Gaussians kept iff the sum is 0.
void naive_group(RandomSource& rng, Rational sigma2, std::size_t k, std::int64_t* const* out_cells,
                 const Interrupts& interrupts) {
  for (std::uint64_t it = 0;; ++it) {
    i128 sum = 0;
    for (std::size_t j = 0; j < k; ++j) {
      interrupts.poll_every(it * k + j);
      const std::int64_t x = sample_discrete_gaussian(rng, sigma2);
      *out_cells[j] = x;
      sum += x;
    }
    if (sum == 0) return;
  }
}

}  // namespace

void sample_gaussian_zero_sum_klein(RandomSource& rng, Rational sigma2, std::size_t k, std::int64_t* z,
                                    const Interrupts& interrupts) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("gaussian variance must be positive");
  if (k < 2) throw InvalidArgument("a klein group needs at least two cells");
  const KleinCorrection correction = smallest_step_correction(sigma2);
  std::vector<std::int64_t*> out(k);
  for (std::size_t j = 0; j < k; ++j) out[j] = z + j;
  std::vector<std::int64_t> partial;
  klein_group(rng, sigma2, correction, k, partial, out.data(), interrupts);
}


namespace {

void check_arguments(Rational sigma2, const std::uint32_t* group_of_cell, std::size_t n_cells,
                     std::size_t n_groups, const std::int64_t* z) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("gaussian variance must be positive");
  if (sigma2.num / sigma2.den >= kMaxSigma2)
    throw OutOfRange("gaussian variance is too large for a zero-sum release",
                     "The variance is " + std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den) +
                         "; it must be below 2^40.");
  check_zero_sum_groups(group_of_cell, n_cells, n_groups, z);
}

}  // namespace

void sample_gaussian_with_zero_group_sums(RandomSource& rng, Rational sigma2,
                                          const std::uint32_t* group_of_cell, std::size_t n_cells,
                                          std::size_t n_groups, std::int64_t* z,
                                          const Interrupts& interrupts) {
  check_arguments(sigma2, group_of_cell, n_cells, n_groups, z);
  if (n_cells == 0) return;
  // Cells of each group, in cell order: a counting sort when the group
  // numbers are dense, else a stable sort.
  std::vector<std::size_t> cells(n_cells);
  if (n_groups > 2 * n_cells + 1024) {
    for (std::size_t i = 0; i < n_cells; ++i) cells[i] = i;
    std::stable_sort(cells.begin(), cells.end(),
                     [group_of_cell](std::size_t x, std::size_t y) { return group_of_cell[x] < group_of_cell[y]; });
  } else {
    std::vector<std::size_t> next(n_groups + 1, 0);
    for (std::size_t i = 0; i < n_cells; ++i) ++next[group_of_cell[i] + 1];
    for (std::size_t g = 0; g < n_groups; ++g) next[g + 1] += next[g];
    for (std::size_t i = 0; i < n_cells; ++i) cells[next[group_of_cell[i]]++] = i;
  }
  const KleinCorrection correction = smallest_step_correction(sigma2);
  const double sd = sigma2.to_double();
  const double loss_per_cell = correction.failure_bound();
  // Validate every group's method before drawing anything.
  std::vector<std::int64_t*> out;
  std::vector<std::int64_t> partial;
  std::size_t begin = 0;
  for (int pass = 0; pass < 2; ++pass) {
    begin = 0;
    while (begin < n_cells) {
      std::size_t end = begin + 1;
      while (end < n_cells && group_of_cell[cells[end]] == group_of_cell[cells[begin]]) ++end;
      const std::size_t k = end - begin;
      const bool klein = static_cast<double>(k - 1) * loss_per_cell <= 0.5;
      if (pass == 0) {
        if (k >= 2 && !klein) {
          const double naive_draws = static_cast<double>(k) * std::sqrt(2 * 3.14159265358979 * (k * sd + 1));
          if (naive_draws > kMaxNaiveDraws)
            throw OutOfRange("gaussian variance is too small for a zero-sum release over so large a group",
                             "A group has " + std::to_string(k) + " cells and the variance is " +
                                 std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den) + ".",
                             "Use a variance of at least 2, or smaller groups.");
        }
      } else {
        interrupts.poll();
        out.resize(k);
        for (std::size_t j = 0; j < k; ++j) out[j] = z + cells[begin + j];
        if (k == 1)
          z[cells[begin]] = 0;
        else if (klein)
          klein_group(rng, sigma2, correction, k, partial, out.data(), interrupts);
        else
          naive_group(rng, sigma2, k, out.data(), interrupts);
      }
      begin = end;
    }
  }
}

}  // namespace invariant_dp
