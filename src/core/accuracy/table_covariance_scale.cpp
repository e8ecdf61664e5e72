// The covariance scale of complete two-way tables by Fourier integrals
// (table_covariance_scale.hpp; DERIVATIONS.md, section 12).
#include "table_covariance_scale.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../errors.hpp"
#include "../kept_list.hpp"
#include "../samplers/interval.hpp"
#include "line_residues.hpp"
#include "table_quadrature.hpp"
#include "zero_sum_line_mass.hpp"

namespace invariant_dp::accuracy {
namespace {

// The aliasing bounds N is chosen for, before their factors: the target
// error times P(S = 0) as the local limit theorem gives it (the error is
// about the bound over P(S = 0)), then, while the error bound that gives is
// not below the target, times kAliasRetry, then the target times kAliasLast.
constexpr double kAliasRetry = 1e-6, kAliasLast = 1e-27;
// log psi-hat and grad psi-hat of one line of r cells (psi-hat = psi / psi(0)).
template <class Real>
class LineTransform {
  using C = Cx<Real>;

 public:
  LineTransform(IntegerNoise noise, int r) : noise_(noise), r_(r) {
    if (noise.kind == IntegerNoise::Kind::laplace) {
      const Real inv_b = Real(noise.parameter.den) / Real(noise.parameter.num);
      a_ = std::exp(-inv_b);
      one_minus_a2_ = -std::expm1(-2 * inv_b);
      const Real cosine[kMaxLines] = {1, 1, 1, 1}, sine[kMaxLines] = {0, 0, 0, 0};
      scale_ = std::pow(one_minus_a2_, r_);
      psi0_ = laplace(cosine, sine, nullptr);
      scale_ /= psi0_;
    } else {
      s2_ = Real(noise.parameter.num) / Real(noise.parameter.den);
      // Poisson terms with |m_i| <= M, or direct terms with |y_i| <= Y,
      // whichever are fewer: every dropped term is below e^-45 of the sum.
      direct_box_ = static_cast<int>(std::ceil(std::sqrt(2 * s2_ * 45))) + 1;
      box_ = 0;
      // Ends: stops once box_ passes direct_box_ (the direct sum is then used);
      // whichever sum is used, its box is at most 6 for every s2 and r <= 4.
      while (box_ <= direct_box_ &&
             s2_ * Real(kQuadraturePi * kQuadraturePi) *
                     ((2 * box_ + 1) * (2 * box_ + 1) / Real(4) - (r - 1) / Real(2)) <
                 45 + (r - 1) * std::log(Real(2 * box_ + 3)))
        ++box_;
      direct_ = direct_box_ < box_;
      const Real zero[kMaxLines] = {0};
      if (direct_)
        psi0_ = direct(zero, nullptr, true);
      else
        log_z0_ = poisson(zero, nullptr, true);
    }
  }

  // alpha: r - 1 angles (the last line's cell has angle 0), with their
  // cosines and sines. Returns log psi-hat and writes the gradient.
  Real evaluate(const Real* alpha, const Real* cosine, const Real* sine, Real* grad) const {
    if (noise_.kind == IntegerNoise::Kind::laplace) return std::log(laplace(cosine, sine, grad));
    return direct_ ? direct(alpha, grad, false) : poisson(alpha, grad, false);
  }

 private:
  // psi-hat (not its log) and its gradient.
  Real laplace(const Real* cosine, const Real* sine, Real* grad) const {
    C angles[kMaxLines];
    for (int k = 0; k < r_; ++k) angles[k] = k < r_ - 1 ? C{cosine[k], sine[k]} : C{1, 0};
    const LaplaceLinePoles<Real> line(a_, r_, angles);
    const C* u = line.u;
    const Real psi = scale_ * line.transform_difference();
    int nodes[kMaxNodes] = {}, factors[kMaxNodes] = {};
    for (int k = 0; k < r_; ++k) nodes[k] = factors[k] = k;
    if (grad != nullptr) {
      for (int i = 0; i < r_ - 1; ++i) {
        nodes[r_] = factors[r_] = i;
        const C q[3] = {C{-1, 0}, C{0, 0}, u[i] * u[i]};
        const C dd =
            divided_difference(line.x, nodes, r_ + 1, r_ - 1, q, 2, line.beta, factors, r_ + 1, line.inverse);
        // d psi / d alpha_i = i (1 - a^2)^r a / u_i dd, real: -Im(a dd / u_i), 1/u_i = conj(u_i)
        const C w = dd * C{u[i].re, -u[i].im};
        grad[i] = -scale_ * a_ * w.im;
      }
    }
    return psi;
  }

  // log of the Poisson sum sum_m exp(-s2 |P(alpha - 2 pi m)|^2 / 2) (m_r = 0),
  // less log_z0_, and the gradient of psi-hat.
  Real poisson(const Real* alpha, Real* grad, bool at_zero) const {
    const int d = r_ - 1;
    std::array<int, kMaxLines> m{};
    for (int i = 0; i < d; ++i) m[i] = -box_;
    // The m = 0 term's exponent, factored out.
    Real mean0 = 0, sq0 = 0;
    for (int i = 0; i < d; ++i) mean0 += alpha[i], sq0 += alpha[i] * alpha[i];
    const Real e0 = sq0 - mean0 * mean0 / r_;
    Real total = 0, g[kMaxLines] = {0};
    // Ends: an odometer over the (2 box_ + 1)^(r - 1) tuples, box_ <= 6, r <= 4.
    for (;;) {
      Real v[kMaxLines], mean = 0, sq = 0;  // v = alpha - 2 pi m
      for (int i = 0; i < d; ++i) {
        v[i] = alpha[i] - 2 * Real(kQuadraturePi) * m[i];
        mean += v[i];
        sq += v[i] * v[i];
      }
      const Real e = sq - mean * mean / r_;  // |P v|^2 (v_r = 0)
      const Real exponent = s2_ * (e - e0) / 2;
      if (exponent < 50) {  // else below e^-50 of the m = 0 term, itself at most the sum
        const Real w = std::exp(-exponent);
        total += w;
        for (int i = 0; i < d; ++i) g[i] += (v[i] - mean / r_) * w;
      }
      int k = 0;
      // Ends: k rises to at most d.
      while (k < d && ++m[k] > box_) m[k++] = -box_;
      if (k == d) break;
    }
    const Real log_psi = -s2_ * e0 / 2 + std::log(total) - log_z0_;
    if (!at_zero && grad != nullptr) {
      const Real psi = std::exp(log_psi);
      for (int i = 0; i < d; ++i) grad[i] = -s2_ * psi * g[i] / total;
    }
    return log_psi;
  }

  // The direct sum over zero-sum lines with |y_i| <= Y: psi-hat from
  // 1 - psi-hat = sum_y w(y) 2 sin^2(alpha.y / 2) / psi(0), without cancellation.
  Real direct(const Real* alpha, Real* grad, bool at_zero) const {
    const int d = r_ - 1, Y = direct_box_;
    std::array<int, kMaxLines> y{};
    for (int i = 0; i < d; ++i) y[i] = -Y;
    Real total = 0, deficit = 0, g[kMaxLines] = {0};
    // Ends: an odometer over the (2 Y + 1)^(r - 1) tuples, Y <= 6, r <= 4.
    for (;;) {
      Real sq = 0, sum = 0, phase = 0;
      for (int i = 0; i < d; ++i) sq += Real(y[i]) * y[i], sum += y[i], phase += alpha[i] * y[i];
      const Real w = std::exp(-(sq + sum * sum) / (2 * s2_));
      const Real s = std::sin(phase / 2);
      total += w;
      deficit += 2 * w * s * s;
      const Real sn = std::sin(phase);
      for (int i = 0; i < d; ++i) g[i] -= y[i] * w * sn;
      int k = 0;
      // Ends: k rises to at most d.
      while (k < d && ++y[k] > Y) y[k++] = -Y;
      if (k == d) break;
    }
    if (at_zero) return total;
    if (grad != nullptr)
      for (int i = 0; i < d; ++i) grad[i] = g[i] / psi0_;
    return std::log1p(-deficit / psi0_);
  }

  IntegerNoise noise_;
  int r_;
  Real a_ = 0, one_minus_a2_ = 0, psi0_ = 1, scale_ = 1;
  Real s2_ = 0, log_z0_ = 0;
  int box_ = 0, direct_box_ = 0;
  bool direct_ = false;
};

struct Sums {
  double den = 0, num = 0;  // sums over the nodes of psi^n and psi^(n-2) |grad psi|^2
  std::uint64_t visited = 0;
};

// What both trapezoids share: the angles 2 pi j / N of the integers
// j = first .. last (|j| <= N/2, so reduced exactly) with their cosines and
// sines, and the weighted sums their nodes add to.
template <class Real>
class NodeSums {
 public:
  NodeSums(IntegerNoise noise, int r, double n, std::int64_t N, std::int64_t first, std::int64_t last,
           const Interrupts& interrupts)
      : line_(noise, r), d_(r - 1), n_(n), first_(first) {
    const auto count = static_cast<std::size_t>(last - first + 1);
    angle_.resize(count), cosine_.resize(count), sine_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      interrupts.poll_every(i);
      angle_[i] = 2 * Real(kQuadraturePi) * (Real(first + static_cast<std::int64_t>(i)) / Real(N));
      cosine_[i] = std::cos(angle_[i]);
      sine_[i] = std::sin(angle_[i]);
    }
  }

  // The node of angles 2 pi j_i / N, i < r - 1, standing for `weight`
  // nodes; the numerator's term over the first r - 1 partials of psi, or
  // over all r (the last minus the sum of the others) when all_partials.
  void add(const std::int64_t* j, Real weight, bool all_partials) {
    Real alpha[kMaxLines] = {}, c[kMaxLines] = {}, s[kMaxLines] = {}, grad[kMaxLines] = {};
    for (int i = 0; i < d_; ++i) {
      const auto at = static_cast<std::size_t>(j[i] - first_);
      alpha[i] = angle_[at], c[i] = cosine_[at], s[i] = sine_[at];
    }
    const Real log_psi = line_.evaluate(alpha, c, s, grad);
    Real g2 = 0, sum = 0;
    for (int i = 0; i < d_; ++i) g2 += grad[i] * grad[i], sum += grad[i];
    if (all_partials) g2 += sum * sum;
    den_ += weight * std::exp(Real(n_) * log_psi);
    num_ += weight * std::exp(Real(n_ - 2) * log_psi) * g2;
    nodes_ += weight;
    ++visited_;
  }

  // The sums, the numerator's times num_factor.
  Sums sums(double num_factor) const { return {double(den_), double(num_) * num_factor, visited_}; }
  long double nodes() const { return nodes_; }

 private:
  const LineTransform<Real> line_;
  const int d_;
  const double n_;
  const std::int64_t first_;
  std::vector<Real> angle_, cosine_, sine_;
  long double den_ = 0, num_ = 0, nodes_ = 0;
  std::uint64_t visited_ = 0;
};

// The nodes of the box max |j_i| <= J in d dimensions, up to negation and
// permutations of the axes (which map the box to itself): each orbit is
// visited once, at its non-decreasing member that is not below its
// negation's sorted form, with its size.
template <class Visit>
void for_each_box_orbit(int d, std::int64_t J, const Interrupts& interrupts, Visit visit) {
  constexpr int kFactorial[kMaxLines + 1] = {1, 1, 2, 6, 24};
  std::array<std::int64_t, kMaxLines> j{}, minus{};
  for (int i = 0; i < d; ++i) j[i] = -J;
  std::uint64_t counted = 0;
  for (;;) {
    interrupts.poll_every(++counted);
    // -j sorted: j is non-decreasing, so its negation reversed.
    for (int i = 0; i < d; ++i) minus[i] = -j[d - 1 - i];
    int order = 0;  // j against its negation, lexicographically
    for (int i = 0; i < d && order == 0; ++i) order = j[i] < minus[i] ? -1 : j[i] > minus[i] ? 1 : 0;
    if (order >= 0) {
      int permutations = kFactorial[d];
      for (int i = 0, run = 1; i < d; ++i, ++run) {
        if (i + 1 == d || j[i + 1] != j[i]) {
          permutations /= kFactorial[run];
          run = 0;
        }
      }
      visit(j.data(), double(permutations) * (order == 0 ? 1 : 2));
    }
    int k = d - 1;  // the next non-decreasing tuple
    // Ends: k falls to at most -1.
    while (k >= 0 && j[k] == J) --k;
    if (k < 0) break;
    ++j[k];
    for (int i = k + 1; i < d; ++i) j[i] = j[k];
  }
}

// The trapezoid sums over the box max |j_i| <= J of a grid too large to sum
// whole (the whole grid is trapezoid_whole's). The integrands are symmetric
// under alpha -> -alpha (the law is) and under permuting alpha_1 ..
// alpha_d (the cells of a line are exchangeable; the last one keeps angle
// 0): the box's orbits (for_each_box_orbit).
template <class Real>
Sums scale_trapezoid(IntegerNoise noise, int r, double n, const QuadratureGrid& g, const Interrupts& interrupts) {
  const auto J = static_cast<std::int64_t>(g.J);
  NodeSums<Real> nodes(noise, r, n, static_cast<std::int64_t>(g.N), -J, J, interrupts);
  for_each_box_orbit(r - 1, J, interrupts,
                     [&nodes](const std::int64_t* j, double weight) { nodes.add(j, Real(weight), false); });
  return nodes.sums(1);
}

// The orbits of r points on the circle Z_N, one at 0, under rotation and
// reflection, each visited once with the number of grid nodes it holds. An
// orbit is read as its r gaps (g_0 .. g_(r-1), summing to N) up to cyclic
// shifts and reversal: it is visited at the one gap sequence that is
// lexicographically least among those 2r, its node being (p_1 .. p_(r-1))
// = the partial sums of the gaps, centred (the last point 0 at the
// origin). The orbit holds r! / prod(m!) / s nodes (m the multiplicities of
// the points, s the rotations of the circle that fix them), twice as many
// when the reflection is another orbit of rotations.
template <class Visit>
void for_each_orbit(int r, std::int64_t N, const Interrupts& interrupts, Visit visit) {
  const int d = r - 1;
  // Point p of Z_N at its centred integer, in (-N/2, N/2].
  const auto centred = [N](std::int64_t p) { return 2 * p <= N ? p : p - N; };
  constexpr int kFactorial[kMaxLines + 1] = {1, 1, 2, 6, 24};
  // -1, 0, 1 as gap sequence a is below, equal to or above b.
  const auto compare = [r](const std::int64_t* a, const std::int64_t* b) {
    for (int k = 0; k < r; ++k)
      if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
  };
  std::uint64_t counted = 0;
  std::array<std::int64_t, kMaxLines> gap{}, image{};
  // The least gap first: g_0 <= every other gap, so g_0 <= N / r.
  for (std::int64_t g0 = 0; g0 * r <= N; ++g0) {
    // An odometer over g_1 .. g_(d-1) >= g_0 with g_(r-1) = N - the rest >= g_0.
    gap[0] = g0;
    for (int k = 1; k < d; ++k) gap[k] = g0;
    for (;;) {
      interrupts.poll_every(++counted);
      std::int64_t used = 0;
      for (int k = 0; k < d; ++k) used += gap[k];
      if (N - used >= g0) {
        gap[d] = N - used;
        // Least among the 2r readings; s: the rotations that give gap itself,
        // told apart by the shift of the circle they make.
        bool least = true, reflected_is_rotation = false;
        int fixing = 0;
        std::int64_t shift = 0, last_fixing_shift = -1;
        for (int k = 0; k < r && least; ++k) {
          for (int i = 0; i < r; ++i) image[i] = gap[(k + i) % r];
          const int rotated = compare(image.data(), gap.data());
          if (rotated < 0) least = false;
          if (rotated == 0 && shift != last_fixing_shift) ++fixing, last_fixing_shift = shift;
          for (int i = 0; i < r; ++i) image[i] = gap[((k - i) % r + r) % r];
          const int reversed = compare(image.data(), gap.data());
          if (reversed < 0) least = false;
          if (reversed == 0) reflected_is_rotation = true;
          shift = (shift + gap[k]) % N;
        }
        if (least) {
          // The points 0 = p_0 <= p_1 <= ... <= p_d and their multiplicities.
          std::int64_t point[kMaxLines];
          point[0] = 0;
          for (int k = 1; k < r; ++k) point[k] = point[k - 1] + gap[k - 1];
          int permutations = kFactorial[r];
          for (int k = 0, run = 1; k < r; ++k, ++run)
            if (k + 1 == r || point[k + 1] != point[k]) {
              permutations /= kFactorial[run];
              run = 0;
            }
          std::int64_t j[kMaxLines] = {};
          for (int i = 0; i < d; ++i) j[i] = centred(point[i + 1]);
          visit(j, double(permutations) / double(fixing) * (reflected_is_rotation ? 1 : 2));
        }
      }
      if (d < 2) break;
      int k = d - 1;  // the next g_1 .. g_(d-1)
      // Ends: each pass raises one gap; a gap past what is left resets and
      // carries, and k falls to 0 after at most d - 1 carries.
      for (;;) {
        ++gap[k];
        std::int64_t total = 0;
        for (int i = 0; i < d; ++i) total += gap[i];
        if (N - total >= g0) break;
        gap[k] = g0;
        if (--k == 0) break;
      }
      if (k == 0) break;
    }
  }
}

// The whole grid (short tables, where few nodes are negligible), by the
// orbits of the line's full symmetry. psi depends on the r angles
// (alpha_1 .. alpha_(r-1), 0) only through their multiset modulo a common
// shift (the cells of a zero-sum line are exchangeable, and adding t to
// every angle multiplies e^(i alpha.Y) by e^(i t sum Y) = 1) and up to their
// common negation; these maps permute the grid's nodes, so the trapezoid sum
// of psi^n is a sum over the orbits of r points (for_each_orbit), each
// counted by the nodes it holds. The numerator's |grad psi|^2 over the
// first r - 1 angles is not symmetric, but the full gradient's r partials
// (the last minus the sum of the others) are permuted by these maps, so
// each has the same sum of psi^(n-2) (d_k psi)^2 over the grid and the
// first r - 1 hold (r - 1)/r of the symmetric sum over all r. This visits
// about N^(r-1) / (2 r!) nodes where the box's symmetries alone leave
// N^(r-1) / (2 (r-1)!).
template <class Real>
Sums trapezoid_whole(IntegerNoise noise, int r, double n, std::uint64_t grid, const Interrupts& interrupts) {
  const int d = r - 1;
  const auto N = static_cast<std::int64_t>(grid);
  NodeSums<Real> nodes(noise, r, n, N, -(N - 1) / 2, N / 2, interrupts);
  for_each_orbit(r, N, interrupts,
                 [&nodes](const std::int64_t* j, double weight) { nodes.add(j, Real(weight), true); });
  // Every node of the grid is in exactly one orbit.
  if (nodes.nodes() != std::pow(static_cast<long double>(N), d))
    throw std::logic_error("table_covariance_scale: the orbits do not cover the grid");
  return nodes.sums(double(d) / double(r));
}

// Tables of up to this many lines may take the residues: a node costs some
// n^2 operations, and its double arithmetic loses digits as n grows.
constexpr std::size_t kResidueLines = 32;

// The rounding the residues may have at targets below it: with the
// quadrature's 1e-10, still below the 1e-9 the scale's readers call exact
// (the whole grid's 64-bit rounding is some 1e-13 on short tables).
constexpr double kResidueRoundingForExact = 5e-10;

// A residue node's work in 80-bit arithmetic, in units of its work in double.
constexpr double kWideResidueWork = 7;

// A residue node's work in points of the other grids (some 0.55
// microseconds each): about 1 + 1.2 n + 0.09 n^2 microseconds on four-cell
// lines, in proportion to the operations on three-cell ones.
double residue_node_points(int r, double n) {
  const int lines = static_cast<int>(n);
  return (1 + 1.2 * n + 0.09 * n * n) / 0.55 * LineResidues<double>::operations(r, lines) /
         LineResidues<double>::operations(4, lines);
}

// Tables of three or four lines across under the l1 law with the last free
// angle integrated by residues (line_residues.hpp): the trapezoid over the
// other angles of the node sums den and second (`num` holds the sum of
// second). After that angle is integrated, a node depends on the other
// cells' angles (alpha_1 [, alpha_2], 0) only through their multiset modulo
// a common shift (the shift moves the integrated angle too, which runs
// over the whole circle) and up to negation. Four cells: over the whole
// grid by the orbits of three points (for_each_orbit), or over the box
// max |j_i| <= J by its own (for_each_box_orbit). Three cells: the whole
// circle of alpha_1 or the box |j| <= J, whose orbits are {j, -j}.
template <class Real>
Sums residue_trapezoid(Rational b, int r, int n, const QuadratureGrid& g, const Interrupts& interrupts) {
  const auto N = static_cast<std::int64_t>(g.N), J = static_cast<std::int64_t>(g.J);
  const std::int64_t first = g.whole ? -(N - 1) / 2 : -J, last = g.whole ? N / 2 : J;
  const auto count = static_cast<std::size_t>(last - first + 1);
  std::vector<Real> cosine(count), sine(count);
  for (std::size_t i = 0; i < count; ++i) {
    interrupts.poll_every(i);
    const long double angle = 2 * kQuadraturePi * ((long double)(first + std::int64_t(i)) / (long double)N);
    cosine[i] = Real(std::cos(angle));
    sine[i] = Real(std::sin(angle));
  }
  LineResidues<Real> node(b, r, n);
  const auto cost = static_cast<std::uint64_t>(LineResidues<Real>::operations(r, n));
  long double den = 0, second = 0, nodes = 0;
  std::uint64_t visited = 0;
  const auto visit = [&](const std::int64_t* j, double weight) {
    interrupts.poll_scaled(visited, cost);
    const auto i1 = static_cast<std::size_t>(j[0] - first), i2 = static_cast<std::size_t>(j[r == 4 ? 1 : 0] - first);
    const ResidueNode value = node.evaluate(cosine[i1], sine[i1], cosine[i2], sine[i2]);
    den += weight * value.den;
    second += weight * value.second;
    nodes += weight;
    ++visited;
  };
  if (!g.whole) {
    for_each_box_orbit(r - 2, J, interrupts, visit);
  } else if (r == 3) {
    // Ends: j rises to N / 2.
    for (std::int64_t j = 0; j <= N / 2; ++j) visit(&j, j == 0 || 2 * j == N ? 1 : 2);
  } else {
    for_each_orbit(3, N, interrupts, visit);
  }
  const long double side = g.whole ? (long double)N : (long double)(2 * J + 1);
  if (nodes != (r == 3 ? side : side * side))
    throw std::logic_error("table_covariance_scale: the orbits do not cover the residue grid");
  return {double(den), double(second), visited};
}

// The rounding of residue_trapezoid's double arithmetic, before the sums':
// the node at 0 (the largest) and two at the scale b of the law's mass, each
// evaluated again in 80-bit arithmetic; ten times the largest difference,
// relative to the node at 0 (the sums are of that order, times the nodes
// near 0). The 80-bit arithmetic's: the same times the ratio of the two
// units, 2^-11. The sums' own rounding adds 4 visited 2^-64.
double residue_node_rounding(Rational b, int r, int n, std::uint64_t grid) {
  LineResidues<double> coarse(b, r, n);
  LineResidues<long double> fine(b, r, n);
  const double inv_b = double(b.den) / double(b.num);
  const long double step = 2 * kQuadraturePi / (long double)grid;
  const long double away =
      step * std::max<long double>(1, std::round(std::min<long double>(2 * inv_b / step, (long double)grid / 4)));
  const ResidueNode origin = fine.evaluate(1, 0, 1, 0);
  double worst = 0;
  for (const auto& [x, y] : {std::pair<long double, long double>{0, 0}, {away, 0}, {away, 2 * away}}) {
    const ResidueNode c =
        coarse.evaluate(double(std::cos(x)), double(std::sin(x)), double(std::cos(y)), double(std::sin(y)));
    const ResidueNode f = fine.evaluate(std::cos(x), std::sin(x), std::cos(y), std::sin(y));
    const double difference = std::max(double(std::fabs((c.den - f.den) / origin.den)),
                                       double(std::fabs((c.second - f.second) / origin.second)));
    // A difference that is not a number (an arithmetic that failed) is infinite.
    worst = std::isnan(difference) ? HUGE_VAL : std::max(worst, difference);
  }
  return 10 * worst;
}

// One attempt of the computation: the points estimated before it (checked
// against the limit) and the points it visited.
struct Attempt {
  double estimated = 0, visited = 0;
};

// Refuses, before evaluating, an attempt of `estimated` points past the
// limit less what the earlier attempts spent.
void check_points(double estimated, double spent, double max_points) {
  if (estimated > std::min(max_points, kMaxScalePoints) - spent)
    throw TooLarge("the table's covariance scale needs too many quadrature points",
                   "It would evaluate " + format_double(estimated + spent) + " points.",
                   "Its release publishes a Monte Carlo estimate of the scale instead.");
}

// The last scales computed, kept for the process (table_covariance_scale.hpp).
struct ScaleKey {
  IntegerNoise::Kind kind;
  std::uint64_t num = 0, den = 0;
  std::size_t lines = 0, length = 0;  // the shorter side, the longer
  double target = 0;
  ScaleQuadrature quadrature = ScaleQuadrature::fewest_points;
  bool operator==(const ScaleKey& o) const {
    return kind == o.kind && num == o.num && den == o.den && lines == o.lines && length == o.length &&
           target == o.target && quadrature == o.quadrature;
  }
};
struct KeptScale {
  ScaleKey key;
  TableScale scale;
  std::vector<Attempt> attempts;
};
KeptList<KeptScale, 64> kept_scales;

// The computation; `attempts` receives each attempt's estimated and visited
// points, which replay() checks again when the result is kept.
TableScale compute_scale(IntegerNoise noise, std::size_t rows, std::size_t cols, const Interrupts& interrupts,
                         double max_points, double target_error, ScaleQuadrature quadrature,
                         std::vector<Attempt>& attempts) {
  const std::size_t short_side = std::min(rows, cols), long_side = std::max(rows, cols);
  const int r = static_cast<int>(short_side), d = r - 1;
  const double n = double(long_side);
  const NoiseTransform law(noise);
  const double var1 = law.variance();
  // The aliasing terms (Chernoff): the denominator's, at S in N Z^d \ {0},
  // sum to at most P(max_i |S_i| >= N) for the partial line sums S_i; the
  // numerator's, -E[Y_1i Y_2i 1{S = x}], to at most
  // sum_i E[|Y_1i Y_2i| 1{|S_i| >= N}] (product_tail_bound; a cell of a
  // zero-sum line is dominated by the unconditioned cell).
  const std::vector<WeightedCells> plain{{1, long_side}};
  // For the l1 law, also by the lines' l1 mass L (zero_sum_line_mass.hpp):
  // S in N Z^d \ {0} needs L >= 2 N, and |Y_1i Y_2i| summed over i is at
  // most L_1 L_2; whichever bound is smaller.
  std::optional<LinesAliasing> aliasing;
  if (noise.kind == IntegerNoise::Kind::laplace) aliasing.emplace(noise.parameter, r, long_side, interrupts);
  TableScale out;
  const double first = target_error * lines_sum_at_zero(var1, r, n);
  // The numerator's aliasing against the numerator, about P(S = 0) times
  // c d^2 / (r n) (the ratio the scale is read from, below), c taken at a
  // quarter of var1 (every law here has c above that: 0.49 var1 on 4 x 4 l1
  // tables, about var1 for the Gaussian; an estimate too high only sends
  // the loop to its finer grid): sized against P(S = 0) alone, the grid
  // met its target 30 to over 1000 times over, on some 16 % more points.
  const double num_scale = var1 * d * d / (4.0 * r * n);
  // Three- and four-line l1 tables may integrate their last free angle by
  // residues (below), and bound their box by the mean powers of the pair
  // majorant over that angle: I_n and I_(n-1) on four-line tables, I_1 on
  // three-line ones.
  const bool residues = aliasing && r >= 3 && long_side <= kResidueLines && quadrature != ScaleQuadrature::all_angles;
  const double mean_power[2] = {residues ? law.pair_majorant_mean_power(r == 4 ? int(long_side) : 1) : 1,
                                residues ? law.pair_majorant_mean_power(r == 4 ? int(long_side) - 1 : 1) : 1};
  for (const double target : {first, first * kAliasRetry, target_error * kAliasLast}) {
    const std::int64_t x =
        aliasing ? std::max(aliasing->point(target), aliasing->product_point(target * num_scale))
                 : std::max(law.tail_point(plain, target), law.product_tail_point(long_side, target * num_scale));
    // One node of each orbit of the signs and the permutations of the d axes
    // in the box.
    const double factorial[kMaxLines] = {1, 1, 2, 6};
    QuadratureGrid g = quadrature_grid(law, d, n, n - 2, d * var1, var1 / n, x, 2 * factorial[d], interrupts);
    // The whole grid by orbits of all r angles (trapezoid_whole), wherever
    // that visits fewer nodes than the box: nothing is then omitted.
    const double orbit_points = std::pow(double(g.N), d) / (2 * factorial[d] * r);
    const bool by_orbits = orbit_points <= g.points;
    if (by_orbits) {
      g.points = orbit_points;
      g.omitted_den = g.omitted_num = 0;
    }
    // Three- and four-line l1 tables: the last free angle (cell r - 1's) by
    // residues (residue_trapezoid), wherever that costs less work, in points
    // of the grids above, and its double arithmetic rounds within the
    // target. The numerator's aliasing, E[Y_1,r-1^2 1{S = x}] over x in
    // N Z^(r-2) x {0} \ {0}, is n - 1 times -E[Y_1,r-1 Y_2,r-1 1{S = x}]
    // (the lines are exchangeable given S = x, and their cells r - 1 sum to
    // 0 exactly): within n - 1 times the bound above.
    if (residues) {
      const std::int64_t xr = std::max(aliasing->point(target), aliasing->product_point(target * var1 / (16.0 * n)));
      const double side = double(xr + 1), nodes_all = std::pow(side, r - 2);
      // The box (four lines): at a node with max |j_i| = s, i the larger
      // angle's cell, a line conditioned on Y_i + Y_4 (so Y_j + Y_3 =
      // -(Y_i + Y_4), j the other cell) splits both pairs independently, so
      // |psi| <= M_s M(alpha_j - alpha_3) (pair majorants): den is at most
      // M_s^n I_n, I_k the mean of M^k over alpha_3
      // (NoiseTransform::pair_majorant_mean_power; some 1/(3b) at n = 4,
      // where the maximum over alpha_3 is 1). In the
      // weighted line of the second moment the split of (j, 3) moves Y_3,
      // so that line gives E[Y_3^2] M_s <= var1 M_s: |second| is at most
      // var1 M_s^n I_(n-1). The shells past J are left out where their sum
      // is below a quarter of the target against P(S = 0) and, for the
      // numerator, against P(S = 0) Var Z_31, Var Z_31 taken at var1 (3/16)
      // (1 - 1/n) (c at a quarter of var1, as above).
      // Three-line tables: the node at alpha_1 = 2 pi s / N integrates
      // alpha_2. Conditioned on Y_2 (on Y_1), a line's pair (1, 3) (its pair
      // (2, 3)) has a fixed sum, so |psi| <= min(M_s, M(alpha_2)) <=
      // M_s^(n-1) M(alpha_2) over n lines: the node's mass is at most
      // M_s^(n-1) I_1. The weighted line, conditioned on its Y_2, is within
      // var1 M_s, the others within M_s^(n-2) M(alpha_2): the second moment
      // within var1 M_s^(n-1) I_1; against P(S = 0) Var Z_12, Var Z_12 taken
      // at var1 (1/6)(1 - 1/n). The box's nodes are {j, -j}.
      const double share = std::max(target / 4 * nodes_all, 1e-300);
      QuadratureGrid residue_grid =
          r == 4 ? quadrature_grid(law, 2, n, n, var1 * mean_power[1], var1 * 3 / 16 * (1 - 1 / n), xr, 4, interrupts,
                                   share, mean_power[0])
                 : quadrature_grid(law, 1, n - 1, n - 1, var1 * mean_power[1], var1 / 6 * (1 - 1 / n), xr, 2,
                                   interrupts, share, mean_power[0]);
      residue_grid.N = static_cast<std::uint64_t>(side);
      const double whole_points = r == 4 ? side * side / 12 : side / 2;
      if (residue_grid.whole || whole_points <= residue_grid.points) {
        residue_grid.whole = true;
        residue_grid.points = whole_points;
        residue_grid.omitted_den = residue_grid.omitted_num = 0;
      }
      // Double arithmetic where it rounds within the target, else 80-bit
      // (some seven times the work a node), else not the residues.
      const int lines = static_cast<int>(long_side);
      const double allowed = std::max(target_error, kResidueRoundingForExact);
      const double node_rounding = residue_node_rounding(noise.parameter, r, lines, residue_grid.N);
      const auto rounding = [&](bool in_80_bits, double visited) {
        return node_rounding * (in_80_bits ? 0x1p-11 : 1) + 4 * visited * 0x1p-64;
      };
      const bool wide = rounding(false, residue_grid.points) > allowed;
      const double node_points = residue_node_points(r, n) * (wide ? kWideResidueWork : 1);
      const double residue_points = residue_grid.points * node_points;
      if ((residue_points < g.points || quadrature == ScaleQuadrature::last_angle_by_residues) &&
          rounding(wide, residue_grid.points) <= allowed) {
        check_points(residue_points, double(out.points), max_points);
        const Sums sums = wide ? residue_trapezoid<long double>(noise.parameter, r, lines, residue_grid, interrupts)
                               : residue_trapezoid<double>(noise.parameter, r, lines, residue_grid, interrupts);
        const double spent = double(sums.visited) * node_points;
        out.points += static_cast<std::uint64_t>(spent);
        attempts.push_back({residue_points, spent});
        // Var Z = E[Y_1,r-1^2; S = 0] / P(S = 0); c = Var r n / ((r - 1)(n - 1)).
        out.scale = double(r) * n / (double(d) * (n - 1)) * (sums.num / sums.den);
        out.cell_variance = out.scale * (1 - 1.0 / double(rows)) * (1 - 1.0 / double(cols));
        const double den_n = sums.den / nodes_all, num_n = sums.num / nodes_all;
        out.quadrature_error = next_up((aliasing->bound(side) + residue_grid.omitted_den) / den_n +
                                       ((n - 1) * aliasing->product_bound(side) + residue_grid.omitted_num) / num_n) *
                               1.01;
        out.rounding_error = rounding(wide, double(sums.visited));
        if (out.quadrature_error <= target_error) break;
        continue;
      }
    }
    if (quadrature == ScaleQuadrature::last_angle_by_residues)
      throw InvalidArgument(
          "the residues are taken on tables of three or four lines of at most 32 cells under the l1 law",
          "Or their arithmetic rounds past the target.");
    check_points(g.points, double(out.points), max_points);
    const bool wide = n > kDoubleLines;
    const Sums sums = by_orbits ? (wide ? trapezoid_whole<long double>(noise, r, n, g.N, interrupts)
                                        : trapezoid_whole<double>(noise, r, n, g.N, interrupts))
                                : (wide ? scale_trapezoid<long double>(noise, r, n, g, interrupts)
                                        : scale_trapezoid<double>(noise, r, n, g, interrupts));
    out.points += sums.visited;
    attempts.push_back({g.points, double(sums.visited)});
    const double ratio = sums.num / sums.den;
    out.scale = double(r) * n / (double(d) * double(d)) * ratio;
    out.cell_variance = out.scale * (1 - 1.0 / double(rows)) * (1 - 1.0 / double(cols));
    // Relative errors, in units where both sums are divided by N^d.
    const double all = std::pow(double(g.N), d);
    const double den_n = sums.den / all, num_n = sums.num / all;
    const double alias = aliasing ? aliasing->bound(double(g.N)) : law.tail_bound(plain, double(g.N)) * d;
    const double alias_num =
        aliasing ? aliasing->product_bound(double(g.N)) : law.product_tail_bound(long_side, double(g.N)) * d;
    out.quadrature_error = next_up((alias + g.omitted_den) / den_n + (alias_num + g.omitted_num) / num_n) * 1.01;
    // log psi within some 100 units of its arithmetic (the divided
    // differences, or the Poisson sums), times n in psi^n; the 80-bit sums
    // within their length.
    const double unit = wide ? 0x1p-64 : 0x1p-53;
    out.rounding_error = 100 * n * unit + 4 * double(sums.visited) * 0x1p-64;
    if (out.quadrature_error <= target_error) break;
  }
  // Far from calibrated scales (b below about 1/50) the sums reach the
  // smallest doubles and the bound says so: refused rather than published.
  if (!(out.quadrature_error <= std::max(1e-9, target_error)) || !(out.scale > 0))
    throw OutOfRange("the table's covariance scale could not be computed to its stated accuracy",
                     "The quadrature's error bound is " + format_double(out.quadrature_error) + ".");
  return out;
}

}  // namespace

TableScale table_covariance_scale(IntegerNoise noise, std::size_t rows, std::size_t cols, const Interrupts& interrupts,
                                  double max_points, double target_error, ScaleQuadrature quadrature) {
  if (!(target_error >= 1e-15 && target_error <= kCertifiedScaleError))
    throw InvalidArgument("the covariance scale's target error must be between 1e-15 and 1e-3");
  const std::size_t short_side = std::min(rows, cols), long_side = std::max(rows, cols);
  if (short_side < 2)
    throw InvalidArgument("a table with a line of one level is pinned: its noise has no covariance scale");
  if (short_side > std::size_t(kMaxLines))
    throw InvalidArgument("the covariance scale is computed for tables whose shorter side has at most 4 levels");
  if (long_side > (std::size_t(1) << 40)) throw TooLarge("the table is too long for its covariance scale");
  const ScaleKey key{noise.kind, noise.parameter.num, noise.parameter.den, short_side,
                     long_side,  target_error,        quadrature};
  const auto same = [&key](const KeptScale& kept) { return kept.key == key; };
  if (const std::optional<KeptScale> kept = kept_scales.find(same)) {
    // The same checks the computation made, so that keeping changes only
    // the time: a limit it would have refused refuses here too.
    double spent = 0;
    for (const Attempt& attempt : kept->attempts) {
      check_points(attempt.estimated, spent, max_points);
      spent += attempt.visited;
    }
    return kept->scale;
  }
  std::vector<Attempt> attempts;
  const TableScale scale = compute_scale(noise, rows, cols, interrupts, max_points, target_error, quadrature, attempts);
  kept_scales.keep({key, scale, std::move(attempts)}, same);
  return scale;
}

TableScale release_table_scale(IntegerNoise noise, std::size_t rows, std::size_t cols, const Interrupts& interrupts,
                               double max_points) {
  try {
    return table_covariance_scale(noise, rows, cols, interrupts, max_points, kPublishedScaleError);
  } catch (const TooLarge&) {
    return table_covariance_scale(noise, rows, cols, interrupts, max_points, kCertifiedScaleError);
  }
}

void forget_kept_table_scales() { kept_scales.clear(); }

}  // namespace invariant_dp::accuracy
