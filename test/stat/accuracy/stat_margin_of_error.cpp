// Coverage of the margins of error of sums through the C boundary
// (invariant_dp_accuracy.h), as dp.margin_of_error computes them: for each
// family, 10,000 releases of a fixed table drawn by idp_release (seeded), the
// error bars prepared once from the first release's table rows and published
// law, and for each sum the share of releases whose sum lies within its
// margin at 90 %, against what the margin's method promises
// (coverage_checks.hpp: exact within the binomial tolerance, conservative at
// least the level minus it, false-failure rate 1e-6 per check), and the
// sample variance of the sum's noise against the figure (exact, or within
// certified bounds). Sums: across a crossing margin's (or a margin's)
// groups, a region of a table or of a hierarchy (nodes at mixed levels), a
// random subset of cells. Families: independent cells, one margin, nested
// margins, complete two-way and K-way tables, an incomplete table (general
// margins), cascade and integer_cascade (one hierarchy with an exact
// margin, and crossed), a stream, a privacy unit.
// Power: the partition formula (a law claiming only the row margin) on a
// two-way release, and every family's variance taken 20 % low, fail the
// same checks.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <regex>
#include <string>

#include "accuracy/margin_of_error.hpp"
#include "accuracy/published_law.hpp"
#include "capi/invariant_dp_accuracy.h"
#include "capi/invariant_dp_stream.h"
#include "coverage_checks.hpp"
#include "release_table_rows.hpp"
#include "table_request.hpp"
#include "unit_cells.hpp"
#include "prepared_release.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using test_tables::ReleaseTableRows;
using test_tables::Request;
using test_tables::TestTable;

constexpr int kMarginReleases = 10000;
constexpr double kMarginLevel = 0.9;

// One family: a fixed table, its request, the error bars of its sums.
class MarginFamily {
 public:
  MarginFamily(std::string name, TestTable table, Request request, std::uint64_t seed)
      // Each family its own seeded stream (a new generation restarts it).
      : name_(std::move(name)), release_(std::move(table), std::move(request), {true, seed, 0x57a70000 + seed}) {}
  ~MarginFamily() {
    idp_accuracy_free(accuracy_);
    idp_accuracy_free(wrong_);
  }

  // A privacy unit's rows instead of counts (each unit's rows kept whole by
  // the bounds, so the released truth is the table's counts).
  void use_units(const test_tables::UnitCells& units) {
    units.bind(release_.c_request);
    release_.cells = units.cells();
  }

  // The first release: its table's rows and law prepare the error bars;
  // wrong_law, if given, prepares the power check's wrong ones.
  void prepare(const std::function<std::string(std::string)>& wrong_law = nullptr) {
    idp_release_table* out = draw();
    first_ = std::make_unique<ReleaseTableRows>(release_.table(), *out);
    integer_ = out->integer_output;
    idp_free_release(out);
    shape_ = read_published_law(first_->law()).shape;
    accuracy_ = prepared(first_->law());
    if (wrong_law) wrong_ = prepared(wrong_law(first_->law()));
  }

  const ReleaseTableRows& rows() const { return *first_; }

  // A sum of rows (weights 1), with its check and a check of its variance
  // taken 20 % low; partition_formula: also the wrong law's.
  void sum(const std::string& what, const std::vector<std::size_t>& rows, bool partition_formula = false) {
    QueryBuilder b(first_->n_rows());
    for (std::size_t r : rows) b.add(r);
    const CellQuery q = b.take();
    const idp_error_bar bar = error_bar(accuracy_, rows);
    checks_.push_back(check(name_ + ": " + what, q, bar, 1));
    wrong_checks_.push_back(check(name_ + ": " + what + ", variance x 0.8", q, bar, 0.8));
    if (partition_formula && wrong_ != nullptr)
      wrong_checks_.push_back(check(name_ + ": " + what + ", partition formula", q, error_bar(wrong_, rows), 1));
  }

  void run() {
    std::vector<double> noise(first_->n_rows());
    for (int release = 0; release < kMarginReleases; ++release) {
      idp_release_table* out = release == 0 ? nullptr : draw();
      for (std::size_t r = 0; r < noise.size(); ++r)
        noise[r] = out == nullptr ? first_->noise(r)
                                  : (out->integer_values ? double(out->integer_values[r]) : out->values[r]) -
                                        first_->truth(r);
      if (out) idp_free_release(out);
      for (auto& c : checks_) c.record(noise);
      for (auto& c : wrong_checks_) c.record(noise);
    }
    expect();
  }

  // The checks: every right one passes, every wrong one fails its variance
  // check, and a wrong normal margin (30 cells or more) its coverage too.
  void expect() const {
    for (const auto& c : checks_) {
      c.report();
      EXPECT_TRUE(c.coverage.passes()) << c.name;
      EXPECT_TRUE(c.variance_passes()) << c.name;
    }
    for (const auto& c : wrong_checks_) {
      c.report();
      EXPECT_FALSE(c.variance_passes()) << "power: " << c.name;
      if (!c.coverage.conservative && c.query.size() >= kNormalCells) {
        EXPECT_FALSE(c.coverage.passes()) << "power: " << c.name;
      }
    }
  }

  // Stream families build their checks from noise they draw themselves.
  std::vector<coverage::SumCheck> checks_, wrong_checks_;

  coverage::SumCheck check(const std::string& name, const CellQuery& q, const idp_error_bar& bar, double scale) const {
    coverage::SumCheck s;
    s.name = name;
    s.query = q;
    s.variance_lower = bar.variance_lower * scale;
    s.variance_upper = bar.variance * scale;
    const bool normal = std::string(bar.method).rfind("normal", 0) == 0;
    const SumTail tail = normal ? SumTail::normal : recommended_tail(shape_, 0.0);  // the shape's bound
    s.half_width = scale == 1 ? bar.margin_of_error
                              : margin_of_error(VarianceFigure{s.variance_lower, s.variance_upper, Exactness::exact},
                                                kMarginLevel, tail, shape_, integer_)
                                    .half_width;
    s.coverage.name = name + " [" + bar.method + "]";
    s.coverage.conservative = !normal;
    s.coverage.expected = !normal    ? kMarginLevel
                          : integer_ ? coverage::normal_integer_coverage(s.half_width, s.variance_upper)
                                     : std::erf(s.half_width / std::sqrt(2 * s.variance_upper));
    return s;
  }

  bool integer_ = false;
  LawShape shape_ = LawShape::other;

 private:
  idp_release_table* draw() { return release_.draw(); }
  idp_accuracy* prepared(const std::string& law) {
    idp_table_columns columns = first_->columns(integer_, false, false);
    idp_row_layout layout{};
    idp_error error{};
    EXPECT_EQ(idp_accuracy_layout(law.c_str(), &columns, &layout, &error), IDP_OK) << error.message;
    const idp_release_rows rows = first_->rows(layout);
    idp_accuracy* out = nullptr;
    EXPECT_EQ(idp_accuracy_prepare(law.c_str(), &columns, &rows, nullptr, &out, &error), IDP_OK) << error.message;
    return out;
  }
  idp_error_bar error_bar(idp_accuracy* accuracy, const std::vector<std::size_t>& rows) const {
    std::vector<idp_row_id> ids;
    for (std::size_t r : rows) ids.push_back(first_->ids()[r]);
    idp_error_bar bar{};
    idp_error error{};
    EXPECT_EQ(idp_accuracy_sum(accuracy, ids.size(), ids.data(), nullptr, kMarginLevel, nullptr, &bar, &error), IDP_OK)
        << error.message;
    EXPECT_EQ(bar.unknown_rows, 0u);
    return bar;
  }

  std::string name_;
  test_tables::RepeatedRelease release_;
  std::unique_ptr<ReleaseTableRows> first_;
  idp_accuracy* accuracy_ = nullptr;
  idp_accuracy* wrong_ = nullptr;
};

std::vector<std::int64_t> random_counts(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::int64_t> out(n);
  for (auto& c : out) c = std::int64_t(gen() % 40);
  return out;
}

// Rows of a row-major R x C table (flat releases keep the source's order).
std::vector<std::size_t> block(std::size_t C, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
  std::vector<std::size_t> out;
  for (std::size_t r = r0; r < r1; ++r)
    for (std::size_t c = c0; c < c1; ++c) out.push_back(r * C + c);
  return out;
}

std::vector<std::size_t> random_rows(std::size_t n, double p, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::bernoulli_distribution in(p);
  std::vector<std::size_t> out;
  for (std::size_t r = 0; r < n; ++r)
    if (in(gen)) out.push_back(r);
  return out;
}

// The partition formula on a two-way release: the same law claiming the
// row margin alone.
std::string rows_margin_only(std::string law) {
  law = std::regex_replace(law, std::regex(R"re("margins": \[\["a"\], \["b"\]\])re"), R"re("margins": [["a"]])re");
  law = std::regex_replace(law, std::regex(R"re("structure": "two_way")re"), R"re("structure": "partition")re");
  law = std::regex_replace(law, std::regex(R"re("(rank|null_dimension)": \d+)re"), R"re("$1": null)re");
  return law;
}

TEST(StatMarginOfError, IndependentCells) {
  MarginFamily f("discrete_laplace 8x10", test_tables::grid({"a", "b"}, {8, 10}, random_counts(80, 1)),
                 Request{"discrete_laplace", 1}, 101);
  f.prepare();
  f.sum("a row", block(10, 2, 3, 0, 10));
  f.sum("a 4x8 region", block(10, 1, 5, 1, 9));
  f.sum("a random subset", random_rows(80, 0.5, 11));
  f.run();
}

TEST(StatMarginOfError, OneMargin) {
  MarginFamily f("integer_laplace 8x10, margin a", test_tables::grid({"a", "b"}, {8, 10}, random_counts(80, 2)),
                 Request{"integer_laplace", 1, 0, {"a"}}, 102);
  f.prepare();
  f.sum("across the margin's groups (a column)", block(10, 0, 8, 3, 4));
  f.sum("a 6x6 region", block(10, 1, 7, 2, 8));
  f.sum("a random subset", random_rows(80, 0.5, 12));
  f.run();
}

TEST(StatMarginOfError, NestedMargins) {
  MarginFamily f("integer_gaussian 4x5x4, margins a and a,b",
                 test_tables::grid({"a", "b", "c"}, {4, 5, 4}, random_counts(80, 3)),
                 Request{"integer_gaussian", 1, 1e-6, {"a", "a,b"}}, 103);
  f.prepare();
  std::vector<std::size_t> across;
  for (std::size_t g = 0; g < 20; ++g) across.push_back(g * 4 + 1);
  f.sum("across the finest groups (c fixed)", across);
  f.sum("a region (a = 1, two cs)", {20, 21, 24, 25, 28, 29, 32, 33, 36, 37});
  f.sum("a random subset", random_rows(80, 0.5, 13));
  f.run();
}

TEST(StatMarginOfError, TwoWayTablesAndThePartitionFormula) {
  for (const char* mechanism : {"integer_gaussian", "subspace_gaussian"}) {
    MarginFamily f(std::string(mechanism) + " 10x12, margins a and b",
                   test_tables::grid({"a", "b"}, {10, 12}, random_counts(120, 4)),
                   Request{mechanism, 1, 1e-6, {"a", "b"}}, 104);
    f.prepare(rows_margin_only);
    f.sum("across the row groups (half of six columns)", block(12, 0, 5, 0, 6), true);
    f.sum("a 3x4 region", block(12, 1, 4, 2, 6), true);
    // (On a random subset the two formulas differ by a few percent only: no power check there.)
    f.sum("a random subset", random_rows(120, 0.5, 14));
    f.run();
  }
}

TEST(StatMarginOfError, KWayTable) {
  MarginFamily f("integer_gaussian 3x3x4, its three two-way margins",
                 test_tables::grid({"a", "b", "c"}, {3, 3, 4}, random_counts(36, 5)),
                 Request{"integer_gaussian", 1, 1e-6, {"a,b", "a,c", "b,c"}}, 105);
  f.prepare();
  f.sum("across groups (half a line)", {4, 5});
  f.sum("a 2x2x3 box", {0, 1, 2, 4, 5, 6, 12, 13, 14, 16, 17, 18});
  f.sum("a random subset", random_rows(36, 0.6, 15));
  f.run();
}

TEST(StatMarginOfError, IncompleteTableGeneralMargins) {
  TestTable t = test_tables::grid({"a", "b"}, {6, 8}, random_counts(48, 6));
  // Five cells missing: the two margins no longer form complete tables.
  for (std::size_t cell : {47u, 30u, 21u, 9u, 3u}) {
    t.text.erase(t.text.begin() + std::ptrdiff_t(2 * cell), t.text.begin() + std::ptrdiff_t(2 * cell + 2));
    t.counts.erase(t.counts.begin() + std::ptrdiff_t(cell));
  }
  MarginFamily f("subspace_laplace incomplete 6x8, margins a and b", t, Request{"subspace_laplace", 1, 0, {"a", "b"}},
                 106);
  f.prepare();
  std::vector<std::size_t> across, region, rows;
  for (std::size_t r = 0; r < f.rows().n_rows(); ++r) {
    const std::string a = f.rows().key(r, 0), b = f.rows().key(r, 1);
    if (b == "b5" && a != "a0") across.push_back(r);
    if (a <= "a3" && b >= "b2" && b <= "b6") region.push_back(r);
  }
  f.sum("across the row groups (a column)", across);
  f.sum("a region", region);
  f.sum("a random subset", random_rows(f.rows().n_rows(), 0.7, 16));
  f.run();
}

void hierarchy_sums(MarginFamily& f) {
  const auto& rows = f.rows();
  std::vector<std::size_t> mixed, counties, random;
  std::mt19937_64 gen(17);
  for (std::size_t r = 0; r < rows.n_rows(); ++r) {
    const char* county = rows.key(r, 1);
    const char* edu = rows.key(r, 2);
    // A county, two cells of another, and the whole of a third's cells.
    if (county && !edu && std::string(county) == "c01") mixed.push_back(r);
    if (county && edu && std::string(county) == "c12" && (std::string(edu) == "e0" || std::string(edu) == "e3"))
      mixed.push_back(r);
    if (county && edu && std::string(county) == "c23") mixed.push_back(r);
    if (county && !edu && county[2] != '3') counties.push_back(r);  // three of each region's four
    if (gen() % 3 == 0) random.push_back(r);
  }
  f.sum("a region of the hierarchy (a county, cells of two others)", mixed);
  f.sum("nine counties across the three regions", counties);
  f.sum("a random subset of nodes", random);
}

TEST(StatMarginOfError, CascadeAndIntegerCascade) {
  for (const char* mechanism : {"cascade", "integer_cascade"}) {
    MarginFamily f(std::string(mechanism) + " region>county>cell, regions exact",
                   test_tables::geography(random_counts(60, 7)),
                   Request{mechanism, 1, 1e-6, {"region"}, {"region", "county"}}, 107);
    f.prepare();
    hierarchy_sums(f);
    f.run();
  }
}

TEST(StatMarginOfError, CrossedCascade) {
  for (const char* mechanism : {"cascade", "integer_cascade"}) {
    MarginFamily f(std::string(mechanism) + " crossed 6 x 5",
                   test_tables::grid({"a", "b"}, {6, 5}, random_counts(30, 8)),
                   Request{mechanism, 1, 1e-6, {}, {"a"}, {"crossed"}, {"[\"b\"]"}}, 108);
    f.prepare();
    std::vector<std::size_t> rects, cells, random;
    for (std::size_t r = 0; r < f.rows().n_rows(); ++r) {
      const char* a = f.rows().key(r, 0);
      const char* b = f.rows().key(r, 1);
      if (a && !b && std::string(a) <= "a2") rects.push_back(r);  // three rows' totals
      if (a && b && std::string(b) <= "b2") cells.push_back(r);  // three columns of cells
      if (r % 4 == 1) random.push_back(r);
    }
    f.sum("three rows' totals", rects);
    f.sum("three columns of cells", cells);
    f.sum("a random subset of rectangles", random);
    f.run();
  }
}

TEST(StatMarginOfError, PrivacyUnit) {
  // 300 patients, each with one visit in one or two (clinic, week) cells:
  // the bounds (2 cells, 1 row each) keep every visit, so the released
  // truth is the table's counts.
  TestTable t = test_tables::grid({"clinic", "week"}, {5, 6}, std::vector<std::int64_t>(30, 0));
  std::vector<std::string> unit_names;
  std::vector<std::size_t> unit_cells;
  std::mt19937_64 gen(9);
  for (int p = 0; p < 300; ++p) {
    const std::size_t first = gen() % 30, second = (first + 1 + gen() % 29) % 30;
    for (std::size_t cell : {first, second}) {
      if (cell == second && p % 2) continue;
      unit_names.push_back("p" + std::to_string(p));
      unit_cells.push_back(cell);
      ++t.counts[cell];
    }
  }
  // The source's rows (one visit each), from which the release prints its
  // cells' keys and counts its truth.
  TestTable visits{{"clinic", "week"}, {}, std::vector<std::int64_t>(unit_names.size(), 1)};
  std::vector<const char*> units;
  for (std::size_t i = 0; i < unit_names.size(); ++i) {
    units.push_back(unit_names[i].c_str());
    visits.text.push_back(t.text[2 * unit_cells[i]]);
    visits.text.push_back(t.text[2 * unit_cells[i] + 1]);
  }
  const std::vector<const char*> keys = visits.pointers();
  const test_tables::UnitCells cells(units, keys, {"clinic", "week"}, "2", "1");
  MarginFamily f("integer_laplace 5x6 with a privacy unit (G 2, R 1), margin clinic", visits,
                 Request{"integer_laplace", 2, 0, {"clinic"}}, 109);
  f.use_units(cells);
  f.prepare();
  // Released rows are the distinct cells in order of first appearance: select by keys.
  std::vector<std::size_t> across, region;
  for (std::size_t r = 0; r < f.rows().n_rows(); ++r) {
    const std::string clinic = f.rows().key(r, 0), week = f.rows().key(r, 1);
    if (week == "week2") across.push_back(r);
    if (clinic <= "clinic2" && week <= "week3") region.push_back(r);
  }
  f.sum("across the margin's groups (a week)", across);
  f.sum("a region", region);
  f.sum("a random subset", random_rows(f.rows().n_rows(), 0.5, 19));
  f.run();
}

TEST(StatMarginOfError, Stream) {
  // Eleven periods appended as 5 then 6, as two refreshes would.
  const double v = 4;
  const std::string law = R"({"mechanism": "cascade_stream", "error_law": "gaussian_stream", "variance": 4})";
  const TestTable periods = test_tables::grid({"day"}, {11}, std::vector<std::int64_t>(11, 0));
  ReleaseTableRows rows_of_days = [&]() -> ReleaseTableRows {
    idp_release_table fake{};
    fake.n_rows = 11;
    std::vector<double> zero(11, 0);
    fake.values = zero.data();
    fake.metadata_json = const_cast<char*>(law.c_str());
    return ReleaseTableRows(periods, fake);
  }();
  const char* names[] = {"day", "n"};
  const idp_column_type types[] = {IDP_COLUMN_OTHER, IDP_COLUMN_FLOAT8};
  idp_table_columns columns{2, names, types, 0, nullptr};
  idp_row_layout layout{};
  idp_error error{};
  ASSERT_EQ(idp_accuracy_layout(law.c_str(), &columns, &layout, &error), IDP_OK) << error.message;
  const idp_release_rows rows = rows_of_days.rows(layout);
  idp_accuracy* accuracy = nullptr;
  ASSERT_EQ(idp_accuracy_prepare(law.c_str(), &columns, &rows, nullptr, &accuracy, &error), IDP_OK) << error.message;
  MarginFamily f("stream, 11 periods", periods, Request{}, 0);
  f.shape_ = LawShape::gaussian;
  const auto add = [&](const std::string& what, const std::vector<std::size_t>& days) {
    std::vector<idp_row_id> ids;
    QueryBuilder b(11);
    for (std::size_t d : days) {
      ids.push_back(test_tables::row_id(d));
      b.add(d);
    }
    idp_error_bar bar{};
    ASSERT_EQ(idp_accuracy_sum(accuracy, ids.size(), ids.data(), nullptr, kMarginLevel, nullptr, &bar, &error), IDP_OK);
    const CellQuery q = b.take();
    f.checks_.push_back(f.check("stream: " + what, q, bar, 1));
    f.wrong_checks_.push_back(f.check("stream: " + what + ", variance x 0.8", q, bar, 0.8));
  };
  add("days 2 to 8", {2, 3, 4, 5, 6, 7, 8});
  add("every day", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  add("a random subset of days", {0, 3, 4, 7, 9});
  idp_randomness randomness{true, 110, 0x57a70000 + 110};
  std::vector<double> noise(11);
  for (int release = 0; release < kMarginReleases; ++release) {
    char* state = nullptr;
    char* grown = nullptr;
    ASSERT_EQ(idp_stream_append(nullptr, v, 4, 0, 5, nullptr, &randomness, nullptr, nullptr, noise.data(), &state,
                                &error),
              IDP_OK)
        << error.message;
    ASSERT_EQ(idp_stream_append(state, v, 4, 5, 6, nullptr, &randomness, nullptr, nullptr, noise.data() + 5, &grown,
                                &error),
              IDP_OK)
        << error.message;
    idp_free(state);
    idp_free(grown);
    for (auto& c : f.checks_) c.record(noise);
    for (auto& c : f.wrong_checks_) c.record(noise);
  }
  f.expect();
  idp_accuracy_free(accuracy);
}

}  // namespace
}  // namespace invariant_dp
