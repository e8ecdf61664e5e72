// ChainModel: sparse basis columns and the basis coordinates of the extra
// moves (solved in floating point, rounded, then verified exactly).
#include "chain_model.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "../errors.hpp"

namespace invariant_dp::mcmc {
namespace {

SparseVector sparse_column(const LatticeBasis& basis, std::size_t j) {
  SparseVector out;
  const std::int64_t* c = basis.column(j);
  for (std::size_t i = 0; i < basis.dimension; ++i)
    if (c[i] != 0) {
      out.index.push_back(static_cast<std::uint32_t>(i));
      out.value.push_back(c[i]);
    }
  return out;
}

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

ChainModel::ChainModel(const LatticeBasis& basis, SamplerConfig config)
    : dimension_(basis.dimension), config_(std::move(config)), step_law_(config_.proposal_a) {
  validate(config_.target);
  if (basis.rank == 0 || basis.dimension == 0 || basis.vectors.size() != basis.rank * basis.dimension)
    throw InvalidArgument("the lattice basis is empty or malformed");
  // Entries stay below 2^20 (LatticeChain), so ||z||_2^2 < 2^63 needs d < 2^23.
  if (basis.dimension >= (std::size_t(1) << 23)) throw TooLarge("too many cells for the lattice sampler");
  if (!(config_.move_step_a >= 0 && config_.move_step_a < 1))
    throw InvalidArgument("move step parameter must be in [0, 1)");
  if (config_.moves_per_iteration > 0 && config_.moves.empty())
    throw InvalidArgument("extra-move proposals requested without moves");
  for (std::size_t j = 0; j < basis.rank; ++j) columns_.push_back(sparse_column(basis, j));
  if (config_.moves.empty()) return;
  const Eigen::Index m = static_cast<Eigen::Index>(basis.rank);
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(m, m);
  for (Eigen::Index a = 0; a < m; ++a)
    for (Eigen::Index b = 0; b < m; ++b) {
      double s = 0;
      const std::int64_t* ca = basis.column(std::size_t(a));
      const std::int64_t* cb = basis.column(std::size_t(b));
      for (std::size_t i = 0; i < dimension_; ++i) s += double(ca[i]) * double(cb[i]);
      gram(a, b) = s;
    }
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(gram);
  for (const auto& mv : config_.moves) {
    check_move(mv, dimension_);
    moves_.push_back(solve_coordinates(columns_, ldlt, mv, dimension_));
  }
}

std::int64_t ChainModel::move_magnitude(RandomSource& rng) const {
  if (config_.move_step_a == 0) return 1;
  return 1 + static_cast<std::int64_t>(std::floor(std::log(rng.uniform_open01()) / std::log(config_.move_step_a)));
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
