#include "controlled_rounding.hpp"

#include <cmath>

#include "../errors.hpp"
#include "../samplers/wide_int.hpp"
#include "clp_problem.hpp"

namespace invariant_dp {
namespace {

// Values this close to an integer are that integer (the projection's
// round-off is far below it; a count is 1).
constexpr double kIntegerSlack = 1e-6;

double snap(double v) {
  const double r = std::nearbyint(v);
  return std::fabs(v - r) <= kIntegerSlack ? r : v;
}

void check_exact(const LinearInvariants& invariants, const std::vector<std::int64_t>& z) {
  for (std::int64_t v : z)
    if (v < 0) throw Error("the integer step produced a negative cell");
  for (int r = 0; r < invariants.rows.outerSize(); ++r) {
    std::int64_t sum = 0;
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(invariants.rows, r); it; ++it)
      add_to(sum, z[it.col()]);
    if (static_cast<double>(sum) != invariants.totals[r]) throw Error("the integer step lost a margin total");
  }
}

}  // namespace

std::vector<std::int64_t> round_keeping_invariants(const LinearInvariants& invariants, const std::vector<double>& y,
                                                   const Interrupts& interrupts) {
  const std::size_t d = invariants.n_cells();
  ClpProblem problem;
  problem.invariants = &invariants;
  problem.interrupts = &interrupts;
  problem.lower.resize(d);
  problem.upper.resize(d);
  problem.linear.resize(d);
  for (std::size_t i = 0; i < d; ++i) {
    const double v = std::max(0.0, snap(y[i]));
    problem.lower[i] = std::floor(v);
    problem.upper[i] = std::ceil(v);
    // |z - v| = frac + (1 - 2 frac)(z - floor v) on [floor v, ceil v].
    problem.linear[i] = 1 - 2 * (v - problem.lower[i]);
  }
  const std::vector<double> solution = solve_with_clp(problem).y;
  std::vector<std::int64_t> z(d);
  for (std::size_t i = 0; i < d; ++i) {
    const double r = std::nearbyint(solution[i]);
    if (std::fabs(solution[i] - r) > kIntegerSlack)
      throw InvalidArgument("these margins have no integer rounding step",
                            "The margins' constraint matrix is not totally unimodular, so the rounding LP "
                            "has a fractional optimum.",
                            "Declare one margin, nested margins or the two margins of a two-way table, or use "
                            "project_nn_l2 for real output.");
    z[i] = checked_int64(r);
  }
  check_exact(invariants, z);
  return z;
}

}  // namespace invariant_dp
