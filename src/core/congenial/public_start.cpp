#include "public_start.hpp"

#include "../projection/controlled_rounding.hpp"
#include "../projection/nonneg_projection.hpp"

namespace invariant_dp {

std::vector<std::int64_t> public_start(const LinearInvariants& invariants, const Interrupts& interrupts) {
  const std::size_t d = invariants.n_cells();
  if (invariants.n_rows() == 0) return std::vector<std::int64_t>(d, 0);
  const std::vector<double> zero(d, 0.0);
  const NonnegProjection spread = project_nonnegative(invariants, zero, interrupts);
  return round_keeping_invariants(invariants, spread.y, interrupts);
}

}  // namespace invariant_dp
