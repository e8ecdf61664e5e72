// Statistical tests of the exact congenial draws on 2 x n and n x 2 tables
// with both margins (congenial/two_line_congenial.hpp), fixed seeds,
// thresholds from the math:
//  1. against the enumerated law on a 2 x 4 table and its 4 x 2 transpose
//     with zero cells (the support is finite, so nothing is truncated):
//     chi-square goodness of fit at p = 1e-6 on the whole table, N = 5e4.
//     Power, each must be rejected: the same draws against the law at
//     b x 1.1, and draws with the halving of the scale forgotten (t at
//     scale b instead of b/2).
//  2. the congenial paper's 2 x 23 sex-by-age table (Gong and Meng 2020,
//     Table 1) at b = 8 (epsilon = 1: a 2 x 2 swap has l1 norm 4, and the
//     base noise is at epsilon/2): against naive rejection (each t_j drawn
//     from the discrete Laplace at b/2 until it lies in its interval, the
//     table kept iff sum t = 0: exact, slower), N = 1e4 each, two-sample
//     chi-square on |z_00|, z_00 + z_11, max |z_ij| and ||z||_1 at p = 1e-6
//     each. Power: draws at b x 1.15 must be rejected by one of the four.
//  3. the same table: the chain congenial runs on two-way tables today
//     (mcmc/table_swap_chain.hpp, heat-bath 2 x 2 swaps with floors -x,
//     kCongenialTableSweeps = 400 sweeps from the proportional public
//     start), 1200 chains, against 1e4 exact draws: the same four tests;
//     power: the chain at lambda x 1.15. A pass says the chain's law at its
//     default is within what 1200 draws can see of the exact law.
// Assertions expected to pass: 2 + 4 + 4 = 10 at about 1e-6 each: a correct
// sampler fails this file with probability about 1e-5.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "chi_square.hpp"
#include "congenial/chain_starts.hpp"
#include "congenial/two_line_congenial.hpp"
#include "mcmc/table_swap_chain.hpp"
#include "mechanisms/congenial_release.hpp"
#include "random_source.hpp"
#include "samplers/discrete_laplace.hpp"
#include "samplers/two_line_table.hpp"
#include "table_laws.hpp"

namespace invariant_dp {
namespace {

using namespace chi_square_test;
using table_laws::same_table_law;
using table_laws::table_statistics;
using table_laws::TableStatistics;

const std::vector<std::int64_t> kSexByAge = {8, 6, 3, 6, 4, 4, 4, 8, 5, 7, 7,  6, 1, 5, 4, 4,  9, 6, 2, 8, 8, 8, 7,
                                             3, 4, 5, 8, 6, 4, 5, 5, 5, 6, 10, 7, 3, 2, 5, 11, 6, 4, 7, 4, 5, 3, 8};

LatticeTable table(std::size_t r, std::size_t c, std::size_t first = 0) {
  LatticeTable t{{r, c}, std::vector<std::size_t>(r * c)};
  std::iota(t.cells.begin(), t.cells.end(), first);
  return t;
}

// `count` exact draws of z = y - x for one table x (r x c), one after the
// other, all in one call.
std::vector<std::int64_t> exact_noise(const std::vector<std::int64_t>& x, std::size_t r, std::size_t c, Rational b,
                                      std::size_t count, std::uint64_t seed) {
  std::vector<LatticeTable> tables;
  std::vector<std::int64_t> counts;
  for (std::size_t k = 0; k < count; ++k) {
    tables.push_back(table(r, c, k * r * c));
    counts.insert(counts.end(), x.begin(), x.end());
  }
  std::vector<std::int64_t> y(counts.size());
  std::uint64_t proposals = 0;
  auto rng = make_seeded_random_source(seed);
  const auto failed =
      sample_congenial_on_two_line_tables(counts.data(), tables, counts.size(), b, 4096, *rng, {}, y.data(), proposals);
  EXPECT_TRUE(failed.empty());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] -= counts[i];
  std::printf("[stat] %zu x %zu congenial at b = %.3f: %.2f proposals a table\n", r, c, b.to_double(),
              double(proposals) / double(count));
  return y;
}

std::map<std::int64_t, std::int64_t> key_counts_congenial(const std::vector<std::int64_t>& z, std::size_t r,
                                                          std::size_t c) {
  std::map<std::int64_t, std::int64_t> counts;
  for (std::size_t t = 0; t < z.size() / (r * c); ++t) ++counts[table_laws::key(z.data() + t * r * c, r, c)];
  return counts;
}

// The target on the finite set of z with x + z >= 0 and zero margins
// (every free cell within [-max x, max x] covers it).
std::map<std::int64_t, double> congenial_law(const std::vector<std::int64_t>& x, std::size_t r, std::size_t c,
                                             double b) {
  const int radius = int(*std::max_element(x.begin(), x.end()));
  return table_laws::enumerate(r, c, radius, [&](const std::vector<std::int64_t>& z) {
    for (std::size_t i = 0; i < z.size(); ++i)
      if (x[i] + z[i] < 0) return 0.0;
    return std::exp(-double(table_laws::l1(z.data(), z.size())) / b);
  });
}

// ---- 1. the enumerated law -------------------------------------------------

void check_congenial_against_enumeration(const std::vector<std::int64_t>& x, std::size_t r, std::size_t c,
                                         std::uint64_t seed) {
  constexpr std::size_t kDraws = 50000;
  const Rational b{4, 1};
  const auto z = exact_noise(x, r, c, b, kDraws, seed);
  const auto halving_forgotten = exact_noise(x, r, c, Rational{8, 1}, kDraws, seed + 1);
  const std::string shape = std::to_string(r) + " x " + std::to_string(c);
  const ChiSquare fit = goodness_of_fit(congenial_law(x, r, c, 4), key_counts_congenial(z, r, c), kDraws);
  const ChiSquare off = goodness_of_fit(congenial_law(x, r, c, 4.4), key_counts_congenial(z, r, c), kDraws);
  const ChiSquare forgot =
      goodness_of_fit(congenial_law(x, r, c, 4), key_counts_congenial(halving_forgotten, r, c), kDraws);
  report(shape + " congenial exact vs enumerated law", fit);
  report(shape + "   same draws vs law at b x 1.1 (must fail)", off);
  report(shape + "   t at scale b, not b/2 (must fail)", forgot);
  EXPECT_TRUE(fit.passes());
  EXPECT_FALSE(off.passes());
  EXPECT_FALSE(forgot.passes());
}

TEST(StatTwoLineCongenial, MatchesTheEnumeratedLawOn2x4) {
  check_congenial_against_enumeration({2, 0, 5, 1, 1, 3, 0, 4}, 2, 4, 901);
}

TEST(StatTwoLineCongenial, MatchesTheEnumeratedLawOn4x2) {
  check_congenial_against_enumeration({2, 1, 0, 3, 5, 0, 1, 4}, 4, 2, 902);
}

// ---- 2. the paper's table against naive rejection --------------------------

// Naive rejection for a 2 x n table x: t_j from the discrete Laplace at
// b/2 redrawn until -x_0j <= t_j <= x_1j, the whole line kept iff its sum
// is 0.
TableStatistics congenial_naive_rejection(const std::vector<std::int64_t>& x, std::size_t n, Rational b,
                                          std::size_t count, std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  const Rational half = half_of(b);
  TableStatistics s;
  std::vector<std::int64_t> z(2 * n);
  std::uint64_t trials = 0;
  while (s.n < double(count)) {
    ++trials;
    std::int64_t sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      std::int64_t t;
      do t = sample_discrete_laplace(*rng, half);
      while (t < -x[j] || t > x[n + j]);
      z[j] = t;
      z[n + j] = -t;
      sum += t;
    }
    if (sum == 0) s.add(z.data(), 2, n);
  }
  std::printf("[stat] naive rejection, 2 x %zu: acceptance %.4f\n", n, double(count) / double(trials));
  return s;
}

TEST(StatTwoLineCongenial, PapersTableMatchesNaiveRejection) {
  constexpr std::size_t kDraws = 10000;
  const Rational b{8, 1};
  const TableStatistics naive = congenial_naive_rejection(kSexByAge, 23, b, kDraws, 911);
  EXPECT_TRUE(same_table_law(table_statistics(exact_noise(kSexByAge, 2, 23, b, kDraws, 912), 2, 23), naive,
                       "2 x 23 congenial exact vs naive rejection"));
  EXPECT_FALSE(same_table_law(table_statistics(exact_noise(kSexByAge, 2, 23, Rational{46, 5}, kDraws, 913), 2, 23),
                              naive,
                        "2 x 23   exact at b x 1.15 vs naive rejection (must fail)"));
}

// ---- 3. the chain congenial runs today -------------------------------------

TableStatistics chain_noise(const std::vector<std::int64_t>& x, double lambda, std::size_t count, std::uint64_t seed) {
  const std::vector<LatticeTable> tables{table(2, 23)};
  const mcmc::TableMoves moves(tables, x.size());
  std::vector<std::int64_t> floors(x.size()), start_z(x.size());
  const std::vector<std::int64_t> start = proportional_table_start(tables, x.data(), x.size(), {});
  for (std::size_t i = 0; i < x.size(); ++i) {
    floors[i] = -x[i];
    start_z[i] = start[i] - x[i];
  }
  mcmc::TableSwapChain chain(moves, mcmc::SwapChainConfig{mcmc::laplace_l1(lambda), true}, floors);
  auto rng = make_seeded_random_source(seed);
  TableStatistics s;
  for (std::size_t d = 0; d < count; ++d) {
    chain.reset_to(start_z);
    chain.run(kCongenialTableSweeps, *rng, {});
    s.add(chain.z().data(), 2, 23);
  }
  return s;
}

TEST(StatTwoLineCongenial, TableChainAgreesWithTheExactDrawsOnThePapersTable) {
  constexpr std::size_t kDraws = 1200;
  const Rational b{8, 1};
  const TableStatistics exact = table_statistics(exact_noise(kSexByAge, 2, 23, b, 10000, 921), 2, 23);
  EXPECT_TRUE(same_table_law(chain_noise(kSexByAge, 1 / b.to_double(), kDraws, 922), exact,
                       "2 x 23 congenial table chain (400 sweeps) vs exact"));
  EXPECT_FALSE(same_table_law(chain_noise(kSexByAge, 1.15 / b.to_double(), kDraws, 923), exact,
                        "2 x 23   chain at lambda x 1.15 vs exact (must fail)"));
}

}  // namespace
}  // namespace invariant_dp
