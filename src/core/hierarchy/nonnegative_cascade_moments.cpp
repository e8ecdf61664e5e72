// The bias and variance of every node (nonnegative_cascade_moments.hpp).
#include "nonnegative_cascade_moments.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../errors.hpp"
#include "../large_buffer.hpp"

namespace invariant_dp::hierarchy {
namespace {

struct ThreeSums {
  std::vector<double> s0, s1, s2;
  void assign(std::size_t n) {
    s0.assign(n, 0.0);
    s1.assign(n, 0.0);
    s2.assign(n, 0.0);
  }
};

// out.s_j[i] = sum_{d=0}^{n-1} d^j q^d a(y0 + i + d) for a on [alo, alo + N)
// (0 elsewhere), j = 0, 1, 2: by blocks of n, a backward recursion within
// a block, increasing powers from the next one (as the kernels' sums).
void forward_moment_sums(const std::vector<double>& a, std::int64_t alo, const RatePowers& pow, std::int64_t n,
                         std::int64_t y0, std::size_t count, ThreeSums& out, const Interrupts& interrupts) {
  out.assign(count);
  const auto N = static_cast<std::int64_t>(a.size());
  if (N == 0 || n <= 0) return;
  const double q = pow.at(1);
  // In-window sums, and prefix sums with weights delta^j q^delta from the
  // start of each block (block = n, or the whole window).
  const std::int64_t block = std::min(n, N);
  thread_local ThreeSums in, pre;
  in.assign(a.size());
  pre.assign(a.size());
  for (std::int64_t b = 0; b < N; b += block) {
    const std::int64_t end = std::min(b + block, N);
    double p0 = 0, p1 = 0, p2 = 0;
    for (std::int64_t i = b; i < end; ++i) {
      interrupts.poll_every(static_cast<std::uint64_t>(i));
      const double delta = static_cast<double>(i - b), w = pow.at(i - b) * a[i];
      p0 += w;
      p1 += delta * w;
      p2 += delta * delta * w;
      pre.s0[i] = p0;
      pre.s1[i] = p1;
      pre.s2[i] = p2;
    }
  }
  for (std::int64_t b = 0; b < N; b += block) {  // after every block's prefix: a block reads the next one's
    const std::int64_t end = std::min(b + block, N);
    double s0 = 0, s1 = 0, s2 = 0;
    for (std::int64_t i = end; i-- > b;) {
      s2 = q * (s2 + 2 * s1 + s0);
      s1 = q * (s1 + s0);
      s0 = a[i] + q * s0;
      in.s0[i] = s0;
      in.s1[i] = s1;
      in.s2[i] = s2;
      if (n < N) {  // the next block's part: d from nb - i to i + n - 1 - i
        const std::int64_t nb = b + block, last = std::min(i + n - 1, N - 1);
        if (last >= nb) {
          const double c = static_cast<double>(nb - i), qc = pow.at(nb - i);
          in.s0[i] += qc * pre.s0[last];
          in.s1[i] += qc * (pre.s1[last] + c * pre.s0[last]);
          in.s2[i] += qc * (pre.s2[last] + 2 * c * pre.s1[last] + c * c * pre.s0[last]);
        }
      }
    }
  }
  for (std::size_t k = 0; k < count; ++k) {
    interrupts.poll_every(k);
    const std::int64_t i = y0 + static_cast<std::int64_t>(k) - alo;
    if (i >= N) continue;
    if (i >= 0) {
      out.s0[k] = in.s0[i];
      out.s1[k] = in.s1[i];
      out.s2[k] = in.s2[i];
      continue;
    }
    // y before the window: d from -i on, up to n - 1.
    const std::int64_t last = std::min(i + n - 1, N - 1);
    if (last < 0) continue;
    // Prefix from the window's start: the first block's prefix holds it when
    // last < block; a longer reach goes through the window at once.
    double p0 = 0, p1 = 0, p2 = 0;
    if (last < block) {
      p0 = pre.s0[last], p1 = pre.s1[last], p2 = pre.s2[last];
    } else {
      for (std::int64_t t = 0; t <= last; ++t) {
        const double delta = static_cast<double>(t), w = pow.at(t) * a[t];
        p0 += w;
        p1 += delta * w;
        p2 += delta * delta * w;
      }
    }
    const double c = static_cast<double>(-i), qc = pow.at(-i);
    out.s0[k] = qc * p0;
    out.s1[k] = qc * (p1 + c * p0);
    out.s2[k] = qc * (p2 + 2 * c * p1 + c * c * p0);
  }
}

// The same with a(y - d).
void backward_moment_sums(const std::vector<double>& a, std::int64_t alo, const RatePowers& pow, std::int64_t n,
                          std::int64_t y0, std::size_t count, ThreeSums& out, const Interrupts& interrupts) {
  const std::vector<double> reversed(a.rbegin(), a.rend());
  const std::int64_t rlo = -(alo + static_cast<std::int64_t>(a.size()) - 1);
  ThreeSums r;
  forward_moment_sums(reversed, rlo, pow, n, -(y0 + static_cast<std::int64_t>(count) - 1), count, r, interrupts);
  out.assign(count);
  for (std::size_t k = 0; k < count; ++k) {
    out.s0[k] = r.s0[count - 1 - k];
    out.s1[k] = r.s1[count - 1 - k];
    out.s2[k] = r.s2[count - 1 - k];
  }
}

struct Pending {
  std::uint32_t node;
  std::int64_t lo;          // Psi on [lo, lo + psi.size())
  std::vector<double> psi;  // relative weights
};

class MomentPass {
 public:
  MomentPass(const NonnegativeMessages& messages, NonnegativeMoments& out, const Interrupts& interrupts)
      : m_(messages), out_(out), interrupts_(interrupts) {}

  void run() {
    const HierarchyTree& tree = m_.tree();
    const NonnegativeLaw& law = m_.law();
    if (law.root_free()) {
      const ChildMessage g = m_.message(0);
      const std::uint32_t e = m_.chain_end(0);
      if (tree.is_leaf(e)) {
        alone(0, g);
      } else {
        std::vector<double> pi(g.n), psi(g.n);
        for (std::uint32_t i = 0; i < g.n; ++i) {
          const std::int64_t s = g.lo + i;
          psi[i] = g.pow->at(s < 0 ? -s : s);
          pi[i] = psi[i] * g.values[i];
        }
        assign(0, pi, g.lo);
        stack_.push_back({e, g.lo, std::move(psi)});
      }
    } else {
      for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
        interrupts_.poll_every(v);
        if (tree.n_children(v) >= 2 && law.pinned(v) && !law.pinned(tree.first_child(v)))
          stack_.push_back({v, 0, {1.0}});
      }
    }
    for (std::size_t popped = 0; !stack_.empty(); ++popped) {
      interrupts_.poll_every(popped);
      Pending p = std::move(stack_.back());
      stack_.pop_back();
      split(p);
    }
  }

 private:
  // Moments of a chain from a normalised-or-not weight pi on [lo, ...).
  void assign(std::uint32_t top, const std::vector<double>& pi, std::int64_t lo) {
    double m0 = 0, m1 = 0, m2 = 0;
    for (std::size_t i = 0; i < pi.size(); ++i) {
      const double s = static_cast<double>(lo + static_cast<std::int64_t>(i));
      m0 += pi[i];
      m1 += s * pi[i];
      m2 += s * s * pi[i];
    }
    set(top, m0, m1, m2);
  }

  void set(std::uint32_t top, double m0, double m1, double m2) {
    if (!(m0 > 0)) throw Error("a marginal of the non-negative cascade has no mass in its window");
    const double mean = m1 / m0, var = std::max(m2 / m0 - mean * mean, 0.0);
    const HierarchyTree& tree = m_.tree();
    // Ends: down a chain of one-child nodes, at most the tree's height.
    for (std::uint32_t w = top;; w = tree.first_child(w)) {
      out_.bias[w] = mean;
      out_.variance[w] = var;
      if (tree.n_children(w) != 1) break;
    }
  }

  // A chain whose marginal is its own message (a tree that is one chain).
  void alone(std::uint32_t top, const ChildMessage& g) {
    const double reach = std::ceil(60.0 / g.rho()) + 16;
    const std::int64_t lo = std::max<std::int64_t>(g.support, -static_cast<std::int64_t>(reach));
    std::vector<double> pi(static_cast<std::size_t>(static_cast<std::int64_t>(reach) - lo + 1));
    for (std::size_t i = 0; i < pi.size(); ++i) pi[i] = g.g(lo + static_cast<std::int64_t>(i));
    assign(top, pi, lo);
  }

  void split(const Pending& p) {
    const HierarchyTree& tree = m_.tree();
    const std::uint32_t u = p.node, m = tree.n_children(u);
    // A pinned split's children may be tilted (nonnegative_cascade_tilt.hpp):
    // the recursions below then run on the tilted messages, which leaves
    // every marginal as it is (the tilts' product is exp(theta * 0)); only
    // the Psi a child passes down needs its own factor back (subtree).
    m_.suffixes(u, children_, F_, 1, interrupts_, &tilt_);
    // Q~_k(z) = Q_k(-z): a convolution with g_k carries it to Q~_{k+1}.
    WindowFn qt;
    qt.lo = -(p.lo + static_cast<std::int64_t>(p.psi.size()) - 1);
    qt.v.assign(p.psi.rbegin(), p.psi.rend());
    qt.support = kNoSupport;
    for (std::uint32_t k = 0; k < m; ++k) {
      interrupts_.poll();
      const std::uint32_t top = tree.first_child(u) + k;
      const ChildMessage& g = children_[k];
      // Q_k forwards: on [qlo, qlo + qf.size()).
      const std::vector<double> qf(qt.v.rbegin(), qt.v.rend());
      const std::int64_t qlo = -qt.hi();
      const bool last = k + 1 == m;
      if (g.leaf) {
        leaf(top, g, qf, qlo, last ? nullptr : &F_[k + 1]);
      } else {
        subtree(top, g, qf, qlo, last ? nullptr : &F_[k + 1]);
      }
      if (!last) {
        convolve(g, Suffix{&qt, nullptr}, -F_[k + 1].hi(), -F_[k + 1].lo, 1.0, 44, nullptr, next_qt_, interrupts_);
        std::swap(qt, next_qt_);
      }
      qt.support = kNoSupport;
    }
  }

  // sum_s s^j g(s) sum_r F(r) Q(s + r) (F null: the point mass at 0).
  void leaf(std::uint32_t top, const ChildMessage& g, const std::vector<double>& qf, std::int64_t qlo,
            const WindowFn* F) {
    const RatePowers& pow = *g.pow;
    const std::int64_t count = -g.support;
    if (F == nullptr) {
      double m0 = 0, m1 = 0, m2 = 0;
      for (std::size_t i = 0; i < qf.size(); ++i) {
        const std::int64_t s = qlo + static_cast<std::int64_t>(i);
        const double w = g.g(s) * qf[i], x = static_cast<double>(s);
        m0 += w;
        m1 += x * w;
        m2 += x * x * w;
      }
      set(top, m0, m1, m2);
      return;
    }
    const std::size_t n = F->v.size();
    forward_moment_sums(qf, qlo, pow, kUnbounded, F->lo, n, pos_, interrupts_);
    if (count > 0) {
      backward_moment_sums(qf, qlo, pow, count, F->lo - 1, n, neg_, interrupts_);
    } else {
      neg_.assign(n);
    }
    const double q = pow.at(1);
    double m0 = 0, m1 = 0, m2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double f = F->v[i];
      m0 += f * (pos_.s0[i] + q * neg_.s0[i]);
      m1 += f * (pos_.s1[i] - q * (neg_.s1[i] + neg_.s0[i]));
      m2 += f * (pos_.s2[i] + q * (neg_.s2[i] + 2 * neg_.s1[i] + neg_.s0[i]));
    }
    set(top, m0, m1, m2);
  }

  // Phi(s) = sum_r F(r) Q(s + r) on the child's window; its marginal is
  // g(s) Phi(s), and its split receives Psi = exp(-rho |s|) Phi(s).
  void subtree(std::uint32_t top, const ChildMessage& g, const std::vector<double>& qf, std::int64_t qlo,
               const WindowFn* F) {
    std::vector<double> phi(g.n, 0.0), pi(g.n), psi(g.n);
    const double theta = tilt_.theta;
    const auto nq = static_cast<std::int64_t>(qf.size());
    for (std::uint32_t i = 0; i < g.n; ++i) {
      interrupts_.poll_every(i);
      const std::int64_t s = g.lo + i;
      if (F == nullptr) {
        const std::int64_t k = s - qlo;
        phi[i] = k >= 0 && k < nq ? qf[k] : 0.0;
        continue;
      }
      double acc = 0;
      const std::int64_t k0 = s + F->lo - qlo;
      for (std::size_t r = 0; r < F->v.size(); ++r) {
        const std::int64_t k = k0 + static_cast<std::int64_t>(r);
        if (k >= 0 && k < nq) acc += F->v[r] * qf[k];
      }
      phi[i] = acc;
    }
    for (std::uint32_t i = 0; i < g.n; ++i) {
      const std::int64_t s = g.lo + i;
      psi[i] = g.pow->at(s < 0 ? -s : s) * phi[i];
      pi[i] = psi[i] * g.values[i];
    }
    assign(top, pi, g.lo);
    const std::uint32_t end = m_.chain_end(top);
    if (m_.tree().is_leaf(end)) return;  // a tilted leaf: its marginal is all it needs
    if (theta < 0) {
      // Phi here is exp(-theta s) times the plain recursions' (the tilted
      // suffix functions and Q's carry exp(theta r) and exp(-theta y)): the
      // split below receives exp(-rho |s| + theta s) Phi(s), scaled to its
      // largest value (a tilted window may span more than the doubles).
      const double rho = tilt_.plain[top - m_.tree().first_child(m_.tree().parent(top))].rho();
      double largest = -std::numeric_limits<double>::infinity();
      for (std::uint32_t i = 0; i < g.n; ++i) {
        const double s = double(g.lo + std::int64_t(i));
        psi[i] =
            phi[i] > 0 ? std::log(phi[i]) - rho * std::fabs(s) + theta * s : -std::numeric_limits<double>::infinity();
        largest = std::max(largest, psi[i]);
      }
      for (double& x : psi) x = std::exp(x - largest);
    }
    stack_.push_back({end, g.lo, std::move(psi)});
  }

  const NonnegativeMessages& m_;
  NonnegativeMoments& out_;
  const Interrupts& interrupts_;
  std::vector<Pending> stack_;
  std::vector<ChildMessage> children_;
  std::vector<WindowFn> F_;
  PinnedTilt tilt_;
  WindowFn next_qt_;
  ThreeSums pos_, neg_;
};

}  // namespace

NonnegativeOptions nonnegative_moment_windows() {
  NonnegativeOptions o;
  o.window_sd = o.leaf_split_window_sd = 6;
  o.window_tail = o.leaf_split_window_tail = 24;
  return o;
}

NonnegativeMoments nonnegative_cascade_moments(const HierarchyTree& tree, const NonnegativeLaw& law,
                                               const std::int64_t* leaf_counts, const Interrupts& interrupts,
                                               NonnegativeOptions options) {
  options.dominating = false;
  const NonnegativeMessages messages(tree, law, leaf_counts, options, interrupts);
  NonnegativeMoments out;
  out.bias = zeroed_large_buffer<double>(tree.n_nodes());
  out.variance = zeroed_large_buffer<double>(tree.n_nodes());
  MomentPass(messages, out, interrupts).run();
  return out;
}

}  // namespace invariant_dp::hierarchy
