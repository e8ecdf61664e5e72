// The computed covariance scale of complete two-way tables
// (accuracy/table_covariance_scale.hpp; DERIVATIONS.md there, section 12)
// against Monte Carlo on larger tables than enumeration reaches: the exact
// three-line sampler of 3 x 100 l1 tables, the table chain of 4 x 100 l1
// tables and of 4 x 30 lattice Gaussian tables (independent chains, each
// estimate averaged over its sweeps as a release pools its sd), and the
// scale integer_laplace releases publish (noise.covariance_scale): the
// computed one where it is within a release's work, else their estimate
// from further exact draws.
//
// Each check: the sample mean of independent estimates (tables, or chains,
// or releases) within kZ standard errors of the computed c (kZ = 4.8916,
// false-failure rate 1e-6; the standard error from the estimates' spread).
// Power: a wrong scale fails the same check: the computed scale of a shorter
// table (c grows with the long side), or for the Gaussian the continuous
// sigma^2 (the upper end of section 3d's certified interval).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "accuracy/published_law.hpp"
#include "accuracy/table_covariance_scale.hpp"
#include "coverage_checks.hpp"
#include "mcmc/table_swap_chain.hpp"
#include "mechanisms/release.hpp"
#include "random_source.hpp"
#include "samplers/three_line_table.hpp"
#include "table_builder.hpp"

namespace invariant_dp::accuracy {
namespace {

using coverage::kZ;

struct Estimates {
  double n = 0, sum = 0, squares = 0;
  void add(double x) {
    n += 1;
    sum += x;
    squares += x * x;
  }
  double mean() const { return sum / n; }
  double standard_error() const { return std::sqrt(std::max(0.0, squares / n - mean() * mean()) / (n - 1)); }
  double z(double c) const { return (mean() - c) / standard_error(); }
};

void expect_scale(const std::string& name, const Estimates& e, double computed, double wrong,
                  const std::string& wrong_name) {
  std::printf("[stat] %-40s Monte Carlo %.5f +/- %.5f (%.0f estimates), computed %.5f (z %.2f); %s %.5f (z %.2f)\n",
              name.c_str(), e.mean(), e.standard_error(), e.n, computed, e.z(computed), wrong_name.c_str(), wrong,
              e.z(wrong));
  EXPECT_LE(std::abs(e.z(computed)), kZ) << name;
  EXPECT_GT(std::abs(e.z(wrong)), kZ) << "power: " << name << " against " << wrong_name;
}

LatticeTable whole_table(std::size_t r, std::size_t c, std::size_t first_cell = 0) {
  LatticeTable t;
  t.shape = {r, c};
  for (std::size_t i = 0; i < r * c; ++i) t.cells.push_back(first_cell + i);
  return t;
}

// Sum of z^2 over the table's cells divided by cells (1 - 1/r)(1 - 1/c):
// an unbiased estimate of c from one table.
double table_estimate(const std::int64_t* z, std::size_t r, std::size_t c) {
  double s = 0;
  for (std::size_t i = 0; i < r * c; ++i) s += double(z[i]) * double(z[i]);
  return s / (double(r * c) * (1 - 1.0 / double(r)) * (1 - 1.0 / double(c)));
}

TEST(StatTableCovarianceScale, ThreeLineLaplaceTablesByTheExactSampler) {
  const Rational b{3, 2};
  const std::size_t r = 3, c = 100, per_call = 500;
  std::vector<LatticeTable> tables;
  for (std::size_t t = 0; t < per_call; ++t) tables.push_back(whole_table(r, c, t * r * c));
  auto rng = make_seeded_random_source(81);
  std::vector<std::int64_t> z(per_call * r * c);
  Estimates e;
  for (int call = 0; call < 8; ++call) {
    sample_laplace_on_three_line_tables(*rng, b, tables, z.size(), NoiseOutput(z.data()), Interrupts());
    for (std::size_t t = 0; t < per_call; ++t) e.add(table_estimate(z.data() + t * r * c, r, c));
  }
  const IntegerNoise noise{IntegerNoise::Kind::laplace, b};
  expect_scale("integer_laplace 3x100, b=3/2 (exact)", e, table_covariance_scale(noise, r, c, Interrupts()).scale,
               table_covariance_scale(noise, r, 20, Interrupts()).scale, "the 3x20 scale");
}

// Independent chains from zero, each burnt in and then averaged over its
// sweeps (the release's estimator of its per-cell sd, pooled over the table).
Estimates chain_estimates(std::size_t r, std::size_t c, const mcmc::SwapChainConfig& config, int chains,
                          int burn_in, int sweeps, std::uint64_t seed) {
  const LatticeTable table = whole_table(r, c);
  const mcmc::TableMoves moves({table}, r * c);
  auto rng = make_seeded_random_source(seed);
  Estimates e;
  for (int k = 0; k < chains; ++k) {
    mcmc::TableSwapChain chain(moves, config);
    chain.run(std::uint64_t(burn_in), *rng, Interrupts());
    double s = 0;
    for (int i = 0; i < sweeps; ++i) {
      chain.run(1, *rng, Interrupts());
      s += table_estimate(chain.z().data(), r, c);
    }
    e.add(s / sweeps);
  }
  return e;
}

TEST(StatTableCovarianceScale, FourLineLaplaceTablesByTheTableChain) {
  mcmc::SwapChainConfig config;
  config.target = mcmc::laplace_l1(2.0 / 3);  // b = 3/2
  config.heat_bath = true;
  config.pair_blocks = true;
  const Estimates e = chain_estimates(4, 100, config, 120, 150, 150, 82);
  const IntegerNoise noise{IntegerNoise::Kind::laplace, {3, 2}};
  expect_scale("integer_laplace 4x100, b=3/2 (chain)", e, table_covariance_scale(noise, 4, 100, Interrupts()).scale,
               table_covariance_scale(noise, 4, 30, Interrupts()).scale, "the 4x30 scale");
}

TEST(StatTableCovarianceScale, FourLineLatticeGaussianTablesByTheTableChain) {
  mcmc::SwapChainConfig config;
  config.target = mcmc::lattice_gaussian(0.5);
  config.heat_bath = false;
  const Estimates e = chain_estimates(4, 30, config, 60, 300, 500, 83);
  const IntegerNoise noise{IntegerNoise::Kind::gaussian, {1, 2}};
  expect_scale("integer_gaussian 4x30, s2=1/2 (chain)", e, table_covariance_scale(noise, 4, 30, Interrupts()).scale,
               0.5, "sigma^2");
}

// The scale integer_laplace releases publish (noise.covariance_scale, from
// their cells' sd), release by release: on a 4 x 60 table at epsilon 2 the
// scale computed at the published target (the same number every release);
// on a 4 x 4 table at epsilon 0.004 (b = 1000) the scale certified by the
// residues' box; at epsilon 1e-5 (b = 400,000), where the grid's side
// would pass 2^24 points, the Monte Carlo estimate from further exact
// draws, against the scale computed at b = 64,000 times (b / 64,000)^2
// (c / b^2 moves by some 3e-6 past b = 400).
std::vector<double> published_scales(std::size_t r, std::size_t c, double epsilon, int releases, Rational& b) {
  const auto table = test_tables::grid({"edu", "county"}, {int(r), int(c)}, std::vector<std::int64_t>(r * c, 20));
  const auto keys = table.keys();
  RawRequest raw;
  raw.mechanism = "integer_laplace";
  raw.epsilon = epsilon;
  raw.margins = {"edu", "county"};
  const ReleaseRequest request = validate_request(raw);
  auto rng = make_seeded_random_source(84);
  std::vector<double> scales;
  for (int k = 0; k < releases; ++k) {
    const ReleaseResult result = run_release(keys, table.counts.data(), request, *rng, Interrupts());
    const PublishedLaw law = read_published_law(result.metadata_json);
    EXPECT_TRUE(law.has_exact_parameter);
    b = law.exact_parameter;
    scales.push_back(law.covariance_scale.of_shape({r, c}));
  }
  return scales;
}

TEST(StatTableCovarianceScale, TheScaleIntegerLaplaceReleasesPublish) {
  Rational b;
  const std::vector<double> computed_by_releases = published_scales(4, 60, 2, 5, b);
  const IntegerNoise noise{IntegerNoise::Kind::laplace, b};
  const TableScale published =
      table_covariance_scale(noise, 4, 60, Interrupts(), kErrorBarScalePoints, kPublishedScaleError);
  for (const double c : computed_by_releases) EXPECT_NEAR(c / published.scale - 1, 0, 1e-12);
  EXPECT_NEAR(published.scale / table_covariance_scale(noise, 4, 60, Interrupts()).scale - 1, 0, 1e-10);

  // A 4 x 4 table at epsilon 0.004 (b = 1000): past the published target's
  // work, its releases publish the certified scale.
  const std::vector<double> certified_by_releases = published_scales(4, 4, 0.004, 3, b);
  const TableScale certified_scale =
      release_table_scale({IntegerNoise::Kind::laplace, b}, 4, 4, Interrupts(), kErrorBarScalePoints);
  EXPECT_GT(certified_scale.quadrature_error, 1e-9);
  for (const double c : certified_by_releases) EXPECT_NEAR(c / certified_scale.scale - 1, 0, 1e-12);

  // At epsilon 1e-5 the grid is refused: the releases publish their
  // estimate, checked against the certified scale at b = 64,000 scaled
  // (its error, below 1e-3, is far inside the estimates' spread).
  Estimates e;
  for (const double c : published_scales(4, 4, 1e-5, 20, b)) e.add(c);
  const IntegerNoise wide{IntegerNoise::Kind::laplace, b};
  EXPECT_THROW(release_table_scale(wide, 4, 4, Interrupts(), kErrorBarScalePoints), TooLarge);
  const double near_b = 64000, ratio = b.to_double() / near_b;
  const auto certified = [&](std::size_t n) {
    return release_table_scale({IntegerNoise::Kind::laplace, {64000, 1}}, 4, n, Interrupts(), kErrorBarScalePoints)
               .scale *
           ratio * ratio;
  };
  expect_scale("integer_laplace 4x4 releases' estimated scale", e, certified(4), certified(10), "the 4x10 scale");
}

}  // namespace
}  // namespace invariant_dp::accuracy
