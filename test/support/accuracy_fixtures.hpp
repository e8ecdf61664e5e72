// Shared by the error-bar tests (test_accuracy_*, stat_accuracy_*): cells
// from integer tuples, margins by column, the dense reference projector
// Pi_N = I - A^+ A built from the tuples alone (every group of every margin
// a row, redundant ones included; Eigen's complete orthogonal decomposition),
// and small seeded helpers.
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

}  // namespace invariant_dp::accuracy_fixtures
