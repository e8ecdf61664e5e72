// Nothing a release publishes beside its cells depends on the data beyond
// what its guarantee covers. Every mechanism, on every structure and with
// every sampler it accepts, releases two neighbouring tables (records moved
// so that every declared invariant keeps its value) under one seed; the
// metadata (the noise law, the sampler, the privacy statement), the per-cell
// standard deviations and the rows' layout must be the same bytes for both.
// A chain statistic (an acceptance rate, a number of tries, a fallback taken)
// or an estimate computed from the confidential table would differ, as the
// congenial chains' move acceptance once did.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "prepared_release.hpp"
#include "table_builder.hpp"
#include "table_request.hpp"

namespace invariant_dp {
namespace {

using test_tables::TestTable;

// One seed, restarted for each release (a generation no other test uses).
idp_randomness same_seed() {
  static std::uint64_t generation = 0x5055424c4953484eull;  // "PUBLISHN"
  return idp_randomness{true, 20261129, ++generation};
}

struct Published {
  std::string metadata;
  bool integer_output = false;
  std::size_t n_rows = 0;
  std::vector<std::uint32_t> row_cell;
  std::vector<double> noise_sd;
};

struct Case {
  const char* name;
  const char* mechanism;
  double delta;  // 0: none
  std::vector<const char*> margins;
  std::vector<const char*> hierarchy;
  std::vector<std::pair<const char*, const char*>> options;
};

Published publish(const Case& c, const TestTable& table) {
  test_tables::Request r{c.mechanism, 1, c.delta, c.margins, c.hierarchy};
  r.set_options(c.options);
  const idp_request request = r.c_request();
  const test_tables::TableCells table_cells(table);
  const idp_cells& cells = table_cells.cells();
  idp_randomness randomness = same_seed();
  idp_error error{};
  idp_release_table* out = nullptr;
  Published p;
  if (prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error) != IDP_OK) {
    ADD_FAILURE() << c.name << ": " << error.message << " " << error.detail;
    return p;
  }
  p.metadata = out->metadata_json;
  p.integer_output = out->integer_output;
  p.n_rows = out->n_rows;
  if (out->row_cell != nullptr) p.row_cell.assign(out->row_cell, out->row_cell + out->n_rows);
  if (out->noise_sd != nullptr) p.noise_sd.assign(out->noise_sd, out->noise_sd + out->n_rows);
  idp_free_release(out);
  return p;
}

// The table with a 2 x 2 swap of records at rows r0, r1 and columns c0, c1
// of its first two key columns (cells in row-major order, `columns` per
// row): every row total, column total and the grand total stay the same.
TestTable swapped(TestTable t, std::size_t columns, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
  t.counts[r0 * columns + c0] += 1;
  t.counts[r0 * columns + c1] -= 1;
  t.counts[r1 * columns + c0] -= 1;
  t.counts[r1 * columns + c1] += 1;
  return t;
}

void expect_same_publication(const Case& c, const TestTable& x, const TestTable& neighbour) {
  const Published a = publish(c, x), b = publish(c, neighbour);
  EXPECT_EQ(a.metadata, b.metadata) << c.name << ": the metadata depends on the data";
  EXPECT_EQ(a.integer_output, b.integer_output) << c.name;
  EXPECT_EQ(a.n_rows, b.n_rows) << c.name;
  EXPECT_EQ(a.row_cell, b.row_cell) << c.name << ": the rows' layout depends on the data";
  EXPECT_EQ(a.noise_sd, b.noise_sd) << c.name << ": the published sds depend on the data";
}

// Small counts, zeros among them, so that non-negativity binds: where a law
// is conditioned on y >= 0 the data enter it most there.
TestTable four_by_four() {
  return test_tables::grid({"county", "edu"}, {4, 4}, {0, 1, 3, 1, 2, 0, 1, 15, 3, 10, 0, 2, 1, 14, 7, 0});
}

const std::vector<Case>& four_by_four_cases() {
  static const std::vector<Case> all = {
      {"discrete_laplace", "discrete_laplace", 0, {}, {}, {}},
      {"discrete_gaussian", "discrete_gaussian", 1e-6, {}, {}, {{"stddev", "true"}}},
      {"subspace_gaussian both margins", "subspace_gaussian", 1e-6, {"county", "edu"}, {}, {{"stddev", "true"}}},
      {"subspace_laplace one margin", "subspace_laplace", 0, {"county"}, {}, {{"stddev", "true"}}},
      {"integer_laplace one margin", "integer_laplace", 0, {"county"}, {}, {{"stddev", "true"}}},
      {"integer_laplace nested margins", "integer_laplace", 0, {"", "county"}, {}, {{"stddev", "true"}}},
      {"integer_laplace both margins (row rejection)", "integer_laplace", 0, {"county", "edu"}, {}, {{"stddev", "true"}}},
      {"integer_laplace both margins (chain)", "integer_laplace", 0, {"county", "edu"}, {},
       {{"sampler", "chain"}, {"iterations", "30"}, {"stddev", "true"}}},
      {"integer_laplace_l2 one margin", "integer_laplace_l2", 0, {"county"}, {}, {{"iterations", "30"}, {"stddev", "true"}}},
      {"integer_laplace_l2 both margins", "integer_laplace_l2", 0, {"county", "edu"}, {},
       {{"iterations", "30"}, {"stddev", "true"}}},
      {"integer_gaussian one margin", "integer_gaussian", 1e-6, {"county"}, {}, {{"stddev", "true"}}},
      {"integer_gaussian both margins", "integer_gaussian", 1e-6, {"county", "edu"}, {}, {{"stddev", "true"}}},
      {"congenial no margin", "congenial", 0, {}, {}, {{"stddev", "true"}}},
      {"congenial no margin (mis)", "congenial", 0, {}, {}, {{"sampler", "mis"}, {"iterations", "200"}}},
      {"congenial no margin (lattice)", "congenial", 0, {}, {}, {{"sampler", "lattice"}, {"iterations", "50"}}},
      {"congenial no margin (rejection)", "congenial", 0, {}, {}, {{"sampler", "rejection"}}},
      {"congenial one margin", "congenial", 0, {"county"}, {}, {{"stddev", "true"}}},
      {"congenial one margin (rejection)", "congenial", 0, {"county"}, {}, {{"sampler", "rejection"}}},
      {"congenial one margin (mis)", "congenial", 0, {"county"}, {}, {{"sampler", "mis"}, {"iterations", "200"}}},
      {"congenial one margin (lattice)", "congenial", 0, {"county"}, {}, {{"sampler", "lattice"}, {"iterations", "50"}}},
      {"congenial both margins", "congenial", 0, {"county", "edu"}, {}, {{"iterations", "50"}, {"stddev", "true"}}},
      {"congenial both margins (mis)", "congenial", 0, {"county", "edu"}, {}, {{"sampler", "mis"}, {"iterations", "200"}}},
      {"congenial both margins (lattice)", "congenial", 0, {"county", "edu"}, {},
       {{"sampler", "lattice"}, {"iterations", "50"}}},
      {"project_l2 both margins", "project_l2", 0, {"county", "edu"}, {}, {}},
      {"project_nn_l2 both margins", "project_nn_l2", 0, {"county", "edu"}, {}, {}},
      {"project_nn_integer both margins", "project_nn_integer", 0, {"county", "edu"}, {}, {}},
      {"cascade hierarchy", "cascade", 1e-6, {}, {"county", "edu"}, {{"stddev", "true"}}},
      {"cascade hierarchy, counties exact", "cascade", 1e-6, {"county"}, {"county", "edu"}, {}},
      {"integer_cascade hierarchy", "integer_cascade", 1e-6, {}, {"county", "edu"}, {{"level", "true"}, {"stddev", "true"}}},
      {"integer_cascade hierarchy, counties exact", "integer_cascade", 1e-6, {"county"}, {"county", "edu"}, {}},
      // Without stddev or interval: with them its per-level bias and sds are
      // those at the released counts, a function of the release itself.
      {"nonnegative_cascade hierarchy", "nonnegative_cascade", 0, {}, {"county", "edu"}, {{"level", "true"}}},
      {"nonnegative_cascade hierarchy, counties exact", "nonnegative_cascade", 0, {"county"}, {"county", "edu"}, {}},
      {"cascade crossed", "cascade", 1e-6, {}, {"county"}, {{"crossed", "[\"edu\"]"}}},
      {"integer_laplace hierarchy", "integer_laplace", 0, {}, {"county", "edu"}, {}},
  };
  return all;
}

TEST(PublishedFields, EveryMechanismOnNeighbouringTables) {
  const TestTable x = four_by_four();
  // Rows 0 and 3, columns 1 and 3: cells 1 and 3 of the first row and 13
  // and 15 of the last (counts 1, 1, 14, 0 -> 2, 0, 13, 1).
  const TestTable neighbour = swapped(x, 4, 0, 3, 1, 3);
  for (const Case& c : four_by_four_cases()) expect_same_publication(c, x, neighbour);
}

// The exact samplers of two- and three-line tables with both margins.
TEST(PublishedFields, ExactLineTablesOnNeighbouringTables) {
  const TestTable two = test_tables::grid({"county", "edu"}, {2, 6}, {0, 1, 4, 2, 0, 9, 3, 0, 1, 7, 2, 1});
  const TestTable three =
      test_tables::grid({"county", "edu"}, {3, 5}, {0, 1, 4, 2, 0, 3, 0, 1, 7, 2, 5, 5, 0, 0, 1});
  const std::vector<Case> cases = {
      {"integer_laplace 2 x 6 both margins", "integer_laplace", 0, {"county", "edu"}, {}, {{"stddev", "true"}}},
      {"congenial 2 x 6 both margins (rejection)", "congenial", 0, {"county", "edu"}, {}, {{"sampler", "rejection"}}},
      {"congenial 2 x 6 both margins", "congenial", 0, {"county", "edu"}, {}, {{"iterations", "50"}}},
  };
  for (const Case& c : cases) expect_same_publication(c, two, swapped(two, 6, 0, 1, 0, 1));
  expect_same_publication({"integer_laplace 3 x 5 both margins", "integer_laplace", 0, {"county", "edu"}, {},
                           {{"stddev", "true"}}},
                          three, swapped(three, 5, 0, 2, 4, 1));
}

}  // namespace
}  // namespace invariant_dp
