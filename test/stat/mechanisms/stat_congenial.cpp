// The congenial mechanism (Gong, Meng 2020, arXiv:2008.10202) against its
// exact law, by enumeration: a 2x3 sex-by-age table in the style of the
// paper's Section 3, x = (2,1,3 | 1,2,2), with
// the total, the female total and the voting-age total (ages 2 and 3) kept,
// plus non-negativity: 94 feasible tables. With epsilon = 2 the base noise
// runs at epsilon/2 = 1 per shortest move (|v|_1 = 2), so b = 2 (0.5 per
// cell); the enumeration's exact cell means are checked against an
// independent one (Python, when the test was written: 1.9200, 1.2715,
// 2.8086, 1.0800, 1.9600, 1.9600).
//
// Each sampler makes N independent releases (a fresh chain per release, from
// its own start: a noisy table for MIS and the walk). Pass criteria, false-failure rate below 1e-6 each:
//   TV(empirical, exact) <= E[TV] + sqrt(ln(1/alpha) / (2N)) + chain bound,
//     E[TV] <= (1/2) sum_s sqrt(p_s (1 - p_s) / N)   (Jensen),
//     the middle term McDiarmid's (one draw moves TV by at most 1/N),
//     chain bound (1 - 1/W)^t, W = max_s pi(s)/q(s_I), which bounds the TV
//     of every chain here after t steps or sweeps: each MIS step, and each
//     lattice sweep (it ends with one), dominates pi/W
//     (independence_sampler.hpp proves it);
//   chi-square goodness of fit at alpha = 1e-6 (chi_square.hpp).
// Power: the same sampler run with a wrong scale (b = 2.6) fails both.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <vector>

#include "chi_square.hpp"
#include "invariants/invariant_model.hpp"
#include "mechanisms/congenial_release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::TestTable;

namespace {

constexpr int kCongenialDraws = 20000;
constexpr double kCongenialAlpha = 1e-6;

using Table = std::vector<std::int64_t>;

TestTable sex_by_age(const Table& counts) {
  TestTable t{{"sex", "age", "voting"}, {}, counts};
  for (int s = 0; s < 2; ++s)
    for (int a = 0; a < 3; ++a) {
      t.text.push_back(s ? "M" : "F");
      t.text.push_back("age" + std::to_string(a));
      t.text.push_back(a == 0 ? "minor" : "adult");
    }
  return t;
}

ReleaseRequest congenial(std::vector<std::string> margins, const std::string& sampler) {
  RawRequest raw;
  raw.mechanism = "congenial";
  raw.epsilon = 2;
  raw.margins = std::move(margins);
  raw.options = {{"sampler", sampler}};
  return validate_request(raw);
}

// Every non-negative table with the target's totals, and pi on them.
std::map<Table, double> exact_law(const CongenialTarget& target, double b) {
  std::int64_t total = 0;
  for (auto v : target.center) total += v;
  std::map<Table, double> law;
  Table y(6);
  double z = 0;
  for (y[0] = 0; y[0] <= total; ++y[0])
    for (y[1] = 0; y[1] <= total; ++y[1])
      for (y[2] = 0; y[2] <= total; ++y[2])
        for (y[3] = 0; y[3] <= total; ++y[3])
          for (y[4] = 0; y[4] <= total; ++y[4])
            for (y[5] = 0; y[5] <= total; ++y[5]) {
              std::vector<double> yd(y.begin(), y.end());
              if (invariant_residual(target.invariants, yd.data()) != 0) continue;
              double l1 = 0;
              for (int i = 0; i < 6; ++i) l1 += std::fabs(double(y[i] - target.center[i]));
              law[y] = std::exp(-l1 / b);
              z += law[y];
            }
  for (auto& [k, p] : law) p /= z;
  return law;
}

// W = max pi(s) / q(s_I) for the independence proposal of the setup.
double independence_bound_w(const CongenialSetup& setup, const std::map<Table, double>& law) {
  const double a = setup.proposal_a;
  double w = 0;
  for (const auto& [y, p] : law) {
    double q = 1;
    for (auto i : setup.completion->free_cells())
      q *= (1 - a) / (1 + a) * std::pow(a, std::fabs(double(y[i] - setup.target.center[i])));
    w = std::max(w, p / q);
  }
  return w;
}

struct Verdict {
  double tv = 0, threshold = 0;
  chi_square_test::ChiSquare chi2;
};

Verdict compare(const std::map<Table, double>& law, const std::map<Table, std::int64_t>& counts, double chain_tv) {
  Verdict v;
  double expected_tv = 0;
  for (const auto& [y, p] : law) expected_tv += 0.5 * std::sqrt(p * (1 - p) / kCongenialDraws);
  v.threshold = expected_tv + std::sqrt(std::log(1 / kCongenialAlpha) / (2.0 * kCongenialDraws)) + chain_tv;
  for (const auto& [y, p] : law) {
    const auto it = counts.find(y);
    v.tv += 0.5 * std::fabs((it == counts.end() ? 0.0 : double(it->second) / kCongenialDraws) - p);
  }
  for (const auto& [y, c] : counts)
    if (!law.count(y)) v.tv += 0.5 * double(c) / kCongenialDraws;
  v.chi2 = chi_square_test::goodness_of_fit(law, counts, kCongenialDraws);
  return v;
}

std::map<Table, std::int64_t> draws(CongenialSetup& setup, std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  std::map<Table, std::int64_t> counts;
  SamplerReport report;
  for (int k = 0; k < kCongenialDraws; ++k) ++counts[draw_congenial(setup, *rng, Interrupts(), report)];
  return counts;
}

struct Fixture {
  TestTable table;
  ReleaseRequest request;
  std::unique_ptr<InvariantModel> model;
  CongenialSetup setup;
  std::map<Table, double> law;
};

Fixture make(const Table& counts, std::vector<std::string> margins, const std::string& sampler) {
  Fixture f{sex_by_age(counts), congenial(std::move(margins), sampler), nullptr, {}, {}};
  const auto keys = f.table.keys();
  f.model = std::make_unique<InvariantModel>(keys, margins_by_index(keys, f.request), Interrupts());
  f.setup = prepare_congenial(f.table.counts.data(), f.request, *f.model, Interrupts());
  f.law = exact_law(f.setup.target, f.setup.law.exact_parameter.to_double());
  return f;
}

void expect_matches(const char* name, const Verdict& v) {
  std::cout << "[stat] congenial " << name << ": TV = " << v.tv << " (threshold " << v.threshold << ")\n";
  chi_square_test::report(std::string("congenial ") + name, v.chi2);
  EXPECT_LT(v.tv, v.threshold) << name;
  EXPECT_TRUE(v.chi2.passes()) << name;
}

void expect_rejected(const char* name, const Verdict& v) {
  std::cout << "[stat] congenial " << name << " (wrong law): TV = " << v.tv << " (threshold " << v.threshold
            << "), chi2 = " << v.chi2.statistic << " (critical " << v.chi2.critical << ")\n";
  EXPECT_GT(v.tv, v.threshold) << name;
  EXPECT_FALSE(v.chi2.passes()) << name;
}

const Table kSmallTable = {2, 1, 3, 1, 2, 2};
const std::vector<std::string> kSmallMargins = {"", "sex", "voting"};

}  // namespace

TEST(CongenialExactLaw, EnumerationMatchesAnIndependentOne) {
  Fixture f = make(kSmallTable, kSmallMargins, "mis");
  ASSERT_EQ(f.setup.law.exact_parameter.num, 2u);
  ASSERT_EQ(f.setup.law.exact_parameter.den, 1u);
  ASSERT_EQ(f.law.size(), 94u);
  const double want[] = {1.9200, 1.2715, 2.8086, 1.0800, 1.9600, 1.9600};
  for (int i = 0; i < 6; ++i) {
    double mean = 0;
    for (const auto& [y, p] : f.law) mean += p * double(y[i]);
    EXPECT_NEAR(mean, want[i], 5e-5) << "cell " << i;
  }
}

TEST(CongenialExactLaw, IndependenceSamplerMatches) {
  Fixture f = make(kSmallTable, kSmallMargins, "mis");
  const double w = independence_bound_w(f.setup, f.law);
  // Steps for a chain TV bound of 1e-3.
  f.setup.iterations = static_cast<std::uint64_t>(std::ceil(std::log(1e-3) / std::log(1 - 1 / w)));
  std::cout << "[stat] congenial mis: W = " << w << ", steps per release = " << f.setup.iterations << "\n";
  expect_matches("mis", compare(f.law, draws(f.setup, 101), 1e-3));

  // Power: the chain aimed at b = 2.6 instead of 2.
  f.setup.target.inverse_scale = 1 / 2.6;
  expect_rejected("mis", compare(f.law, draws(f.setup, 102), 1e-3));
}

TEST(CongenialExactLaw, LatticeWalkMatches) {
  Fixture f = make(kSmallTable, kSmallMargins, "lattice");
  ASSERT_TRUE(f.setup.completion != nullptr);
  const double w = independence_bound_w(f.setup, f.law);
  f.setup.iterations = static_cast<std::uint64_t>(std::ceil(std::log(1e-3) / std::log(1 - 1 / w)));
  std::cout << "[stat] congenial lattice: " << f.setup.moves.size() << " moves, sweeps per release = "
            << f.setup.iterations << "\n";
  expect_matches("lattice", compare(f.law, draws(f.setup, 201), 1e-3));

  // The local moves alone (no independence proposal, so no bound: the
  // chain's own error must be invisible at this sample size after 200
  // sweeps) keep the same law.
  f.setup.completion.reset();
  f.setup.iterations = 200;
  expect_matches("lattice, local moves only", compare(f.law, draws(f.setup, 202), 0));

  f.setup.target.inverse_scale = 1 / 2.6;
  expect_rejected("lattice", compare(f.law, draws(f.setup, 203), 0));
}

// One margin (row totals) on a sparse table, so non-negativity binds:
// F row total 1, M row total 3, 3 x 10 = 30 feasible tables.
TEST(CongenialExactLaw, RejectionAndAutoAreExactOnPartitions) {
  const Table sparse = {0, 1, 0, 2, 0, 1};
  for (const char* sampler : {"rejection", "auto"}) {
    Fixture f = make(sparse, {"sex"}, sampler);
    ASSERT_EQ(f.law.size(), 30u);
    expect_matches(sampler, compare(f.law, draws(f.setup, 301), 0));
  }
  Fixture wrong = make(sparse, {"sex"}, "rejection");
  wrong.setup.law.exact_parameter = {13, 5};  // proposals from b = 2.6
  expect_rejected("rejection", compare(wrong.law, draws(wrong.setup, 302), 0));
}

// Without margins the congenial law is a product of independent truncated
// discrete Laplace laws, P(y_i) proportional to exp(-|y_i - x_i| / b) on
// y_i >= 0, so each cell's law is known in closed form. MIS and the lattice
// walk, when named, must reach it at counts from 0 to 10^5 (they once
// started at the zero table and never left it: MIS released 0 for every
// count of 100 or more, the walk about 950 for 10^5). Each cell's
// marginal is tested by chi-square at 1e-6 / 5 (Bonferroni over the cells),
// after 100 steps or sweeps from the noisy start: the chain's distance from
// the law is at most (1 - 1/W)^100 with W = prod_i 1 / P(x_i + Z >= 0) <= 2.7
// here (each step or sweep ends with an independence proposal from the base
// law), below 1e-17. Power: the same draws fail against the law at b = 2.6.
TEST(CongenialNoMargin, ChainsReachTheExactLawAtLargeCounts) {
  const std::vector<std::int64_t> x = {0, 1, 3, 150, 100000};
  TestTable table{{"cell"}, {}, x};
  for (std::size_t i = 0; i < x.size(); ++i) table.text.push_back("c" + std::to_string(i));
  const auto keys = table.keys();
  for (const char* sampler : {"mis", "lattice"}) {
    const ReleaseRequest request = congenial({}, sampler);
    const InvariantModel model(keys, margins_by_index(keys, request), Interrupts());
    CongenialSetup setup = prepare_congenial(table.counts.data(), request, model, Interrupts());
    setup.iterations = 100;
    const double b = setup.law.exact_parameter.to_double();
    std::vector<std::map<Table, std::int64_t>> cells(x.size());
    auto rng = make_seeded_random_source(sampler[0] == 'm' ? 401 : 402);
    SamplerReport report;
    for (int k = 0; k < kCongenialDraws; ++k) {
      const Table y = draw_congenial(setup, *rng, Interrupts(), report);
      for (std::size_t i = 0; i < x.size(); ++i) ++cells[i][Table{y[i]}];
    }
    // The cell's law at scale s, on y >= 0 within 60 s of x (the rest is below 1e-26).
    const auto law_at = [&](std::size_t i, double s) {
      std::map<Table, double> law;
      double z = 0;
      const std::int64_t reach = std::int64_t(60 * s) + 1;
      for (std::int64_t y = std::max<std::int64_t>(0, x[i] - reach); y <= x[i] + reach; ++y) {
        law[Table{y}] = std::exp(-std::fabs(double(y - x[i])) / s);
        z += law[Table{y}];
      }
      for (auto& [k, p] : law) p /= z;
      return law;
    };
    bool wrong_rejected = false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const auto fit = chi_square_test::goodness_of_fit(law_at(i, b), cells[i], kCongenialDraws);
      chi_square_test::report(std::string("congenial no margin ") + sampler + ", cell " + std::to_string(x[i]), fit);
      EXPECT_LT(fit.statistic, chi_square_test::chi2_critical(fit.df, kCongenialAlpha / double(x.size())))
          << sampler << ", count " << x[i];
      const auto wrong = chi_square_test::goodness_of_fit(law_at(i, 2.6 / 2 * b), cells[i], kCongenialDraws);
      wrong_rejected |= wrong.statistic > chi_square_test::chi2_critical(wrong.df, kCongenialAlpha / double(x.size()));
    }
    EXPECT_TRUE(wrong_rejected) << sampler << ": the draws also fit the law at 1.3 b";
  }
}
