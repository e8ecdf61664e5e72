// Windows, tails and convolutions of the non-negative cascade's messages
// (nonnegative_cascade_kernels.hpp; NONNEGATIVE.md, sections 3-4).
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

// The kernels' buffers, one set per thread (the backward pass and the draw
// run them on two), reused from call to call. Each kernel takes the set
// once: in a shared library every access to a thread_local is a call to
// __tls_get_addr, which in the loops over 8M leaves cost 6 % of the draw.
struct KernelScratch {
  std::vector<double> block_prefix;                        // forward_window_sums
  std::vector<double> leaf_input, leaf_sums, leaf_prefix;  // convolve_leaf
  std::vector<double> child, child_reversed, input;        // convolve (a subtree child)
  std::vector<double> ratio, majorant;                     // make_log_concave_majorant
};

KernelScratch& kernel_scratch() {
  thread_local KernelScratch scratch;
  return scratch;
}

// sum_{j=0}^{n-1} q^j a[i + j] for every i in [0, N) (a = 0 beyond N), by
// blocks of n: within a block a backward recursion, from the next block a
// prefix with increasing powers; every term non-negative.
void forward_window_sums(const std::vector<double>& a, std::int64_t n, const RatePowers& pow, std::vector<double>& s,
                         std::vector<double>& pre, const Interrupts& interrupts) {
  const auto N = static_cast<std::int64_t>(a.size());
  if (N == 0 || n <= 0) {
    s.assign(a.size(), 0.0);
    return;
  }
  s.resize(a.size());  // every entry written below
  const double q = pow.at(1);
  if (n >= N) {
    double acc = 0;
    for (std::int64_t i = N; i-- > 0;) {
      interrupts.poll_every(static_cast<std::uint64_t>(i));
      acc = a[i] + q * acc;
      s[i] = acc;
    }
    return;
  }
  pre.resize(a.size());  // prefix within each block from its start (every entry written below)
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
}

// x a <= b b as real numbers (x, a, b > 0): exact products by fma, after a
// common power-of-two scaling when they could leave the range. Inlined:
// the majorant's loops call it once per value.
[[gnu::always_inline]] inline bool product_at_most(double x, double a, double b) {
  if (!(x > 0x1p-480 && a > 0x1p-480 && b > 0x1p-480 && x < 0x1p480 && a < 0x1p480 && b < 0x1p480)) {
    const int e = std::ilogb(b);
    x = std::ldexp(x, -e);
    a = std::ldexp(a, -e);
    b = std::ldexp(b, -e);
  }
  const double p1 = x * a, p2 = b * b;
  // Each product is within a relative 2^-53 of its exact value (no
  // underflow in this range): apart by more, the rounded ones decide.
  if (p1 < p2 * (1 - 0x1p-50)) return true;
  if (p1 > p2 * (1 + 0x1p-50)) return false;
  const double e1 = std::fma(x, a, -p1), e2 = std::fma(b, b, -p2);
  return p1 != p2 ? p1 < p2 : e1 <= e2;
}

// x a <= b as real numbers (x, a, b >= 0).
bool scaled_at_most(double x, double a, double b) {
  const double p = x * a, e = std::fma(x, a, -p);
  return p != b ? p < b : e <= 0;
}

// The largest double x <= candidate with x a <= b b (a, b > 0).
double capped(double candidate, double a, double b) {
  // b b / a with b scaled to about 1: far below a window's largest value
  // (under 2^-537) b b itself would round to 0 (the cap with it), and the
  // scaling by a power of two changes no rounding in the normal range.
  const int e = std::ilogb(b);
  const double bs = std::ldexp(b, -e), as = std::ldexp(a, -e);
  double x = std::min(candidate, std::ldexp(bs * bs / as, e));
  // Ends: x starts within the quotient's rounding (an ulp or two) of the
  // largest admissible value, and each pass steps one ulp down; at most 64
  // passes (where b b / a is not a normal double, ulps are too fine to step
  // through: 0 is admissible, and the majorant then says it fell below its
  // values instead of running on).
  for (int step = 0; x > 0 && !product_at_most(x, a, b); ++step) x = step < 64 ? next_down(x) : 0.0;
  return x;
}

// A leaf g(s) = q^|s| (s >= -count) against F on [lo, hi], exactly (up to
// rounding): F written out on ext, the union of the output window and F's
// kinks; below and above ext F is geometric, so what it contributes there
// is a closed form: the causal recursion starts from the sum of everything
// below ext, and the truncated anticausal sums add their part above ext
// per r.
void convolve_leaf(const ChildMessage& g, const Suffix& F, std::int64_t lo, std::int64_t hi, std::vector<double>& out,
                   const Interrupts& interrupts) {
  const RatePowers& pow = *g.pow;
  const double q = pow.at(1);
  const std::int64_t count = -g.support, supp = F.support();
  const std::int64_t ext_lo = std::max(std::min(lo, F.kink_lo()), supp);
  const std::int64_t ext_hi = std::max(hi, F.kink_hi());
  KernelScratch& scratch = kernel_scratch();
  std::vector<double>& a = scratch.leaf_input;
  a.resize(static_cast<std::size_t>(ext_hi - ext_lo + 1));  // every entry written
  interrupts.poll();
  F.write(ext_lo, a);
  // Causal: A(r) = sum_{y <= r} q^(r - y) F(y). Below ext (F's left tail,
  // ratio lambda down to supp): sum_{j=1}^{n} q^(j-1) F(ext_lo) lambda^j.
  double acc = 0;
  const double lambda = F.left_ratio();
  if (ext_lo > supp && lambda > 0) {
    const double ql = q * lambda;
    const double n = supp <= kNoSupport ? INFINITY : double(ext_lo - supp);
    acc = a[0] * lambda * (std::isinf(n) ? 1 / (1 - ql) : -std::expm1(n * std::log(ql)) / (1 - ql));
  }
  for (std::int64_t y = ext_lo; y <= hi; ++y) {
    interrupts.poll_every(static_cast<std::uint64_t>(y - ext_lo));
    acc = a[static_cast<std::size_t>(y - ext_lo)] + q * acc;
    if (y >= lo) out[static_cast<std::size_t>(y - lo)] = acc;
  }
  if (count <= 0) return;
  // Anticausal: B(r) = sum_{s=1}^{count} q^s F(r + s): within ext by blocks
  // of count, above ext by F's right tail (ratio rr): F(ext_hi) q^(ext_hi - r)
  // sum_{j=1}^{n} (q rr)^j, n = r + count - ext_hi.
  std::vector<double>& sums = scratch.leaf_sums;
  std::vector<double>& prefix = scratch.leaf_prefix;
  forward_window_sums(a, count, pow, sums, scratch.block_prefix, interrupts);
  prefix.clear();  // sum_{i' <= i} q^i' a[i'], written when needed
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t y = lo + static_cast<std::int64_t>(i) + 1;
    double w = 0;
    if (y >= ext_lo && y <= ext_hi) {
      w = sums[static_cast<std::size_t>(y - ext_lo)];
    } else if (y < ext_lo) {
      const std::int64_t last = std::min(y + count - 1, ext_hi);
      if (last >= ext_lo) {
        if (prefix.empty()) {
          double acc_p = 0;
          for (std::size_t t = 0; t < a.size(); ++t) prefix.push_back(acc_p += pow.at(static_cast<std::int64_t>(t)) * a[t]);
        }
        w = pow.at(ext_lo - y) * prefix[static_cast<std::size_t>(last - ext_lo)];
      }
    }
    out[i] += q * w;
  }
  const double rr = F.right_ratio(), qr = q * rr;
  double qr_n = 0;  // (q rr)^n at the current r, once n >= 1
  bool started = false;
  for (std::size_t i = 0; i < out.size(); ++i) {
    interrupts.poll_every(i);
    const std::int64_t r = lo + static_cast<std::int64_t>(i);
    const std::int64_t n = r + count - ext_hi;
    if (rr > 0 && n >= 1) {
      if (!started) qr_n = std::pow(qr, double(n)), started = true;
      out[i] += a.back() * pow.at(ext_hi - r) * (qr * (1 - qr_n) / (1 - qr));
      qr_n *= qr;
    }
  }
}

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
  step_ = static_cast<std::int64_t>(length) - 1;
  // Ends: at 1 at the latest (the table is finite, its entries decreasing).
  while (step_ > 1 && !(pow_[static_cast<std::size_t>(step_)] >= 0x1p-1000)) --step_;
}

std::size_t rate_table_length(double rate) {
  const double needed = std::ceil(760.0 / rate) + 2;  // exp(-760) is below every double
  return static_cast<std::size_t>(std::min(needed, double(1u << 17)));
}

Separated separate(double x) {
  Separated out;
  out.m = std::frexp(x, &out.e);
  if (out.m == 0) out.e = 0;
  return out;
}

Separated times(Separated a, Separated b) {
  Separated out = separate(a.m * b.m);
  if (out.m != 0) out.e += a.e + b.e;
  return out;
}

Separated ratio_power_separated(double x, std::int64_t j) {
  if (j == 0) return Separated{0.5, 1};  // 1
  if (x == 0) return Separated{};
  // 2^(j log2 x) in 80-bit arithmetic: its exponent L (in bits) to within
  // |L| 2^-63, so the power to within |L| 2^-63 relative (powering by
  // squaring would compound j roundings); raised by that and the rounding
  // to double, so that it is an upper bound.
  const long double L = static_cast<long double>(j) * std::log2(static_cast<long double>(x));
  // Beyond 2^-2^28 (a count near 2^62 away), 2^-2^28 itself: an upper
  // bound whose exponent a few products keep inside int.
  if (L < -0x1p28L) return Separated{0.5, -(1 << 28) + 1};
  const long double k = std::floor(L);
  const long double raise = 1 + (std::fabs(L) + 4) * 0x1p-62L + 0x1p-52L;
  Separated out = separate(static_cast<double>(std::exp2(L - k) * raise));
  out.e += static_cast<int>(k);
  return out;
}

Separated RatePowers::at_separated(std::int64_t j) const {
  if (j <= step_) return separate(pow_[static_cast<std::size_t>(j)]);
  const std::int64_t q = j / step_, r = j % step_;
  return times(ratio_power_separated(pow_[static_cast<std::size_t>(step_)], q),
               separate(pow_[static_cast<std::size_t>(r)]));
}

double RatePowers::far(std::int64_t j) const {
  const double x = rho_ * static_cast<double>(j);
  // exp(-x) rounds to 0 there; libm reaches that through its slow
  // underflow path (and errno), which a draw reading a long stretch of
  // far powers pays for every point.
  return x >= 746 ? 0.0 : std::exp(-x);
}

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

double ratio_power(double x, std::int64_t j) {
  if (j == 0) return 1;
  if (x == 0) return 0;
  return std::pow(x, static_cast<double>(j));
}

namespace {

// h's mantissas on [from, from + out.size()) for a window v[0 .. n) at lo
// with its tails (ratios left and right; 0 below support): the left tail is
// computed from lo down, the right from the window's end up.
void write_window(std::int64_t lo, const double* v, std::size_t n, double left, double right, std::int64_t support,
                  std::int64_t from, std::vector<double>& out) {
  const std::int64_t hi = lo + static_cast<std::int64_t>(n) - 1;
  const std::int64_t to = from + static_cast<std::int64_t>(out.size()) - 1;
  std::int64_t r = from;
  std::size_t i = 0;
  for (; r <= to && r < support; ++r, ++i) out[i] = 0;
  if (r <= to && r < lo) {
    const std::int64_t last = std::min(to, lo - 1);
    double x = left == 0 ? 0 : v[0] * ratio_power(left, lo - last);
    for (std::int64_t k = last; k >= r; --k) {
      out[i + static_cast<std::size_t>(k - r)] = x;
      x *= left;
    }
    i += static_cast<std::size_t>(last - r + 1);
    r = last + 1;
  }
  for (; r <= to && r <= hi; ++r, ++i) out[i] = v[static_cast<std::size_t>(r - lo)];
  double x = v[n - 1];
  for (; r <= to; ++r, ++i) out[i] = x *= right;
}

// h(r) of a window v[0 .. n) at lo with its tails, apart from its exponent.
Separated window_value_separated(std::int64_t lo, const double* v, std::size_t n, double left, double right,
                                 std::int64_t support, std::int64_t r) {
  const std::int64_t hi = lo + static_cast<std::int64_t>(n) - 1;
  if (r < support) return Separated{};
  if (r > hi) return right == 0 ? Separated{} : times(separate(v[n - 1]), ratio_power_separated(right, r - hi));
  if (r < lo) return left == 0 ? Separated{} : times(separate(v[0]), ratio_power_separated(left, lo - r));
  return separate(v[r - lo]);
}

}  // namespace

void WindowFn::write(std::int64_t from, std::vector<double>& out) const {
  write_window(lo, v.data(), v.size(), left, right, support, from, out);
}

Separated WindowFn::at_separated(std::int64_t r) const {
  return window_value_separated(lo, v.data(), v.size(), left, right, support, r);
}

Separated ChildMessage::h_separated(std::int64_t s) const {
  if (leaf) return s < support ? Separated{} : Separated{0.5, 1};
  return window_value_separated(lo, values, n, left, right, support, s);
}

double WindowFn::max() const {
  double m = 0;
  for (double x : v) m = std::max(m, x);
  return m;
}

std::int64_t WindowFn::mode() const {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[best]) best = i;
  return lo + static_cast<std::int64_t>(best);
}

void ChildMessage::write(std::int64_t from, std::vector<double>& out) const {
  if (leaf) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::int64_t s = from + static_cast<std::int64_t>(i);
      out[i] = s < support ? 0.0 : pow->at(s < 0 ? -s : s);
    }
    return;
  }
  write_window(lo, values, n, left, right, support, from, out);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t s = from + static_cast<std::int64_t>(i);
    out[i] *= pow->at(s < 0 ? -s : s);
  }
}

std::int64_t ChildMessage::mode() const {
  const std::int64_t from = std::max(kink_lo(), support);
  if (leaf) return std::max<std::int64_t>(from, 0);  // q^|s| on s >= support
  std::int64_t best = from;
  double best_value = g(from);
  // Ends: a scan of the kinks' range.
  for (std::int64_t s = from + 1; s <= kink_hi(); ++s) {
    const double x = g(s);
    if (x > best_value) best = s, best_value = x;
  }
  return best;
}

ChildMessage leaf_message(const RatePowers& pow, std::int64_t count) {
  ChildMessage g;
  g.pow = &pow;
  g.leaf = true;
  g.support = -count;
  g.hmax = 1;
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
  double mass = 0, s1 = 0, s2 = 0, hmax = 0;
  auto add = [&](std::int64_t s, double w) {
    mass += w;
    s1 += w * static_cast<double>(s);
    s2 += w * static_cast<double>(s) * static_cast<double>(s);
  };
  for (std::uint32_t i = 0; i < g.n; ++i) {
    const std::int64_t s = g.lo + i;
    add(s, g.pow->at(s < 0 ? -s : s) * g.values[i]);
    hmax = std::max(hmax, g.values[i]);
  }
  // The tails too: a window cropped where g still decays slowly leaves
  // much of its mass there. Until a term is below 2^-60 of the mass so far
  // (or 2^20 terms: then the rest is negligible for windows).
  const double wmax = mass;
  for (int side = -1; side <= 1; side += 2) {
    std::int64_t s = side > 0 ? g.hi() + 1 : g.lo - 1;
    // Ends: at most 2^20 terms.
    for (std::int64_t k = 0; k < (std::int64_t{1} << 20) && s >= g.support; ++k, s += side) {
      const double w = g.g(s);
      if (!(w > 0x1p-60 * wmax)) break;
      add(s, w);
    }
  }
  g.hmax = hmax;
  g.mean = mass > 0 ? s1 / mass : 0;
  g.var = mass > 0 ? std::max(s2 / mass - g.mean * g.mean, 0.0) : 0;
}

void convolve(const ChildMessage& g, const Suffix& F, std::int64_t lo, std::int64_t hi, double inflate,
              double reach_nats, bool* tight, WindowFn& out, const Interrupts& interrupts) {
  const bool bound_rest = tight != nullptr;
  out.lo = lo;
  out.left = out.right = 0;
  out.support = kNoSupport;
  out.exp2 = 0;
  out.v.assign(static_cast<std::size_t>(std::max<std::int64_t>(hi - lo + 1, 0)), 0.0);
  if (hi < lo) return;
  if (g.leaf) {
    convolve_leaf(g, F, lo, hi, out.v, interrupts);
    if (bound_rest) *tight = true;  // nothing is left out
  } else {
    const auto reach = static_cast<std::int64_t>(std::min(std::ceil(reach_nats / g.rho()), 0x1p24));
    // g over its kinks and reach, then trimmed to where it is within
    // reach_nats of its largest value (an interval: g is log-concave). A
    // subtree's window holds its sum's largest value, where exp(-rho |s|)
    // has made g negligible; what is left out is bounded below.
    const std::int64_t c_lo = std::max(g.support, g.kink_lo() - reach), c_hi = g.kink_hi() + reach;
    KernelScratch& scratch = kernel_scratch();
    std::vector<double>& c = scratch.child;
    c.resize(static_cast<std::size_t>(c_hi - c_lo + 1));  // every entry written
    interrupts.poll();
    g.write(c_lo, c);
    double g_max = 0;
    for (double x : c) g_max = std::max(g_max, x);
    const double g_floor = g_max * std::exp(-reach_nats);
    std::size_t i_lo = 0, i_hi = c.size() - 1;
    // Ends: each scan stays within c.
    while (i_lo < i_hi && c[i_lo] < g_floor) ++i_lo;
    while (i_hi > i_lo && c[i_hi] < g_floor) --i_hi;
    double trimmed_left = 0, trimmed_right = 0;  // sums of at most c.size() non-negative terms
    for (std::size_t i = 0; i < i_lo; ++i) trimmed_left += c[i];
    for (std::size_t i = i_hi + 1; i < c.size(); ++i) trimmed_right += c[i];
    const std::int64_t g_lo = c_lo + static_cast<std::int64_t>(i_lo), g_hi = c_lo + static_cast<std::int64_t>(i_hi);
    // F written out on the range the sums read.
    const std::int64_t ext_lo = std::max(lo - g_hi, F.support()), ext_hi = hi - g_lo;
    std::vector<double>& a = scratch.input;
    a.resize(static_cast<std::size_t>(std::max<std::int64_t>(ext_hi - ext_lo + 1, 0)));  // every entry written
    interrupts.poll();
    F.write(ext_lo, a);
    // Directly over [g_lo, g_hi]: out[r] = sum_s c[s] F(r - s).
    const std::size_t ns = i_hi - i_lo + 1;
    std::vector<double>& c_rev = scratch.child_reversed;
    c_rev.assign(c.rend() - static_cast<std::ptrdiff_t>(i_hi) - 1, c.rend() - static_cast<std::ptrdiff_t>(i_lo));
    // F(r - s) for s = g_hi - i is a[r - g_hi + i - ext_lo]. Eight partial
    // sums (independent additions; a sum of non-negative terms keeps its
    // bound (1 + n u) in any order).
    for (std::size_t k = 0; k < out.v.size(); ++k) {
      interrupts.poll_every(k);
      const std::int64_t base = lo + static_cast<std::int64_t>(k) - g_hi - ext_lo;
      const std::int64_t i0 = std::max<std::int64_t>(0, -base);
      const std::int64_t i1 = std::min<std::int64_t>(static_cast<std::int64_t>(ns), static_cast<std::int64_t>(a.size()) - base);
      const double* x = c_rev.data() + i0;
      const double* y = a.data() + base + i0;
      const std::int64_t n = i1 - i0;
      double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      std::int64_t i = 0;
      for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; ++l) p[l] += x[i + l] * y[i + l];
      for (; i < n; ++i) p[0] += x[i] * y[i];
      out.v[k] += ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
    }
    if (bound_rest) {
      // What is left out: g's mass below g_lo (trimmed, then beyond c_lo
      // its geometric tail) against F on the half-line r - s > r - g_lo,
      // and its mass above g_hi against F on r - s < r - g_hi. F is
      // log-concave, so on a half-line it is largest at the point nearest
      // its mode (NONNEGATIVE.md, section 3, "Convolutions"): per result,
      // not F's largest value, which for functions spanning hundreds of
      // nats bounds nothing far from the mode.
      const double rounding = 1 + double(c.size()) * 0x1p-52;
      double left_mass = trimmed_left * rounding, right_mass = trimmed_right * rounding;
      const double lr = g.left_ratio(), rr = g.right_ratio();
      if (c_lo > g.support && lr > 0) left_mass += g.g(c_lo - 1) / (1 - lr);
      if (rr > 0) right_mass += g.g(c_hi + 1) / (1 - rr);
      const std::int64_t mode = F.mode();
      *tight = true;
      for (std::size_t i = 0; i < out.v.size() && *tight; ++i) {
        const std::int64_t r = lo + static_cast<std::int64_t>(i);
        const double beyond_left = left_mass > 0 ? left_mass * F.at(std::max(r - g_lo + 1, mode)) : 0.0;
        const double beyond_right = right_mass > 0 ? right_mass * F.at(std::min(r - g_hi - 1, mode)) : 0.0;
        *tight = (beyond_left + beyond_right) * kBoundSlack <= 0x1p-40 * out.v[i];
      }
    }
  }
  double max = 0;
  for (double x : out.v) max = std::max(max, x * inflate);
  int e = 0;
  if (max > 0) std::frexp(max, &e);
  const double scale = inflate * std::ldexp(1.0, -e);  // a power of two times inflate
  for (double& x : out.v) x = std::max(x * scale, kFloor);
  out.exp2 = g.exp2 + F.exp2() + e;
}

bool majorant_tails_fall(const WindowFn& F, double tilt) {
  const std::vector<double>& v = F.v;
  const std::size_t n = v.size();
  if (n < 3 || !(v[n - 1] * tilt < v[n - 2])) return false;
  return F.lo <= F.support || v[0] * tilt < v[1];
}

void make_log_concave_majorant(WindowFn& F, double tilt) {
  std::vector<double>& v = F.v;
  if (v.size() < 2) throw Error("a window of the non-negative cascade is too short for its tails");
  std::size_t m0 = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[m0]) m0 = i;
  // Values below 2^-900 of the largest carry no shape (they may have been
  // raised to the floor, or rounded as subnormals): the window ends before
  // them, and its tails bound what lies there (a window decides only speed).
  const double negligible = v[m0] * 0x1p-900;
  std::size_t first = 0, end = v.size();
  // Ends: each scan stays within the window.
  while (first + 1 < m0 && v[first] <= negligible) ++first;
  while (end > m0 + 2 && v[end - 1] <= negligible) --end;
  if (first > 0 || end < v.size()) {
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(end), v.end());
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(first));
    F.lo += static_cast<std::int64_t>(first);
    m0 -= first;
  }
  const std::size_t n = v.size();
  const bool left_tail = F.lo > F.support;
  // Ratios away from the mode: the decreasing side's raised, the increasing
  // side's lowered, each then made monotone (suffix maxima to the right,
  // prefix minima to the left, clamped at 1).
  KernelScratch& scratch = kernel_scratch();
  std::vector<double>& ratio = scratch.ratio;
  std::vector<double>& s = scratch.majorant;
  ratio.resize(n - 1);
  double suffix = 0;
  for (std::size_t i = n - 1; i-- > m0;) {
    suffix = std::max(suffix, v[i + 1] / v[i] * tilt);
    ratio[i] = std::min(1.0, suffix);
  }
  double prefix = INFINITY;
  for (std::size_t i = 0; i < m0; ++i) {
    prefix = std::min(prefix, v[i + 1] / v[i] / tilt);
    ratio[i] = std::max(1.0, prefix);
  }
  // Values from the mode outwards, each capped so that s_i^2 >= s_{i-1}
  // s_{i+1} holds exactly.
  s.resize(n);
  s[m0] = v[m0];
  for (std::size_t i = m0; i + 1 < n; ++i) {
    double x = std::max(s[i] * ratio[i], kFloor);
    if (i > m0 && !product_at_most(x, s[i - 1], s[i])) x = capped(x, s[i - 1], s[i]);
    s[i + 1] = x;
  }
  for (std::size_t i = m0; i-- > 0;) {
    double x = std::max(s[i + 1] / ratio[i], kFloor);
    if (i + 2 <= m0 && !product_at_most(x, s[i + 2], s[i + 1])) x = capped(x, s[i + 2], s[i + 1]);
    s[i] = x;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!(s[i] >= v[i])) throw Error("a log-concave bound of the non-negative cascade fell below its values");
  std::swap(v, s);  // s keeps the old buffer for the next call
  // Tails continue the edge ratios (rounded down to keep log-concavity).
  double right = v[n - 1] / v[n - 2];
  // Ends: the quotient is within its rounding (an ulp) of a ratio that
  // passes; each pass steps one ulp down.
  while (right > 0 && !scaled_at_most(right, v[n - 2], v[n - 1])) right = next_down(right);
  if (!(right < 1))
    throw Error("a window of the non-negative cascade does not reach past its largest value",
                "Window from " + std::to_string(F.lo) + ", " + std::to_string(n) + " values, the largest at " +
                    std::to_string(m0) + "; last values " + format_double(v[n - 2]) + ", " + format_double(v[n - 1]) +
                    ".");
  F.right = right;
  F.left = 0;
  if (left_tail) {
    double left = v[0] / v[1];
    // Ends: as the right tail's ratio above.
    while (left > 0 && !scaled_at_most(left, v[1], v[0])) left = next_down(left);
    if (!(left < 1))
      throw Error("a window of the non-negative cascade starts after its largest value",
                  "Window from " + std::to_string(F.lo) + " (support " + std::to_string(F.support) + "), " +
                      std::to_string(n) + " values, the largest at " + std::to_string(m0) + "; first values " +
                      format_double(v[0]) + ", " + format_double(v[1]) + ".");
    F.left = left;
  }
}

}  // namespace invariant_dp::hierarchy
