// Sums taking at most one cell from each line of a complete two-way
// integer_laplace table, by one pass over the lines' angles
// (laplace_table_sparse_sum.hpp; DERIVATIONS.md, section 15).
#include "laplace_table_sparse_sum.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "../errors.hpp"
#include "../samplers/interval.hpp"
#include "laplace_cell_line.hpp"
#include "tail_quantiles.hpp"
#include "zero_sum_line_mass.hpp"

namespace invariant_dp::accuracy {
namespace {

// The passes' aliasing and truncation, before their factors: the first
// decides the quantile unless its coverage lies within about 1e-8 of the
// level; the second settles those.
constexpr double kFirstPassError = 1e-4, kSecondPassError = 1e-12;
// Arithmetic operations of a node per work unit (a line transform of the
// inversion, about 1.5e-7 s): measured on 4 x 4 tables at b = 2 .. 5.
constexpr double kOperationsPerUnit = 220;
// A node scanned and checked against its orbit, in work units.
constexpr double kScanUnits = 0.15;

using C = Cx<double>;

// One pass: its grid, its truncation T and its search ceiling.
struct Pass {
  QuadratureGrid grid;
  double tau = 0;                           // bounds P(S = 0 mod N, S != 0)
  std::int64_t T = 0;                       // each line's cell summed over |s| <= T
  std::int64_t ceiling = 0;                 // coverage computed for t = 0 .. ceiling
  bool one_position = false;                // every line's cell at the same position
  std::vector<int> positions;               // the positions taken, each once
  std::vector<CellPermutation> symmetries;  // sum_symmetries
  double prune = 0;                         // nodes of psi^(n-k) below this (times their weight) are only bounded
  double operations = 0;                    // per node visited
  double least = 0;                         // its work if every node is only bounded (one transform each)
  double units = 0;                         // its work if every node is evaluated
};

// The permutations of a line's cells that map the sum's cells (positions
// with their weights, as a multiset over the lines) onto themselves: they
// leave the integrand as it is (laplace_cell_line.hpp). With one position,
// read as the first.
std::vector<CellPermutation> sum_symmetries(const SparseTableSum& sum, bool one_position) {
  if (one_position) return first_cell_symmetries(sum.r);
  std::vector<std::pair<int, std::int64_t>> cells;
  for (const SparseLine& line : sum.lines) cells.emplace_back(line.position, line.weight);
  std::sort(cells.begin(), cells.end());
  std::vector<CellPermutation> out;
  CellPermutation perm{};
  for (int k = 0; k < sum.r; ++k) perm[k] = k;
  // Ends: next_permutation runs through the r! orders.
  do {
    std::vector<std::pair<int, std::int64_t>> image;
    for (const auto& [position, weight] : cells) image.emplace_back(perm[position], weight);
    std::sort(image.begin(), image.end());
    if (image == cells) out.push_back(perm);
  } while (std::next_permutation(perm.begin(), perm.begin() + sum.r));
  return out;
}

Pass plan_pass(Rational b, const SparseTableSum& sum, double error, std::int64_t ceiling,
               const Interrupts& interrupts) {
  const NoiseTransform law(IntegerNoise{IntegerNoise::Kind::laplace, b});
  const int d = sum.r - 1;
  const auto k = double(sum.lines.size());
  Pass p;
  for (const SparseLine& line : sum.lines)
    if (std::find(p.positions.begin(), p.positions.end(), line.position) == p.positions.end())
      p.positions.push_back(line.position);
  p.one_position = p.positions.size() == 1;
  p.symmetries = sum_symmetries(sum, p.one_position);
  // The nodes a visited one stands for, about (laplace_cell_line.hpp): in a
  // box the sign (and with one position on four lines the swap of lines 2
  // and 3); on the whole torus the sign and the symmetries.
  const double box_symmetry = p.one_position && d == 3 ? 4 : 2;
  const double whole_symmetry = 2 * double(p.symmetries.size());
  // The grid's aliasing, and the shells and nodes left out, each a tenth of
  // the error against the denominator, P(S = 0) (lines_sum_at_zero).
  const double at_zero = lines_sum_at_zero(law.variance(), sum.r, sum.n);
  const LinesAliasing aliasing(b, sum.r, static_cast<std::uint64_t>(sum.n), interrupts);
  const std::int64_t x = aliasing.point(error * at_zero);
  p.prune = 0.1 * error * at_zero;
  p.grid = quadrature_grid(law, d, sum.n, sum.n - k, 1, 0.1, x, box_symmetry, interrupts,
                           p.prune * std::pow(double(x + 1), d));
  if (p.grid.whole) p.grid.points *= box_symmetry / whole_symmetry;
  p.tau = aliasing.bound(double(p.grid.N));
  // P(|Y| > T) <= 2 a^(T+1) / (1 + a) <= error / k for the unconditioned
  // cell: the truncation's share, which the pass measures, is about that.
  const double inv_b = double(b.den) / double(b.num);
  const double a = std::exp(-inv_b);
  p.T = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(std::log(2 * k / (error * (1 + a))) / inv_b)));
  p.ceiling = ceiling;
  // One line: {|X| <= t} for t up to the ceiling takes only its cell's
  // values |s| <= ceiling / |w|, summed exactly, with nothing truncated.
  if (sum.lines.size() == 1) p.T = ceiling / std::llabs(sum.lines[0].weight);
  double reach = 0, operations = 0;
  for (const SparseLine& line : sum.lines) {
    if (&line != &sum.lines.back() && &line != &sum.lines.front())
      operations += 4 * double(2 * p.T + 1) * (2 * reach * double(p.T) + 1);
    reach += double(std::llabs(line.weight));
  }
  // The last line: each s meets the values x of the lines before within
  // [w s - L, w s + L] (one, for one line).
  operations += 2 * double(2 * p.T + 1) * (sum.lines.size() == 1 ? 1 : double(p.ceiling + 1));
  operations += double(p.positions.size()) * (8 * double(d) * double(p.T + 1) + 60);
  p.operations = operations;
  // Every node the odometer scans is checked against its orbit; a node its
  // orbit's largest takes psi at least.
  const double side = p.grid.whole ? double(p.grid.N) : double(2 * p.grid.J + 1);
  const double scanned = std::pow(side, d) / 2 / (p.one_position && d == 3 ? 2 : 1);
  p.least = scanned * kScanUnits + p.grid.points;
  p.units = scanned * kScanUnits + p.grid.points * (1 + operations / kOperationsPerUnit);
  return p;
}

struct PassSums {
  long double den = 0;                        // sum of psi^n
  std::array<long double, kMaxLines> mass{};  // per position: psi^(n-1) times the cell's mass within T
  std::vector<long double> inside;            // per x = 0 .. ceiling: psi^(n-k) Re (h_1 * .. * h_k)(x)
  long double pruned = 0;                     // the nodes only bounded: sum of weight psi^(n-k)
  std::uint64_t visited = 0;                  // nodes evaluated
  double spent = 0;                           // work units
};

// A line's angles read from one position: that cell's first, then the
// others in order (the line's law depends on them up to a common rotation).
void order_angles(const C* u, int r, int position, C* angles) {
  angles[0] = u[position];
  for (int i = 0, at = 1; i < r; ++i)
    if (i != position) angles[at++] = u[i];
}

// The node loop. Angles u_0 .. u_(r-2) from the grid, u_(r-1) = 1; with one
// position, that position is read as the first (the law is invariant under
// permuting a line's cells) and the first cell's orbits are visited.
PassSums run_pass(Rational b, const SparseTableSum& sum, const Pass& p, double budget, const Interrupts& interrupts) {
  const int r = sum.r, d = r - 1;
  const auto k = static_cast<int>(sum.lines.size());
  const std::int64_t T = p.T;
  const LaplaceCellLine<double> cell(b, r, T);
  const auto N = static_cast<std::int64_t>(p.grid.N);
  const std::int64_t first = p.grid.whole ? -(N - 1) / 2 : -static_cast<std::int64_t>(p.grid.J);
  const std::int64_t last = p.grid.whole ? N / 2 : static_cast<std::int64_t>(p.grid.J);
  const auto count = static_cast<std::size_t>(last - first + 1);
  std::vector<C> root(count);
  for (std::size_t i = 0; i < count; ++i) {
    interrupts.poll_every(i);
    const double angle = 2 * double(kQuadraturePi) * (double(first + static_cast<std::int64_t>(i)) / double(N));
    root[i] = {std::cos(angle), std::sin(angle)};
  }
  const LineOrbits orbits(r, N, first, p.symmetries);
  // h per position, for s = 0 .. T.
  std::array<std::vector<C>, kMaxLines> h;
  for (auto& v : h) v.resize(static_cast<std::size_t>(T) + 1);
  const auto h_at = [&](int position, std::int64_t s) {
    const C v = h[std::size_t(position)][static_cast<std::size_t>(std::llabs(s))];
    return s >= 0 ? v : C{v.re, -v.im};
  };
  std::vector<int> slot(sum.lines.size());  // a line's position, as read by the pass
  for (int j = 0; j < k; ++j) slot[std::size_t(j)] = p.one_position ? 0 : sum.lines[std::size_t(j)].position;
  const std::vector<int> positions = p.one_position ? std::vector<int>{0} : p.positions;

  C zero[kMaxLines];
  for (C& z : zero) z = {1, 0};
  const double psi0 = cell.evaluate(zero, h[0].data());

  PassSums out;
  out.inside.assign(static_cast<std::size_t>(p.ceiling) + 1, 0);
  std::vector<C> conv, next;
  std::vector<double> last_re(static_cast<std::size_t>(2 * T + 1)), last_im(last_re.size()), conv_re, conv_im;
  std::vector<double> inside(out.inside.size());
  std::array<std::int64_t, kMaxLines> j{};
  // A node whose first angle is negative is never its orbit's largest (its
  // negation is larger): the odometer starts that angle at 0.
  j[0] = 0;
  for (int i = 1; i < d; ++i) j[i] = first;
  // With one position on four lines, the swap of lines 2 and 3 halves the
  // nodes scanned: in a box its convention is j[1] <= j[2]
  // (first_cell_box_weight); on the whole torus the swap maps j to
  // (j[0], j[2], j[1]), so a largest node has j[1] >= j[2].
  const bool ordered_box = p.one_position && !p.grid.whole && d == 3;
  const bool ordered_whole = p.one_position && p.grid.whole && d == 3;
  const auto top = [&](int i) { return ordered_whole && i == 2 ? j[1] : last; };
  const auto cost = static_cast<std::uint64_t>(p.operations / 4) + 1;
  std::uint64_t counted = 0;
  for (;;) {
    interrupts.poll_scaled(++counted, cost);
    out.spent += kScanUnits;
    if (out.spent > budget)
      throw TooLarge("the sum's law needs too many quadrature points",
                     "It evaluated " + format_double(out.spent) + " before it stopped.");
    const int weight = p.grid.whole     ? orbits.whole_weight(j)
                       : p.one_position ? orbits.first_cell_box_weight(j)
                                        : orbits.sign_weight(j);
    if (weight != 0) {
      C u[kMaxLines];
      for (int i = 0; i < d; ++i) u[i] = root[static_cast<std::size_t>(j[i] - first)];
      u[d] = {1, 0};
      // The poles of the first position's reading give psi and its h.
      C first_angles[kMaxLines];
      order_angles(u, r, positions[0], first_angles);
      const LaplaceLinePoles<double> first_poles = cell.poles(first_angles);
      const double psi = cell.transform(first_poles) / psi0;
      out.spent += 1;
      const double log_psi = std::log(psi);
      out.den += weight * std::exp(sum.n * log_psi);
      const double for_sum = weight * std::exp((sum.n - double(k)) * log_psi);
      if (for_sum < p.prune) {  // bounded: |its share of every sum| <= for_sum
        out.pruned += for_sum;
      } else {
        ++out.visited;
        out.spent += p.operations / kOperationsPerUnit;
        for (const int position : positions) {
          if (position == positions[0]) {
            cell.cell_law(first_poles, h[std::size_t(position)].data());
          } else {
            C angles[kMaxLines];
            order_angles(u, r, position, angles);
            cell.cell_law(cell.poles(angles), h[std::size_t(position)].data());
          }
          for (C& v : h[std::size_t(position)]) v = {v.re / psi0, v.im / psi0};
        }
        const double for_mass = weight * std::exp((sum.n - 1) * log_psi);
        for (const int position : positions) {
          double m = h_at(position, 0).re;
          for (std::int64_t s = 1; s <= T; ++s) m += 2 * h_at(position, s).re;
          out.mass[std::size_t(position)] += for_mass * m;
        }
        // The lines but the last, convolved over x in [-L, L].
        std::int64_t L = 0;
        conv.assign(1, C{1, 0});
        for (int line = 0; line + 1 < k; ++line) {
          const std::int64_t w = sum.lines[std::size_t(line)].weight;
          const std::int64_t wider = L + std::llabs(w) * T;
          next.assign(static_cast<std::size_t>(2 * wider + 1), C{});
          for (std::int64_t s = -T; s <= T; ++s) {
            const C hs = h_at(slot[std::size_t(line)], s);
            C* to = next.data() + (w * s + wider - L);
            for (std::size_t x = 0; x < conv.size(); ++x) to[x] = to[x] + hs * conv[x];
          }
          conv.swap(next);
          L = wider;
        }
        // The last line, at x = 0 .. ceiling: Re sum_s h(s) conv(x - w s),
        // over the s that keep x - w s within [-L, L], on split real and
        // imaginary parts (the innermost loop of the pass).
        const std::int64_t w = sum.lines.back().weight;
        const int at = slot.back();
        for (std::int64_t s = -T; s <= T; ++s) {
          const C hs = h_at(at, s);
          last_re[static_cast<std::size_t>(s + T)] = hs.re;
          last_im[static_cast<std::size_t>(s + T)] = -hs.im;
        }
        conv_re.resize(conv.size());
        conv_im.resize(conv.size());
        for (std::size_t y = 0; y < conv.size(); ++y) conv_re[y] = conv[y].re, conv_im[y] = conv[y].im;
        // s outside, x inside: the values at x are independent sums, which
        // vectorise (one running sum over s would be a chain of additions).
        std::fill(inside.begin(), inside.end(), 0.0);
        for (std::int64_t s = -T; s <= T; ++s) {
          // |x - w s| <= L and 0 <= x <= ceiling.
          const std::int64_t from = std::max<std::int64_t>(0, w * s - L), to = std::min(p.ceiling, w * s + L);
          const double hr = last_re[static_cast<std::size_t>(s + T)], hi = last_im[static_cast<std::size_t>(s + T)];
          const double* cr = conv_re.data() + (L - w * s);
          const double* ci = conv_im.data() + (L - w * s);
          for (std::int64_t x = from; x <= to; ++x) inside[static_cast<std::size_t>(x)] += hr * cr[x] + hi * ci[x];
        }
        for (std::size_t x = 0; x < inside.size(); ++x) out.inside[x] += for_sum * inside[x];
      }
    }
    // The next tuple (in an ordered box, with j[1] <= j[2]).
    int i = d - 1;
    // Ends: i falls to at most -1.
    while (i >= 0 && j[i] == top(i)) --i;
    if (i < 0) break;
    ++j[i];
    for (int m = i + 1; m < d; ++m) j[m] = (ordered_box && m == 2) ? j[1] : first;
  }
  return out;
}

// The two passes: the first, coarse, searched up to about the quantile of
// a sum of independent unconditioned cells (the margins narrow the law);
// the second, fine, up to the union of the lines' quantiles at level
// 1 - (1 - level) / k, which covers.
struct PassPlan {
  double error = 0;
  std::int64_t ceiling = 0;
};
std::array<PassPlan, 2> pass_plans(Rational b, const SparseTableSum& sum, double level) {
  const auto k = double(sum.lines.size());
  const std::int64_t one = discrete_laplace_half_width(b, level);
  const std::int64_t per_line = discrete_laplace_half_width(b, 1 - (1 - level) / k);
  double squares = 0;
  std::int64_t reach = 0;
  for (const SparseLine& line : sum.lines) {
    squares += double(line.weight) * double(line.weight);
    reach += std::llabs(line.weight) * per_line;
  }
  const auto guess = static_cast<std::int64_t>(std::ceil(std::sqrt(squares) * double(one))) + 1;
  return {PassPlan{kFirstPassError, std::min(guess, reach)}, PassPlan{kSecondPassError, reach}};
}

// The certified coverage of [-t, t], t = 0 .. ceiling, from one pass.
struct PassBounds {
  std::vector<double> lower, upper;
};
PassBounds bound_pass(const SparseTableSum& sum, const Pass& p, const PassSums& s, const Interrupts& interrupts) {
  const int d = sum.r - 1;
  const auto k = double(sum.lines.size());
  const long double all = std::pow((long double)p.grid.N, d);
  const double D = double(s.den / all);
  // The numerators' omitted part: the shells beyond the box, and the nodes
  // in it only bounded (their psi^(n-k) bounds their share of every
  // numerator, the cells' masses within T included: psi <= 1).
  const double om_num = p.grid.omitted_num + double(s.pruned / all), om_den = p.grid.omitted_den;
  const double rounding = 100 * sum.n * 0x1p-53 + 4 * double(s.visited) * 0x1p-64 + k * double(2 * p.T + 1) * 0x1p-53;
  // P(some line's cell beyond T, S = 0 mod N): each line's share is the
  // denominator less its cell's mass within T (the cells of one position
  // have one law: the lines are exchangeable).
  double beyond = 0;
  for (const SparseLine& line : sum.lines) {
    if (sum.lines.size() == 1) break;  // nothing truncated (plan_pass)
    const int position = p.one_position ? 0 : line.position;
    beyond += std::max(0.0, double((s.den - s.mass[std::size_t(position)]) / all)) + om_den + om_num + rounding * D;
  }
  if (!(D - om_den - p.tau > 0)) throw OutOfRange("the sum's law could not be computed to its stated accuracy");
  PassBounds out;
  long double A = 0;
  for (std::size_t t = 0; t < s.inside.size(); ++t) {
    interrupts.poll_every(t);
    A += (t == 0 ? 1 : 2) * s.inside[t];
    const double u = double(A / all);
    const double lo = (u - om_num - p.tau) / (D + om_den) * (1 - rounding);
    const double hi = (u + beyond + om_num) / (D - om_den - p.tau) * (1 + rounding);
    out.lower.push_back(std::clamp(next_down(lo), 0.0, 1.0));
    out.upper.push_back(std::clamp(next_up(hi), 0.0, 1.0));
  }
  return out;
}

// The smallest t whose lower bound reaches the level; exact when t - 1's
// upper bound is below it.
std::optional<Quantile> smallest_covered(const PassBounds& c, double level) {
  for (std::size_t t = 0; t < c.lower.size(); ++t)
    if (c.lower[t] >= level) {
      Quantile q;
      q.half_width = static_cast<std::int64_t>(t);
      q.coverage_lower = c.lower[t];
      q.narrower_upper = t == 0 ? 0 : c.upper[t - 1];
      q.exact = q.narrower_upper < level;
      return q;
    }
  return std::nullopt;
}

}  // namespace

std::optional<SparseTableSum> sparse_table_sum(int r, double n,
                                               const std::vector<std::pair<LinePattern, double>>& patterns) {
  SparseTableSum out;
  out.r = r;
  out.n = n;
  std::int64_t total = 0;
  for (const auto& [p, lines] : patterns) {
    // One cell up to a constant: one nonzero entry (the last cell's is 0),
    // or all r - 1 entries equal (the last cell, weight minus that).
    int nonzero = 0, at = 0;
    bool equal = true;
    for (int i = 0; i + 1 < r; ++i) {
      if (p[i] != 0) ++nonzero, at = i;
      equal = equal && p[i] == p[0];
    }
    SparseLine line;
    if (nonzero == 1) {
      line = {at, p[at]};
    } else if (equal && p[0] != 0) {
      line = {r - 1, -p[0]};
    } else {
      return std::nullopt;
    }
    if (!(lines >= 1 && double(out.lines.size()) + lines <= double(kMaxSparseLines))) return std::nullopt;
    if (std::llabs(line.weight) > kMaxSparseWeight) return std::nullopt;
    // Ends: lines is at most kMaxSparseLines (checked above).
    for (double m = 0; m < lines; ++m) out.lines.push_back(line);
    total += std::llabs(line.weight) * static_cast<std::int64_t>(lines);
    if (total > kMaxSparseWeight) return std::nullopt;
  }
  if (out.lines.empty()) return std::nullopt;
  return out;
}

double sparse_sum_least_work(Rational b, const SparseTableSum& sum, double level, const Interrupts& interrupts) {
  const PassPlan plan = pass_plans(b, sum, level)[0];
  return plan_pass(b, sum, plan.error, plan.ceiling, interrupts).least;
}

Quantile sparse_sum_quantile(Rational b, const SparseTableSum& sum, double level, const Interrupts& interrupts,
                             double max_work, double& work) {
  check_level(level);
  if (sum.r < 3 || sum.r > kMaxLines || sum.lines.empty() || sum.lines.size() > kMaxSparseLines)
    throw InvalidArgument("a sparse sum takes one cell from each of 1 to 8 lines of a table of 3 or 4 levels");
  if (sum.n > kDoubleLines) throw TooLarge("the table is too long for the law of a sum of its cells");
  work = 0;
  std::optional<Quantile> found;
  for (const PassPlan& plan : pass_plans(b, sum, level)) {
    const Pass p = plan_pass(b, sum, plan.error, plan.ceiling, interrupts);
    PassSums s;
    try {
      if (work + p.least > max_work)
        throw TooLarge("the sum's law needs too many quadrature points",
                       "It would evaluate " + format_double(work + p.least) + " or more.");
      s = run_pass(b, sum, p, max_work - work, interrupts);
    } catch (const TooLarge&) {
      if (found) return *found;  // certified, from the first pass
      work += std::max(p.least, max_work - work + 1);
      throw;
    }
    work += s.spent;
    found = smallest_covered(bound_pass(sum, p, s, interrupts), level);
    if (found && found->exact) return *found;
  }
  if (found) return *found;
  throw OutOfRange("the sum's law does not reach the level within its ceiling");
}

}  // namespace invariant_dp::accuracy
