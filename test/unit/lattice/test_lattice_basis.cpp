// Unit tests of invariant_lattice_basis (src/core/lattice): the integer
// basis of Lambda_A = {z in Z^d : A z = 0} (Dharangutte, Gao, Gong, Yu
// 2023, arXiv:2212.00936, Proposition 8; their Examples 3-5 and Table 2).
// Every check is exact (FLINT integers):
//   - A B = 0 and rank m = d - rank(A);
//   - the lattice is all of Lambda_A (saturation), two independent ways:
//     det(B^T B) * prod(SNF(A))^2 = det(A A^T) for independent rows A (the
//     saturated kernel lattice and the saturated row lattice are orthogonal
//     primitive lattices, so their covolumes agree, and the row lattice has
//     index prod(SNF(A)) in its saturation; a sublattice of index t would
//     multiply the left side by t^2), and every integer kernel vector of a
//     small box solves B x = z with x integral;
//   - the numbers that identity gives: det(B^T B) = det(A A^T) = 4096 for
//     the 4x4 table with both margins (7 independent rows, unit invariant
//     factors), = n for one sum over n cells (A A^T = n);
//   - LLL: the output is LLL-reduced, also where the raw basis is not.
#include <gtest/gtest.h>

#include <flint/fmpz_lll.h>
#include <flint/fmpz_mat.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "table_builder.hpp"
#include "errors.hpp"
#include "invariants/invariant_model.hpp"
#include "lattice/flint_handles.hpp"
#include "lattice/lattice_basis.hpp"
#include "lattice/lattice_detail.hpp"
#include "dense_basis.hpp"

namespace invariant_dp {
namespace {

using lattice_detail::Fmpz;
using lattice_detail::FmpzMat;
using test_tables::dense;
using test_tables::DenseBasis;
using Sets = std::vector<std::vector<std::size_t>>;
using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

RowMatrix rows_of(const Sets& sets, std::size_t d) {
  std::vector<Eigen::Triplet<double>> t;
  for (std::size_t r = 0; r < sets.size(); ++r)
    for (std::size_t c : sets[r]) t.emplace_back(static_cast<int>(r), static_cast<int>(c), 1.0);
  RowMatrix a(static_cast<Eigen::Index>(sets.size()), static_cast<Eigen::Index>(d));
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

void fill(FmpzMat& m, const RowMatrix& a) {
  for (Eigen::Index r = 0; r < a.outerSize(); ++r)
    for (RowMatrix::InnerIterator it(a, r); it; ++it)
      fmpz_set_si(m.at(static_cast<std::size_t>(r), static_cast<std::size_t>(it.col())),
                  static_cast<slong>(it.value()));
}

// Greedy choice of independent sets (exact rank), as InvariantModel would.
Sets independent(const Sets& sets, std::size_t d) {
  Sets kept;
  for (const auto& s : sets) {
    Sets trial = kept;
    trial.push_back(s);
    FmpzMat m(trial.size(), d);
    fill(m, rows_of(trial, d));
    if (static_cast<std::size_t>(fmpz_mat_rank(m.get())) == trial.size()) kept = trial;
  }
  return kept;
}

// B^T as an m x d FLINT matrix (rows = basis vectors).
void basis_rows(const DenseBasis& b, FmpzMat& out) {
  for (std::size_t j = 0; j < b.rank; ++j)
    for (std::size_t i = 0; i < b.dimension; ++i) fmpz_set_si(out.at(j, i), b.column(j)[i]);
}

// det(B^T B), exactly.
void gram_det(const DenseBasis& b, Fmpz& det) {
  FmpzMat bt(b.rank, b.dimension), bb(b.dimension, b.rank), g(b.rank, b.rank);
  basis_rows(b, bt);
  fmpz_mat_transpose(bb.get(), bt.get());
  fmpz_mat_mul(g.get(), bt.get(), bb.get());
  fmpz_mat_det(det.get(), g.get());
}

// The basis-independent checks: A B = 0 (exact), rank, full column rank,
// and saturation via det(B^T B) (prod D)^2 = det(A A^T).
void expect_lattice_of(const RowMatrix& a, const DenseBasis& b) {
  const std::size_t d = static_cast<std::size_t>(a.cols()), k = static_cast<std::size_t>(a.rows());
  ASSERT_EQ(b.dimension, d);
  ASSERT_EQ(b.vectors.size(), d * b.rank);
  FmpzMat am(k, d), bt(b.rank, d), bm(d, b.rank), ab(k, b.rank);
  fill(am, a);
  basis_rows(b, bt);
  fmpz_mat_transpose(bm.get(), bt.get());
  fmpz_mat_mul(ab.get(), am.get(), bm.get());
  EXPECT_TRUE(fmpz_mat_is_zero(ab.get())) << "A B != 0";
  const std::size_t rank_a = static_cast<std::size_t>(fmpz_mat_rank(am.get()));
  EXPECT_EQ(b.rank, d - rank_a);
  EXPECT_EQ(static_cast<std::size_t>(fmpz_mat_rank(bt.get())), b.rank);
  FmpzMat at(d, k), aat(k, k), snf(k, d);
  fmpz_mat_transpose(at.get(), am.get());
  fmpz_mat_mul(aat.get(), am.get(), at.get());
  Fmpz det_aat, det_btb, prod, lhs;
  fmpz_mat_det(det_aat.get(), aat.get());
  gram_det(b, det_btb);
  fmpz_mat_snf(snf.get(), am.get());
  fmpz_one(prod.get());
  for (std::size_t i = 0; i < std::min(k, d); ++i)
    if (!fmpz_is_zero(snf.at(i, i))) fmpz_mul(prod.get(), prod.get(), snf.at(i, i));
  fmpz_mul(lhs.get(), det_btb.get(), prod.get());
  fmpz_mul(lhs.get(), lhs.get(), prod.get());
  if (rank_a == k) {
    EXPECT_TRUE(fmpz_equal(lhs.get(), det_aat.get())) << "not saturated";
  }
}

std::int64_t det_as_int(const DenseBasis& b) {
  Fmpz det;
  gram_det(b, det);
  return fmpz_get_si(det.get());
}

bool lll_reduced(const DenseBasis& b) {
  FmpzMat bt(b.rank, b.dimension);
  basis_rows(b, bt);
  fmpz_lll_t context;
  fmpz_lll_context_init_default(context);
  return fmpz_lll_is_reduced(bt.get(), context, 128) != 0;
}

std::int64_t norm2(const DenseBasis& b, std::size_t j) {
  std::int64_t s = 0;
  for (std::size_t i = 0; i < b.dimension; ++i) s += b.column(j)[i] * b.column(j)[i];
  return s;
}

// Row totals and column totals of an r x c table at cells offset + i c + j.
Sets two_way_sets(std::size_t r, std::size_t c, std::size_t offset = 0) {
  Sets sets;
  for (std::size_t i = 0; i < r; ++i) {
    sets.emplace_back();
    for (std::size_t j = 0; j < c; ++j) sets.back().push_back(offset + i * c + j);
  }
  for (std::size_t j = 0; j < c; ++j) {
    sets.emplace_back();
    for (std::size_t i = 0; i < r; ++i) sets.back().push_back(offset + i * c + j);
  }
  return sets;
}

// The three two-way margins of an n x n x n cube, cell (x, y, z) at x n^2 + y n + z.
Sets cube_sets(std::size_t n) {
  Sets sets;
  for (int axis = 0; axis < 3; ++axis)
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        sets.emplace_back();
        for (std::size_t t = 0; t < n; ++t) {
          const std::size_t x = axis == 0 ? t : a, y = axis == 1 ? t : (axis == 0 ? a : b),
                            z = axis == 2 ? t : b;
          sets.back().push_back((x * n + y) * n + z);
        }
      }
  return sets;
}


}  // namespace

namespace {

// Whether every z in `kernel` is B x for an integral x (the saturation
// test): x is solved on m rows where B is invertible, then B x = z is
// checked in full.
bool integral_coordinates(const DenseBasis& b, const std::vector<std::vector<std::int64_t>>& kernel) {
  const std::size_t d = b.dimension, m = b.rank;
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < d && chosen.size() < m; ++i) {
    FmpzMat trial(chosen.size() + 1, m);
    chosen.push_back(i);
    for (std::size_t r = 0; r < chosen.size(); ++r)
      for (std::size_t j = 0; j < m; ++j) fmpz_set_si(trial.at(r, j), b.column(j)[chosen[r]]);
    if (static_cast<std::size_t>(fmpz_mat_rank(trial.get())) < chosen.size()) chosen.pop_back();
  }
  if (chosen.size() != m) return false;
  FmpzMat square(m, m), inverse(m, m);
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t j = 0; j < m; ++j) fmpz_set_si(square.at(r, j), b.column(j)[chosen[r]]);
  Fmpz den, t;
  if (!fmpz_mat_inv(inverse.get(), den.get(), square.get())) return false;
  for (const auto& z : kernel) {
    std::vector<std::int64_t> x(m);
    for (std::size_t j = 0; j < m; ++j) {
      fmpz_zero(t.get());
      for (std::size_t r = 0; r < m; ++r) fmpz_addmul_si(t.get(), inverse.at(j, r), z[chosen[r]]);
      if (!fmpz_divisible(t.get(), den.get())) return false;
      fmpz_divexact(t.get(), t.get(), den.get());
      x[j] = fmpz_get_si(t.get());
    }
    for (std::size_t i = 0; i < d; ++i) {
      std::int64_t s = 0;
      for (std::size_t j = 0; j < m; ++j) s += b.column(j)[i] * x[j];
      if (s != z[i]) return false;
    }
  }
  return true;
}

void expect_integral_coordinates(const DenseBasis& b, const std::vector<std::vector<std::int64_t>>& kernel) {
  EXPECT_GT(kernel.size(), 1u);
  EXPECT_TRUE(integral_coordinates(b, kernel)) << "some kernel vector is not an integer combination of B";
}

// All z in {-r..r}^d with A z = 0 (brute force, small d only).
std::vector<std::vector<std::int64_t>> kernel_in_box(const Sets& sets, std::size_t d, int r) {
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> z(d, -r);
  while (true) {
    bool zero = true;
    for (const auto& s : sets) {
      std::int64_t sum = 0;
      for (std::size_t c : s) sum += z[c];
      zero = zero && sum == 0;
    }
    if (zero) out.push_back(z);
    std::size_t i = 0;
    while (i < d && z[i] == r) z[i++] = -r;
    if (i == d) break;
    ++z[i];
  }
  return out;
}

TEST(LatticeBasis, FourByFourTableHasTheCovolumeOfItsRows) {
  const Sets sets = two_way_sets(4, 4);
  for (std::size_t dropped = 0; dropped < 8; dropped += 7) {  // drop a row total, then a column total
    Sets kept = sets;
    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(dropped));
    const RowMatrix a = rows_of(kept, 16);
    const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
    EXPECT_EQ(b.rank, 9u);
    EXPECT_EQ(det_as_int(b), 4096);
    expect_lattice_of(a, b);
    EXPECT_TRUE(lll_reduced(b));
    for (std::size_t j = 0; j < b.rank; ++j) EXPECT_EQ(norm2(b, j), 4);
  }
}

TEST(LatticeBasis, SingleSumOverNCellsHasDeterminantN) {
  for (std::size_t n : {2u, 3u, 7u, 50u}) {
    Sets sets(1);
    for (std::size_t i = 0; i < n; ++i) sets[0].push_back(i);
    const RowMatrix a = rows_of(sets, n);
    const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
    EXPECT_EQ(b.rank, n - 1);
    EXPECT_EQ(det_as_int(b), static_cast<std::int64_t>(n));
    expect_lattice_of(a, b);
    EXPECT_TRUE(lll_reduced(b));
  }
}

TEST(LatticeBasis, PartitionWithPinnedAndFreeCells) {
  // groups {0,3,5}, {1,4}, {2} (pinned); cells 6 and 7 in no group (free)
  const Sets sets = {{0, 3, 5}, {1, 4}, {2}};
  const RowMatrix a = rows_of(sets, 8);
  const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
  EXPECT_EQ(b.rank, 2u + 1u + 0u + 2u);
  EXPECT_EQ(det_as_int(b), 3 * 2 * 1);
  expect_lattice_of(a, b);
  expect_integral_coordinates(b, kernel_in_box(sets, 8, 2));
  for (std::size_t j = 0; j < b.rank; ++j) EXPECT_LE(norm2(b, j), 2);
}

TEST(LatticeBasis, TwoWayTablesHaveRankRMinusOneTimesCMinusOne) {
  for (std::size_t r = 2; r <= 6; ++r)
    for (std::size_t c : {2u, 3u, 5u}) {
      const Sets kept = independent(two_way_sets(r, c), r * c);
      const RowMatrix a = rows_of(kept, r * c);
      const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
      EXPECT_EQ(b.rank, (r - 1) * (c - 1)) << r << "x" << c;
      expect_lattice_of(a, b);
      EXPECT_TRUE(lll_reduced(b)) << r << "x" << c;
    }
}

TEST(LatticeBasis, TwoWayTablesInBlocksAndWithAllTotals) {
  // blocks 3x4 (cells 0..11, all 7 totals given: one is redundant) and 2x3
  // (cells 12..17, a column total dropped), and cell 18 free
  Sets sets = two_way_sets(3, 4);
  Sets second = two_way_sets(2, 3, 12);
  second.erase(second.begin() + 2);
  sets.insert(sets.end(), second.begin(), second.end());
  const RowMatrix a = rows_of(sets, 19);
  const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
  EXPECT_EQ(b.rank, 2u * 3u + 1u * 2u + 1u);
  expect_lattice_of(rows_of(independent(sets, 19), 19), b);
  EXPECT_TRUE(lll_reduced(b));
}

// All integer z of the 3x3x3 cube with zero two-way margins whose 2x2x2
// corner lies in {-1,0,1}^8 (the corner determines the rest).
std::vector<std::vector<std::int64_t>> cube_kernel_sample() {
  std::vector<std::vector<std::int64_t>> out;
  for (int code = 0; code < 6561; ++code) {
    std::vector<std::int64_t> z(27, 0);
    auto at = [&](std::size_t x, std::size_t y, std::size_t w) -> std::int64_t& { return z[(x * 3 + y) * 3 + w]; };
    int rest = code;
    for (std::size_t x = 0; x < 2; ++x)
      for (std::size_t y = 0; y < 2; ++y)
        for (std::size_t w = 0; w < 2; ++w, rest /= 3) at(x, y, w) = rest % 3 - 1;
    for (std::size_t x = 0; x < 2; ++x)
      for (std::size_t y = 0; y < 2; ++y) at(x, y, 2) = -at(x, y, 0) - at(x, y, 1);
    for (std::size_t x = 0; x < 2; ++x)
      for (std::size_t w = 0; w < 3; ++w) at(x, 2, w) = -at(x, 0, w) - at(x, 1, w);
    for (std::size_t y = 0; y < 3; ++y)
      for (std::size_t w = 0; w < 3; ++w) at(2, y, w) = -at(0, y, w) - at(1, y, w);
    out.push_back(z);
  }
  return out;
}

std::vector<lattice_detail::SparseVector> sparse_rows(const Sets& sets) {
  std::vector<lattice_detail::SparseVector> rows;
  for (const auto& s : sets) {
    rows.emplace_back();
    for (std::size_t c : s) rows.back().emplace_back(c, 1);
    std::sort(rows.back().begin(), rows.back().end());
  }
  return rows;
}

DenseBasis dense(const lattice_detail::ComponentBasis& part, std::size_t d) {
  DenseBasis b;
  b.dimension = d;
  b.rank = part.vectors.size();
  b.vectors.assign(d * b.rank, 0);
  for (std::size_t j = 0; j < b.rank; ++j)
    for (const auto& [cell, value] : part.vectors[j]) b.vectors[j * d + cell] = value;
  return b;
}

TEST(LatticeBasisGeneral, CubeWithThreeTwoWayMarginsIsTheWholeLattice) {
  const Sets kept = independent(cube_sets(3), 27);
  ASSERT_EQ(kept.size(), 19u);
  const RowMatrix a = rows_of(kept, 27);
  const auto sample = cube_kernel_sample();
  for (const auto& z : sample)
    for (const auto& s : kept) {
      std::int64_t sum = 0;
      for (std::size_t c : s) sum += z[c];
      ASSERT_EQ(sum, 0);
    }
  const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
  EXPECT_EQ(b.rank, 8u);
  expect_lattice_of(a, b);
  expect_integral_coordinates(b, sample);
  EXPECT_TRUE(lll_reduced(b));
  // the HNF route gives the same lattice (same determinant, same sample)
  lattice_detail::Component all;
  all.cells.resize(27);
  std::iota(all.cells.begin(), all.cells.end(), std::size_t{0});
  all.rows.resize(kept.size());
  std::iota(all.rows.begin(), all.rows.end(), std::size_t{0});
  const auto hnf = lattice_detail::general_basis(all, sparse_rows(kept), Interrupts(), true);
  EXPECT_STREQ(hnf.method, "hnf");
  EXPECT_EQ(hnf.rank_of_rows, 19u);
  const DenseBasis bh = dense(hnf, 27);
  expect_lattice_of(a, bh);
  expect_integral_coordinates(bh, sample);
  EXPECT_EQ(det_as_int(bh), det_as_int(b));
}

TEST(LatticeBasisGeneral, NonIntegralEchelonFormUsesTheHermiteForm) {
  // {0,1,3}, {1,2,3}, {0,2,3}: z0 = z1 = z2 = -z3 / 2, so Lambda = Z (1,1,1,-2);
  // a free-coordinate basis would need halves. Cells 4, 5 share a sum.
  const Sets sets = {{0, 1, 3}, {1, 2, 3}, {0, 2, 3}, {4, 5}};
  lattice_detail::Component triangle{{0, 1, 2, 3}, {0, 1, 2}};
  const auto part = lattice_detail::general_basis(triangle, sparse_rows(sets), Interrupts());
  EXPECT_STREQ(part.method, "hnf");
  ASSERT_EQ(part.vectors.size(), 1u);
  const std::int64_t sign = part.vectors[0][0].second;
  EXPECT_EQ(part.vectors[0], (lattice_detail::SparseVector{{0, sign}, {1, sign}, {2, sign}, {3, -2 * sign}}));
  const RowMatrix a = rows_of(sets, 6);
  const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
  EXPECT_EQ(b.rank, 2u);
  expect_lattice_of(a, b);
  expect_integral_coordinates(b, kernel_in_box(sets, 6, 2));
}

TEST(LatticeBasisGeneral, RationalNullspaceIsNotEnough) {
  // FLINT's nullspace, each vector made primitive, is (1,1,-1,-2,0,0) and
  // (1,1,1,0,-2,0): a sublattice of index 2, missing (1,1,0,-1,-1,0).
  const Sets sets = {{1, 2, 4, 5}, {0, 2, 4, 5}, {0, 1, 3, 4, 5}, {0, 1, 3, 4}};
  const RowMatrix a = rows_of(sets, 6);
  DenseBasis naive;
  naive.dimension = 6;
  naive.rank = 2;
  naive.vectors = {1, 1, -1, -2, 0, 0, 1, 1, 1, 0, -2, 0};
  const auto box = kernel_in_box(sets, 6, 2);
  EXPECT_EQ(det_as_int(naive), 48);  // Gram [[7, 1], [1, 7]]
  const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
  EXPECT_EQ(b.rank, 2u);
  EXPECT_EQ(det_as_int(b) * 4, det_as_int(naive));
  expect_lattice_of(a, b);
  expect_integral_coordinates(b, box);
  EXPECT_FALSE(integral_coordinates(naive, box));
}

TEST(LatticeBasisGeneral, LllShortensTheRawBasis) {
  // rows {i} + T for i < 12, T = {12..19}: the raw kernel basis (free
  // coordinates in T) has 8 vectors of squared norm 13; the lattice has 7
  // differences e_t - e_t' of squared norm 2.
  Sets sets;
  for (std::size_t i = 0; i < 12; ++i) {
    sets.push_back({i});
    for (std::size_t t = 12; t < 20; ++t) sets.back().push_back(t);
  }
  const RowMatrix a = rows_of(sets, 20);
  FmpzMat am(12, 20), raw(20, 20);
  fill(am, a);
  const slong nullity = fmpz_mat_nullspace(raw.get(), am.get());
  ASSERT_EQ(nullity, 8);
  FmpzMat raw_rows(8, 20);
  for (std::size_t j = 0; j < 8; ++j)
    for (std::size_t i = 0; i < 20; ++i) fmpz_set(raw_rows.at(j, i), raw.at(i, j));
  fmpz_lll_t context;
  fmpz_lll_context_init_default(context);
  EXPECT_FALSE(fmpz_lll_is_reduced(raw_rows.get(), context, 128));
  const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
  ASSERT_EQ(b.rank, 8u);
  expect_lattice_of(a, b);
  EXPECT_TRUE(lll_reduced(b));
  std::size_t short_vectors = 0;
  for (std::size_t j = 0; j < b.rank; ++j) short_vectors += norm2(b, j) == 2;
  EXPECT_EQ(short_vectors, 7u);
}

TEST(LatticeBasisErrors, PinnedEverythingIsInconsistent) {
  const Sets identity = {{0}, {1}, {2}};
  EXPECT_THROW(invariant_lattice_basis(rows_of(identity, 3), Interrupts()), InconsistentInvariants);
  const Sets triangle = {{0, 1}, {1, 2}, {0, 2}};  // general path, kernel {0}
  try {
    invariant_lattice_basis(rows_of(triangle, 3), Interrupts());
    FAIL() << "no exception";
  } catch (const InconsistentInvariants& e) {
    EXPECT_EQ(std::string(e.what()), "the invariants leave no cell to protect");
    EXPECT_NE(e.detail().find("3 cells"), std::string::npos);
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(LatticeBasisErrors, NonIntegerEntriesAndNoCellsAreRejected) {
  RowMatrix a(1, 3);
  a.insert(0, 0) = 0.5;
  EXPECT_THROW(invariant_lattice_basis(a, Interrupts()), InvalidArgument);
  EXPECT_THROW(invariant_lattice_basis(RowMatrix(0, 0), Interrupts()), InvalidData);
}

TEST(LatticeBasisErrors, TooLargeGeneralComponent) {
  Sets chain;  // {i, i+1}: linked, not a table, so the general path
  for (std::size_t i = 0; i + 1 < 2101; ++i) chain.push_back({i, i + 1});
  chain.resize(2000);
  EXPECT_THROW(invariant_lattice_basis(rows_of(chain, 2101), Interrupts()), TooLarge);
  // 12^3 cube, three two-way margins: 1331 vectors in 1728 cells, too much LLL work
  EXPECT_THROW(invariant_lattice_basis(rows_of(cube_sets(12), 1728), Interrupts()), TooLarge);
}

TEST(LatticeBasis, LargeStructuredBasesAreSparse) {
  // 12000 cells in one group: 11999 vectors of two entries each (a dense
  // d x m array would hold 1.4e8 entries); a 300 x 300 table: four each.
  Sets one_sum(1);
  for (std::size_t i = 0; i < 12000; ++i) one_sum[0].push_back(i);
  const LatticeBasis group = invariant_lattice_basis(rows_of(one_sum, 12000), Interrupts());
  EXPECT_EQ(group.rank(), 11999u);
  for (const LatticeVector& v : group.columns) EXPECT_EQ(v.index.size(), 2u);
  const LatticeBasis table = invariant_lattice_basis(rows_of(two_way_sets(300, 300), 90000), Interrupts());
  EXPECT_EQ(table.rank(), 299u * 299u);
  for (const LatticeVector& v : table.columns) ASSERT_EQ(v.index.size(), 4u);
}

struct PollCounter {
  int polls = 0;
  int stop_at = 0;
};

bool pending_at_stop(void* context) {
  auto* counter = static_cast<PollCounter*>(context);
  return ++counter->polls >= counter->stop_at;
}

TEST(LatticeBasisInterrupts, EveryPollCanStopTheConstruction) {
  // the 3x3x3 cube (general path) plus a 3x4 table and a group: stopping at
  // the k-th poll, for every k, unwinds with Interrupted (FLINT objects are
  // owned by RAII handles); past the last poll the basis is complete.
  Sets sets = independent(cube_sets(3), 27);
  Sets table = two_way_sets(3, 4, 27);
  table.pop_back();
  sets.insert(sets.end(), table.begin(), table.end());
  sets.push_back({39, 40, 41});
  const RowMatrix a = rows_of(sets, 42);
  PollCounter total{0, 1 << 30};
  const DenseBasis full = dense(invariant_lattice_basis(a, Interrupts(pending_at_stop, &total)));
  ASSERT_GE(total.polls, 5);
  for (int k = 1; k <= total.polls; ++k) {
    PollCounter counter{0, k};
    EXPECT_THROW(invariant_lattice_basis(a, Interrupts(pending_at_stop, &counter)), Interrupted) << k;
  }
  EXPECT_EQ(full.rank, 8u + 6u + 2u);
  expect_lattice_of(a, full);
}

TEST(LatticeBasisIntegration, IndependentRowsOfInvariantModel) {
  // a 5 x 4 x 3 table with margins {0,1} and {2} (general: nested? no:
  // crossing) and {0},{1} (a two-way margin per block of column 2 levels)
  std::vector<std::string> storage;
  for (int x = 0; x < 5; ++x)
    for (int y = 0; y < 4; ++y)
      for (int w = 0; w < 3; ++w)
        for (int v : {x, y, w}) storage.push_back(std::to_string(v));
  std::vector<const char*> text;
  for (const auto& s : storage) text.push_back(s.c_str());
  const CellKeys keys(test_tables::TextKeys(text, 3).rows(), {"x", "y", "w"}, Interrupts());
  const std::vector<std::vector<Margin>> cases = {
      {Margin{{0, 2}}, Margin{{1, 2}}},                 // 5x4 tables in 3 blocks: 3 * 4 * 3
      {Margin{{0}}, Margin{{1}}, Margin{{2}}},          // three one-way margins: 60 - 10
      {Margin{{0, 1}}, Margin{{0, 2}}, Margin{{1, 2}}}};  // no-three-way interaction: 4 * 3 * 2
  const std::size_t expected[] = {36, 50, 24};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const InvariantModel model(keys, cases[i], Interrupts());
    const RowMatrix a = model.independent_rows();
    const DenseBasis b = dense(invariant_lattice_basis(a, Interrupts()));
    EXPECT_EQ(b.rank, expected[i]) << i;
    EXPECT_EQ(b.rank, model.null_dimension()) << i;
    expect_lattice_of(a, b);
  }
}

// A 40 x 40 table (structured path) and a 6^3 cube (general path): right
// ranks and the whole lattice. Their timings are in test/bench/bench_lattice_basis.cpp.
TEST(LatticeBasisLarger, FortyByFortyTableAndSixCube) {
  Sets sets = two_way_sets(40, 40);
  sets.pop_back();
  const DenseBasis b = dense(invariant_lattice_basis(rows_of(sets, 1600), Interrupts()));
  EXPECT_EQ(b.rank, 39u * 39u);
  const RowMatrix cube = rows_of(independent(cube_sets(6), 216), 216);
  const DenseBasis c = dense(invariant_lattice_basis(cube, Interrupts()));
  EXPECT_EQ(c.rank, 125u);
  expect_lattice_of(cube, c);
}

}  // namespace
}  // namespace invariant_dp
