// Exact l1 noise on 3 x n and n x 3 tables with both margins; the law, the
// sampler and the argument for exactness are in three_line_table.hpp.
#include "three_line_table.hpp"

#include <map>
#include <memory>
#include <string>

#include "../errors.hpp"
#include "bernoulli_exp.hpp"
#include "composition_total.hpp"
#include "conditioned_laplace.hpp"
#include "discrete_laplace.hpp"
#include "lazy_bernoulli.hpp"
#include "negative_binomial_coin.hpp"
#include "table_lines.hpp"
#include "two_line_table.hpp"

namespace invariant_dp {
namespace {

// A single geometric draw above this is refused (probability below
// exp(-2^60 / h) with h < 2^50: nil), so sums of n of them stay far inside
// int64 for n < 2^32.
constexpr std::int64_t kMaxDraw = std::int64_t{1} << 60;

void add_checked(std::int64_t& sum, std::int64_t x) {
  if (__builtin_add_overflow(sum, x, &sum)) throw OutOfRange("a three-line table's noise does not fit in a bigint");
}

// h (1 - exp(-1/h)) for h = num/den, enclosed.
ProbabilityBounds inside_kept_bounds(Rational h) {
  return [h](mpfr_prec_t prec) {
    const Interval hh = div(exact(prec, h.num), h.den);
    return mul(hh, neg(expm1(neg(div(exact(prec, h.den), h.num)))));
  };
}

class ThreeLineSampler {
 public:
  // half = b/2: Geo and K have scale h, rho = exp(-1/h).
  ThreeLineSampler(Rational half, std::size_t n)
      : half_(half),
        rho_rate_{half.den, half.num},
        long_plateaus_(half.num > half.den),
        inside_kept_(inside_kept_bounds(half)),
        coin_(rho_rate_, n),
        u_(n),
        v_(n),
        parts_(n) {}

  // Fills u and v (the table's first two lines; the third is -u - v).
  void sample(RandomSource& rng, const Interrupts& interrupts, bool restart_whole = true) {
    for (;;) {
      interrupts.poll();
      if (!first_line(rng, interrupts)) continue;
      for (;;) {
        if (second_line(rng, interrupts)) return;
        if (restart_whole) break;
        interrupts.poll();
      }
    }
  }
  const std::vector<std::int64_t>& u() const { return u_; }
  const std::vector<std::int64_t>& v() const { return v_; }

 private:
  bool rho_coin(RandomSource& rng) const { return sample_bernoulli_exp_neg(rng, rho_rate_); }

  std::int64_t geometric(RandomSource& rng) const {
    const Uint128 g = sample_discrete_geometric(rng, half_);
    if (g > static_cast<Uint128>(kMaxDraw)) throw OutOfRange("a three-line table's noise does not fit in a bigint");
    return static_cast<std::int64_t>(g);
  }

  // B of (I1): one of the terms 1, rho, rho, rho^2 | rho, rho of
  // (1 + rho)^2 + 2 rho, uniformly, kept with probability its value.
  bool pair_of_laplace(RandomSource& rng) const {
    static constexpr int kPower[6] = {0, 1, 1, 2, 1, 1};
    // Ends: a pass keeps a term with probability ((1 + rho)^2 + 2 rho) / 6 >= 1/6.
    for (;;) {
      const std::uint64_t term = rng.uniform_below(6);
      bool kept = true;
      for (int i = 0; i < kPower[term] && kept; ++i) kept = rho_coin(rng);
      if (kept) return term < 4;
    }
  }

  // C ~ alpha_L on {0..L}: weight 1 at the ends, 1 - rho inside. For
  // h <= 1 a uniform point kept inside with probability 1 - rho >= 1 - 1/e.
  // For h > 1 that would take about min(L, h) / 2 tries (10^9 at a tiny
  // epsilon), so the point is proposed as an end with probability 2h / (2h
  // + L - 1) and as a uniform inside point otherwise, and an inside point is
  // kept with probability h (1 - rho) = h (1 - exp(-1/h)) in [1 - 1/(2h), 1]:
  // the weights 1 : (1 - rho) are those of (2h : L - 1) times (1 : h (1 -
  // rho)) per point, so the kept point has law alpha_L, and a try succeeds
  // with probability at least 1/2.
  std::int64_t plateau_offset(RandomSource& rng, std::uint64_t length) const {
    if (length == 0) return 0;
    if (length == 1) return static_cast<std::int64_t>(rng.uniform_below(2));
    // Ends: each pass keeps its point with probability at least 1/2 (above).
    for (;;) {
      if (!long_plateaus_) {
        const std::uint64_t c = rng.uniform_below(length + 1);
        if (c == 0 || c == length || !rho_coin(rng)) return static_cast<std::int64_t>(c);
        continue;
      }
      // (L - 1) den / (2 num + (L - 1) den) < 2^127: L < 2^62, num and den < 2^64.
      const Uint128 inside = static_cast<Uint128>(length - 1) * half_.den;
      if (!sample_bernoulli_ratio(rng, inside, inside + 2 * static_cast<Uint128>(half_.num)))
        return rng.fair_bit() ? static_cast<std::int64_t>(length) : 0;
      const std::uint64_t c = 1 + rng.uniform_below(length - 1);
      if (inside_kept_.sample(rng)) return static_cast<std::int64_t>(c);
    }
  }

  // Adds a uniform composition of total into n parts to line, after the
  // coin for the total (false: the trial is rejected).
  bool close_line(RandomSource& rng, std::int64_t total, std::vector<std::int64_t>& line,
                  const Interrupts& interrupts) {
    if (total < 0 || !coin_.accept(rng, static_cast<std::uint64_t>(total))) return false;
    if (static_cast<std::uint64_t>(total) > kMaxCompositionTotal)
      throw OutOfRange("a three-line table's noise does not fit in a bigint");
    sample_uniform_composition(rng, static_cast<std::uint64_t>(total), parts_, interrupts);
    for (std::size_t j = 0; j < line.size(); ++j) line[j] += static_cast<std::int64_t>(parts_[j]);
    return true;
  }

  // Step 1: u = P - M + B D', sum u = 0.
  bool first_line(RandomSource& rng, const Interrupts& interrupts) {
    std::int64_t total = 0;  // sum M - sum B D' = the sum P must have
    for (std::size_t j = 0; j < u_.size(); ++j) {
      interrupts.poll_every(j);
      const std::int64_t m = geometric(rng);
      const std::int64_t extra = pair_of_laplace(rng) ? sample_discrete_laplace(rng, half_) : 0;
      u_[j] = extra - m;
      add_checked(total, -u_[j]);
    }
    return close_line(rng, total, u_, interrupts);
  }

  // Step 2: v = a + C + P' - M' given u, sum v = 0.
  bool second_line(RandomSource& rng, const Interrupts& interrupts) {
    std::int64_t total = 0;  // sum M' - sum (a + C)
    for (std::size_t j = 0; j < v_.size(); ++j) {
      interrupts.poll_every(j);
      // |u| < 2^62: a composition part plus a few draws; a = min(0, -u).
      const std::int64_t u = u_[j];
      const std::int64_t low = u > 0 ? -u : 0;
      const std::uint64_t length = static_cast<std::uint64_t>(u < 0 ? -u : u);
      const std::int64_t c = plateau_offset(rng, length);  // drawn before M', in this order
      v_[j] = low + c - geometric(rng);
      add_checked(total, -v_[j]);
    }
    return close_line(rng, total, v_, interrupts);
  }

  Rational half_;
  Rational rho_rate_;    // 1/h
  bool long_plateaus_;   // h > 1
  FixedBernoulli inside_kept_;  // h (1 - exp(-1/h))
  NegativeBinomialCoin coin_;
  std::vector<std::int64_t> u_, v_;
  std::vector<std::uint64_t> parts_;
};

// The three lines of a 3 x n table are its rows, of an n x 3 its columns.
TableLines three_lines(const LatticeTable& table) { return TableLines(table, table.shape[0] == 3); }

void write_table(const TableLines& lines, const ThreeLineSampler& sampler, const NoiseOutput& z,
                 const Interrupts& interrupts) {
  for (std::size_t t = 0; t < lines.length(); ++t) {
    interrupts.poll_every(t);
    const std::int64_t u = sampler.u()[t], v = sampler.v()[t];
    std::int64_t w = 0;
    if (__builtin_add_overflow(u, v, &w)) throw OutOfRange("a three-line table's noise does not fit in a bigint");
    z.write(lines.cell(0, t), u);
    z.write(lines.cell(1, t), v);
    z.write(lines.cell(2, t), -w);
  }
}

}  // namespace

bool is_three_line_table(const LatticeTable& table) {
  return table.shape.size() == 2 && (table.shape[0] == 3 || table.shape[1] == 3) &&
         table.cells.size() == table.shape[0] * table.shape[1];
}

void sample_laplace_on_three_line_tables(RandomSource& rng, Rational scale, const std::vector<LatticeTable>& tables,
                                         std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("laplace scale must be positive");
  check_table_cells(tables, n_cells, z, interrupts);
  for (const LatticeTable& table : tables)
    if (!is_three_line_table(table))
      throw InvalidArgument("an exact three-line table sampler needs 3 x n or n x 3 tables");
  const Rational half = half_of(scale);
  // One sampler per line length (its coin finds the negative binomial's
  // mode once), built for every table before anything is drawn, so a size
  // past the limits is refused before the noise of any table is written.
  std::map<std::size_t, std::unique_ptr<ThreeLineSampler>> samplers;
  for (const LatticeTable& table : tables) {
    if (pinned_table(table)) continue;
    auto& sampler = samplers[three_lines(table).length()];
    if (!sampler) sampler = std::make_unique<ThreeLineSampler>(half, three_lines(table).length());
  }
  for (const LatticeTable& table : tables) {
    interrupts.poll();
    if (pinned_table(table)) {
      write_zero_noise(table, z, interrupts);
      continue;
    }
    const TableLines lines = three_lines(table);
    ThreeLineSampler& sampler = *samplers[lines.length()];
    sampler.sample(rng, interrupts);
    write_table(lines, sampler, z, interrupts);
  }
}

void sample_three_line_without_restart(RandomSource& rng, Rational scale, std::size_t n, std::size_t count,
                                       std::int64_t* z, const Interrupts& interrupts) {
  if (n < 2) throw InvalidArgument("the three-line power check needs n >= 2");
  ThreeLineSampler sampler(half_of(scale), n);
  for (std::size_t k = 0; k < count; ++k, z += 3 * n) {
    sampler.sample(rng, interrupts, false);
    for (std::size_t t = 0; t < n; ++t) {
      z[t] = sampler.u()[t];
      z[n + t] = sampler.v()[t];
      z[2 * n + t] = -(sampler.u()[t] + sampler.v()[t]);
    }
  }
}

}  // namespace invariant_dp
