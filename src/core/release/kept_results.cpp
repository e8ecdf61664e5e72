// Kept results scoped to one role (kept_results.hpp).
#include "kept_results.hpp"

#include <mutex>

#include "../accuracy/laplace_table_cell.hpp"
#include "../accuracy/laplace_table_sum.hpp"
#include "../accuracy/table_covariance_scale.hpp"
#include "../lattice/lattice_basis_cache.hpp"

namespace invariant_dp {
namespace {

std::mutex role_mutex;
bool named = false;
std::uint32_t last_role = 0;

}  // namespace

void keep_results_for(std::uint32_t role) {
  const std::lock_guard<std::mutex> lock(role_mutex);
  if (named && role == last_role) return;
  forget_kept_lattice_bases();
  accuracy::forget_kept_cell_quantiles();
  accuracy::forget_kept_table_sums();
  accuracy::forget_kept_table_scales();
  named = true;
  last_role = role;
}

}  // namespace invariant_dp
