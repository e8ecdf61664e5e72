// Kept invariant lattice bases (src/core/lattice/lattice_basis_cache.hpp):
// the same rows give the kept basis itself, equal to a new computation;
// other rows (even one entry apart) a basis of their own; the oldest is
// dropped past kKeptBases; a cancelled computation keeps nothing.
#include <gtest/gtest.h>

#include <vector>

#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "lattice_tables.hpp"
#include "lattice/lattice_basis.hpp"
#include "lattice/lattice_basis_cache.hpp"

namespace invariant_dp {
namespace {

using CachedRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

bool same_basis(const LatticeBasis& x, const LatticeBasis& y) {
  if (x.dimension != y.dimension || x.rank() != y.rank()) return false;
  for (std::size_t j = 0; j < x.rank(); ++j)
    if (x.column(j).index != y.column(j).index || x.column(j).value != y.column(j).value) return false;
  return true;
}

TEST(LatticeBasisCache, KeepsBasesByTheirRows) {
  const CachedRows a = test_tables::table_without_a_corner(4, 5);
  const auto first = kept_invariant_lattice_basis(a, Interrupts());
  EXPECT_TRUE(same_basis(*first, invariant_lattice_basis(a, Interrupts())));
  EXPECT_EQ(kept_invariant_lattice_basis(a, Interrupts()), first);  // the kept one itself
  // Rows one entry apart: another lattice, another basis.
  CachedRows b = a;
  b.coeffRef(0, 1) = 0;
  b.prune(0.0);
  const auto other = kept_invariant_lattice_basis(b, Interrupts());
  EXPECT_NE(other, first);
  EXPECT_TRUE(same_basis(*other, invariant_lattice_basis(b, Interrupts())));
  EXPECT_EQ(kept_invariant_lattice_basis(a, Interrupts()), first);
}

TEST(LatticeBasisCache, DropsTheOldest) {
  const CachedRows oldest = test_tables::table_without_a_corner(3, 7);
  const auto kept = kept_invariant_lattice_basis(oldest, Interrupts());
  for (int k = 0; k < int(kKeptBases); ++k)
    kept_invariant_lattice_basis(test_tables::table_without_a_corner(3, 8 + k), Interrupts());
  const auto again = kept_invariant_lattice_basis(oldest, Interrupts());
  EXPECT_NE(again, kept);  // computed anew
  EXPECT_TRUE(same_basis(*again, *kept));
}

// A caller bound by a short wait (the error bars: FLINT's reduction cannot
// poll) is refused past its LLL work before the work starts, unless the
// basis is kept.
TEST(LatticeBasisCache, ACancelKeepsNothing) {
  const CachedRows a = test_tables::table_without_a_corner(5, 6);
  const Interrupts stop(test_interrupts::always_pending, nullptr);
  EXPECT_THROW(kept_invariant_lattice_basis(a, stop), Interrupted);
  const auto computed = kept_invariant_lattice_basis(a, Interrupts());
  EXPECT_TRUE(same_basis(*computed, invariant_lattice_basis(a, Interrupts())));
}

}  // namespace
}  // namespace invariant_dp
