// One cell's law of a complete two-way integer_laplace table
// (laplace_table_cell.hpp; DERIVATIONS.md, section 15).
#include "laplace_table_cell.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include "../errors.hpp"
#include "../kept_list.hpp"
#include "../samplers/interval.hpp"
#include "laplace_cell_line.hpp"
#include "laplace_table_sparse_sum.hpp"
#include "line_power_coefficients.hpp"
#include "table_quadrature.hpp"
#include "tail_quantiles.hpp"
#include "zero_sum_line_mass.hpp"

namespace invariant_dp::accuracy {
namespace {

// The aliasing bounds tried, before their factors: the smaller first, the
// larger when the coverage's error bound is not below kTargetError.
constexpr double kAliasFirst = 1e-14, kAliasSecond = 1e-30;
constexpr double kTargetError = 1e-9, kRefusedError = 1e-7;
struct CellSums {
  long double den = 0;                   // sum of psi^n
  std::vector<long double> mass;         // sum of psi^(n-1) Re h(s), per s
  std::uint64_t visited = 0;
};

// The trapezoid sums over the grid's box, one node per orbit (LineOrbits).
template <class Real>
CellSums cell_trapezoid(Rational b, int r, double n, std::int64_t T, const QuadratureGrid& g,
                        const Interrupts& interrupts) {
  using C = Cx<Real>;
  const int d = r - 1;
  const LaplaceCellLine<Real> line(b, r, T);
  const auto N = static_cast<std::int64_t>(g.N);
  const std::int64_t first = g.whole ? -(N - 1) / 2 : -static_cast<std::int64_t>(g.J);
  const std::int64_t last = g.whole ? N / 2 : static_cast<std::int64_t>(g.J);
  const auto count = static_cast<std::size_t>(last - first + 1);
  std::vector<Real> cosine(count), sine(count);
  for (std::size_t i = 0; i < count; ++i) {
    interrupts.poll_every(i);
    const Real angle = 2 * Real(kQuadraturePi) * (Real(first + static_cast<std::int64_t>(i)) / Real(N));
    cosine[i] = std::cos(angle);
    sine[i] = std::sin(angle);
  }
  const LineOrbits orbits(r, N, first, first_cell_symmetries(r));
  std::vector<C> h(static_cast<std::size_t>(T) + 1);
  CellSums out;
  out.mass.assign(static_cast<std::size_t>(T) + 1, 0);
  const Real zero_c[kMaxLines] = {1, 1, 1, 1}, zero_s[kMaxLines] = {0, 0, 0, 0};
  const Real psi0 = line.evaluate(zero_c, zero_s, h.data());
  std::array<std::int64_t, kMaxLines> j{};
  for (int i = 0; i < d; ++i) j[i] = first;
  std::uint64_t counted = 0;
  for (;;) {
    interrupts.poll_scaled(++counted, static_cast<std::uint64_t>(T) + 1);
    if (const int weight = g.whole ? orbits.whole_weight(j) : orbits.first_cell_box_weight(j)) {
      ++out.visited;
      Real c[kMaxLines], s[kMaxLines];
      for (int i = 0; i < d; ++i) {
        const auto at = static_cast<std::size_t>(j[i] - first);
        c[i] = cosine[at], s[i] = sine[at];
      }
      const Real psi = line.evaluate(c, s, h.data()) / psi0;
      const Real log_psi = std::log(psi);
      out.den += Real(weight) * std::exp(Real(n) * log_psi);
      const Real w = Real(weight) * std::exp(Real(n - 1) * log_psi) / psi0;
      for (std::size_t k = 0; k < h.size(); ++k) out.mass[k] += w * h[k].re;
    }
    // The next tuple (in a box, with j[1] <= j[2] for four lines).
    int k = d - 1;
    // Ends: k falls to at most -1.
    while (k >= 0 && j[k] == last) --k;
    if (k < 0) break;
    ++j[k];
    for (int i = k + 1; i < d; ++i) j[i] = (!g.whole && d == 3 && i == 2) ? j[1] : first;
  }
  return out;
}

// The asked cell's angle by residues (DERIVATIONS.md, section 15): take
// the cell asked to be cell r - 1 of line 1, whose angle z the node
// integrates in closed form. At the other angles u, line 1 given Y = s
// contributes phi_s z^s, phi_s = [z^s] Phi (the asked cell's law at the
// node with its own angle 0: LaplaceCellLine), and the other n - 1 lines
// Phi^(n-1): the node's P(Y = s, S = 0) is phi_s [z^-s] Phi^(n-1), and its
// P(S = 0) is [z^0] Phi^n (LinePowerCoefficients). The nodes left are the
// r - 2 angles of the other cells but the last, on the whole torus: a node
// depends on the angles of those r - 1 cells (the last one's 0) up to a
// common shift (which moves z too, integrated over the whole circle) and a
// sign, so each orbit of all their permutations is visited once.
constexpr int kResidueLines = 12;  // tables whose long side has at most this many lines
// A node's operations (LinePowerCoefficients::operations) per work unit of
// the cell's (a node of the grid over all angles, about 3.3e-8 s): some 80
// (6 microseconds a node of a 4 x 4 table at T = 8, 10 of a 4 x 6 at
// T = 16); in 80-bit arithmetic some six times the work.
constexpr double kResidueOperationsPerWork = 80, kWideResidueCellWork = 6;

// The nodes of the residue grid (N^(r-2) over the orbits' number of nodes).
double residue_cell_nodes(int r, std::uint64_t N) { return r == 4 ? double(N) * double(N) / 12 : double(N) / 2; }

// One node's sums: den += weight [z^0] Phi^n, mass[s] += weight Re(phi_s [z^-s] Phi^(n-1)).
template <class Real>
struct ResidueCellNode {
  ResidueCellNode(Rational b, int r, int n, std::int64_t T)
      : r_(r), n_(n), T_(T), powers_(b, r, n), line_(b, r, T), c_(std::size_t(T) + 1), h_(std::size_t(T) + 1) {
    const Cx<Real> zero[kMaxLines] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}};
    psi0_ = line_.evaluate(zero, h_.data());
  }
  // At the other cells' angles u (the last one 1).
  void add(const Cx<Real>* u, Real weight, long double& den, std::vector<long double>& mass) {
    Cx<Real> c0[1];
    powers_.coefficients(u, n_, 0, c0);
    den += weight * c0[0].re;
    powers_.coefficients(u, n_ - 1, T_, c_.data());
    const Cx<Real> angles[kMaxLines] = {{1, 0}, u[0], r_ == 4 ? u[1] : Cx<Real>{1, 0}, {1, 0}};
    line_.evaluate(angles, h_.data());
    for (std::size_t s = 0; s < h_.size(); ++s) mass[s] += weight * (h_[s] * c_[s]).re / psi0_;
  }
  int r_, n_;
  std::int64_t T_;
  LinePowerCoefficients<Real> powers_;
  LaplaceCellLine<Real> line_;
  std::vector<Cx<Real>> c_, h_;
  Real psi0_ = 1;
};

// node_work: a node's work units, for the polls' stride.
template <class Real>
CellSums residue_cell_trapezoid(Rational b, int r, int n, std::int64_t T, std::uint64_t grid, double node_work,
                                const Interrupts& interrupts) {
  ResidueCellNode<Real> node(b, r, n, T);
  const auto N = static_cast<std::int64_t>(grid);
  const std::int64_t first = -(N - 1) / 2, last = N / 2;
  const LineOrbits orbits(r - 1, N, first, cell_permutations(r - 1, 0));
  CellSums out;
  out.mass.assign(static_cast<std::size_t>(T) + 1, 0);
  std::array<std::int64_t, kMaxLines> j{};
  const int d = r - 2;
  for (int i = 0; i < d; ++i) j[i] = first;
  const auto angle = [N](std::int64_t k) {
    const Real t = 2 * Real(kQuadraturePi) * (Real(k) / Real(N));
    return Cx<Real>{std::cos(t), std::sin(t)};
  };
  std::uint64_t counted = 0;
  for (;;) {
    interrupts.poll_scaled(++counted, static_cast<std::uint64_t>(node_work) + 1);
    if (const int weight = orbits.whole_weight(j)) {
      ++out.visited;
      Cx<Real> u[kMaxLines] = {angle(j[0]), d == 2 ? angle(j[1]) : Cx<Real>{1, 0}, {1, 0}};
      node.add(u, Real(weight), out.den, out.mass);
    }
    int k = d - 1;
    // Ends: k falls to at most -1.
    while (k >= 0 && j[k] == last) --k;
    if (k < 0) break;
    ++j[k];
    for (int i = k + 1; i < d; ++i) j[i] = first;
  }
  return out;
}

// The rounding of residue_cell_trapezoid's double arithmetic: at the node
// 0 and two at the law's scale (angles about 2/b), the coverage's
// numerators and the denominator in double against 80-bit arithmetic,
// relative to the node 0's; ten times the largest difference. The 80-bit
// arithmetic's: the same times 2^-11.
double residue_cell_rounding(Rational b, int r, int n, std::int64_t T, std::uint64_t grid) {
  ResidueCellNode<double> coarse(b, r, n, T);
  ResidueCellNode<long double> fine(b, r, n, T);
  const long double step = 2 * kQuadraturePi / (long double)grid;
  const long double inv_b = (long double)b.den / (long double)b.num;
  const long double away =
      step * std::max<long double>(1, std::round(std::min<long double>(2 * inv_b / step, (long double)grid / 4)));
  long double den0 = 0;
  std::vector<long double> mass0(std::size_t(T) + 1, 0);
  const Cx<long double> zero[kMaxLines] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}};
  fine.add(zero, 1, den0, mass0);
  double worst = 0;
  for (auto [x, y] : {std::pair<long double, long double>{0, 0}, {away, 0}, {away, 2 * away}}) {
    if (r == 3) y = 0;  // three cells: the other cells' last angle is 0
    long double den_c = 0, den_f = 0;
    std::vector<long double> mass_c(mass0.size(), 0), mass_f(mass0.size(), 0);
    const Cx<double> uc[kMaxLines] = {
        {double(std::cos(x)), double(std::sin(x))}, {double(std::cos(y)), double(std::sin(y))}, {1, 0}};
    const Cx<long double> uf[kMaxLines] = {{std::cos(x), std::sin(x)}, {std::cos(y), std::sin(y)}, {1, 0}};
    coarse.add(uc, 1, den_c, mass_c);
    fine.add(uf, 1, den_f, mass_f);
    double difference = double(std::fabs((den_c - den_f) / den0));
    long double sum_c = 0, sum_f = 0;
    for (std::size_t s = 0; s < mass0.size(); ++s) {
      sum_c += (s == 0 ? 1 : 2) * mass_c[s];
      sum_f += (s == 0 ? 1 : 2) * mass_f[s];
      difference = std::max(difference, double(std::fabs((sum_c - sum_f) / den0)));
    }
    // A difference that is not a number (an arithmetic that failed) is infinite.
    worst = std::isnan(difference) ? HUGE_VAL : std::max(worst, difference);
  }
  return 10 * worst;
}

// Whether one attempt takes the asked cell's angle by residues: on
// tables of at most kResidueLines lines, wherever that is less work than
// the grid over all angles (grid_work, in the cell's units: a node's
// operations over kResidueOperationsPerWork) within what is left of the
// limit, and its double arithmetic, or else the 80-bit one, rounds within
// a quarter of the target; or wherever asked (TooLarge past the limit).
// The rounding's nodes are evaluated only where the residues could be
// taken.
struct ResiduePlan {
  bool taken = false, wide = false;
  double work = 0, rounding = 0;
};
ResiduePlan plan_residues(Rational b, int r, std::size_t long_side, std::int64_t T, std::uint64_t N, double grid_work,
                          double work_left, CellQuadrature quadrature) {
  ResiduePlan plan;
  if (long_side > std::size_t(kResidueLines) || quadrature == CellQuadrature::all_angles) return plan;
  const int n = static_cast<int>(long_side);
  const double node_work =
      (LinePowerCoefficients<double>::operations(r, n, 0) + LinePowerCoefficients<double>::operations(r, n - 1, T)) /
      kResidueOperationsPerWork;
  const double work = residue_cell_nodes(r, N) * node_work;
  const bool forced = quadrature == CellQuadrature::asked_angle_by_residues;
  if (forced && work > work_left)
    throw TooLarge("the table cell's law needs too many quadrature points",
                   "By residues it would evaluate " + format_double(work) + " points' work.");
  if (!(work < grid_work || forced) || work > work_left) return plan;
  const double node_rounding = residue_cell_rounding(b, r, n, T, N);
  plan.wide = node_rounding > kTargetError / 4;
  plan.rounding = node_rounding * (plan.wide ? 0x1p-11 : 1);
  plan.work = work * (plan.wide ? kWideResidueCellWork : 1);
  plan.taken = plan.rounding <= kTargetError / 4 && (plan.work < grid_work || forced);
  return plan;
}

struct QuantileKey {
  std::uint64_t num = 0, den = 0;
  std::size_t lines = 0, length = 0;  // the shorter side, the longer
  double level = 0;
  bool operator==(const QuantileKey& o) const {
    return num == o.num && den == o.den && lines == o.lines && length == o.length && level == o.level;
  }
};
struct KeptQuantile {
  QuantileKey key;
  TableCellQuantile quantile;  // found, with the work its search took
  bool refused = false;        // else refused for work under the limit `limit`
  double limit = 0;
};
KeptList<KeptQuantile, 64> kept_quantiles;
TableCellQuantile search_quantile(Rational b, std::size_t rows, std::size_t cols, double level,
                                  const Interrupts& interrupts, double max_work, double& work);

}  // namespace

TableCellCoverage laplace_table_cell_coverage(Rational b, std::size_t rows, std::size_t cols, std::int64_t T,
                                              const Interrupts& interrupts, double max_work, double* spent,
                                              CellQuadrature quadrature) {
  const std::size_t short_side = std::min(rows, cols), long_side = std::max(rows, cols);
  if (short_side < 3 || short_side > std::size_t(kMaxLines))
    throw InvalidArgument("a table cell's law is computed for tables whose shorter side has 3 or 4 levels");
  if (long_side > (std::size_t(1) << 40)) throw TooLarge("the table is too long for its cell's law");
  if (T < 0) throw InvalidArgument("a cell's coverage is asked at t >= 0");
  if (T > (std::int64_t(1) << 20)) throw TooLarge("the cell's law is too wide to sum over its values");
  const int r = static_cast<int>(short_side), d = r - 1;
  const double n = double(long_side);
  const NoiseTransform law(IntegerNoise{IntegerNoise::Kind::laplace, b});
  // The nodes each visited one stands for, about: the orbits' sizes in a
  // box, and on the whole torus (LineOrbits).
  const double box_symmetry = d == 3 ? 4 : 2, whole_symmetry = d == 3 ? 12 : 4;
  const LinesAliasing aliasing(b, r, long_side, interrupts);
  TableCellCoverage out;
  for (const double target : {kAliasFirst, kAliasSecond}) {
    const std::int64_t x = aliasing.point(target);
    QuadratureGrid g = quadrature_grid(law, d, n, n - 1, 1, 0.1, x, box_symmetry, interrupts);
    if (g.whole) g.points *= box_symmetry / whole_symmetry;
    if (spent != nullptr) *spent = out.work;
    // The asked cell's angle by residues where plan_residues says so.
    const bool wide = n > kDoubleLines;
    const double unit = wide ? 0x1p-64 : 0x1p-53;
    double rounding = 100 * n * unit;
    double grid_work = g.points * double(T + r);
    const ResiduePlan plan = plan_residues(b, r, long_side, T, g.N, grid_work, max_work - out.work, quadrature);
    const bool by_residues = plan.taken;
    if (by_residues) {
      grid_work = plan.work;
      rounding = plan.rounding;
      g.omitted_num = g.omitted_den = 0;
    }
    if (quadrature == CellQuadrature::asked_angle_by_residues && !by_residues)
      throw InvalidArgument(
          "the asked cell's angle is taken by residues on tables of three or four lines of at "
          "most 12 cells, where their arithmetic rounds within the target");
    if (out.work + grid_work > max_work)
      throw TooLarge("the table cell's law needs too many quadrature points",
                     "It would evaluate " + format_double(grid_work) + " points' work.");
    const int grid_dimension = by_residues ? d - 1 : d;
    CellSums sums;
    if (by_residues) {
      const double node_work = grid_work / residue_cell_nodes(r, g.N);
      sums = plan.wide ? residue_cell_trapezoid<long double>(b, r, int(long_side), T, g.N, node_work, interrupts)
                       : residue_cell_trapezoid<double>(b, r, int(long_side), T, g.N, node_work, interrupts);
      out.points = double(sums.visited);
      out.work += node_work * double(sums.visited);
    } else {
      sums = wide ? cell_trapezoid<long double>(b, r, n, T, g, interrupts)
                  : cell_trapezoid<double>(b, r, n, T, g, interrupts);
      out.points = double(sums.visited);
      out.work += out.points * double(T + r);
    }
    // In units of N^d (N^(d-1) by residues): the denominator D ~ P(S = 0
    // mod N), the numerators U_t ~ P(|Z_11| <= t, S = 0 mod N); tau bounds
    // P(S = 0 mod N, S != 0).
    const long double all = std::pow((long double)g.N, grid_dimension);
    const double D = double(sums.den / all);
    const double tau = aliasing.bound(double(g.N));
    rounding += 4 * double(sums.visited) * 0x1p-64 + double(T) * 0x1p-53;
    out.lower.assign(static_cast<std::size_t>(T) + 1, 0);
    out.upper.assign(static_cast<std::size_t>(T) + 1, 1);
    long double U = 0;
    double worst = 0;
    for (std::int64_t t = 0; t <= T; ++t) {
      interrupts.poll_every(static_cast<std::uint64_t>(t));
      U += (t == 0 ? 1 : 2) * sums.mass[static_cast<std::size_t>(t)];
      const double u = double(U / all);
      const double lo = (u - g.omitted_num - tau) / (D + g.omitted_den) * (1 - rounding);
      const double hi = (u + g.omitted_num) / (D - g.omitted_den - tau) * (1 + rounding);
      out.lower[static_cast<std::size_t>(t)] = std::clamp(next_down(lo), 0.0, 1.0);
      out.upper[static_cast<std::size_t>(t)] = std::clamp(next_up(hi), 0.0, 1.0);
      worst = std::max(worst, hi - lo);
    }
    if (!(D - g.omitted_den - tau > 0))
      throw OutOfRange("the table cell's law could not be computed to its stated accuracy");
    if (worst <= kTargetError) return out;
    if (target == kAliasSecond && !(worst <= kRefusedError))
      throw OutOfRange("the table cell's law could not be computed to its stated accuracy",
                       "Its error bound is " + format_double(worst) + ".");
  }
  return out;
}

TableCellQuantile laplace_table_cell_quantile(Rational b, std::size_t rows, std::size_t cols, double level,
                                              const Interrupts& interrupts, double max_work) {
  check_level(level);
  // The law depends on the public parameters alone: a backend that asks the
  // same shape, scale and level again (repeated releases, a dashboard's
  // refresh) reads the quantile it found before without computing it. It
  // reports the work the search took and is refused past a limit below
  // that, so that a caller's budget runs as if it had been computed.
  const QuantileKey key{b.num, b.den, std::min(rows, cols), std::max(rows, cols), level};
  const auto same = [&key](const KeptQuantile& kept) { return kept.key == key; };
  // A refusal for work is kept too, with its limit: a search under that
  // limit or a lower one is refused (the cell's law refuses before any node
  // by its estimate, the one-pass law as soon as its work passes the limit),
  // so a release asking again is refused at once, not after the one-pass
  // law spent the limit again. A quantile found with more work than this
  // limit is searched again: the one-pass law may find it within it.
  if (const std::optional<KeptQuantile> kept = kept_quantiles.find(same)) {
    if (kept->refused && max_work <= kept->limit)
      throw TooLarge("the table cell's law needs too much work",
                     "It was refused under a limit of " + format_double(kept->limit) + " evaluations.");
    if (!kept->refused && kept->quantile.work <= max_work) return kept->quantile;
  }
  double work = 0;
  try {
    TableCellQuantile found = search_quantile(b, rows, cols, level, interrupts, max_work, work);
    kept_quantiles.keep({key, found, false, 0}, same);
    return found;
  } catch (const TooLarge&) {
    if (work > max_work) kept_quantiles.keep({key, {}, true, max_work}, same);
    throw;
  }
}

void forget_kept_cell_quantiles() { kept_quantiles.clear(); }

namespace {

// Past the cell's law's work limit: the same law by one pass at a coarser
// grid first (laplace_table_sparse_sum.hpp, a sum of this one cell), which
// leaves out the nodes where psi^(n-1) is negligible, within what is left
// of the limit (`work` adds what it spends, in the cell's units).
TableCellQuantile one_pass_quantile(Rational b, std::size_t rows, std::size_t cols, double level,
                                    const Interrupts& interrupts, double max_work, double& work) {
  const SparseTableSum one_cell{static_cast<int>(std::min(rows, cols)), double(std::max(rows, cols)), {{0, 1}}};
  double spent = 0;
  try {
    const Quantile q =
        sparse_sum_quantile(b, one_cell, level, interrupts, (max_work - work) / kCellWorkPerSumWork, spent);
    work += spent * kCellWorkPerSumWork;
    return {q, work};
  } catch (const TooLarge&) {
    work += spent * kCellWorkPerSumWork;
    throw TooLarge("the table cell's law needs too many quadrature points",
                   "Its search would evaluate " + format_double(work) + " or more.");
  }
}

TableCellQuantile search_quantile(Rational b, std::size_t rows, std::size_t cols, double level,
                                  const Interrupts& interrupts, double max_work, double& work) {
  // Searched up to the unconditioned cell's quantile and two counts more
  // (conditioning on the margins narrows the cell's law), then, if that
  // does not cover, up to its quantile at a level a hundred times closer to 1.
  work = 0;
  for (const std::int64_t T : {discrete_laplace_half_width(b, level) + 2,
                               discrete_laplace_half_width(b, 1 - (1 - level) / 100)}) {
    TableCellCoverage c;
    double spent = 0;
    try {
      c = laplace_table_cell_coverage(b, rows, cols, T, interrupts, max_work - work, &spent);
    } catch (const TooLarge&) {
      work += spent;  // a coarser grid evaluated, if any
      return one_pass_quantile(b, rows, cols, level, interrupts, max_work, work);
    }
    work += c.work;
    for (std::int64_t t = 0; t <= T; ++t) {
      const auto k = static_cast<std::size_t>(t);
      if (c.lower[k] >= level) {
        Quantile q;
        q.half_width = t;
        q.coverage_lower = c.lower[k];
        q.narrower_upper = t == 0 ? 0 : c.upper[k - 1];
        q.exact = q.narrower_upper < level;
        return {q, work};
      }
    }
  }
  throw OutOfRange("the table cell's law does not reach the level within its ceiling");
}

}  // namespace

}  // namespace invariant_dp::accuracy
