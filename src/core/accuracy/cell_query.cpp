#include "cell_query.hpp"

#include <cmath>
#include <numeric>

#include "../errors.hpp"

namespace invariant_dp::accuracy {

const char* exactness_name(Exactness kind) {
  switch (kind) {
    case Exactness::exact: return "exact";
    case Exactness::certified: return "certified";
    case Exactness::estimate: return "estimate";
  }
  return "estimate";
}

Exactness weaker(Exactness a, Exactness b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

QueryBuilder::QueryBuilder(std::size_t n_cells) : weight_(n_cells, 0.0), listed_(n_cells, 0) {
  if (n_cells > UINT32_MAX) throw TooLarge("a query over more than 2^32 cells is not supported");
}

void QueryBuilder::add(std::size_t cell, double weight) {
  if (cell >= weight_.size())
    throw InvalidArgument("cell " + std::to_string(cell) + " is not a cell of this release",
                          "The release has " + std::to_string(weight_.size()) + " cells.");
  if (!std::isfinite(weight)) throw InvalidArgument("the weight of a cell in a query must be finite");
  if (!listed_[cell]) {
    listed_[cell] = 1;
    order_.push_back(static_cast<std::uint32_t>(cell));
  }
  weight_[cell] += weight;
}

void QueryBuilder::add_all(const std::uint32_t* cells, std::size_t n, const Interrupts& interrupts) {
  for (std::size_t k = 0; k < n; ++k) {
    interrupts.poll_every(k);
    add(cells[k]);
  }
}

CellQuery QueryBuilder::take() {
  CellQuery out;
  out.cells.reserve(order_.size());
  out.weights.reserve(order_.size());
  for (const std::uint32_t cell : order_) {
    if (weight_[cell] != 0) {
      out.cells.push_back(cell);
      out.weights.push_back(weight_[cell]);
    }
    weight_[cell] = 0;
    listed_[cell] = 0;
  }
  order_.clear();
  return out;
}

void QueryBuilder::clear() {
  for (const std::uint32_t cell : order_) {
    weight_[cell] = 0;
    listed_[cell] = 0;
  }
  order_.clear();
}

CellQuery all_cells(std::size_t n_cells) {
  if (n_cells > UINT32_MAX) throw TooLarge("a query over more than 2^32 cells is not supported");
  CellQuery out;
  out.cells.resize(n_cells);
  std::iota(out.cells.begin(), out.cells.end(), 0u);
  out.weights.assign(n_cells, 1.0);
  return out;
}

void check_query(const CellQuery& query, std::size_t n_cells) {
  if (query.weights.size() != query.cells.size()) throw InvalidArgument("a query needs one weight per cell");
  for (const std::uint32_t cell : query.cells)
    if (cell >= n_cells)
      throw InvalidArgument("cell " + std::to_string(cell) + " is not a cell of this release",
                            "The release has " + std::to_string(n_cells) + " cells.");
}

}  // namespace invariant_dp::accuracy
