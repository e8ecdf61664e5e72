// Truncated geometric thresholding (src/core/mechanisms/truncated_geometric.hpp):
// its law against an independent long-double run of the recursion and
// Desfontaines et al.'s closed form, the privacy of each cell's output
// checked by brute force over the counts' noise (the joint derivation), and
// its calibration through dp.privatize's request.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mechanisms/partition_selection.hpp"
#include "request/release_request.hpp"
#include "mechanisms/truncated_geometric.hpp"
#include "random_source.hpp"

namespace invariant_dp {
namespace {

using Real = long double;

// p_0..p_n by the recursion of truncated_geometric.hpp, in long double.
std::vector<Real> reference_law(const TruncatedGeometricParameters& g, std::int64_t n) {
  const Real k = Real(g.moved_cells), e = Real(g.epsilon) / k, d = Real(g.delta) / k;
  Real first = std::exp(e), second = std::exp(e), add_first = d;
  if (g.joint()) {
    const Real b = Real(g.counts_scale.num) / Real(g.counts_scale.den), a = std::exp(-1 / b);
    first = std::exp(e) * std::pow(a, Real(g.max_rows));
    second = std::exp(e) * std::pow(a, Real(g.max_rows - 1));
    add_first = (1 + a) * d;
  }
  std::vector<Real> p = {0};
  for (std::int64_t i = 1; i <= n; ++i) {
    const Real q = p.back();
    p.push_back(std::min({first * q + add_first, second * q + d, 1 - std::exp(-e) * (1 - q - d), Real(1)}));
  }
  return p;
}

double as_double(mpfr_srcptr x) { return mpfr_get_d(x, MPFR_RNDN); }

// The enclosures contain the reference values and are narrow; from the
// first certain 1 on, every p_n is exactly 1.
void expect_law(const TruncatedGeometricParameters& g, std::int64_t n_max) {
  const std::vector<Real> p = reference_law(g, n_max);
  const TruncatedGeometricSelector selector(g, n_max, Interrupts());
  for (std::int64_t n = 0; n <= n_max; ++n) {
    if (n >= selector.certain_from()) {
      EXPECT_GE(double(p[std::size_t(n)]), 1 - 1e-15) << n;
      continue;
    }
    const double tolerance = 1e-15 * std::max(1.0, double(p[std::size_t(n)]));
    EXPECT_LE(selector.lower(n), double(p[std::size_t(n)]) + tolerance) << n;
    EXPECT_GE(selector.upper(n), double(p[std::size_t(n)]) - tolerance) << n;
    EXPECT_LE(selector.upper(n) - selector.lower(n), 1e-15) << n;
    const Interval fine = truncated_geometric_probability(g, std::uint64_t(n), 256, Interrupts());
    EXPECT_LE(as_double(fine.lower()), selector.upper(n)) << n;
    EXPECT_GE(as_double(fine.upper()), selector.lower(n)) << n;
  }
}

TEST(TruncatedGeometric, PlainLawIsDesfontainesRecursionAndClosedForm) {
  const TruncatedGeometricParameters g{1.0, 1e-6, 1, Rational{0, 1}, 1};
  expect_law(g, 60);
  // Below the crossing the law is d (e^(n e) - 1) / (e^e - 1) (DVGM 2022, Thm. 1's first regime).
  const TruncatedGeometricSelector selector(g, 60, Interrupts());
  for (int n = 1; n <= 10; ++n) {
    const double closed = 1e-6 * std::expm1(n * 1.0) / std::expm1(1.0);
    EXPECT_NEAR(selector.lower(n), closed, 1e-12 * closed) << n;
  }
  // Symmetric regimes: p reaches 1 after about twice the steps to 1/2.
  const TruncatedGeometricFigures figures = truncated_geometric_figures(g, Interrupts());
  EXPECT_EQ(figures.units_at_half, 14);  // d (e^14 - 1) / (e - 1) = 0.70 > 1/2 > p_13
  EXPECT_GT(figures.units_always_shown, 2 * figures.units_at_half - 3);
  EXPECT_EQ(selector.certain_from(), figures.units_always_shown);
}

TEST(TruncatedGeometric, JointLawFollowsItsRecursion) {
  for (std::int64_t rows : {1, 3})
    for (std::int64_t k : {1, 4}) {
      const double counts_epsilon = 0.2;
      const Rational b = rational_at_least(double(k * rows) / counts_epsilon);
      expect_law(TruncatedGeometricParameters{1.0, 1e-6, k, b, rows}, 400);
    }
}

// The hockey-stick divergence at e^e between one cell's output laws at n
// and n + 1 units (count m and m + s), computed over the counts' noise.
struct Divergences {
  Real up = 0, down = 0;  // D(n+1 || n), D(n || n+1)
};
// The counts' discrete Laplace law P(Z = z) = (1 - a) / (1 + a) a^|z| on
// |z| <= span, a^span below 1e-26.
struct LaplaceLaw {
  explicit LaplaceLaw(Real a) : span(std::int64_t(60 / (1 - a)) + 8) {
    for (std::int64_t z = 0; z <= span + 8; ++z) mass.push_back((1 - a) / (1 + a) * std::pow(a, Real(z)));
  }
  Real operator()(std::int64_t z) const {
    const auto i = std::size_t(std::llabs(z));
    return i < mass.size() ? mass[i] : 0;
  }
  std::int64_t span;
  std::vector<Real> mass;
};

Divergences divergences(Real q, Real x, Real e, const LaplaceLaw& f, std::int64_t s) {
  Divergences out;
  const Real grow = std::exp(e);
  out.up = std::max(Real(0), (1 - x) - grow * (1 - q));
  out.down = std::max(Real(0), (1 - q) - grow * (1 - x));
  for (std::int64_t y = -f.span; y <= f.span; ++y) {
    out.up += std::max(Real(0), x * f(y - s) - grow * q * f(y));
    out.down += std::max(Real(0), q * f(y) - grow * x * f(y - s));
  }
  return out;
}

// The joint derivation, checked by brute force: between n and n + 1 units,
// for every row move 1 <= s <= R, both divergences stay within d (each
// cell is (e, d)-DP with its count released); for R = 1 one of them is at
// d (or p is 1) at every step: no larger p_n would do (optimality).
TEST(TruncatedGeometric, EachCellOfTheJointLawIsDifferentiallyPrivateWithItsCount) {
  for (std::int64_t rows : {1, 2, 3})
    for (double counts_epsilon : {0.1, 0.5}) {
      const std::int64_t k = 2;
      const Rational b = rational_at_least(double(k * rows) / counts_epsilon);
      const TruncatedGeometricParameters g{1.0, 1e-3, k, b, rows};
      const std::vector<Real> p = reference_law(g, 200);
      const Real e = Real(0.5), d = Real(1e-3) / 2;
      const LaplaceLaw f(std::exp(-Real(b.den) / Real(b.num)));
      int tight = 0;
      for (std::size_t n = 0; n + 1 < p.size() && p[n] < 1; ++n) {
        for (std::int64_t s = 1; s <= rows; ++s) {
          const Divergences div = divergences(p[n], p[n + 1], e, f, s);
          EXPECT_LE(double(div.up), double(d) * (1 + 1e-9)) << "n " << n << " s " << s << " R " << rows;
          EXPECT_LE(double(div.down), double(d) * (1 + 1e-9)) << "n " << n << " s " << s << " R " << rows;
          if (rows == 1 && p[n + 1] < 1 && std::max(div.up, div.down) > d * (1 - 1e-6)) ++tight;
        }
        if (rows == 1 && p[n + 1] < 1) {
          // A slightly larger p_{n+1} breaks one of them.
          const Divergences more = divergences(p[n], p[n + 1] + d * 1e-3, e, f, 1);
          EXPECT_GT(double(std::max(more.up, more.down)), double(d)) << "n " << n;
        }
      }
      if (rows == 1) {
        EXPECT_GT(tight, 10);
      }
    }
}

// The same check catches a wrong law: the plain recursion at the whole
// epsilon, with its count released at epsilon_c, breaks the bound.
TEST(TruncatedGeometric, TheBruteForceCheckCatchesAPlainLawWithCounts) {
  const Rational b = rational_at_least(1 / 0.5);
  const TruncatedGeometricParameters plain{1.0, 1e-3, 1, Rational{0, 1}, 1};
  const std::vector<Real> p = reference_law(plain, 100);
  const LaplaceLaw f(std::exp(-Real(b.den) / Real(b.num)));
  Real worst = 0;
  for (std::size_t n = 0; n + 1 < p.size() && p[n] < 1; ++n)
    worst = std::max(worst, divergences(p[n], p[n + 1], 1, f, 1).up);
  EXPECT_GT(double(worst), 2e-3);
}

TEST(TruncatedGeometric, DrawsAreCertainWherePIsZeroOrOne) {
  const TruncatedGeometricParameters g{2.0, 1e-3, 1, Rational{0, 1}, 1};
  const TruncatedGeometricSelector selector(g, 1000, Interrupts());
  ASSERT_LT(selector.certain_from(), 1000);
  auto rng = make_seeded_random_source(5);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(selector.shown(0, *rng));
    EXPECT_TRUE(selector.shown(selector.certain_from(), *rng));
    EXPECT_TRUE(selector.shown(1000, *rng));
  }
  // A table that stopped at max_units refuses larger counts.
  const TruncatedGeometricSelector short_table(g, 3, Interrupts());
  EXPECT_THROW(short_table.shown(4, *rng), Error);
}

// A law that would not reach 1 within the steps a release may take is
// refused at calibration (22003), before any data is read.
TEST(TruncatedGeometric, RefusesAnEpsilonTooSmallForItsTable) {
  EXPECT_THROW(calibrate_selection(SelectionMethod::TruncatedGeometric, 1e-8, 1e-9, 1, false), OutOfRange);
  EXPECT_NO_THROW(calibrate_selection(SelectionMethod::TruncatedGeometric, 1e-3, 1e-6, 1, false));
}

// ---- through dp.privatize's request --------------------------------------

RawRequest geometric_unit_request(const std::string& mechanism, const std::string& selection,
                                  const std::string& groups) {
  RawRequest raw;
  raw.mechanism = mechanism;
  raw.epsilon = 1.0;
  raw.has_delta = true;
  raw.delta = 1e-6;
  raw.options = {{"partition_selection", selection}, {"neighbours", "add_remove"}};
  raw.has_privacy_unit = true;
  raw.privacy_unit = "person";
  raw.has_bounds = true;
  raw.bounds = {{"max_groups_per_unit", groups}, {"max_rows_per_group", "1"}};
  return raw;
}

TEST(TruncatedGeometric, ParsesTheMethodAndAutoForAnObjectWithoutOne) {
  EXPECT_EQ(parse_partition_selection("truncated_geometric").method, SelectionMethod::TruncatedGeometric);
  EXPECT_EQ(parse_partition_selection("auto").method, SelectionMethod::Auto);
  const SelectionRequest share = parse_partition_selection("{\"budget_share\": 0.8}");
  EXPECT_EQ(share.method, SelectionMethod::Auto);
  EXPECT_DOUBLE_EQ(share.budget_share, 0.8);
  EXPECT_THROW(parse_partition_selection("geometric"), InvalidArgument);
}

// With discrete_laplace counts: the joint law at the release's whole
// epsilon and delta, the counts at (1 - s) epsilon, and the two parts add
// up to what the release states (and a governed release is charged).
TEST(TruncatedGeometric, JointWithDiscreteLaplaceCountsChargesTheWholeBudget) {
  const ReleaseRequest request = validate_request(
      geometric_unit_request("discrete_laplace", "{\"method\": \"truncated_geometric\", \"budget_share\": 0.8}", "1"));
  const SelectionLaw& law = request.selection;
  ASSERT_EQ(law.method, SelectionMethod::TruncatedGeometric);
  EXPECT_TRUE(law.geometric.joint());
  EXPECT_DOUBLE_EQ(law.geometric.epsilon, 1.0);
  EXPECT_DOUBLE_EQ(law.geometric.delta, 1e-6);
  EXPECT_EQ(law.geometric.moved_cells, 1);
  EXPECT_NEAR(request.epsilon, 0.2, 1e-15);
  EXPECT_DOUBLE_EQ(request.delta, 0);
  EXPECT_NEAR(request.total_epsilon(), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(request.total_delta(), 1e-6);
  // The counts' scale in the law is the counts' own: b >= l1 / epsilon_c = 5.
  EXPECT_GE(law.geometric.counts_scale.to_double(), 5.0);
  EXPECT_LT(law.geometric.counts_scale.to_double(), 5.0 + 1e-5);
  const std::string json = selection_json(law);
  EXPECT_NE(json.find("\"calibration\": \"joint"), std::string::npos) << json;
  EXPECT_NE(json.find("\"budget_share\": 0.8"), std::string::npos) << json;
}

// A share so small that the counts would take all of epsilon is refused
// (22003), not calibrated past what the derivation covers.
TEST(TruncatedGeometric, RefusesAShareThatLeavesTheSelectionNothing) {
  EXPECT_THROW(validate_request(geometric_unit_request(
                   "discrete_laplace", "{\"method\": \"truncated_geometric\", \"budget_share\": 1e-17}", "1")),
               OutOfRange);
}

// Any other counts' mechanism: the split, (s epsilon, s delta) for the
// selection when the counts use a delta.
TEST(TruncatedGeometric, SplitFromDiscreteGaussianCounts) {
  const ReleaseRequest request =
      validate_request(geometric_unit_request("discrete_gaussian", "truncated_geometric", "2"));
  const SelectionLaw& law = request.selection;
  ASSERT_EQ(law.method, SelectionMethod::TruncatedGeometric);
  EXPECT_FALSE(law.geometric.joint());
  EXPECT_DOUBLE_EQ(law.geometric.epsilon, 0.5);
  EXPECT_DOUBLE_EQ(law.geometric.delta, 0.5e-6);
  EXPECT_EQ(law.geometric.moved_cells, 2);
  EXPECT_DOUBLE_EQ(request.total_epsilon(), 1.0);
  EXPECT_DOUBLE_EQ(request.total_delta(), 1e-6);
  EXPECT_NE(selection_json(law).find("\"calibration\": \"split"), std::string::npos);
}

// auto: truncated_geometric where units have one cell; dp_sips once units
// reach so many cells that its threshold is the lower; said in the law.
TEST(TruncatedGeometric, AutoChoosesTheSelectorThatShowsCellsWithFewerUnits) {
  const ReleaseRequest one = validate_request(geometric_unit_request("discrete_laplace", "auto", "1"));
  EXPECT_EQ(one.selection.method, SelectionMethod::TruncatedGeometric);
  EXPECT_TRUE(one.selection.chosen_automatically);
  EXPECT_NE(selection_json(one.selection).find("\"chosen_by\": \"auto\""), std::string::npos);
  const ReleaseRequest many = validate_request(geometric_unit_request("discrete_laplace", "auto", "200"));
  EXPECT_EQ(many.selection.method, SelectionMethod::DpSips);
  EXPECT_LT(units_at_half(many.selection),
            units_at_half(
                validate_request(geometric_unit_request("discrete_laplace", "truncated_geometric", "200")).selection));
  EXPECT_NE(selection_json(many.selection).find("\"chosen_by\": \"auto\""), std::string::npos);
}

// At every G, truncated geometric needs fewer units than Laplace
// thresholding at the same budget (each cell's law is the optimal one).
TEST(TruncatedGeometric, ShowsCellsWithFewerUnitsThanLaplaceThresholding) {
  for (int groups : {1, 3, 10}) {
    const SelectionLaw laplace = calibrate_selection(SelectionMethod::Laplace, 0.5, 1e-6, groups, false);
    const SelectionLaw geometric = calibrate_selection(SelectionMethod::TruncatedGeometric, 0.5, 1e-6, groups, false);
    EXPECT_LT(units_at_half(geometric), laplace.threshold) << groups;
  }
}

}  // namespace
}  // namespace invariant_dp
