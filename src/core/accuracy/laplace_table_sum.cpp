// Sums of cells of complete two-way integer_laplace tables by Fourier
// inversion (laplace_table_sum.hpp; DERIVATIONS.md, section 15).
#include "laplace_table_sum.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include "../errors.hpp"
#include "../kept_list.hpp"
#include "../samplers/interval.hpp"
#include "laplace_table_sparse_sum.hpp"
#include "table_quadrature.hpp"
#include "tail_quantiles.hpp"
#include "zero_sum_line_mass.hpp"

namespace invariant_dp::accuracy {
namespace {

constexpr double kTableSumAlias = 1e-14;  // the alpha grid's aliasing, before its factor
constexpr double kThetaAlias = 1e-10;  // the inversion's aliasing
constexpr double kPruned = 1e-11;      // the alpha nodes left out in theta, relative to the denominator
constexpr double kFirstPassShare = 3;  // the whole work, at least, in units of the pass at theta = 0
constexpr std::int64_t kMaxLineWeight = std::int64_t(1) << 39;  // differences of two stay within 2^40
// Lines longer than this keep the caller's tail bound: psi^n in double
// multiplies psi's relative error by n (the cell's law goes to 80 bits).
constexpr double kMaxLineCount = 2000;

using C = Cx<double>;

// One table, read as n lines of r cells across its short side.
struct Table {
  int r = 0;
  double n = 0;
  std::map<LinePattern, double> patterns;  // the nonzero patterns, with their lines
  double zero_lines = 0;               // lines of pattern 0
  double pairs = 0;                    // disjoint moves that shift X by +-1 (theta_majorant)
  QuadratureGrid grid;
  double tau = 0;                      // P(S = 0 mod N, S != 0), bounded
  double den = 0, zero_sum = 0;        // (1/N^d) sum of psi^n, of psi^zero_lines (the box)
  std::vector<double> log_psi;         // at the box's nodes, in the odometer's order
  int pruned_order = 0;                // nodes of this binary order of psi^zero_lines and beyond are left out in theta
  double pruned = 0;                   // (1/N^d) sum of their psi^zero_lines
  double kept = 0;                     // the nodes visited in theta
  std::vector<C> roots;                // e^(2 pi i j / N) for the box's j, from its first
  double psi0 = 0;                     // the line's transform at alpha = 0, unnormalised
};

// The lines' patterns of one part, and the gcd of their entries. A line's
// weights matter up to a constant (its cells sum to 0), and all the lines'
// up to one common vector (the short side's margins: adding v to every
// line's weights adds v . S = 0): each line's weights less its last cell's,
// less the most frequent such pattern, which becomes the pattern 0.
Table read_part(const LaplaceTablePart& part, std::int64_t& step, const Interrupts& interrupts) {
  const std::size_t short_side = std::min(part.rows, part.cols), long_side = std::max(part.rows, part.cols);
  if (short_side < 3 || short_side > std::size_t(kMaxLines) || part.weights.size() != part.rows * part.cols)
    throw InvalidArgument("a sum's table must have a shorter side of 3 or 4 levels and one weight per cell");
  Table t;
  t.r = static_cast<int>(short_side);
  t.n = double(long_side);
  const bool lines_are_columns = part.rows <= part.cols;
  std::map<LinePattern, double> raw;
  for (std::size_t j = 0; j < long_side; ++j) {
    interrupts.poll_every(j);
    const auto weight = [&](std::size_t k) {
      const std::int64_t w = lines_are_columns ? part.weights[k * part.cols + j] : part.weights[j * part.cols + k];
      if (w > kMaxLineWeight || w < -kMaxLineWeight) throw TooLarge("a sum's weights are too large for its inversion");
      return w;
    };
    LinePattern p{};
    const std::int64_t last = weight(short_side - 1);
    for (std::size_t k = 0; k + 1 < short_side; ++k) p[k] = weight(k) - last;
    raw[p] += 1;
  }
  const LinePattern common =
      std::max_element(raw.begin(), raw.end(), [](const auto& x, const auto& y) { return x.second < y.second; })->first;
  for (const auto& [p, lines] : raw) {
    LinePattern q{};
    bool zero = true;
    for (int k = 0; k + 1 < t.r; ++k) {
      q[k] = p[k] - common[k];
      step = std::gcd(step, q[k]);
      zero = zero && q[k] == 0;
    }
    if (zero)
      t.zero_lines += lines;
    else
      t.patterns[q] += lines;
  }
  return t;
}

// The moves of theta_majorant: each line of a pattern with an entry +-step
// (after the division by the step) beside a line of pattern 0.
void count_pairs(Table& t) {
  double unit_lines = 0;
  for (const auto& [p, lines] : t.patterns) {
    bool unit = false;
    for (int k = 0; k + 1 < t.r; ++k) unit = unit || p[k] == 1 || p[k] == -1;
    if (unit) unit_lines += lines;
  }
  t.pairs = std::min(unit_lines, t.zero_lines);
}

// A majorant of |E e^(i theta X)| that decreases on [0, pi]. A move adding u
// to cells (i, j) and (r, j') and -u to (i, j') and (r, j), j a line whose
// pattern has entry +-1 at i and j' a line of pattern 0, keeps every margin
// and shifts X by +-u. Given everything else, u has the law
// a^(|u + c_1| + |u + c_2| + |u - c_3| + |u - c_4|), log-concave with slopes
// in {-4, ..., 4}, which is a discrete Laplace law of ratio q = a^4
// convolved with a probability law (its L(u - 1) + L(u + 1) <= (q + 1/q)
// L(u) everywhere): its transform is at most the discrete Laplace one,
// (1 - q)^2 / (1 - 2 q cos theta + q^2). Moves on disjoint lines are
// independent given the rest (they touch disjoint cells), so the
// transforms multiply; the conditioning modulo N is invariant under moves.
double theta_majorant(double q, double pairs, std::uint64_t k, std::uint64_t period) {
  if (pairs <= 0) return 1;
  const double c = std::cos(2 * double(kQuadraturePi) * (double(k) / double(period)));
  const double one = (1 - q) * (1 - q) / (1 - 2 * q * c + q * q);
  return std::min(1.0, std::pow(one, pairs) * (1 + 1e-9));
}

// The grid of one table (its box of alpha nodes) and its aliasing bound.
void measure(Table& t, const NoiseTransform& law, const Interrupts& interrupts) {
  const int d = t.r - 1;
  const LinesAliasing aliasing(law.noise().parameter, t.r, static_cast<std::uint64_t>(t.n), interrupts);
  const std::int64_t x = aliasing.point(kTableSumAlias);
  t.grid = quadrature_grid(law, d, t.n, t.zero_lines, 1, 0.1, x, 1, interrupts);
  t.tau = aliasing.bound(double(t.grid.N));
}

// The box's integers j on each axis: first .. last.
std::int64_t box_first(const QuadratureGrid& g) {
  return g.whole ? -(static_cast<std::int64_t>(g.N) - 1) / 2 : -static_cast<std::int64_t>(g.J);
}
std::int64_t box_last(const QuadratureGrid& g) {
  return g.whole ? static_cast<std::int64_t>(g.N) / 2 : static_cast<std::int64_t>(g.J);
}

// The odometer over a table's box of alpha nodes, calling f(j) for each;
// `cost` line transforms a node (the polls keep to every 4096 of them).
template <class F>
void for_each_node(const Table& t, std::uint64_t cost, const Interrupts& interrupts, F&& f) {
  const int d = t.r - 1;
  const std::int64_t first = box_first(t.grid), last = box_last(t.grid);
  std::array<std::int64_t, kMaxLines> j{};
  for (int i = 0; i < d; ++i) j[i] = first;
  std::uint64_t counted = 0;
  for (;;) {
    interrupts.poll_scaled(++counted, cost);
    f(j);
    int k = d - 1;
    // Ends: k falls to at most -1.
    while (k >= 0 && j[k] == last) --k;
    if (k < 0) break;
    ++j[k];
    for (int i = k + 1; i < d; ++i) j[i] = first;
  }
}

// The nodes the passes in theta leave out. A node adds
// psi(alpha)^zero_lines prod_p (psi(alpha + theta p) / psi(0))^(n_p) to the
// sum at theta, at most psi(alpha)^zero_lines in modulus (psi / psi(0) is a
// transform), which the pass at theta = 0 has computed at every node: the
// smallest nodes whose total stays below kPruned of the denominator are
// left out, their total bounding what they would add at any theta. They
// are chosen by binary order of magnitude (the total of the smaller orders
// first), so that one pass over the nodes settles it.
constexpr int kOrders = 1100;  // psi^zero_lines below 2^-1100 is 0 in double

// o with e^log_term in (2^-(o+1), 2^-o], within 0 .. kOrders.
int magnitude_order(double log_term) {
  const double o = std::floor(-log_term / std::log(2.0));
  return o >= kOrders ? kOrders : o <= 0 ? 0 : static_cast<int>(o);
}

void prune(Table& t, const Interrupts& interrupts) {
  std::vector<long double> by_order(kOrders + 1, 0);
  std::vector<double> nodes(kOrders + 1, 0);
  for (std::size_t k = 0; k < t.log_psi.size(); ++k) {
    interrupts.poll_every(k);
    const double log_term = t.zero_lines * t.log_psi[k];
    by_order[std::size_t(magnitude_order(log_term))] += std::exp(log_term);
    nodes[std::size_t(magnitude_order(log_term))] += 1;
  }
  const long double all = std::pow((long double)t.grid.N, t.r - 1);
  const long double allowed = (long double)kPruned * t.den * all;
  long double pruned = 0;
  int first_pruned = kOrders + 1;
  // Ends: first_pruned falls to 1 at most (order 0 is always kept).
  while (first_pruned > 1 && pruned + by_order[std::size_t(first_pruned - 1)] <= allowed)
    pruned += by_order[std::size_t(--first_pruned)];
  t.kept = 0;
  for (int o = 0; o < first_pruned; ++o) t.kept += nodes[std::size_t(o)];
  t.pruned_order = first_pruned;
  t.pruned = next_up(double(pruned / all) * 1.01);
}

// e^(2 pi i m / N) for m = first .. last, from index 0.
std::vector<C> roots_of_unity(std::uint64_t N, std::int64_t first, std::int64_t last, const Interrupts& interrupts) {
  std::vector<C> out(static_cast<std::size_t>(last - first + 1));
  for (std::size_t k = 0; k < out.size(); ++k) {
    interrupts.poll_every(k);
    const double angle = 2 * double(kQuadraturePi) * (double(first + std::int64_t(k)) / double(N));
    out[k] = {std::cos(angle), std::sin(angle)};
  }
  return out;
}

std::uint64_t value_residue(std::int64_t v, std::uint64_t N) {
  const auto m = static_cast<std::int64_t>(N);
  std::int64_t r = v % m;
  return static_cast<std::uint64_t>(r < 0 ? r + m : r);
}

// The line's transform, unnormalised, at angles u (u_r = 1).
double line_transform(double a, int r, const C* u) { return LaplaceLinePoles<double>(a, r, u).transform_difference(); }

// log E e^(lambda X) <= sum over tables of the patterns' line bounds and
// log(zero_sum / den): the tail bound's exponent before -lambda x. A
// pattern's bound depends only on its range (max - min of its weights), so
// the lines are counted by range.
class Chernoff {
 public:
  Chernoff(const std::vector<Table>& tables, double a, double inv_b, const Interrupts& interrupts)
      : a_(a), interrupts_(interrupts) {
    for (const Table& t : tables) {
      std::map<std::int64_t, double> by_range;
      for (const auto& [p, lines] : t.patterns) by_range[range(p, t.r)] += lines;
      const double log_partition0 = std::log(partition(a, t.r));
      for (const auto& [width, lines] : by_range) {
        terms_.push_back({t.r, double(width), lines, log_partition0});
        limit_ = std::min(limit_, 2 * inv_b / double(width));
      }
      log_rest_ += std::log((t.zero_sum + t.grid.omitted_num) / (t.den - t.grid.omitted_den));
    }
  }

  // An upper bound on P(|X| >= x) under the tables conditioned modulo N.
  double tail(double x) const {
    if (!std::isfinite(limit_)) return 0;  // X is constant
    const auto f = [&](double lambda) {
      interrupts_.poll();
      double s = log_rest_ - lambda * x;
      for (const Term& term : terms_) {
        const double shifted = a_ * std::exp(lambda * term.width / 2);
        if (!(shifted < 1)) return double(INFINITY);
        s += term.lines * (std::log(partition(shifted, term.r)) - term.log_partition0);
      }
      return s;
    };
    return std::min(1.0, 2 * std::exp(NoiseTransform::minimise(f, limit_)) * (1 + 1e-6));
  }

  // The smallest integer x >= 0 with tail(x) <= p.
  std::int64_t point(double p) const {
    std::int64_t hi = 1;
    // Ends: the tail decays exponentially in x; 62 doublings pass any bound.
    for (int k = 0; k < 62 && tail(double(hi)) > p; ++k) hi *= 2;
    if (tail(double(hi)) > p) throw TooLarge("the sum's law is too wide for its inversion");
    std::int64_t lo = 0;
    // Ends: bisection over [lo, hi].
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (tail(double(mid)) <= p ? hi : lo) = mid;
    }
    return hi;
  }

 private:
  struct Term {
    int r = 0;
    double width = 0, lines = 0, log_partition0 = 0;
  };
  static std::int64_t range(const LinePattern& p, int r) {
    std::int64_t lo = 0, hi = 0;  // the last cell's weight is 0
    for (int k = 0; k + 1 < r; ++k) lo = std::min(lo, p[k]), hi = std::max(hi, p[k]);
    return hi - lo;
  }
  // The partition function of a line: the sum over zero-sum lines y of a^(sum |y|).
  static double partition(double a, int r) {
    C ones[kMaxLines];
    for (int k = 0; k < r; ++k) ones[k] = {1, 0};
    return std::pow(-std::expm1(2 * std::log(a)), r) * line_transform(a, r, ones);
  }
  double a_;
  const Interrupts& interrupts_;
  std::vector<Term> terms_;
  double limit_ = INFINITY;
  double log_rest_ = 0;
};

// A table's patterns divided by the sum's step.
void divide_patterns(Table& t, std::int64_t step) {
  std::map<LinePattern, double> divided;
  for (const auto& [p, lines] : t.patterns) {
    LinePattern q = p;
    for (int k = 0; k + 1 < t.r; ++k) q[k] /= step;
    divided[q] += lines;
  }
  t.patterns = std::move(divided);
}

// One table's sum as lines of one cell each (laplace_table_sparse_sum.hpp):
// read across the short side, or, on a square table, along it too (a pair
// of cells of one column is a pair of cells of one row there).
std::optional<SparseTableSum> sparse_reading(const std::vector<LaplaceTablePart>& parts, const Table& table,
                                             std::int64_t step, const Interrupts& interrupts) {
  const auto as_sparse = [](const Table& t) {
    return sparse_table_sum(t.r, t.n,
                            std::vector<std::pair<LinePattern, double>>(t.patterns.begin(), t.patterns.end()));
  };
  if (std::optional<SparseTableSum> sparse = as_sparse(table)) return sparse;
  const LaplaceTablePart* part = nullptr;
  for (const LaplaceTablePart& p : parts)
    if (std::any_of(p.weights.begin(), p.weights.end(), [](std::int64_t w) { return w != 0; })) part = &p;
  if (part == nullptr || part->rows != part->cols) return std::nullopt;
  LaplaceTablePart transposed{part->cols, part->rows, std::vector<std::int64_t>(part->weights.size())};
  for (std::size_t i = 0; i < part->rows; ++i)
    for (std::size_t j = 0; j < part->cols; ++j)
      transposed.weights[j * part->rows + i] = part->weights[i * part->cols + j];
  std::int64_t transposed_step = 0;
  Table t = read_part(transposed, transposed_step, interrupts);
  if (std::abs(transposed_step) != step) return std::nullopt;
  divide_patterns(t, step);
  return as_sparse(t);
}

// The refusal past a caller's work limit, the same computed or kept.
TooLarge past_the_work_limit(double needed) {
  return TooLarge("the sum's law needs too many quadrature points", "It would evaluate " + format_double(needed) + ".");
}

// The computation; `needed` receives the line transforms it spent, or
// would have spent when it refuses for max_work.
TableSumQuantile compute_sum_quantile(Rational b, const std::vector<LaplaceTablePart>& parts, double level,
                                      const Interrupts& interrupts, double max_work, double& needed) {
  const NoiseTransform law(IntegerNoise{IntegerNoise::Kind::laplace, b});
  const double inv_b = double(b.den) / double(b.num), a = std::exp(-inv_b);
  std::int64_t step = 0;
  std::vector<Table> tables;
  for (const LaplaceTablePart& part : parts) {
    Table t = read_part(part, step, interrupts);
    if (t.n > kMaxLineCount) throw TooLarge("the table is too long for the law of a sum of its cells");
    if (!t.patterns.empty()) tables.push_back(std::move(t));
  }
  TableSumQuantile out;
  if (tables.empty()) return out;  // constant given the margins
  out.step = step = std::abs(step);
  for (Table& t : tables) divide_patterns(t, step);
  // One table's sum read as lines of one cell each, where it is.
  const std::optional<SparseTableSum> sparse =
      tables.size() == 1 ? sparse_reading(parts, tables[0], step, interrupts) : std::nullopt;
  // The alpha grids, and the work of the pass at theta = 0.
  double work = 0;
  for (Table& t : tables) {
    measure(t, law, interrupts);
    count_pairs(t);
    work += t.grid.points;
  }
  // The passes in theta cost twice the pass at theta = 0 or more on every
  // sum measured (a 2 x 2 block of a 4 x 50 table at b = 4, the least: its
  // kept nodes are 4 % of the box, at 57 nodes in theta), so a box past a
  // third of the limit is refused before its pass rather than after it
  // (a 4 x 4 table at b = 4: 5.5e6 nodes, 0.9 s to learn it needs 7e8).
  // A sum that takes at most one cell from each line of one table has its
  // law in one pass over the grid (laplace_table_sparse_sum.hpp): short
  // four-line tables, whose wide grids the inversion cannot afford. Taken
  // wherever the inversion is past the limit, before its pass at theta = 0
  // or after it (`spent`, counted against the limit).
  const auto one_pass_or_refuse = [&](double inversion_needs, double spent) {
    if (sparse) {
      const double least = sparse_sum_least_work(b, *sparse, level, interrupts);
      if (spent + least <= max_work) {
        double pass = 0;
        out.quantile = sparse_sum_quantile(b, *sparse, level, interrupts, max_work - spent, pass);
        out.method = TableSumMethod::one_pass;
        needed = spent + pass;
        return out;
      }
      inversion_needs = std::min(inversion_needs, spent + least);
    }
    needed = inversion_needs;
    throw past_the_work_limit(needed);
  };
  needed = kFirstPassShare * work;
  if (needed > max_work) return one_pass_or_refuse(needed, 0);
  // theta = 0: psi at every node, kept; the sums of psi^n and psi^zero_lines.
  C zero[kMaxLines];
  for (C& z : zero) z = {1, 0};
  for (Table& t : tables) {
    const int d = t.r - 1;
    t.roots = roots_of_unity(t.grid.N, box_first(t.grid), box_last(t.grid), interrupts);
    t.psi0 = line_transform(a, t.r, zero);
    long double den = 0, zero_sum = 0;
    t.log_psi.reserve(static_cast<std::size_t>(t.grid.points) + 1);
    const std::int64_t first = box_first(t.grid);
    for_each_node(t, 1, interrupts, [&](const std::array<std::int64_t, kMaxLines>& j) {
      C u[kMaxLines];
      for (int i = 0; i < d; ++i) u[i] = t.roots[static_cast<std::size_t>(j[i] - first)];
      u[d] = {1, 0};
      const double log_psi = std::log(line_transform(a, t.r, u) / t.psi0);
      t.log_psi.push_back(log_psi);
      den += std::exp(t.n * log_psi);
      zero_sum += std::exp(t.zero_lines * log_psi);
    });
    const long double all = std::pow((long double)t.grid.N, d);
    t.den = double(den / all);
    t.zero_sum = double(zero_sum / all);
    if (!(t.den - t.grid.omitted_den - t.tau > 0))
      throw OutOfRange("the sum's law could not be computed to its stated accuracy");
    prune(t, interrupts);
  }
  // The inversion's period: past the ceiling (a half-width that covers by
  // the tail bound alone) by the aliasing's reach.
  const Chernoff chernoff(tables, a, inv_b, interrupts);
  const std::int64_t ceiling = chernoff.point((1 - level) / 2);
  const std::int64_t reach = chernoff.point(kThetaAlias);
  const auto period = static_cast<std::uint64_t>(std::max(ceiling + reach, 2 * ceiling + 1) + 1);
  // The nodes listed: 1 .. listed, the rest bounded by the majorant, their
  // share of any coverage asked ((2 t + 1) / period times their sum, t at
  // most the ceiling) below kThetaAlias.
  SampledTransform transform;
  transform.period = period;
  double pairs = 0;
  for (const Table& t : tables) pairs += t.pairs;
  const double q4 = std::pow(a, 4);
  std::uint64_t listed = period / 2;
  double omitted = 0;
  for (std::uint64_t k = period / 2; k >= 1 && pairs > 0; --k) {
    interrupts.poll_every(k);
    const double next = omitted + (2 * k == period ? 1 : 2) * theta_majorant(q4, pairs, k, period);
    if (next * double(2 * ceiling + 1) / double(period) > kThetaAlias) break;
    omitted = next;
    listed = k - 1;
  }
  transform.omitted = next_up(omitted * 1.01);
  double theta_work = 0;
  for (const Table& t : tables) theta_work += t.kept * double(t.patterns.size()) * double(listed);
  needed = work + theta_work;
  if (needed > max_work) return one_pass_or_refuse(needed, work);
  // The transform of X at theta_k = 2 pi k / period, k = 1 .. period / 2:
  // the product over the tables of their ratios, each within its box's
  // truncation and rounding.
  const std::vector<C> theta_roots = roots_of_unity(period, 0, std::int64_t(period) - 1, interrupts);
  double rounding = 0, tv = 0, node_error = 0;
  for (const Table& t : tables) {
    rounding += 100 * t.n * 0x1p-53 + 4 * t.grid.points * 0x1p-53;
    const double den_lower = t.den - t.grid.omitted_den;
    node_error += (t.grid.omitted_num + t.grid.omitted_den + t.pruned) / den_lower;
    tv += t.tau / den_lower;
  }
  for (std::uint64_t k = 1; k <= listed; ++k) {
    interrupts.poll();
    double value = 1;
    for (const Table& t : tables) {
      const int d = t.r - 1;
      // e^(i theta_k p_i) per pattern and angle.
      std::vector<std::array<C, kMaxLines>> shift;
      std::vector<double> lines;
      for (const auto& [p, count] : t.patterns) {
        std::array<C, kMaxLines> s{};
        for (int i = 0; i < d; ++i) {
          const auto entry =
              static_cast<std::int64_t>(value_residue(p[i], period));  // reduced first: k p stays in range
          s[i] = theta_roots[value_residue(std::int64_t(k) * entry, period)];
        }
        shift.push_back(s);
        lines.push_back(count);
      }
      long double sum = 0;
      std::size_t at = 0;
      const std::int64_t first = box_first(t.grid);
      for_each_node(t, shift.size(), interrupts, [&](const std::array<std::int64_t, kMaxLines>& j) {
        const double log_term = t.zero_lines * t.log_psi[at++];
        if (magnitude_order(log_term) >= t.pruned_order) return;
        C node[kMaxLines], u[kMaxLines];
        for (int i = 0; i < d; ++i) node[i] = t.roots[static_cast<std::size_t>(j[i] - first)];
        u[d] = {1, 0};
        double term = std::exp(log_term);
        for (std::size_t q = 0; q < shift.size(); ++q) {
          for (int i = 0; i < d; ++i) u[i] = node[i] * shift[q][i];
          const double ratio = line_transform(a, t.r, u) / t.psi0;  // in (0, 1]
          term *= lines[q] == 1 ? ratio : std::pow(ratio, lines[q]);
        }
        sum += term;
      });
      const long double all = std::pow((long double)t.grid.N, d);
      value *= double(sum / all) / t.den;
    }
    transform.node.push_back(k);
    transform.value.push_back(value);
    transform.error.push_back(node_error + rounding);
  }
  const auto coverage = [&](std::int64_t t) {
    const CoverageBounds q = periodic_coverage(transform, t, interrupts);
    const double alias = chernoff.tail(double(std::int64_t(period) - t));
    return CoverageBounds{std::max(0.0, next_down(q.lower - alias - tv)), std::min(1.0, next_up(q.upper + tv))};
  };
  out.quantile = smallest_covering(coverage, level, ceiling / 2, ceiling, interrupts);
  return out;
}

// The sums a process keeps: their laws depend on the scale, the tables'
// shapes, the weights and the level alone. A query that names one error bar
// several times (each column of a composite, each with its own copy of the
// law's subquery, is its own aggregate) or asks again reads it without
// computing it. The work it spent, or would have, is kept with it and
// checked against the caller's limit as the computation would, so that
// keeping changes only the time, never a figure or a refusal.
struct KeptSum {
  Rational b;
  double level = 0;
  std::vector<LaplaceTablePart> parts;
  double needed = 0;
  bool refused = false;
  TableSumQuantile result;

  bool same(Rational other_b, double other_level, const std::vector<LaplaceTablePart>& other) const {
    if (b.num != other_b.num || b.den != other_b.den || level != other_level || parts.size() != other.size())
      return false;
    for (std::size_t k = 0; k < parts.size(); ++k)
      if (parts[k].rows != other[k].rows || parts[k].cols != other[k].cols || parts[k].weights != other[k].weights)
        return false;
    return true;
  }
};

KeptList<KeptSum, 16> kept_sums;

}  // namespace

TableSumQuantile laplace_table_sum_quantile(Rational b, const std::vector<LaplaceTablePart>& parts, double level,
                                            const Interrupts& interrupts, double max_work) {
  check_level(level);
  const auto same = [&](const KeptSum& kept) { return kept.same(b, level, parts); };
  if (const std::optional<KeptSum> kept = kept_sums.find(same)) {
    if (kept->needed > max_work) throw past_the_work_limit(kept->needed);
    // Refused under a lower limit than this one: computed again.
    if (!kept->refused) return kept->result;
  }
  double needed = 0;
  try {
    TableSumQuantile out = compute_sum_quantile(b, parts, level, interrupts, max_work, needed);
    out.work = needed;
    kept_sums.keep({b, level, parts, needed, false, out}, same);
    return out;
  } catch (const TooLarge&) {
    if (needed > max_work) kept_sums.keep({b, level, parts, needed, true, {}}, same);
    throw;
  }
}

void forget_kept_table_sums() { kept_sums.clear(); }

}  // namespace invariant_dp::accuracy
