#include "public_start.hpp"

#include "../errors.hpp"
#include "../projection/controlled_rounding.hpp"
#include "../projection/nonneg_projection.hpp"

namespace invariant_dp {

std::vector<std::int64_t> public_start(const LinearInvariants& invariants, const Interrupts& interrupts) {
  const std::size_t d = invariants.n_cells();
  if (invariants.n_rows() == 0) return std::vector<std::int64_t>(d, 0);
  const std::vector<double> zero(d, 0.0);
  try {
    const NonnegProjection spread = project_nonnegative(invariants, zero, interrupts);
    return round_keeping_invariants(invariants, spread.y, interrupts);
  } catch (const TooLarge& e) {  // say which step of congenial needed the solver
    throw TooLarge("the table is too large for congenial's starting table", e.detail(),
                   "The congenial mechanism starts its chain at the non-negative table nearest zero with the declared totals, "
                   "found by a solver of bounded size. Release a smaller table, or use integer_laplace or "
                   "integer_gaussian, which keep the margins without the solver.");
  }
}

}  // namespace invariant_dp
