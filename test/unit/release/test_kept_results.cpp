// Kept results scoped to one role (src/core/release/kept_results.hpp): a
// lattice basis, a table cell's quantile, a sum's law and a table's
// covariance scale kept for one role are used again by it, and dropped when
// another role is named.
#include <gtest/gtest.h>

#include <vector>

#include "accuracy/laplace_table_cell.hpp"
#include "accuracy/laplace_table_sum.hpp"
#include "accuracy/table_covariance_scale.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "lattice/lattice_basis_cache.hpp"
#include "lattice_tables.hpp"
#include "release/kept_results.hpp"

namespace invariant_dp {
namespace {

TEST(KeptResults, AnotherRoleStartsFromNothing) {
  const auto rows = test_tables::table_without_a_corner(3, 3);  // general margins
  keep_results_for(10);
  const auto basis = kept_invariant_lattice_basis(rows, Interrupts());
  accuracy::laplace_table_cell_quantile({9, 4}, 3, 4, 0.9, Interrupts());
  keep_results_for(10);  // the same role: both kept
  EXPECT_EQ(kept_invariant_lattice_basis(rows, Interrupts()), basis);
  const Interrupts stop(test_interrupts::always_pending, nullptr);  // only a computation polls
  EXPECT_NO_THROW(accuracy::laplace_table_cell_quantile({9, 4}, 3, 4, 0.9, stop));
  keep_results_for(11);  // another: both computed again
  EXPECT_NE(kept_invariant_lattice_basis(rows, Interrupts()), basis);
  EXPECT_THROW(accuracy::laplace_table_cell_quantile({9, 4}, 3, 4, 0.9, stop), Interrupted);
}

// A kept scale is read without polling (no work), a computed one polls:
// an Interrupts that stops at once tells them apart.
TEST(KeptResults, AnotherRoleComputesTheScaleAgain) {
  const accuracy::IntegerNoise noise{accuracy::IntegerNoise::Kind::laplace, {9, 4}};
  const Interrupts stop(test_interrupts::always_pending, nullptr);
  const auto scale = [&](const Interrupts& interrupts) {
    return accuracy::table_covariance_scale(noise, 4, 5, interrupts, accuracy::kMaxScalePoints,
                                            accuracy::kPublishedScaleError);
  };
  keep_results_for(20);
  const double c = scale(Interrupts()).scale;
  keep_results_for(20);
  EXPECT_EQ(scale(stop).scale, c);
  keep_results_for(21);
  EXPECT_THROW(scale(stop), Interrupted);
  EXPECT_EQ(scale(Interrupts()).scale, c);
}

TEST(KeptResults, AnotherRoleComputesTheSumAgain) {
  std::vector<std::int64_t> w(3 * 50, 0);
  w[0] = w[50 + 1] = 1;
  const std::vector<accuracy::LaplaceTablePart> parts = {accuracy::LaplaceTablePart{3, 50, w}};
  const Interrupts stop(test_interrupts::always_pending, nullptr);
  keep_results_for(30);
  const std::int64_t q = accuracy::laplace_table_sum_quantile({3, 1}, parts, 0.9, Interrupts()).quantile.half_width;
  keep_results_for(30);
  EXPECT_EQ(accuracy::laplace_table_sum_quantile({3, 1}, parts, 0.9, stop).quantile.half_width, q);
  keep_results_for(31);
  EXPECT_THROW(accuracy::laplace_table_sum_quantile({3, 1}, parts, 0.9, stop), Interrupted);
  EXPECT_EQ(accuracy::laplace_table_sum_quantile({3, 1}, parts, 0.9, Interrupts()).quantile.half_width, q);
}

}  // namespace
}  // namespace invariant_dp
