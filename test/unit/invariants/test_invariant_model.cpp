// Unit tests of InvariantModel: rank and redundancy of declared margins
// (two-way tables, nesting, grand totals, duplicates), the pinned-everything
// error, and every projector structure checked against the dense reference
// Pi_N = I - A^+ A built here with Eigen's complete orthogonal decomposition
// from an independent grouping of the cells. Projector properties
// (idempotent, symmetric, A Pi_N = 0, trace = d - rank) are checked on a few
// hundred seeded random tables and margin sets, and interrupts on big inputs.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "errors.hpp"
#include "invariants/cell_keys.hpp"
#include "table_builder.hpp"
#include "invariants/invariant_model.hpp"

namespace invariant_dp {
namespace {

using Tuple = std::vector<int>;

// Key texts are the decimal levels; columns are named c0, c1, ...
CellKeys keys_from_tuples(const std::vector<Tuple>& tuples, std::size_t n_columns,
                          const Interrupts& interrupts = Interrupts()) {
  std::vector<std::string> storage;
  for (const Tuple& t : tuples) {
    for (int level : t) storage.push_back(std::to_string(level));
  }
  std::vector<const char*> text;
  for (const std::string& s : storage) text.push_back(s.c_str());
  std::vector<std::string> names;
  for (std::size_t j = 0; j < n_columns; ++j) names.push_back("c" + std::to_string(j));
  return CellKeys(test_tables::TextKeys(text, n_columns).rows(), names, interrupts);
}

// Every tuple of the grid levels[0] x levels[1] x ..., last column fastest.
std::vector<Tuple> grid(const std::vector<int>& levels) {
  std::vector<Tuple> out{Tuple()};
  for (int n : levels) {
    std::vector<Tuple> next;
    for (const Tuple& t : out) {
      for (int v = 0; v < n; ++v) {
        next.push_back(t);
        next.back().push_back(v);
      }
    }
    out = next;
  }
  return out;
}

std::vector<Margin> margins_of(const std::vector<std::vector<std::size_t>>& columns) {
  std::vector<Margin> out;
  for (const auto& c : columns) out.push_back(Margin{c});
  return out;
}

// The dense invariant matrix: one row per group of each margin, groups in
// order of first appearance (the order margin_totals promises).
Eigen::MatrixXd dense_rows(const std::vector<Tuple>& tuples, const std::vector<Margin>& margins) {
  std::vector<Eigen::VectorXd> rows;
  for (const Margin& margin : margins) {
    std::map<Tuple, std::size_t> row_of;
    const std::size_t first = rows.size();
    for (std::size_t i = 0; i < tuples.size(); ++i) {
      Tuple key;
      for (std::size_t c : margin.columns) key.push_back(tuples[i][c]);
      auto it = row_of.emplace(key, rows.size() - first).first;
      if (it->second + first == rows.size()) rows.push_back(Eigen::VectorXd::Zero(tuples.size()));
      rows[first + it->second][i] = 1.0;
    }
  }
  Eigen::MatrixXd a(rows.size(), tuples.size());
  for (std::size_t r = 0; r < rows.size(); ++r) a.row(r) = rows[r].transpose();
  return a;
}

struct DenseReference {
  Eigen::MatrixXd projector;
  Eigen::Index rank;
};

DenseReference dense_reference(const Eigen::MatrixXd& a) {
  const Eigen::Index d = a.cols();
  if (a.rows() == 0) return {Eigen::MatrixXd::Identity(d, d), 0};
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(a);
  return {Eigen::MatrixXd::Identity(d, d) - cod.pseudoInverse() * a, cod.rank()};
}

// Pi_N as the model applies it, column by column.
Eigen::MatrixXd applied_projector(const InvariantModel& model) {
  const std::size_t d = model.n_cells();
  Eigen::MatrixXd p(d, d);
  for (std::size_t j = 0; j < d; ++j) {
    Eigen::VectorXd e = Eigen::VectorXd::Unit(d, j);
    model.project_onto_null_space(e.data());
    p.col(j) = e;
  }
  return p;
}

void expect_independent_rows_valid(const InvariantModel& model, const Eigen::MatrixXd& a,
                                   const DenseReference& ref) {
  const Eigen::MatrixXd rows = Eigen::MatrixXd(model.independent_rows());
  ASSERT_EQ(rows.rows(), static_cast<Eigen::Index>(model.rank()));
  ASSERT_EQ(rows.cols(), a.cols());
  if (rows.rows() == 0) return;
  EXPECT_EQ(Eigen::FullPivLU<Eigen::MatrixXd>(rows).rank(), rows.rows());
  EXPECT_LT((rows * ref.projector).cwiseAbs().maxCoeff(), 1e-9);
}

void expect_margin_totals_match(const InvariantModel& model, const Eigen::MatrixXd& a, std::mt19937_64& rng) {
  ASSERT_EQ(model.n_margin_groups(), static_cast<std::size_t>(a.rows()));
  if (a.rows() == 0) return;
  std::uniform_real_distribution<double> uniform(0, 100);
  Eigen::VectorXd x(a.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = uniform(rng);
  Eigen::VectorXd totals(a.rows());
  model.margin_totals(x.data(), totals.data());
  EXPECT_LT((totals - a * x).cwiseAbs().maxCoeff(), 1e-9);
}

// Everything the model claims, against the dense reference; returns the
// model's structure.
std::string expect_model_matches_dense(const std::vector<Tuple>& tuples, std::size_t n_columns,
                                       const std::vector<Margin>& margins) {
  const CellKeys keys = keys_from_tuples(tuples, n_columns);
  const Eigen::MatrixXd a = dense_rows(tuples, margins);
  const DenseReference ref = dense_reference(a);
  const InvariantModel model(keys, margins, Interrupts());
  EXPECT_EQ(static_cast<Eigen::Index>(model.rank()), ref.rank);
  EXPECT_EQ(model.null_dimension(), tuples.size() - model.rank());
  const Eigen::MatrixXd p = applied_projector(model);
  EXPECT_LT((p - ref.projector).cwiseAbs().maxCoeff(), 1e-9) << model.structure();
  const std::vector<double> diag = model.null_projector_diagonal();
  for (std::size_t i = 0; i < tuples.size(); ++i) EXPECT_NEAR(diag[i], ref.projector(i, i), 1e-9);
  expect_independent_rows_valid(model, a, ref);
  std::mt19937_64 rng(7);
  expect_margin_totals_match(model, a, rng);
  return model.structure();
}

std::size_t rank_of(const std::vector<Tuple>& tuples, std::size_t n_columns, const std::vector<Margin>& margins) {
  return InvariantModel(keys_from_tuples(tuples, n_columns), margins, Interrupts()).rank();
}

TEST(InvariantModelRank, RowAndColumnMarginsOfRByCTableHaveRankRPlusCMinusOne) {
  for (int r = 2; r <= 6; ++r) {
    for (int c = 2; c <= 5; ++c) {
      EXPECT_EQ(rank_of(grid({r, c}), 2, margins_of({{0}, {1}})), std::size_t(r + c - 1)) << r << "x" << c;
    }
  }
}

TEST(InvariantModelRank, FourByFourTableHasRankSeven) {
  const InvariantModel model(keys_from_tuples(grid({4, 4}), 2), margins_of({{0}, {1}}), Interrupts());
  EXPECT_EQ(model.rank(), 7u);
  EXPECT_EQ(model.null_dimension(), 9u);
  EXPECT_EQ(model.structure(), "two_way");
}

TEST(InvariantModelRank, NestedMarginsKeepOnlyTheFinest) {
  // 3 states with 2, 3 and 4 counties, 2 education levels per county.
  std::vector<Tuple> tuples;
  int county = 0;
  for (int state = 0; state < 3; ++state) {
    for (int k = 0; k < state + 2; ++k, ++county) {
      for (int edu = 0; edu < 2; ++edu) tuples.push_back({state, county, edu});
    }
  }
  const InvariantModel model(keys_from_tuples(tuples, 3), margins_of({{0}, {0, 1}}), Interrupts());
  EXPECT_EQ(model.rank(), 9u);  // the number of counties
  EXPECT_EQ(model.structure(), "partition");
  EXPECT_EQ(model.n_margin_groups(), 3u + 9u);
}

TEST(InvariantModelRank, GrandTotalNextToAnyMarginIsRedundant) {
  EXPECT_EQ(rank_of(grid({3, 4}), 2, margins_of({{}, {1}})), 4u);
  EXPECT_EQ(rank_of(grid({3, 4}), 2, margins_of({{0}, {}})), 3u);
  EXPECT_EQ(rank_of(grid({3, 4}), 2, margins_of({{}, {0}, {1}})), 6u);
  EXPECT_EQ(rank_of(grid({3, 4}), 2, margins_of({{}})), 1u);
  EXPECT_EQ(rank_of(grid({3, 4, 2}), 3, margins_of({{}, {0, 1}, {1, 2}})), 3u * 4 + 4 * 2 - 4);
}

TEST(InvariantModelRank, DuplicateMarginsCountOnce) {
  const InvariantModel model(keys_from_tuples(grid({3, 4}), 2), margins_of({{1}, {1}, {1, 1}}), Interrupts());
  EXPECT_EQ(model.rank(), 4u);
  EXPECT_EQ(model.structure(), "partition");
  EXPECT_EQ(model.n_margin_groups(), 12u);  // totals are still reported per declared margin
  EXPECT_EQ(rank_of(grid({3, 4}), 2, margins_of({{0}, {1}, {1}, {0}})), 6u);
}

TEST(InvariantModelRank, NoMarginMeansIdentity) {
  const InvariantModel model(keys_from_tuples(grid({3, 2}), 2), {}, Interrupts());
  EXPECT_EQ(model.rank(), 0u);
  EXPECT_EQ(model.structure(), "none");
  std::vector<double> e{1, 2, 3, 4, 5, 6};
  model.project_onto_null_space(e.data());
  EXPECT_EQ(e, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(model.n_margin_groups(), 0u);
}

TEST(InvariantModelErrors, MarginOverAllKeyColumnsPinsEveryCell) {
  try {
    InvariantModel(keys_from_tuples(grid({3, 2}), 2), margins_of({{0}, {1, 0}}), Interrupts());
    FAIL() << "expected InconsistentInvariants";
  } catch (const InconsistentInvariants& e) {
    EXPECT_STREQ(e.what(), "the invariants leave no cell to protect");
    EXPECT_EQ(e.detail(), "The margins (c0) and (c0, c1) fix all 6 cells exactly, so no noise can be added.");
    EXPECT_EQ(e.hint().substr(0, 13), "Drop a margin");
  }
}

TEST(InvariantModelErrors, TwoMarginsThatTogetherPinEveryCell) {
  // An L-shaped table: rank 2 + 2 - 1 = 3 = number of cells.
  EXPECT_THROW(InvariantModel(keys_from_tuples({{0, 0}, {0, 1}, {1, 1}}, 2), margins_of({{0}, {1}}), Interrupts()),
               InconsistentInvariants);
  // One column: every G x 1 block pins its cells.
  EXPECT_THROW(InvariantModel(keys_from_tuples(grid({3, 1}), 2), margins_of({{0}, {1}}), Interrupts()),
               InconsistentInvariants);
  // A grand total over a single cell.
  EXPECT_THROW(InvariantModel(keys_from_tuples({{0}}, 1), margins_of({{}}), Interrupts()), InconsistentInvariants);
}

TEST(InvariantModelErrors, ThreeMarginsThatTogetherPinEveryCell) {
  // 2 x 2 x 2 cube with its three two-way margins: rank 7 < 8 leaves one
  // free direction; dropping a cell leaves none.
  EXPECT_EQ(rank_of(grid({2, 2, 2}), 3, margins_of({{0, 1}, {1, 2}, {0, 2}})), 7u);
  std::vector<Tuple> seven = grid({2, 2, 2});
  seven.pop_back();
  EXPECT_THROW(InvariantModel(keys_from_tuples(seven, 3), margins_of({{0, 1}, {1, 2}, {0, 2}}), Interrupts()),
               InconsistentInvariants);
}

TEST(InvariantModelErrors, ColumnOutOfRangeAndNoCells) {
  EXPECT_THROW(InvariantModel(keys_from_tuples(grid({3}), 1), margins_of({{1}}), Interrupts()), InvalidArgument);
  EXPECT_THROW(InvariantModel(keys_from_tuples({}, 1), {}, Interrupts()), InvalidData);
}

TEST(InvariantModelProjector, PartitionMatchesDense) {
  std::vector<Tuple> tuples = grid({4, 3});
  tuples.erase(tuples.begin() + 1);  // unequal group sizes
  EXPECT_EQ(expect_model_matches_dense(tuples, 2, margins_of({{0}})), "partition");
  EXPECT_EQ(expect_model_matches_dense(tuples, 2, margins_of({{}})), "partition");
  EXPECT_EQ(expect_model_matches_dense(tuples, 2, {}), "none");
}

TEST(InvariantModelProjector, BorrowedPartitionGroupsAreTheColumnsCodes) {
  // A one-column margin's groups are that column's codes when they number
  // the groups by first appearance (as CellKeys numbers its codes): borrowed,
  // the model reads them in place; copied, it keeps equal ids of its own.
  std::vector<Tuple> tuples = grid({4, 3});
  tuples.erase(tuples.begin() + 1);
  const CellKeys keys = keys_from_tuples(tuples, 2);
  const InvariantModel borrowed(keys, margins_of({{0}}), Interrupts(), KeyCodes::borrowed);
  const InvariantModel copied(keys, margins_of({{0}}), Interrupts(), KeyCodes::copied);
  ASSERT_EQ(borrowed.structure(), "partition");
  EXPECT_EQ(borrowed.partition_groups(), keys.codes(0));
  EXPECT_NE(copied.partition_groups(), keys.codes(0));
  for (std::size_t i = 0; i < keys.n_cells(); ++i) EXPECT_EQ(copied.partition_groups()[i], keys.codes(0)[i]) << i;
  // Codes given otherwise (from_codes: 1 before 0) are renumbered, not borrowed.
  const CellKeys given = CellKeys::from_codes({"c0", "c1"}, {{1, 1, 0, 0}, {0, 1, 0, 1}}, {2, 2}, Interrupts());
  const InvariantModel renumbered(given, margins_of({{0}}), Interrupts(), KeyCodes::borrowed);
  EXPECT_NE(renumbered.partition_groups(), given.codes(0));
  EXPECT_EQ(std::vector<std::uint32_t>(renumbered.partition_groups(), renumbered.partition_groups() + 4),
            (std::vector<std::uint32_t>{0, 0, 1, 1}));
}

TEST(InvariantModelProjector, TwoWayTableMatchesDense) {
  EXPECT_EQ(expect_model_matches_dense(grid({3, 4}), 2, margins_of({{0}, {1}})), "two_way");
  EXPECT_EQ(expect_model_matches_dense(grid({4, 4}), 2, margins_of({{1}, {0}, {}})), "two_way");
}

TEST(InvariantModelProjector, BlocksOfTwoWayTablesMatchDense) {
  // A small WiFi cube: blocks (column 0) of 3 x 4 tables, plus a block whose
  // table is 2 x 5 (the crossing only has to be complete within a block).
  std::vector<Tuple> tuples = grid({3, 3, 4});
  for (int g = 0; g < 2; ++g) {
    for (int h = 0; h < 5; ++h) tuples.push_back({3, 10 + g, 20 + h});
  }
  EXPECT_EQ(expect_model_matches_dense(tuples, 3, margins_of({{0, 1}, {0, 2}})), "two_way");
}

TEST(InvariantModelProjector, IncompleteTwoWayTableMatchesDense) {
  std::vector<Tuple> tuples = grid({4, 5});
  tuples.erase(tuples.begin() + 7);
  tuples.erase(tuples.begin() + 2);
  EXPECT_EQ(expect_model_matches_dense(tuples, 2, margins_of({{0}, {1}})), "general");
  // Two disconnected incomplete blocks.
  tuples.push_back({9, 9});
  tuples.push_back({9, 8});
  tuples.push_back({8, 9});
  tuples.push_back({8, 8});
  tuples.push_back({8, 7});
  EXPECT_EQ(expect_model_matches_dense(tuples, 2, margins_of({{0}, {1}})), "general");
  // Two cells per pair of groups: not a simple cross either.
  EXPECT_EQ(expect_model_matches_dense(grid({3, 4, 2}), 3, margins_of({{0}, {1}})), "general");
  // ... while {c0, c2} x {c1} is a complete 6 x 4 cross again.
  EXPECT_EQ(expect_model_matches_dense(grid({3, 4, 2}), 3, margins_of({{0, 2}, {1}})), "two_way");
}

// A family of cubes: a group column in every margin, each cube's three
// two-way margins within its group; groups may hold different levels of an
// axis (each its own complete table), and a group missing a cell is no
// complete table.
TEST(InvariantModelProjector, FamiliesOfCubesMatchDense) {
  EXPECT_EQ(expect_model_matches_dense(grid({3, 2, 3, 2}), 4, margins_of({{0, 1, 2}, {0, 1, 3}, {0, 2, 3}})), "k_way");
  // Group 0 holds levels 0..2 of the second axis, group 1 levels 1..4.
  std::vector<Tuple> family;
  for (int b = 0; b < 3; ++b)
    for (int c = 0; c < 2; ++c)
      for (int d = 0; d < 3; ++d) family.push_back({0, b, c, d});
  for (int b = 1; b < 5; ++b)
    for (int c = 0; c < 2; ++c)
      for (int d = 0; d < 2; ++d) family.push_back({1, b, c, d});
  EXPECT_EQ(expect_model_matches_dense(family, 4, margins_of({{0, 1, 2}, {0, 1, 3}, {0, 2, 3}})), "k_way");
  const InvariantModel model(keys_from_tuples(family, 4), margins_of({{0, 1, 2}, {0, 1, 3}, {0, 2, 3}}), Interrupts());
  const std::vector<LatticeTable> tables = model.lattice_tables();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].shape, (std::vector<std::size_t>{3, 2, 3}));
  EXPECT_EQ(tables[1].shape, (std::vector<std::size_t>{4, 2, 2}));
  family.pop_back();
  EXPECT_EQ(expect_model_matches_dense(family, 4, margins_of({{0, 1, 2}, {0, 1, 3}, {0, 2, 3}})), "general");
  // Any column in every margin groups: here the second.
  EXPECT_EQ(expect_model_matches_dense(grid({2, 2, 3, 2}), 4, margins_of({{0, 1, 2}, {0, 1, 3}, {1, 2, 3}})), "k_way");
  // A margin that leaves out two axes: no family.
  EXPECT_EQ(expect_model_matches_dense(grid({2, 2, 3, 2}), 4, margins_of({{0, 1, 2}, {0, 1, 3}, {2, 3}})), "general");
}

TEST(InvariantModelProjector, ThreeIntersectingMarginsMatchDense) {
  EXPECT_EQ(expect_model_matches_dense(grid({3, 4, 2}), 3, margins_of({{0, 1}, {1, 2}, {0, 2}})), "k_way");
  EXPECT_EQ(expect_model_matches_dense(grid({3, 4, 3}), 3, margins_of({{0}, {1}, {2}})), "general");
  std::vector<Tuple> tuples = grid({3, 3, 3});
  tuples.erase(tuples.begin() + 13);
  EXPECT_EQ(expect_model_matches_dense(tuples, 3, margins_of({{0, 1}, {1, 2}, {0, 2}, {}})), "general");
}

// P(Pe) = Pe, A Pe = 0, u.Pv = v.Pu and trace(diag) = d - rank, for vectors
// of scale ~100 on a model of `tuples`.
void expect_projector_properties(const std::vector<Tuple>& tuples, std::size_t n_columns,
                                 const std::vector<Margin>& margins, std::mt19937_64& rng) {
  const InvariantModel model(keys_from_tuples(tuples, n_columns), margins, Interrupts());
  const Eigen::Index d = static_cast<Eigen::Index>(tuples.size());
  std::normal_distribution<double> normal(0.0, 100.0);
  Eigen::VectorXd u(d), v(d);
  for (Eigen::Index i = 0; i < d; ++i) u[i] = normal(rng), v[i] = normal(rng);
  Eigen::VectorXd pu = u, pv = v;
  model.project_onto_null_space(pu.data());
  model.project_onto_null_space(pv.data());
  Eigen::VectorXd ppu = pu;
  model.project_onto_null_space(ppu.data());
  const double scale = 100.0;
  EXPECT_LT((ppu - pu).cwiseAbs().maxCoeff(), 1e-9 * scale);
  const Eigen::MatrixXd a = dense_rows(tuples, margins);
  if (a.rows() > 0) {
    EXPECT_LT((a * pu).cwiseAbs().maxCoeff(), 1e-9 * scale);
  }
  EXPECT_NEAR(u.dot(pv), v.dot(pu), 1e-9 * scale * scale * d);
  const std::vector<double> diag = model.null_projector_diagonal();
  double trace = 0;
  for (double x : diag) trace += x;
  EXPECT_NEAR(trace, double(model.null_dimension()), 1e-9 * d);
}

TEST(InvariantModelProjector, PropertiesHoldForEveryStructure) {
  std::mt19937_64 rng(11);
  expect_projector_properties(grid({5, 7}), 2, margins_of({{0}}), rng);
  expect_projector_properties(grid({5, 7}), 2, margins_of({{0}, {1}}), rng);
  expect_projector_properties(grid({4, 5, 6}), 3, margins_of({{0, 1}, {0, 2}}), rng);
  expect_projector_properties(grid({4, 5, 6}), 3, margins_of({{0, 1}, {1, 2}, {0, 2}}), rng);
  std::vector<Tuple> holes = grid({6, 6});
  holes.erase(holes.begin() + 20);
  expect_projector_properties(holes, 2, margins_of({{0}, {1}}), rng);
}

// A random table: 1-4 key columns of 1-5 levels, each grid cell kept with a
// random probability; 0-4 random margins (column subsets, possibly repeated
// or nested). Expected rank comes from the dense reference; a full rank must
// raise InconsistentInvariants, anything else must match the dense projector.
TEST(InvariantModelProjector, RandomTablesAndMarginsMatchDense) {
  std::mt19937_64 rng(20240601);
  int n_checked = 0, n_pinned = 0;
  std::map<std::string, int> structures;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n_columns = 1 + rng() % 4;
    std::vector<int> levels;
    for (std::size_t j = 0; j < n_columns; ++j) levels.push_back(1 + int(rng() % 5));
    const double keep = rng() % 3 == 0 ? 1.0 : std::uniform_real_distribution<double>(0.4, 1.0)(rng);
    std::vector<Tuple> tuples;
    for (const Tuple& t : grid(levels)) {
      if (std::uniform_real_distribution<double>(0, 1)(rng) < keep) tuples.push_back(t);
    }
    if (tuples.empty()) continue;
    std::vector<Margin> margins(rng() % 5);
    for (Margin& m : margins) {
      for (std::size_t j = 0; j < n_columns; ++j) {
        if (rng() % 2) m.columns.push_back(j);
      }
      // A margin over every column pins all cells: keep only a few of those.
      if (m.columns.size() == n_columns && rng() % 4 != 0) m.columns.erase(m.columns.begin() + rng() % n_columns);
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    const DenseReference ref = dense_reference(dense_rows(tuples, margins));
    if (ref.rank == static_cast<Eigen::Index>(tuples.size())) {
      EXPECT_THROW(InvariantModel(keys_from_tuples(tuples, n_columns), margins, Interrupts()), InconsistentInvariants);
      ++n_pinned;
      continue;
    }
    ++structures[expect_model_matches_dense(tuples, n_columns, margins)];
    expect_projector_properties(tuples, n_columns, margins, rng);
    ++n_checked;
  }
  std::printf("random cases: %d checked, %d pinned; none %d, partition %d, two_way %d, general %d\n", n_checked,
              n_pinned, structures["none"], structures["partition"], structures["two_way"], structures["general"]);
  EXPECT_GT(n_checked, 200);
  EXPECT_GT(n_pinned, 5);
  for (const char* s : {"none", "partition", "two_way", "general"}) EXPECT_GT(structures[s], 20) << s;
}

// Three to five intersecting margins of one or two columns over 3-4 key
// columns, with holes: the general projector and its rank decision.
TEST(InvariantModelProjector, RandomIntersectingMarginsMatchDense) {
  std::mt19937_64 rng(77);
  int n_general = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const std::size_t n_columns = 3 + rng() % 2;
    std::vector<int> levels;
    for (std::size_t j = 0; j < n_columns; ++j) levels.push_back(2 + int(rng() % 3));
    std::vector<Tuple> tuples;
    for (const Tuple& t : grid(levels)) {
      if (rng() % 10 != 0) tuples.push_back(t);
    }
    std::vector<Margin> margins(3 + rng() % 3);
    for (Margin& m : margins) {
      m.columns.push_back(rng() % n_columns);
      if (rng() % 2) m.columns.push_back(rng() % n_columns);
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    const DenseReference ref = dense_reference(dense_rows(tuples, margins));
    if (ref.rank == static_cast<Eigen::Index>(tuples.size())) continue;
    n_general += expect_model_matches_dense(tuples, n_columns, margins) == "general";
  }
  EXPECT_GT(n_general, 80);
}

TEST(InvariantModelScale, MillionCellTableKeepsItsMargins) {
  const CellKeys keys = keys_from_tuples(grid({1000, 1000}), 2);
  const InvariantModel model(keys, margins_of({{0}, {1}}), Interrupts());
  EXPECT_EQ(model.rank(), 1999u);
  EXPECT_EQ(model.structure(), "two_way");
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  std::vector<double> e(model.n_cells());
  for (double& x : e) x = normal(rng);
  model.project_onto_null_space(e.data());
  std::vector<double> totals(model.n_margin_groups());
  model.margin_totals(e.data(), totals.data());
  for (double t : totals) ASSERT_NEAR(t, 0.0, 1e-9 * 1000);
}

// 20000 rows x 1000 columns with three cells per row: too wide for the dense
// Schur complement of the incomplete two-way projector, so the sparse
// factorisation and its selected inverse do the work. Checked without a
// dense reference: A Pi = 0 on every margin group, idempotence, and the
// diagonal against (Pi u_i)_i for sampled unit vectors u_i.
TEST(InvariantModelScale, WideIncompleteTableUsesTheSparseFactor) {
  std::vector<Tuple> tuples;
  for (int r = 0; r < 20000; ++r) {
    for (int offset : {0, 1, 7}) tuples.push_back({r, (r * 13 + offset) % 1000});
  }
  const std::vector<Margin> margins = margins_of({{0}, {1}});
  const InvariantModel model(keys_from_tuples(tuples, 2), margins, Interrupts());
  EXPECT_EQ(model.structure(), "general");
  EXPECT_EQ(model.rank(), 20000u + 1000u - 1u);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  std::vector<double> e(model.n_cells());
  for (double& x : e) x = normal(rng);
  model.project_onto_null_space(e.data());
  std::vector<double> totals(model.n_margin_groups());
  model.margin_totals(e.data(), totals.data());
  for (double t : totals) ASSERT_NEAR(t, 0.0, 1e-9);
  std::vector<double> again = e;
  model.project_onto_null_space(again.data());
  for (std::size_t i = 0; i < e.size(); ++i) ASSERT_NEAR(again[i], e[i], 1e-9);
  const std::vector<double> diag = model.null_projector_diagonal();
  for (std::size_t i = 0; i < model.n_cells(); i += 997) {
    std::vector<double> unit(model.n_cells(), 0.0);
    unit[i] = 1.0;
    model.project_onto_null_space(unit.data());
    EXPECT_NEAR(diag[i], unit[i], 1e-9);
  }
  double trace = 0;
  for (double x : diag) trace += x;
  EXPECT_NEAR(trace, double(model.null_dimension()), 1e-6);
}

// The three two-way margins of a 40^3 cube with one cell missing couple
// all 4800 groups densely: the factorisation would take ~3e10
// multiply-adds, past the limit. The complete cube is the k_way structure
// (centring along each axis), whatever its size.
TEST(InvariantModelErrors, DenselyCoupledMarginsAreTooLarge) {
  std::vector<Tuple> cells = grid({40, 40, 40});
  cells.pop_back();
  EXPECT_THROW(InvariantModel(keys_from_tuples(cells, 3), margins_of({{0, 1}, {1, 2}, {0, 2}}), Interrupts()),
               TooLarge);
  const InvariantModel cube(keys_from_tuples(grid({40, 40, 40}), 3), margins_of({{0, 1}, {1, 2}, {0, 2}}),
                            Interrupts());
  EXPECT_EQ(cube.structure(), "k_way");
  EXPECT_EQ(cube.null_dimension(), 39u * 39u * 39u);
}

bool flag_pending(void* flag) { return *static_cast<bool*>(flag); }

TEST(InvariantModelInterrupts, PendingCancelStopsConstruction) {
  const CellKeys keys = keys_from_tuples(grid({300, 300}), 2);
  bool cancel = true;
  for (const auto& margins : {margins_of({{0}}), margins_of({{0}, {1}}), margins_of({{0}, {1}, {}})}) {
    EXPECT_THROW(InvariantModel(keys, margins, Interrupts(&flag_pending, &cancel)), Interrupted);
  }
}

TEST(InvariantModelInterrupts, PendingCancelStopsProjectionAndDiagonal) {
  std::vector<Tuple> tuples = grid({60, 60});
  tuples.pop_back();  // incomplete: the general projector
  const CellKeys keys = keys_from_tuples(tuples, 2);
  bool cancel = false;
  for (const auto& margins : {margins_of({{0}}), margins_of({{0}, {1}})}) {
    const InvariantModel model(keys, margins, Interrupts(&flag_pending, &cancel));
    cancel = true;
    std::vector<double> e(model.n_cells(), 1.0);
    EXPECT_THROW(model.project_onto_null_space(e.data()), Interrupted);
    EXPECT_THROW(model.null_projector_diagonal(), Interrupted);
    cancel = false;
  }
}

}  // namespace
}  // namespace invariant_dp
