// Coverage of dp.privatize's per-cell intervals (options {"interval": 0.9})
// through the C boundary: for each family, 10,000 releases of a fixed table
// drawn by idp_release (seeded), and per release the share of its rows whose
// [lower, upper] holds the row's true count, pooled over the releases
// (coverage_checks.hpp, false-failure rate 1e-6 per check). Against what
// the interval's kind promises: an exact interval of a known marginal law
// (the discrete Laplace's, the normal's) covers with that law's probability
// of [-t, t], within the binomial tolerance; the other exact ones (the
// conditioned groups' quantiles) and the certified ones at least the level
// minus the tolerance. Families: independent cells, one margin (exact), a
// 2 x n table (exact), two margins of a lattice Gaussian (exact: its tilt
// decides), subspace_gaussian and subspace_laplace (exact: the normal
// quantile, the quantile of a combination of Laplace variables; one margin
// and both), project_l2 (exact: the quantile of its lattice law; one margin
// and both), cascade (exact) and integer_cascade (exact: its ratio R
// decides) over a hierarchy with its regions exact.
// Power: the same intervals shrunk by 20 % fail the same check.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "accuracy/published_law.hpp"
#include "capi/invariant_dp_core.h"
#include "coverage_checks.hpp"
#include "prepared_release.hpp"
#include "release_table_rows.hpp"
#include "table_request.hpp"

namespace invariant_dp {
namespace {

using test_tables::ReleaseTableRows;
using test_tables::Request;
using test_tables::TestTable;

constexpr int kIntervalReleases = 10000;
constexpr double kIntervalLevel = 0.9;

std::vector<std::int64_t> counts(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::int64_t> out(n);
  for (auto& c : out) c = std::int64_t(gen() % 40);
  return out;
}

// What the kind promises: the check of the intervals as released, and of
// the same intervals 20 % narrower.
struct Expectation {
  bool conservative = true;
  double exact_coverage = kIntervalLevel;  // exact: the law's probability of [-t, t]
  bool power = false;              // the narrower intervals must fail
};

class IntervalFamily {
 public:
  // The request with {"interval": 0.9} added.
  IntervalFamily(std::string name, TestTable table, Request request, std::uint64_t seed)
      : name_(std::move(name)),
        release_(std::move(table), with_interval(std::move(request)), {true, seed, 0x1e7a0000 + seed}) {}

  // The first release: the rows' true counts, the interval's kind and method.
  std::string prepare() {
    idp_release_table* out = draw();
    first_ = std::make_unique<ReleaseTableRows>(release_.table(), *out);
    idp_free_release(out);
    const std::string law = first_->law();
    const std::size_t at = law.find("\"kind\": \"", law.find("\"interval\""));
    kind_ = law.substr(at + 9, law.find('"', at + 9) - at - 9);
    return kind_;
  }
  const std::string& law() const { return first_->law(); }

  void run(const Expectation& e) {
    coverage::Check as_released, narrower;
    as_released.name = name_ + " [" + kind_ + "]";
    narrower.name = name_ + ", intervals x 0.8";
    as_released.conservative = narrower.conservative = e.conservative;
    as_released.expected = narrower.expected = e.conservative ? kIntervalLevel : e.exact_coverage;
    std::size_t off_centre = 0;
    for (int release = 0; release < kIntervalReleases; ++release) {
      idp_release_table* out = draw();
      ASSERT_NE(out, nullptr);
      ASSERT_EQ(out->n_rows, first_->n_rows());
      double in = 0, in_narrower = 0;
      for (std::size_t r = 0; r < out->n_rows; ++r) {
        const bool integer = out->integer_output;
        const auto [lower, upper] = test_tables::row_interval(*out, r);
        const double value = integer ? double(out->integer_values[r]) : out->values[r];
        // Centred on the value (real bounds are rounded outward by an ulp).
        const double t = (upper - lower) / 2;
        if (std::abs((value - lower) - (upper - value)) > (integer ? 0 : 1e-9 * (1 + std::abs(value)))) ++off_centre;
        const double truth = first_->truth(r);
        // Narrower: an integer interval keeps integer ends (rounded in).
        const double t_narrow = integer ? std::floor(0.8 * t) : 0.8 * t;
        in += lower <= truth && truth <= upper ? 1 : 0;
        in_narrower += std::abs(truth - value) <= t_narrow ? 1 : 0;
      }
      as_released.add(in / double(out->n_rows));
      narrower.add(in_narrower / double(out->n_rows));
      idp_free_release(out);
    }
    EXPECT_EQ(off_centre, 0u) << name_;
    as_released.report();
    narrower.report();
    EXPECT_TRUE(as_released.passes()) << as_released.name;
    if (e.power) {
      EXPECT_FALSE(narrower.passes()) << "power: " << narrower.name;
    }
  }

 private:
  static Request with_interval(Request r) {
    r.option_keys.push_back("interval");
    r.option_values.push_back("0.9");
    return r;
  }
  idp_release_table* draw() { return release_.draw(); }

  std::string name_;
  test_tables::RepeatedRelease release_;
  std::unique_ptr<ReleaseTableRows> first_;
  std::string kind_;
};

// The discrete Laplace law at scale b, P(x) proportional to a^|x| with
// a = exp(-1/b): P(|X| <= t) = 1 - 2 a^(t + 1) / (1 + a).
double discrete_laplace_coverage(double b, double t) {
  const double a = std::exp(-1 / b);
  return 1 - 2 * std::pow(a, t + 1) / (1 + a);
}

TEST(StatCellIntervals, DiscreteLaplaceExact) {
  IntervalFamily f("discrete_laplace 8x10", test_tables::grid({"a", "b"}, {8, 10}, counts(80, 1)),
                   Request{"discrete_laplace", 0.25}, 201);
  EXPECT_EQ(f.prepare(), "exact");
  const accuracy::PublishedLaw law = accuracy::read_published_law(f.law());
  const double b = law.exact_parameter.to_double();
  // The half-width the release used: the least t whose coverage is 0.9.
  double t = 0;
  while (discrete_laplace_coverage(b, t) < kIntervalLevel) t += 1;
  f.run({false, discrete_laplace_coverage(b, t), true});
}

// The families whose intervals are checked against the level (at least):
// the conditioned groups' exact quantiles, whose coverage has no closed
// form here, and the certified ones.
TEST(StatCellIntervals, AtLeastTheLevel) {
  struct Case {
    const char* name;
    TestTable table;
    Request request;
    const char* kind;
    bool power;
  };
  const std::vector<Case> cases{
      {"integer_laplace 8x10, margin a", test_tables::grid({"a", "b"}, {8, 10}, counts(80, 2)),
       Request{"integer_laplace", 0.25, 0, {"a"}}, "exact", true},
      {"integer_laplace 2x6, margins a and b", test_tables::grid({"a", "b"}, {2, 6}, counts(12, 3)),
       Request{"integer_laplace", 0.25, 0, {"a", "b"}}, "exact", true},
      {"integer_gaussian 6x8, margins a and b", test_tables::grid({"a", "b"}, {6, 8}, counts(48, 4)),
       Request{"integer_gaussian", 1, 1e-6, {"a", "b"}}, "exact", true},
      {"project_l2 8x10, margin a", test_tables::grid({"a", "b"}, {8, 10}, counts(80, 6)),
       Request{"project_l2", 1, 0, {"a"}}, "exact", true},
      {"project_l2 4x5, margins a and b", test_tables::grid({"a", "b"}, {4, 5}, counts(20, 7)),
       Request{"project_l2", 0.5, 0, {"a", "b"}}, "exact", true},
  };
  std::uint64_t seed = 202;
  for (const Case& c : cases) {
    IntervalFamily f(c.name, c.table, c.request, seed++);
    EXPECT_EQ(f.prepare(), c.kind) << c.name;
    f.run({true, kIntervalLevel, c.power});
  }
}

// Continuous laws: the exact quantile covers with the level itself, within
// the binomial tolerance both ways.
TEST(StatCellIntervals, SubspaceLawsExact) {
  IntervalFamily gaussian("subspace_gaussian 8x10, margins a and b",
                          test_tables::grid({"a", "b"}, {8, 10}, counts(80, 5)),
                          Request{"subspace_gaussian", 1, 1e-6, {"a", "b"}}, 207);
  EXPECT_EQ(gaussian.prepare(), "exact");
  gaussian.run({false, kIntervalLevel, true});
  IntervalFamily laplace("subspace_laplace 8x10, margin a", test_tables::grid({"a", "b"}, {8, 10}, counts(80, 6)),
                         Request{"subspace_laplace", 1, 0, {"a"}}, 205);
  EXPECT_EQ(laplace.prepare(), "exact");
  laplace.run({false, kIntervalLevel, true});
  IntervalFamily table("subspace_laplace 4x5, margins a and b", test_tables::grid({"a", "b"}, {4, 5}, counts(20, 6)),
                       Request{"subspace_laplace", 0.5, 0, {"a", "b"}}, 210);
  EXPECT_EQ(table.prepare(), "exact");
  table.run({false, kIntervalLevel, true});
}

TEST(StatCellIntervals, Cascades) {
  IntervalFamily cascade("cascade region>county>cell, regions exact", test_tables::geography(counts(60, 7)),
                         Request{"cascade", 1, 1e-6, {"region"}, {"region", "county"}}, 208);
  EXPECT_EQ(cascade.prepare(), "exact");
  // The exact rows (the total, the regions) have t = 0 and always cover:
  // the pooled share is the level over the other rows.
  cascade.run({true, kIntervalLevel, true});
  IntervalFamily integer("integer_cascade region>county>cell, regions exact", test_tables::geography(counts(60, 7)),
                         Request{"integer_cascade", 1, 1e-6, {"region"}, {"region", "county"}}, 209);
  EXPECT_EQ(integer.prepare(), "exact");
  integer.run({true, kIntervalLevel, true});
}

}  // namespace
}  // namespace invariant_dp
