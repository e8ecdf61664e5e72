// Counts near 2^63 and noise beyond float8's range through every path of
// the core: each sum, difference or product of counts that leaves bigint is
// refused as out of range (22003), never wrapped, and no real-valued result
// is NaN or infinite. Run under the sanitizers (INVARIANT_DP_SANITIZE), any
// unchecked overflow in these paths aborts the test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "capi/invariant_dp_stream.h"
#include "congenial/chain_starts.hpp"
#include "errors.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/rollup.hpp"
#include "json_text.hpp"
#include "mechanisms/partition_selection.hpp"
#include "projection/linear_invariants.hpp"
#include "samplers/wide_int.hpp"
#include "table_builder.hpp"
#include "prepared_release.hpp"

using namespace invariant_dp;
using invariant_dp::test_tables::grid;

namespace {

constexpr std::int64_t kBigintMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(CountArithmetic, RefusesEveryResultOutsideBigint) {
  EXPECT_EQ(checked_add(kBigintMax - 1, 1), kBigintMax);
  EXPECT_THROW(checked_add(kBigintMax, 1), OutOfRange);
  EXPECT_THROW(checked_add(kMin, -1), OutOfRange);
  EXPECT_EQ(checked_sub(0, kBigintMax), -kBigintMax);
  EXPECT_THROW(checked_sub(0, kMin), OutOfRange);
  EXPECT_THROW(checked_mul(std::int64_t{1} << 32, std::int64_t{1} << 31), OutOfRange);
  EXPECT_EQ(checked_mul(-(std::int64_t{1} << 31), std::int64_t{1} << 32), kMin);
  std::int64_t total = kBigintMax - 5;
  add_to(total, 5);
  EXPECT_EQ(total, kBigintMax);
  EXPECT_THROW(add_to(total, 1), OutOfRange);
  EXPECT_EQ(total, kBigintMax);  // unchanged by the refused addition
  EXPECT_EQ(checked_narrow(Int128(kMin)), kMin);
  EXPECT_THROW(checked_narrow(Int128(kBigintMax) + 1), OutOfRange);
  EXPECT_THROW(checked_narrow(Int128(kMin) - 1), OutOfRange);
  EXPECT_EQ(checked_int64(-0x1p63), kMin);
  EXPECT_EQ(checked_int64(0x1p63 - 1024), kBigintMax - 1023);
  EXPECT_THROW(checked_int64(0x1p63), OutOfRange);
  EXPECT_THROW(checked_int64(-0x1p64), OutOfRange);
  EXPECT_THROW(checked_int64(NAN), OutOfRange);
  EXPECT_THROW(checked_int64(INFINITY), OutOfRange);
  try {
    checked_add(kBigintMax, kBigintMax);
    FAIL() << "no error";
  } catch (const OutOfRange& e) {
    EXPECT_STREQ(e.what(), "sum of counts out of range for bigint");
    EXPECT_FALSE(e.detail().empty());
  }
}

TEST(CountArithmetic, PublishedFiguresMustBeFinite) {
  EXPECT_EQ(json_number(0.25), "0.25");
  EXPECT_THROW(json_number(INFINITY), OutOfRange);
  EXPECT_THROW(json_number(NAN), OutOfRange);
}

// The congenial mechanism's start on a two-way table: its row and column
// sums of counts near 2^63 are out of range, not a division by a wrapped
// (zero) total.
TEST(CountOverflow, ProportionalStartRefusesTotalsBeyondBigint) {
  const std::vector<LatticeTable> table{{{2, 2}, {0, 1, 2, 3}}};
  for (const std::int64_t x : {kBigintMax, std::int64_t{1} << 62, (std::int64_t{1} << 62) + 1}) {
    const std::vector<std::int64_t> counts(4, x);
    EXPECT_THROW(proportional_table_start(table, counts.data(), 4, Interrupts()), OutOfRange) << x;
  }
  // At the largest total that fits, the start keeps every row and column total.
  const std::int64_t q = kBigintMax / 4;
  const std::vector<std::int64_t> counts{q, q, q, q + kBigintMax % 4};
  const auto y = proportional_table_start(table, counts.data(), 4, Interrupts());
  EXPECT_EQ(y[0] + y[1], 2 * q);
  EXPECT_EQ(y[2] + y[3], 2 * q + kBigintMax % 4);
  EXPECT_EQ(y[0] + y[2], 2 * q);
  EXPECT_EQ(y[1] + y[3], 2 * q + kBigintMax % 4);
  EXPECT_THROW(proportional_table_start(table, std::vector<std::int64_t>{1, -1, 1, 1}.data(), 4, Interrupts()),
               InvalidData);
}

TEST(CountOverflow, HierarchyRollupRefusesTotalsBeyondBigint) {
  const auto tree = hierarchy::HierarchyTree::perfect_binary(2, Interrupts());
  EXPECT_THROW(hierarchy::rollup(tree, std::vector<std::int64_t>{kBigintMax, 1, 0, 0}, Interrupts()), OutOfRange);
  EXPECT_THROW(hierarchy::rollup(tree, std::vector<std::int64_t>{kMin, 0, -1, 0}, Interrupts()), OutOfRange);
  const auto node = hierarchy::rollup(tree, std::vector<std::int64_t>{kBigintMax, 0, kMin, 0}, Interrupts());
  EXPECT_EQ(node[0], -1);
}

TEST(CountOverflow, PartitionSelectionRefusesAThresholdBeyondBigint) {
  // b = 2 / 1e-16: the Laplace threshold b log(1 / delta) is about 1.4e19.
  EXPECT_THROW(calibrate_selection(SelectionMethod::Laplace, 1e-16, 1e-300, 1, true), OutOfRange);
  EXPECT_NO_THROW(calibrate_selection(SelectionMethod::Laplace, 1.0, 1e-6, 1, true));
}

// The releases of every mechanism over one 2 x 3 x 2 table, through the C
// boundary as the shim calls it.
struct Structure {
  const char* name;
  std::vector<const char*> margins;
  std::vector<const char*> hierarchy;
  std::vector<std::pair<const char*, const char*>> options;
  bool epsilon_null = false;  // absolute per-level targets calibrate the cascade
};

const std::vector<Structure>& structures() {
  static const std::vector<Structure> all = {
      {"no invariant", {}, {}, {}},
      {"one margin", {"a"}, {}, {}},
      {"nested margins", {"a", "a,b"}, {}, {}},
      {"grand total", {""}, {}, {}},
      {"crossing margins", {"a", "b"}, {}, {}},
      {"general margins", {"a,b", "b,c", "a,c"}, {}, {}},
      {"hierarchy", {}, {"a", "b"}, {}},
      {"hierarchy with a margin", {"a"}, {"a", "b"}, {}},
      {"hierarchy with per-level targets", {}, {"a", "b"}, {{"level_variance", "[4, 2, 1, 1]"}}},
      {"crossed hierarchies", {}, {"a"}, {{"crossed", "[\"b\"]"}}},
      {"stddev", {"a"}, {}, {{"stddev", "true"}}},
  };
  return all;
}

const char* const kMechanisms[] = {"discrete_laplace",   "discrete_gaussian", "subspace_gaussian", "subspace_laplace",
                                   "integer_laplace",    "integer_laplace_l2", "integer_gaussian", "congenial",
                                   "project_l2",         "project_nn_l2",     "project_nn_integer", "cascade",
                                   "integer_cascade"};

bool needs_delta(const std::string& mechanism) {
  return mechanism == "discrete_gaussian" || mechanism == "subspace_gaussian" || mechanism == "integer_gaussian" ||
         mechanism == "cascade" || mechanism == "integer_cascade";
}

bool real_output(const std::string& mechanism) {
  return mechanism.rfind("subspace_", 0) == 0 || mechanism == "project_l2" || mechanism == "project_nn_l2" ||
         mechanism == "cascade";
}

// The status of one release, its table checked and freed when it succeeds.
idp_status release_status(const char* mechanism, const Structure& s, std::vector<std::int64_t> counts,
                          std::string& message, std::uint64_t seed) {
  const auto table = grid({"a", "b", "c"}, {2, 3, 2}, counts);
  const auto keys = table.text_keys();
  const char* names[] = {"a", "b", "c"};
  std::vector<const char*> keys_of_options, values_of_options;
  for (const auto& [key, value] : s.options) {
    keys_of_options.push_back(key);
    values_of_options.push_back(value);
  }
  // The l2 law's chain at its default length took nearly all of this test's
  // time; its length changes none of the sums of counts a release makes.
  if (std::string(mechanism) == "integer_laplace_l2") {
    keys_of_options.push_back("iterations");
    values_of_options.push_back("200");
  }
  idp_request request{};
  request.mechanism = mechanism;
  request.epsilon = 1;
  request.epsilon_is_null = s.epsilon_null;
  request.has_delta = needs_delta(mechanism);
  request.delta = 1e-6;
  request.n_margins = s.margins.size();
  request.margins = s.margins.data();
  request.n_hierarchy = s.hierarchy.size();
  request.hierarchy = s.hierarchy.data();
  request.n_options = keys_of_options.size();
  request.option_keys = keys_of_options.data();
  request.option_values = values_of_options.data();
  idp_cells cells{};
  cells.n_columns = 3;
  cells.column_names = names;
  cells.dictionaries = keys.dictionaries();
  cells.n_source_rows = counts.size();
  cells.source_keys.columns = keys.codes();
  cells.source_counts = counts.data();
  cells.counts_writable = true;  // the core may write over them, as over the shim's
  idp_randomness randomness{true, seed, 1};
  idp_error error{};
  idp_release_table* out = nullptr;
  const idp_status status = prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error);
  message = error.message;
  if (status == IDP_OK) {
    EXPECT_NE(out, nullptr);
    if (out != nullptr && !out->integer_output) {
      for (std::size_t r = 0; r < out->n_rows; ++r) EXPECT_TRUE(std::isfinite(out->values[r])) << r;
    }
    idp_free_release(out);
  } else {
    EXPECT_EQ(out, nullptr);
  }
  return status;
}

bool has_margins(const Structure& s) { return !s.margins.empty(); }
bool has_hierarchy(const Structure& s) { return !s.hierarchy.empty(); }

TEST(CountOverflow, EveryMechanismAndStructureRefusesCountsBeyondBigint) {
  const std::vector<std::int64_t> small(12, 5);
  std::vector<std::int64_t> mixed(12, 1);
  mixed[0] = kBigintMax;
  // Profiles 0 and 1 make any sum of two cells leave bigint whatever their
  // noise; 2 and 3 any sum of their counts.
  const std::vector<std::vector<std::int64_t>> huge_profiles = {
      std::vector<std::int64_t>(12, kBigintMax), std::vector<std::int64_t>(12, kBigintMax - 1),
      std::vector<std::int64_t>(12, std::int64_t{1} << 62), std::vector<std::int64_t>(12, (std::int64_t{1} << 62) + 1)};
  int valid = 0;
  for (const char* mechanism : kMechanisms) {
    const std::string m = mechanism;
    // Real values, and the projections' solvers, hold counts exactly up to 2^53 only.
    const bool exact_below_2_53 = real_output(m) || m.rfind("project_", 0) == 0;
    for (const Structure& s : structures()) {
      const std::string what = m + ", " + s.name;
      std::string message;
      const idp_status at_small = release_status(mechanism, s, small, message, 1);
      // The combinations a mechanism does not support say so; none fails inside.
      ASSERT_NE(at_small, IDP_INTERNAL) << what << ": " << message;
      if (at_small != IDP_OK) continue;
      ++valid;
      for (std::size_t p = 0; p < huge_profiles.size(); ++p) {
        const idp_status status = release_status(mechanism, s, huge_profiles[p], message, 2 + p);
        // Congenial sums the raw counts of every margin group; a rollup
        // sums noisy counts.
        const bool certain = exact_below_2_53 || (m == "congenial" && has_margins(s)) ||
                             (has_hierarchy(s) && p < 2);
        if (certain)
          EXPECT_EQ(status, IDP_OUT_OF_RANGE) << what << ", profile " << p << ": " << message;
        else
          EXPECT_TRUE(status == IDP_OUT_OF_RANGE || status == IDP_OK) << what << ", profile " << p << ": " << message;
      }
      // One count at 2^63 - 1 among small ones: its noisy value or its
      // margin may leave bigint, nothing else.
      const idp_status status = release_status(mechanism, s, mixed, message, 7);
      EXPECT_TRUE(status == IDP_OUT_OF_RANGE || status == IDP_OK) << what << ", one huge count: " << message;
      if (exact_below_2_53) {
        EXPECT_EQ(status, IDP_OUT_OF_RANGE) << what;
      }
    }
  }
  EXPECT_GE(valid, 40);  // most pairs are releases, so the loop above tests something
}

TEST(CountOverflow, CongenialReproducerIsOutOfRange) {
  // The release that once crashed the server: a 2 x 2 table of 2^63 - 1 with both margins.
  const auto table = grid({"a", "b"}, {2, 2}, std::vector<std::int64_t>(4, kBigintMax));
  auto counts = table.counts;
  const auto keys = table.text_keys();
  const char* names[] = {"a", "b"};
  const char* margins[] = {"a", "b"};
  idp_request request{};
  request.mechanism = "congenial";
  request.epsilon = 1;
  request.n_margins = 2;
  request.margins = margins;
  idp_cells cells{};
  cells.n_columns = 2;
  cells.column_names = names;
  cells.dictionaries = keys.dictionaries();
  cells.n_source_rows = 4;
  cells.source_keys.columns = keys.codes();
  cells.source_counts = counts.data();
  idp_randomness randomness{true, 3, 1};
  idp_error error{};
  idp_release_table* out = nullptr;
  EXPECT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OUT_OF_RANGE) << error.message;
  EXPECT_STREQ(error.message, "sum of counts out of range for bigint");
  // Totals that fit bigint but not float8's exact integers, which the solver reads.
  counts.assign(4, std::int64_t{1} << 53);
  EXPECT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OUT_OF_RANGE);
  EXPECT_STREQ(error.message, "margin total too large for an exact release");
}

TEST(CountOverflow, WindowAndAggregateRefuseNoisyCountsBeyondBigint) {
  idp_randomness randomness{true, 5, 0xc0f1};  // a generation of its own: the stream restarts here
  idp_error error{};
  for (const std::int64_t edge : {kBigintMax, kMin}) {
    const std::vector<std::int64_t> counts{edge, edge, edge, edge};
    std::vector<std::int64_t> noisy(4);
    const idp_status status = idp_total_preserving(counts.data(), 4, 1.0, &randomness, nullptr, noisy.data(), &error);
    // Zero-sum noise moves some cell up and another down: one leaves bigint.
    EXPECT_EQ(status, IDP_OUT_OF_RANGE) << edge;
  }
  const char* mechanism = "discrete_laplace";
  idp_request request{};
  request.mechanism = mechanism;
  request.epsilon = 1e-3;
  int refused = 0;
  for (int i = 0; i < 20; ++i) {
    std::int64_t noisy = 0;
    const idp_status status = idp_noisy_count(kBigintMax, &request, &randomness, &noisy, &error);
    ASSERT_TRUE(status == IDP_OK || status == IDP_OUT_OF_RANGE) << error.message;
    refused += status == IDP_OUT_OF_RANGE;
    if (status == IDP_OK) {
      EXPECT_LE(noisy, kBigintMax);
    }
  }
  EXPECT_GT(refused, 0);  // half the draws are positive
}

// Variances near float8's largest: refused before they reach a client as
// NaN or infinity, in releases, range variances and streams.
TEST(NonFiniteResults, CascadeWithAHugeVarianceTargetIsRefused) {
  const Structure s{"three-way splits", {}, {"a", "b"}, {{"level_variance", "[1e308, 1.7e308, 1.7e308, 1.7e308]"}},
                    true};
  std::string message;
  EXPECT_EQ(release_status("cascade", s, std::vector<std::int64_t>(12, 5), message, 9), IDP_OUT_OF_RANGE) << message;
  // The same shape at ordinary targets is a release.
  const Structure ordinary{"ordinary", {}, {"a", "b"}, {{"level_variance", "[100, 40, 16, 8]"}}, true};
  EXPECT_EQ(release_status("cascade", ordinary, std::vector<std::int64_t>(12, 5), message, 9), IDP_OK) << message;
}

TEST(NonFiniteResults, RangeAndStreamVariancesAreFinite) {
  idp_error error{};
  double lower = 0, upper = 0;
  const std::uint32_t children[] = {3};
  const double huge[] = {1.7e308, 1.7e308};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", children, 1, huge, 2, nullptr, 0, 0, 0, 1, nullptr,
                                       &lower, &upper, &error),
            IDP_OUT_OF_RANGE)
      << error.message;
  const double ordinary[] = {4, 2};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", children, 1, ordinary, 2, nullptr, 0, 0, 0, 1,
                                       nullptr, &lower, &upper, &error),
            IDP_OK)
      << error.message;
  EXPECT_TRUE(std::isfinite(upper));
  double variance = 0;
  EXPECT_EQ(idp_stream_range_variance(1.7e308, 0, 6, &variance, &error), IDP_OUT_OF_RANGE) << variance;
  EXPECT_EQ(idp_stream_range_variance(1.0, 0, 6, &variance, &error), IDP_OK);
  EXPECT_TRUE(std::isfinite(variance));
}

}  // namespace
