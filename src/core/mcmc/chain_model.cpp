// ChainModel: sparse basis columns and the basis coordinates of the extra
// moves (solved in floating point, rounded, then verified exactly).
#include "chain_model.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "../errors.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp::mcmc {
namespace {

void check_move(const SparseVector& move, std::size_t d) {
  if (move.index.size() != move.value.size() || move.index.empty())
    throw InvalidArgument("an extra move must be a nonempty sparse vector");
  std::vector<std::uint32_t> sorted = move.index;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.back() >= d) throw InvalidArgument("an extra move refers to a cell outside the table");
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw InvalidArgument("an extra move lists a cell twice");
}

// Solves B c = m by the normal equations, rounds c, and checks B c = m
// exactly in integers; a move outside Lambda(B) has no integer solution.
SparseVector solve_coordinates(const std::vector<SparseVector>& columns, const Eigen::LDLT<Eigen::MatrixXd>& gram,
                              const SparseVector& move, std::size_t d) {
  const std::size_t m = columns.size();
  Eigen::VectorXd dense_move = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d));
  for (std::size_t t = 0; t < move.index.size(); ++t) dense_move[move.index[t]] += double(move.value[t]);
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(m));
  for (std::size_t j = 0; j < m; ++j) {
    double s = 0;
    for (std::size_t t = 0; t < columns[j].index.size(); ++t)
      s += double(columns[j].value[t]) * dense_move[columns[j].index[t]];
    rhs[static_cast<Eigen::Index>(j)] = s;
  }
  const Eigen::VectorXd c = gram.solve(rhs);
  SparseVector out;
  std::vector<std::int64_t> check(d, 0);
  for (std::size_t j = 0; j < m; ++j) {
    const double r = std::round(c[static_cast<Eigen::Index>(j)]);
    if (!(std::fabs(r) < 1e15)) throw InvalidArgument("an extra move is not in the invariant lattice");
    const auto cj = static_cast<std::int64_t>(r);
    if (cj == 0) continue;
    out.index.push_back(static_cast<std::uint32_t>(j));
    out.value.push_back(cj);
    for (std::size_t t = 0; t < columns[j].index.size(); ++t) check[columns[j].index[t]] += cj * columns[j].value[t];
  }
  for (std::size_t t = 0; t < move.index.size(); ++t) check[move.index[t]] -= move.value[t];
  for (auto x : check)
    if (x != 0) throw InvalidArgument("an extra move is not in the invariant lattice");
  return out;
}

}  // namespace

ChainModel::ChainModel(const LatticeBasis& basis, SamplerConfig config, const Interrupts& interrupts)
    : dimension_(basis.dimension), config_(std::move(config)), step_law_(config_.proposal_a) {
  validate(config_.target);
  if (basis.rank() == 0 || basis.dimension == 0) throw InvalidArgument("the lattice basis is empty");
  // Entries stay below 2^20 (LatticeChain), so ||z||_2^2 < 2^63 needs d < 2^23.
  if (basis.dimension >= (std::size_t(1) << 23)) throw TooLarge("too many cells for the lattice sampler");
  if (!(config_.move_step_a >= 0 && config_.move_step_a < 1))
    throw InvalidArgument("move step parameter must be in [0, 1)");
  if (config_.moves_per_iteration > 0 && config_.moves.empty() && !config_.basis_moves)
    throw InvalidArgument("extra-move proposals requested without moves");
  if (!config_.moves.empty() && basis.rank() > kMaxGramRank)
    throw TooLarge("too many lattice basis vectors to place explicit moves",
                   "The basis has " + std::to_string(basis.rank()) + " vectors; explicit moves are limited to " +
                       std::to_string(kMaxGramRank) + ".");
  columns_.reserve(basis.rank());
  for (std::size_t j = 0; j < basis.rank(); ++j) {
    interrupts.poll_every(j);
    check_move(basis.column(j), dimension_);
    columns_.push_back(basis.column(j));
  }
  if (!config_.moves.empty()) {
    const Eigen::Index m = static_cast<Eigen::Index>(basis.rank());
    // Gram matrix from each cell's list of (column, value): sum over cells
    // of occupancy^2, not m^2 d.
    std::vector<std::vector<std::pair<std::uint32_t, double>>> on_cell(dimension_);
    for (std::size_t j = 0; j < columns_.size(); ++j)
      for (std::size_t t = 0; t < columns_[j].index.size(); ++t)
        on_cell[columns_[j].index[t]].emplace_back(std::uint32_t(j), double(columns_[j].value[t]));
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(m, m);
    for (std::size_t i = 0; i < dimension_; ++i) {
      interrupts.poll_every(i);
      for (const auto& [a, x] : on_cell[i])
        for (const auto& [b, y] : on_cell[i]) gram(a, b) += x * y;
    }
    interrupts.poll();
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(gram);
    interrupts.poll();
    for (std::size_t k = 0; k < config_.moves.size(); ++k) {
      interrupts.poll_every(k);
      check_move(config_.moves[k], dimension_);
      moves_.push_back(solve_coordinates(columns_, ldlt, config_.moves[k], dimension_));
    }
  }
  if (config_.basis_moves)
    for (std::size_t j = 0; j < columns_.size(); ++j) moves_.push_back(SparseVector{{std::uint32_t(j)}, {1}});
}

std::int64_t ChainModel::move_magnitude(RandomSource& rng) const {
  if (config_.move_step_a == 0) return 1;
  // proposal_a near 1 makes the geometric's tail as long as a double: checked.
  return checked_add(1, checked_int64(std::floor(std::log(rng.uniform_open01()) / std::log(config_.move_step_a))));
}

std::vector<SparseVector> two_way_swap_moves(std::size_t rows, std::size_t cols) {
  std::vector<SparseVector> out;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t i2 = i + 1; i2 < rows; ++i2)
      for (std::size_t j = 0; j < cols; ++j)
        for (std::size_t j2 = j + 1; j2 < cols; ++j2) {
          SparseVector mv;
          mv.index = {std::uint32_t(i * cols + j), std::uint32_t(i * cols + j2), std::uint32_t(i2 * cols + j),
                      std::uint32_t(i2 * cols + j2)};
          mv.value = {1, -1, -1, 1};
          out.push_back(std::move(mv));
        }
  return out;
}

}  // namespace invariant_dp::mcmc
