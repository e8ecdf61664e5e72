// What an error bar is asked about, and how well its answer is known.
//
// A query is a linear combination sum_i w_i y_i of released cells (a sum of
// cells: every weight 1; a cell listed twice counts twice, as a row that a
// join repeats counts twice in sum(n)). Every family of release answers the
// variance of its noise w^T z from the published law alone (no budget, no
// source), in O(cells in the query) after O(cells) preparation
// (DERIVATIONS.md beside this file).
//
// How the answer is known (VarianceFigure::kind), stated with every figure:
//   exact      the law's covariance has a closed form; the figure is it, up
//              to floating-point rounding;
//   certified  only bounds are known: the exact variance lies in
//              [lower, upper] (the lattice Gaussians' deficit bound);
//   estimate   neither: a figure from a Monte Carlo per-cell variance and a
//              structural argument, labelled as such. Where the law is drawn
//              by a chain, every figure is the law's, not a certified
//              property of the chain's output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp::accuracy {

enum class Exactness { exact, certified, estimate };
const char* exactness_name(Exactness kind);
// The less exact of two kinds (a query over blocks of several kinds is known
// as well as its least known block).
Exactness weaker(Exactness a, Exactness b);

// The variance of a query's noise: lower == upper unless certified.
struct VarianceFigure {
  double lower = 0;
  double upper = 0;
  Exactness kind = Exactness::exact;
};

// Each cell once, with its weight; cells in the order first added.
struct CellQuery {
  std::vector<std::uint32_t> cells;
  std::vector<double> weights;
  std::size_t size() const { return cells.size(); }
};

// Collects (cell, weight) pairs into a CellQuery, adding the weights of a
// repeated cell. Holds one double per cell of the release (the O(cells)
// preparation) so that each query costs O(pairs added); one builder per
// thread. InvalidArgument for a cell out of range or a weight that is not
// finite.
class QueryBuilder {
 public:
  explicit QueryBuilder(std::size_t n_cells);

  void add(std::size_t cell, double weight = 1);
  // Adds every listed cell with weight 1, polling.
  void add_all(const std::uint32_t* cells, std::size_t n, const Interrupts& interrupts);
  // The query so far (cells whose weights cancel to 0 are dropped); the
  // builder is empty again afterwards.
  CellQuery take();
  // Drops what was added: a query a cancel stopped midway leaves its cells,
  // which a builder kept for later queries must not carry into the next.
  void clear();

  std::size_t n_cells() const { return weight_.size(); }

 private:
  std::vector<double> weight_;        // 0 for cells not in the query
  std::vector<std::uint8_t> listed_;  // 1 once a cell is in order_
  std::vector<std::uint32_t> order_;
};

// A query of every cell of [0, n_cells) with weight 1, without a builder.
CellQuery all_cells(std::size_t n_cells);

// InvalidArgument unless every cell of the query is below n_cells.
void check_query(const CellQuery& query, std::size_t n_cells);

}  // namespace invariant_dp::accuracy
