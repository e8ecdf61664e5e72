// Tilted messages at a pinned split (nonnegative_cascade_tilt.hpp).
#include "nonnegative_cascade_tilt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../errors.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Tilted window values exceed exp(theta s) g(s) / rate power by this factor:
// it covers the logarithms and exponentials they are computed through (an
// absolute error of a few units of 2^-50 in exponents below 2^11).
constexpr double kTiltMargin = 1 + 0x1p-34;
// A tilted value this far below the window's largest (in nats) is stored as
// the floor below: an upper bound that stays a normal double.
constexpr double kTiltFloorNats = 690;
constexpr double kTiltFloor = 0x1p-995;  // above exp(-690)
// The steepest tilt tried: exp(-64) per step already leaves a child's mass
// on its least value.
constexpr double kMaxTilt = 64;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();
// A tilted window reaches this many nats of its rate past 0 and the
// child's window: what lies beyond is a geometric tail (the sampler's) or
// left out (the moments', whose windows leave out about exp(-24)).
constexpr double kRightNats = 36;

// A child's log h(s) on [from, to] (its exponent apart), from its window
// and tails without rounding far values to 0; -inf outside the support.
struct LogH {
  std::int64_t from = 0, to = 0;
  std::vector<double> value;
};

bool log_h(const ChildMessage& g, double theta, std::size_t cap, LogH& out) {
  if (g.support <= kNoSupport) return false;
  out.from = g.support;
  // Past 0 and the child's window, until the tilted rate has taken
  // exp(-kRightNats) off (a leaf's mass lies mostly beyond 0).
  const auto right = static_cast<std::int64_t>(std::ceil(kRightNats / (g.rho() - theta)));
  out.to = (g.leaf ? 0 : std::max<std::int64_t>(g.hi(), 0)) + right;
  // to + 1 - cap > from: too long (without forming to - from, which a
  // support near -2^63 would overflow).
  if (out.to < out.from || out.to + 1 - static_cast<std::int64_t>(cap) > out.from) return false;
  out.value.resize(static_cast<std::size_t>(out.to - out.from + 1));
  for (std::size_t i = 0; i < out.value.size(); ++i) {
    const std::int64_t s = out.from + static_cast<std::int64_t>(i);
    double x = 0;
    if (!g.leaf) {
      if (s > g.hi()) {
        x = g.right > 0 ? std::log(g.values[g.n - 1]) + double(s - g.hi()) * std::log(g.right) : kNegInf;
      } else if (s < g.lo) {
        x = g.left > 0 ? std::log(g.values[0]) + double(g.lo - s) * std::log(g.left) : kNegInf;
      } else {
        x = g.values[s - g.lo] > 0 ? std::log(g.values[s - g.lo]) : kNegInf;
      }
    }
    out.value[i] = x;
  }
  return true;
}

// The tilted child's mean and variance: weights exp(theta s - rho |s|) h(s)
// on [from, to], and beyond `to` h's right tail (a geometric series).
struct Moments {
  double mean = 0, var = 0;
};
Moments tilted_moments(const ChildMessage& g, const LogH& h, double theta) {
  const double rho = g.rho();
  auto exponent = [&](std::int64_t s, double lh) { return theta * double(s) - rho * double(s < 0 ? -s : s) + lh; };
  double top = kNegInf;
  for (std::size_t i = 0; i < h.value.size(); ++i)
    top = std::max(top, exponent(h.from + static_cast<std::int64_t>(i), h.value[i]));
  double mass = 0, s1 = 0, s2 = 0;
  for (std::size_t i = 0; i < h.value.size(); ++i) {
    const std::int64_t s = h.from + static_cast<std::int64_t>(i);
    const double w = std::exp(exponent(s, h.value[i]) - top);
    mass += w, s1 += w * double(s), s2 += w * double(s) * double(s);
  }
  // Beyond `to` (>= 0): ratio r = (h's right ratio) exp(theta - rho) per step.
  const double right = g.leaf ? 1.0 : g.right;
  const double r = right * std::exp(theta - rho);
  if (r > 0 && r < 1) {
    const double w = std::exp(exponent(h.to, h.value.back()) - top);
    const double a = r / (1 - r), b = r / ((1 - r) * (1 - r)), c = r * (1 + r) / ((1 - r) * (1 - r) * (1 - r));
    const double x = double(h.to);
    mass += w * a, s1 += w * (x * a + b), s2 += w * (x * x * a + 2 * x * b + c);
  }
  Moments m;
  if (!(mass > 0)) return m;
  m.mean = s1 / mass;
  m.var = std::max(s2 / mass - m.mean * m.mean, 0.0);
  return m;
}

}  // namespace

double pinned_split_tilt(const std::vector<ChildMessage>& children, const std::vector<std::size_t>& caps,
                         double min_nats, const Interrupts& interrupts) {
  std::vector<LogH> h(children.size());
  for (std::size_t j = 0; j < children.size(); ++j) {
    interrupts.poll_every(j);
    if (!log_h(children[j], 0, caps[j], h[j])) return 0;
  }
  auto summed = [&](double theta, double* var) {
    double mean = 0, v = 0;
    for (std::size_t j = 0; j < children.size(); ++j) {
      interrupts.poll_every(j);
      const Moments m = tilted_moments(children[j], h[j], theta);
      mean += m.mean, v += m.var;
    }
    if (var != nullptr) *var = v;
    return mean;
  };
  double var0 = 0;
  const double mean0 = summed(0, &var0);
  if (!(mean0 > 0) || mean0 * mean0 < 2 * min_nats * var0) return 0;
  // A bracket [lo, 0] with the summed mean at most 0 at lo (or lo the
  // steepest tilt tried), then bisection.
  double lo = -1.0 / 16, hi = 0;
  // Ends: lo doubles up to kMaxTilt.
  while (lo > -kMaxTilt && summed(lo, nullptr) > 0) hi = lo, lo *= 2;
  if (lo <= -kMaxTilt) {
    lo = -kMaxTilt;
  } else {
    // Ends: 48 halvings.
    for (int i = 0; i < 48; ++i) {
      const double mid = (lo + hi) / 2;
      (summed(mid, nullptr) > 0 ? hi : lo) = mid;
    }
  }
  // A multiple of 2^-40, so that every tilted rate is one (RatePowers).
  return -std::ldexp(std::ceil(std::ldexp(-lo, 40)), -40);
}

bool tilt_children(std::vector<ChildMessage>& children, double theta, const std::vector<std::size_t>& caps,
                   const std::vector<const RatePowers*>& tables, PinnedTilt& tilt, const Interrupts& interrupts) {
  const std::size_t m = children.size();
  std::vector<LogH> h(m);
  for (std::size_t j = 0; j < m; ++j) {
    interrupts.poll_every(j);
    if (!log_h(children[j], theta, caps[j], h[j])) return false;
  }
  tilt.windows.resize(m);
  std::vector<ChildMessage> tilted(m);
  for (std::size_t j = 0; j < m; ++j) {
    interrupts.poll();
    const ChildMessage& g = children[j];
    const RatePowers* pow = tables[j];
    if (pow->rho() != g.rho() - theta) throw Error("a tilted message's rate table has another rate");
    // h~(s) = h(s) exp(2 |theta| |s|) below 0 and h(s) from 0 up, so that
    // exp(-rate |s|) h~(s) = exp(theta s - rho |s|) h(s).
    const LogH& lh = h[j];
    std::vector<double> e(lh.value.size());
    double top = kNegInf;
    for (std::size_t i = 0; i < e.size(); ++i) {
      const std::int64_t s = lh.from + static_cast<std::int64_t>(i);
      e[i] = lh.value[i] + (s < 0 ? -2 * theta * double(-s) : 0.0);
      top = std::max(top, e[i]);
    }
    if (!std::isfinite(top)) return false;
    const int shift = static_cast<int>(std::floor(top / std::log(2.0)));
    WindowFn& w = tilt.windows[j];
    w.lo = lh.from;
    w.support = g.support;
    w.exp2 = g.exp2 + shift;
    w.v.resize(e.size());
    const double base = double(shift) * std::log(2.0);
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (e[i] == kNegInf) {
        w.v[i] = 0;  // outside the support, or beyond a window with no tail: 0 by definition
      } else {
        w.v[i] = e[i] - top < -kTiltFloorNats ? kTiltFloor : std::exp(e[i] - base) * kTiltMargin;
      }
    }
    ChildMessage& t = tilted[j];
    t.pow = pow;
    t.leaf = false;
    t.support = g.support;
    t.lo = w.lo;
    t.values = w.v.data();
    t.n = static_cast<std::uint32_t>(w.v.size());
    t.left = 0;  // the window starts at the support
    t.right = g.leaf ? 1.0 : g.right;
    t.exp2 = w.exp2;
    describe_subtree_message(t);
  }
  tilt.theta = theta;
  tilt.plain = children;
  children = std::move(tilted);
  return true;
}

}  // namespace invariant_dp::hierarchy
