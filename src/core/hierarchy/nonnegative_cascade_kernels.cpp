// Windows, closed forms and convolutions of the non-negative cascade's
// messages (nonnegative_cascade_kernels.hpp; NONNEGATIVE.md, section 3).
#include "nonnegative_cascade_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/interval.hpp"

namespace invariant_dp::hierarchy {
namespace {

constexpr mpfr_prec_t kTablePrecision = 128;
// Values are kept at least this large (an upward change keeps every bound a
// bound; an underflow to 0 would drop a point of the support).
constexpr double kFloor = 0x1p-1000;

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  if (a >= kUnbounded || b >= kUnbounded) return kUnbounded;
  return a + b;
}

// sum_{j=0}^{n-1} q^j a[i + j] for every i in [0, N) (a = 0 beyond N), by
// blocks of n: within a block a backward recursion, from the next block a
// prefix with increasing powers; every term non-negative.
std::vector<double> forward_window_sums(const std::vector<double>& a, std::int64_t n, const RatePowers& pow,
                                        const Interrupts& interrupts) {
  const auto N = static_cast<std::int64_t>(a.size());
  std::vector<double> s(a.size(), 0.0);
  if (N == 0 || n <= 0) return s;
  const double q = pow.at(1);
  if (n >= N) {
    double acc = 0;
    for (std::int64_t i = N; i-- > 0;) {
      interrupts.poll_every(static_cast<std::uint64_t>(i));
      acc = a[i] + q * acc;
      s[i] = acc;
    }
    return s;
  }
  std::vector<double> pre(a.size(), 0.0);  // prefix within each block from its start
  for (std::int64_t b = 0; b < N; b += n) {
    double acc = 0;
    for (std::int64_t i = b; i < std::min(b + n, N); ++i) {
      interrupts.poll_every(static_cast<std::uint64_t>(i));
      acc += pow.at(i - b) * a[i];
      pre[i] = acc;
    }
  }
  for (std::int64_t b = 0; b < N; b += n) {
    const std::int64_t end = std::min(b + n, N);
    double acc = 0;
    for (std::int64_t i = end; i-- > b;) {
      interrupts.poll_every(static_cast<std::uint64_t>(i));
      acc = a[i] + q * acc;
      // From the next block: a[b + n .. i + n - 1].
      const std::int64_t last = std::min(i + n - 1, N - 1);
      s[i] = acc + (last >= b + n ? pow.at(b + n - i) * pre[last] : 0.0);
    }
  }
  return s;
}

// G(y) = sum_{j=0}^{n-1} q^j F(y + dir j) for y in [ylo, yhi], n >= 1
// (kUnbounded allowed), F's mantissas.
class GeometricSums {
 public:
  GeometricSums(const WindowFn& F, const RatePowers& pow, const Interrupts& interrupts)
      : F_(F), pow_(pow), interrupts_(interrupts) {}

  // Adds scale * G(y0 + i) to out[i], i in [0, out.size()).
  void add(int dir, std::int64_t n, std::int64_t y0, double scale, std::vector<double>& out) {
    if (n <= 0 || scale == 0) return;
    const WindowFn& F = F_;
    const std::int64_t flo = F.lo, fhi = F.hi();
    const std::vector<double>& sums = window_sums(dir, n);
    const std::vector<double>& prefix = window_prefix(dir);
    for (std::size_t i = 0; i < out.size(); ++i) {
      interrupts_.poll_every(i);
      const std::int64_t y = y0 + static_cast<std::int64_t>(i);
      double w = 0, k = 0;
      if (dir > 0) {
        const std::int64_t last = saturating_add(y, n - 1);
        if (y >= flo && y <= fhi) {
          w = sums[y - flo];
        } else if (y < flo && last >= flo) {
          w = pow_.at(flo - y) * prefix[std::min(last, fhi) - flo];
        }
        k = constant_part(y, std::max(y, F.support), std::min(last, flo - 1)) +
            constant_part(y, std::max(y, fhi + 1), last);
      } else {
        const std::int64_t first = n >= kUnbounded ? -kUnbounded : y - (n - 1);
        if (y >= flo && y <= fhi) {
          w = sums[y - flo];
        } else if (y > fhi && first <= fhi) {
          w = pow_.at(y - fhi) * prefix[fhi - std::max(first, flo)];
        }
        k = constant_part(y, std::max(first, F.support), std::min(y, flo - 1)) +
            constant_part(y, std::max(first, fhi + 1), y);
      }
      out[i] += scale * (w + k);
    }
  }

 private:
  // outside * sum_{t=t0}^{t1} q^{|t - y|} for a range [t0, t1] on one side
  // of y (either end may be unbounded).
  double constant_part(std::int64_t y, std::int64_t t0, std::int64_t t1) const {
    if (t0 > t1 || F_.outside == 0) return 0;
    const bool unbounded = t1 >= kUnbounded || t0 <= -kUnbounded;
    const std::int64_t count = unbounded ? kUnbounded : t1 - t0 + 1;
    const std::int64_t near = t0 >= y ? t0 - y : y - t1;
    return F_.outside * pow_.at(near) * pow_.partial_sum(count);
  }

  const std::vector<double>& window_sums(int dir, std::int64_t n) {
    auto& cache = dir > 0 ? forward_ : backward_;
    auto& cached_n = dir > 0 ? forward_n_ : backward_n_;
    if (cached_n != n) {
      if (dir > 0) {
        cache = forward_window_sums(F_.v, n, pow_, interrupts_);
      } else {
        std::vector<double> reversed(F_.v.rbegin(), F_.v.rend());
        auto s = forward_window_sums(reversed, n, pow_, interrupts_);
        cache.assign(s.rbegin(), s.rend());
      }
      cached_n = n;
    }
    return cache;
  }

  // dir > 0: sum_{i' <= i} q^i' a[i'] (from the left end); dir < 0: the same
  // from the right end, indexed by the distance from it.
  const std::vector<double>& window_prefix(int dir) {
    auto& cache = dir > 0 ? prefix_forward_ : prefix_backward_;
    if (cache.size() != F_.v.size()) {
      cache.assign(F_.v.size(), 0.0);
      double acc = 0;
      const std::size_t N = F_.v.size();
      for (std::size_t i = 0; i < N; ++i) {
        interrupts_.poll_every(i);
        acc += pow_.at(static_cast<std::int64_t>(i)) * F_.v[dir > 0 ? i : N - 1 - i];
        cache[i] = acc;
      }
    }
    return cache;
  }

  const WindowFn& F_;
  const RatePowers& pow_;
  const Interrupts& interrupts_;
  std::vector<double> forward_, backward_, prefix_forward_, prefix_backward_;
  std::int64_t forward_n_ = -1, backward_n_ = -1;
};

}  // namespace

RatePowers::RatePowers(double rho, std::size_t length) : rho_(rho) {
  if (!(rho > 0)) throw InvalidArgument("a rate of the non-negative cascade must be positive");
  length = std::max<std::size_t>(length, 2);
  const Interval q = exp(neg(exact_double(kTablePrecision, rho)));
  Interval p = exact(kTablePrecision, std::uint64_t{1});
  pow_.resize(length);
  cumulative_.resize(length + 1);
  cumulative_[0] = 0;
  for (std::size_t j = 0; j < length; ++j) {
    pow_[j] = to_double(p, End::upper);
    cumulative_[j + 1] = cumulative_[j] + pow_[j];
    p = mul(p, q);
  }
  series_ = to_double(div(exact(kTablePrecision, std::uint64_t{1}), sub(1ul, q)), End::upper);
}

double RatePowers::far(std::int64_t j) const { return std::exp(-rho_ * static_cast<double>(j)); }

double RatePowers::partial_sum(std::int64_t n) const {
  if (n <= 0) return 0;
  if (n < static_cast<std::int64_t>(cumulative_.size())) return cumulative_[n];
  if (n >= kUnbounded) return series_;
  return series_ * (1 - at(n));  // at(n) is far below 1 here
}

double RatePowers::range_sum(std::int64_t a, std::int64_t b) const {
  if (a > b) return 0;
  double sum = 0;
  if (a <= -1) {  // d in [a, min(b, -1)]: j = -d in [max(1, -b), -a]
    const std::int64_t j_lo = b >= -1 ? 1 : -b;
    const std::int64_t j_hi = a <= -kUnbounded ? kUnbounded : -a;
    sum += at(j_lo) * partial_sum(j_hi >= kUnbounded ? kUnbounded : j_hi - j_lo + 1);
  }
  if (b >= 0) {
    const std::int64_t d_lo = std::max<std::int64_t>(a, 0);
    sum += at(d_lo) * partial_sum(b >= kUnbounded ? kUnbounded : b - d_lo + 1);
  }
  return sum;
}

ChildMessage leaf_message(const RatePowers& pow, std::int64_t count) {
  ChildMessage g;
  g.pow = &pow;
  g.leaf = true;
  g.support = -count;
  g.hmax = 1;
  g.mass = pow.range_sum(-count, kUnbounded);
  // Moments of exp(-rho |s|) on s >= -count (for windows only).
  const double q = pow.at(1), r = pow.partial_sum(kUnbounded);  // r = 1 / (1 - q)
  const double m1 = q * r * r, m2 = q * (1 + q) * r * r * r;
  const double x = static_cast<double>(count);
  const double qx1 = pow.at(count + 1);
  const double z_neg = q * pow.partial_sum(count);
  const double m1_neg = m1 - qx1 * ((x + 1) * r + q * r * r);
  const double m2_neg = m2 - qx1 * ((x + 1) * (x + 1) * r + 2 * (x + 1) * q * r * r + q * (1 + q) * r * r * r);
  const double z = r + z_neg;
  g.mean = (m1 - std::max(m1_neg, 0.0)) / z;
  g.var = std::max((m2 + std::max(m2_neg, 0.0)) / z - g.mean * g.mean, 0.0);
  return g;
}

void describe_subtree_message(ChildMessage& g) {
  double mass = 0, s1 = 0, s2 = 0, hmax = g.kappa;
  for (std::uint32_t i = 0; i < g.n; ++i) {
    const std::int64_t s = g.lo + i;
    const double w = g.pow->at(s < 0 ? -s : s) * g.values[i];
    mass += w;
    s1 += w * static_cast<double>(s);
    s2 += w * static_cast<double>(s) * static_cast<double>(s);
    hmax = std::max(hmax, g.values[i]);
  }
  g.hmax = hmax;
  g.mean = mass > 0 ? s1 / mass : 0;
  g.var = mass > 0 ? std::max(s2 / mass - g.mean * g.mean, 0.0) : 0;
  g.mass = mass + g.kappa * (g.pow->range_sum(g.support, g.lo - 1) + g.pow->range_sum(g.hi() + 1, kUnbounded));
}

WindowFn convolve(const ChildMessage& g, const WindowFn& F, std::int64_t lo, std::int64_t hi, double inflate,
                  const Interrupts& interrupts) {
  WindowFn out;
  out.lo = lo;
  if (hi < lo) return out;
  out.v.assign(static_cast<std::size_t>(hi - lo + 1), 0.0);
  const RatePowers& pow = *g.pow;
  const double q = pow.at(1);
  GeometricSums sums(F, pow, interrupts);
  if (g.leaf) {
    // sum_{s >= 0} q^s F(r - s) + sum_{s = 1}^{count} q^s F(r + s).
    sums.add(-1, kUnbounded, lo, 1.0, out.v);
    sums.add(+1, -g.support, lo + 1, q, out.v);
  } else {
    const std::int64_t hlo = g.lo, hhi = g.hi();
    // The window of h, directly: out[r] = sum_s c[s] F(r - s) over an
    // extended copy of F (its window, constant and zero parts spelled out).
    const std::int64_t s_lo = std::max(hlo, g.support);
    if (s_lo <= hhi) {
      const std::size_t ns = static_cast<std::size_t>(hhi - s_lo + 1);
      std::vector<double> c_rev(ns);
      for (std::size_t i = 0; i < ns; ++i) {
        const std::int64_t s = hhi - static_cast<std::int64_t>(i);
        c_rev[i] = pow.at(s < 0 ? -s : s) * g.values[s - hlo];
      }
      const std::int64_t e_lo = lo - hhi;  // F(r - s) for r = lo, s = hhi
      std::vector<double> ext(out.v.size() + ns - 1);
      for (std::size_t t = 0; t < ext.size(); ++t) {
        interrupts.poll_every(t);
        ext[t] = F.at(e_lo + static_cast<std::int64_t>(t));
      }
      for (std::size_t r = 0; r < out.v.size(); ++r) {
        interrupts.poll_every(r);
        const double* e = ext.data() + r;
        double acc = 0;
        for (std::size_t i = 0; i < ns; ++i) acc += c_rev[i] * e[i];
        out.v[r] += acc;
      }
    }
    // kappa outside the window, above the support.
    const double k = g.kappa;
    if (hhi + 1 >= 0) {
      sums.add(-1, kUnbounded, lo - hhi - 1, k * pow.at(hhi + 1), out.v);
    } else {
      sums.add(+1, -hhi - 1, lo + 1, k * q, out.v);
      sums.add(-1, kUnbounded, lo, k, out.v);
    }
    if (g.support <= hlo - 1) {
      if (hlo <= 0) {
        sums.add(+1, hlo - g.support, lo + 1 - hlo, k * pow.at(1 - hlo), out.v);
      } else {
        const std::int64_t s0 = std::max<std::int64_t>(g.support, 0);
        sums.add(-1, hlo - s0, lo - s0, k * pow.at(s0), out.v);
        if (g.support <= -1) sums.add(+1, -g.support, lo + 1, k * q, out.v);
      }
    }
  }
  double max = 0;
  for (double x : out.v) max = std::max(max, x * inflate);
  int e = 0;
  if (max > 0) std::frexp(max, &e);
  for (double& x : out.v) x = std::max(std::ldexp(x * inflate, -e), kFloor);
  out.exp2 = g.exp2 + F.exp2 + e;
  return out;
}

}  // namespace invariant_dp::hierarchy
