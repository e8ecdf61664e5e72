// congenial through the release path: integer, non-negative, every margin
// exact for every sampler; the public start depends on the margins only
// and is what a chain that never moves releases (congenial_target.hpp);
// the metadata states family, accounting and sampler.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "congenial/chain_starts.hpp"
#include "errors.hpp"
#include "invariants/invariant_model.hpp"
#include "mechanisms/congenial_release.hpp"
#include "mechanisms/diagnostics.hpp"
#include "mechanisms/release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::grid;

namespace {

ReleaseRequest congenial(std::vector<std::string> margins, const std::string& sampler, double epsilon = 1,
                         std::uint64_t iterations = 0) {
  RawRequest raw;
  raw.mechanism = "congenial";
  raw.epsilon = epsilon;
  raw.margins = std::move(margins);
  raw.options = {{"sampler", sampler}};
  if (iterations) raw.options.push_back({"iterations", std::to_string(iterations)});
  return validate_request(raw);
}

void expect_kept(const test_tables::TestTable& table, const std::vector<std::string>& margins,
                 const std::vector<std::int64_t>& y) {
  const auto keys = table.keys();
  std::vector<Margin> m;
  for (const auto& name : margins) m.push_back(name.empty() ? Margin{} : Margin{{keys.column_index(name)}});
  const InvariantModel model(keys, m, Interrupts());
  std::vector<double> x(table.counts.begin(), table.counts.end()), yd(y.begin(), y.end());
  std::vector<double> want(model.n_margin_groups()), got(model.n_margin_groups());
  model.margin_totals(x.data(), want.data());
  model.margin_totals(yd.data(), got.data());
  EXPECT_EQ(got, want);
  for (auto v : y) EXPECT_GE(v, 0);
}

}  // namespace

TEST(Congenial, EverySamplerKeepsMarginsAndNonNegativity) {
  std::mt19937_64 g(5);
  std::geometric_distribution<int> counts(0.5);
  auto rng = make_seeded_random_source(9);
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<std::int64_t> c(12);
    for (auto& v : c) v = counts(g);
    const auto table = grid({"a", "b"}, {3, 4}, c);
    const bool crossing = trial % 2;
    const std::vector<std::string> margins = crossing ? std::vector<std::string>{"a", "b"} : std::vector<std::string>{"a"};
    std::vector<std::string> samplers = {"auto", "lattice", "mis"};
    if (!crossing) samplers.push_back("rejection");
    for (const auto& sampler : samplers) {
      const auto result = run_release(table.keys(), table.counts.data(), congenial(margins, sampler, 1, 50), *rng,
                                      Interrupts());
      ASSERT_TRUE(result.integer_output);
      expect_kept(table, margins, result.integer_values);
    }
  }
}

TEST(Congenial, NoMarginMeansCellwiseTruncatedNoise) {
  const auto table = grid({"a"}, {20}, std::vector<std::int64_t>(20, 0));
  auto rng = make_seeded_random_source(3);
  const auto result = run_release(table.keys(), table.counts.data(), congenial({}, "auto"), *rng, Interrupts());
  for (auto v : result.integer_values) EXPECT_GE(v, 0);
  EXPECT_NE(result.metadata_json.find("\"exact\": false"), std::string::npos);
}

TEST(Congenial, StartDependsOnTheMarginsOnlyAndIsNotTheData) {
  // Two tables with the same row and column totals.
  const auto a = grid({"r", "c"}, {2, 3}, {3, 0, 1, 0, 2, 2});
  const auto b = grid({"r", "c"}, {2, 3}, {2, 1, 1, 1, 1, 2});
  const InvariantModel ma(a.keys(), {Margin{{0}}, Margin{{1}}}, Interrupts());
  const InvariantModel mb(b.keys(), {Margin{{0}}, Margin{{1}}}, Interrupts());
  const auto sa = public_start(linear_invariants(ma, a.counts.data()), Interrupts());
  const auto sb = public_start(linear_invariants(mb, b.counts.data()), Interrupts());
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, a.counts);
}

// MIS and the walk start at a noisy table: the data plus the base law's
// noise, projected onto the non-negative tables with the totals. A chain
// that never moves (zero steps) releases that start, which keeps the
// totals, is non-negative and is not the data.
TEST(Congenial, ChainsStartAtANoisyTableWithTheTotals) {
  const auto a = grid({"r", "c"}, {3, 3}, {30, 0, 1, 0, 20, 2, 5, 5, 0});
  const InvariantModel model(a.keys(), {Margin{{0}}}, Interrupts());
  for (const char* sampler : {"mis", "lattice"}) {
    CongenialSetup setup = prepare_congenial(a.counts.data(), congenial({"r"}, sampler), model, Interrupts());
    setup.iterations = 0;
    auto rng = make_seeded_random_source(1);
    SamplerReport report;
    const std::vector<std::int64_t> y = draw_congenial(setup, *rng, Interrupts(), report);
    auto again = make_seeded_random_source(1);
    EXPECT_EQ(y, noisy_start(setup.target.invariants, a.counts.data(), setup.law.exact_parameter, *again,
                             Interrupts()))
        << sampler;
    for (int r = 0; r < 3; ++r) EXPECT_EQ(y[3 * r] + y[3 * r + 1] + y[3 * r + 2], a.counts[3 * r] + a.counts[3 * r + 1] + a.counts[3 * r + 2]);
    for (const std::int64_t v : y) EXPECT_GE(v, 0);
    EXPECT_NE(y, a.counts) << sampler;
    EXPECT_NE(report.start.find("noise"), std::string::npos) << report.start;
  }
}

TEST(Congenial, MetadataStatesFamilyAccountingAndSampler) {
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(2);
  const auto json =
      run_release(table.keys(), table.counts.data(), congenial({"county"}, "rejection", 0.5), *rng, Interrupts())
          .metadata_json;
  for (const char* field : {"\"family\": \"conditioning\"", "\"base_epsilon\": 0.25", "\"gamma\": 1",
                            "\"exact\": true", "\"non_negative\": true", "\"exact_parameter\": \"8/1\"",
                            "public margin totals only"})
    EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
  const auto crossing =
      run_release(table.keys(), table.counts.data(), congenial({"county", "edu"}, "auto", 0.5, 100), *rng, Interrupts())
          .metadata_json;
  // Crossing margins: the shortest move is a 2x2 swap, |v|_1 = 4, b = 4 / 0.25.
  EXPECT_NE(crossing.find("\"exact_parameter\": \"16/1\""), std::string::npos) << crossing;
  EXPECT_NE(crossing.find("\"exact\": false"), std::string::npos);
}

TEST(Congenial, RejectsSamplersThatCannotApply) {
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(2);
  EXPECT_THROW(run_release(table.keys(), table.counts.data(), congenial({"county", "edu"}, "rejection"), *rng,
                           Interrupts()),
               InvalidArgument);
  RawRequest raw;
  raw.mechanism = "integer_laplace";
  raw.epsilon = 1;
  raw.options = {{"sampler", "mis"}};
  EXPECT_THROW(validate_request(raw), InvalidArgument);
  raw.mechanism = "congenial";
  raw.options = {{"sampler", "gibbs"}};
  EXPECT_THROW(validate_request(raw), InvalidArgument);
}

TEST(Congenial, DiagnoseRunsOnAPublicStandInOnly) {
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(4);
  DiagnosticsSettings settings;
  auto request = congenial({"county", "edu"}, "lattice", 1, 200);
  const auto rows = run_diagnostics(table.keys(), request, settings, *rng, Interrupts());
  std::map<std::string, double> by_metric;
  for (const auto& r : rows) by_metric[r.metric] = r.value;
  ASSERT_EQ(by_metric.count("rhat_l1"), 1u);
  EXPECT_LT(by_metric["rhat_l1"], 1.1);
  EXPECT_GT(by_metric["acceptance_moves"], 0.0);
  EXPECT_EQ(by_metric["release_iterations"], 200.0);
  // Partitions report the exact sampler's acceptance instead.
  const auto exact = run_diagnostics(table.keys(), congenial({"county"}, "auto"), settings, *rng, Interrupts());
  ASSERT_EQ(exact.front().metric, "rejection_acceptance");
  EXPECT_GT(exact.front().value, 0.0);
}

// Each diagnosed chain starts at its own table, MIS too on crossing margins
// (where it once started at an empty table and crashed the backend), and a
// chain that never moves is counted: MIS at a tiny epsilon proposes tables
// a base law of scale 10^12 spreads, of which none is non-negative.
TEST(Congenial, DiagnoseCountsChainsThatNeverMoved) {
  const auto table = test_tables::delinquents();
  DiagnosticsSettings settings;
  settings.surrogate_count = 50;  // cells of 50, where MIS's pivot cells stay non-negative often enough
  for (const char* sampler : {"mis", "lattice"}) {
    auto rng = make_seeded_random_source(6);
    std::map<std::string, double> moving, stuck;
    for (const auto& r : run_diagnostics(table.keys(), congenial({"county", "edu"}, sampler, 1, 100), settings, *rng,
                                         Interrupts()))
      moving[r.metric] = r.value;
    ASSERT_EQ(moving.count("chains_never_moved"), 1u) << sampler;
    EXPECT_EQ(moving["chains_never_moved"], 0.0) << sampler;
    for (const auto& r : run_diagnostics(table.keys(), congenial({"county", "edu"}, sampler, 1e-12, 100), settings,
                                         *rng, Interrupts()))
      stuck[r.metric] = r.value;
    if (std::string(sampler) == "mis") {
      EXPECT_EQ(stuck["chains_never_moved"], 4.0);
    }
  }
}

// One state of 100 counties from 0 to 88000 people, epsilon 0.192 (b ~ 20.8):
// the old rejection almost never accepted here. The strict exact sampler now
// finishes, keeps the state total and non-negativity, and says how it drew.
TEST(Congenial, CountyPartitionIsDrawnExactlyByRejection) {
  test_tables::TestTable table{{"state", "county"}, {}, {}};
  for (int i = 0; i < 100; ++i) {
    table.text.push_back("S");
    table.text.push_back("c" + std::to_string(i));
    table.counts.push_back(static_cast<std::int64_t>(std::floor(std::exp(i / 99.0 * std::log(88001.0)))) - 1);
  }
  auto rng = make_seeded_random_source(5);
  for (const char* sampler : {"rejection", "auto"}) {
    const auto result =
        run_release(table.keys(), table.counts.data(), congenial({"state"}, sampler, 0.192), *rng, Interrupts());
    expect_kept(table, {"state"}, result.integer_values);
    EXPECT_NE(result.metadata_json.find("tilted"), std::string::npos) << result.metadata_json;
  }
}
