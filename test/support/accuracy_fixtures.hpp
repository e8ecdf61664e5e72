// Shared by the error-bar tests (test_accuracy_*, stat_accuracy_*): cells
// from integer tuples, margins by column, the dense reference projector
// Pi_N = I - A^+ A built from the tuples alone (every group of every margin
// a row, redundant ones included; Eigen's complete orthogonal decomposition),
// the groups the margins fix, the structures the projector forms read (one
// small release each), and small seeded helpers.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "accuracy/cell_query.hpp"
#include "invariants/cell_keys.hpp"
#include "invariants/invariant_model.hpp"
#include "table_builder.hpp"

namespace invariant_dp::accuracy_fixtures {

using Tuple = std::vector<int>;

// Key texts are the decimal levels; columns are named c0, c1, ...
inline CellKeys keys_from_tuples(const std::vector<Tuple>& tuples, std::size_t n_columns) {
  std::vector<std::string> storage;
  for (const Tuple& t : tuples)
    for (int level : t) storage.push_back(std::to_string(level));
  std::vector<const char*> text;
  for (const std::string& s : storage) text.push_back(s.c_str());
  std::vector<std::string> names;
  for (std::size_t j = 0; j < n_columns; ++j) names.push_back("c" + std::to_string(j));
  return CellKeys(test_tables::TextKeys(text, n_columns).rows(), names, Interrupts());
}

// Every tuple of levels[0] x levels[1] x ..., last column fastest.
inline std::vector<Tuple> grid(const std::vector<int>& levels) {
  std::vector<Tuple> out{Tuple()};
  for (int n : levels) {
    std::vector<Tuple> next;
    for (const Tuple& t : out)
      for (int v = 0; v < n; ++v) {
        next.push_back(t);
        next.back().push_back(v);
      }
    out = next;
  }
  return out;
}

inline std::vector<Margin> margins_of(const std::vector<std::vector<std::size_t>>& columns) {
  std::vector<Margin> out;
  for (const auto& c : columns) out.push_back(Margin{c});
  return out;
}

// Cells, margins and the model built on them (the model borrows nothing).
struct Release {
  std::vector<Tuple> tuples;
  std::vector<std::vector<std::size_t>> margin_columns;
  std::unique_ptr<CellKeys> keys;
  std::unique_ptr<InvariantModel> model;

  Release(std::vector<Tuple> t, std::size_t n_columns, std::vector<std::vector<std::size_t>> margins)
      : tuples(std::move(t)), margin_columns(std::move(margins)) {
    keys = std::make_unique<CellKeys>(keys_from_tuples(tuples, n_columns));
    model = std::make_unique<InvariantModel>(*keys, margins_of(margin_columns), Interrupts());
  }
  std::size_t n() const { return tuples.size(); }
};

// Pi_N from the tuples alone.
inline Eigen::MatrixXd dense_projector(const std::vector<Tuple>& tuples,
                                       const std::vector<std::vector<std::size_t>>& margins) {
  const auto n = static_cast<Eigen::Index>(tuples.size());
  std::vector<Eigen::VectorXd> rows;
  for (const auto& columns : margins) {
    std::map<std::vector<int>, Eigen::Index> group;
    std::vector<Eigen::VectorXd> margin_rows;
    for (Eigen::Index i = 0; i < n; ++i) {
      std::vector<int> key;
      for (std::size_t c : columns) key.push_back(tuples[static_cast<std::size_t>(i)][c]);
      auto it = group.find(key);
      if (it == group.end()) {
        it = group.emplace(key, static_cast<Eigen::Index>(margin_rows.size())).first;
        margin_rows.push_back(Eigen::VectorXd::Zero(n));
      }
      margin_rows[static_cast<std::size_t>(it->second)][i] = 1;
    }
    rows.insert(rows.end(), margin_rows.begin(), margin_rows.end());
  }
  if (rows.empty()) return Eigen::MatrixXd::Identity(n, n);
  Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), n);
  for (std::size_t r = 0; r < rows.size(); ++r) A.row(static_cast<Eigen::Index>(r)) = rows[r].transpose();
  const Eigen::MatrixXd pinv = A.completeOrthogonalDecomposition().pseudoInverse();
  return Eigen::MatrixXd::Identity(n, n) - pinv * A;
}

// A random query: each cell with probability p, weights from {1} (sums) or
// small integers including negatives and repeats (added twice).
inline accuracy::CellQuery random_query(std::size_t n, double p, bool weighted, std::mt19937_64& gen) {
  accuracy::QueryBuilder builder(n);
  std::bernoulli_distribution in(p);
  std::uniform_int_distribution<int> weight(-3, 3);
  for (std::size_t i = 0; i < n; ++i) {
    if (!in(gen)) continue;
    builder.add(i, weighted ? weight(gen) : 1);
    if (weighted && in(gen)) builder.add(i, 1);  // a repeated cell counts twice
  }
  return builder.take();
}

inline Eigen::VectorXd dense_weights(const accuracy::CellQuery& q, std::size_t n) {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
  for (std::size_t k = 0; k < q.size(); ++k) x[q.cells[k]] += q.weights[k];
  return x;
}

// The indicators of every group of every margin (the sums the invariants fix).
inline std::vector<std::vector<std::uint32_t>> margin_groups(const Release& release) {
  std::vector<std::vector<std::uint32_t>> out;
  for (const auto& columns : release.margin_columns) {
    std::map<std::vector<int>, std::size_t> group;
    for (std::uint32_t i = 0; i < release.n(); ++i) {
      std::vector<int> key;
      for (const std::size_t c : columns) key.push_back(release.tuples[i][c]);
      const auto found = group.emplace(key, out.size());
      if (found.second) out.emplace_back();
      out[found.first->second].push_back(i);
    }
  }
  return out;
}

struct ProjectorFormCase {
  const char* name;
  Release release;
};

// The structures the forms read (partitions, tables in blocks, cubes,
// general margins), each a small release.
inline std::vector<ProjectorFormCase> projector_form_cases() {
  std::vector<ProjectorFormCase> out;
  out.push_back({"one margin", Release(grid({5, 4}), 2, {{0}})});
  out.push_back({"nested margins", Release(grid({3, 2, 4}), 3, {{0}, {0, 1}})});
  std::vector<Tuple> uneven;  // groups of 1 (pinned) to 5 cells
  for (int g = 0; g < 5; ++g)
    for (int k = 0; k <= g; ++k) uneven.push_back({g, k});
  out.push_back({"uneven groups", Release(uneven, 2, {{0}})});
  out.push_back({"4 x 5", Release(grid({4, 5}), 2, {{0}, {1}})});
  std::vector<Tuple> blocks;  // 3 x 4, 2 x 5 and a pinned 1 x 3
  const int rows[] = {3, 2, 1}, cols[] = {4, 5, 3};
  for (int b = 0; b < 3; ++b)
    for (int r = 0; r < rows[b]; ++r)
      for (int c = 0; c < cols[b]; ++c) blocks.push_back({b, r, c});
  out.push_back({"blocks", Release(blocks, 3, {{0, 1}, {0, 2}})});
  out.push_back({"a table per level", Release(grid({3, 3, 4}), 3, {{0, 1}, {1, 2}})});
  out.push_back({"3 x 4 x 2 cube", Release(grid({3, 4, 2}), 3, {{0, 1}, {0, 2}, {1, 2}})});
  out.push_back({"2 x 3 x 2 x 3", Release(grid({2, 3, 2, 3}), 4, {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}})});
  out.push_back({"main effects", Release(grid({3, 4, 2}), 3, {{0}, {1}, {2}})});
  std::vector<Tuple> incomplete = grid({4, 5});  // a 4 x 5 table without three cells
  for (const int gone : {17, 8, 0}) incomplete.erase(incomplete.begin() + gone);
  out.push_back({"incomplete", Release(incomplete, 2, {{0}, {1}})});
  return out;
}

}  // namespace invariant_dp::accuracy_fixtures
