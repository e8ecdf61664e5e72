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
                                              const Interrupts& interrupts, double max_work, double* spent) {
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
    if (out.work + g.points * double(T + r) > max_work)
      throw TooLarge("the table cell's law needs too many quadrature points",
                     "It would evaluate " + format_double(g.points) + " points.");
    const bool wide = n > kDoubleLines;
    const CellSums sums = wide ? cell_trapezoid<long double>(b, r, n, T, g, interrupts)
                               : cell_trapezoid<double>(b, r, n, T, g, interrupts);
    out.points = double(sums.visited);
    out.work += out.points * double(T + r);
    // In units of N^d: the denominator D ~ P(S = 0 mod N), the numerators
    // U_t ~ P(|Z_11| <= t, S = 0 mod N); tau bounds P(S = 0 mod N, S != 0).
    const long double all = std::pow((long double)g.N, d);
    const double D = double(sums.den / all);
    const double tau = aliasing.bound(double(g.N));
    const double unit = wide ? 0x1p-64 : 0x1p-53;
    const double rounding = 100 * n * unit + 4 * double(sums.visited) * 0x1p-64 + double(T) * 0x1p-53;
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
