// The general path of invariant_lattice_basis: an exact basis of the integer
// kernel of one component's rows A_c (k x d), then LLL (Lenstra, Lenstra,
// Lovasz 1982). The construction is that of Proposition 8 of Dharangutte,
// Gao, Gong, Yu 2023 (arXiv:2212.00936); LLL and rank-deficient rows are ours.
// Two exact constructions, both of the WHOLE lattice {z in Z^d : A_c z = 0}:
//   1. RREF (fmpz_mat_rref: R = den * rref(A_c), pivots p_i). When den divides
//      every entry, the rational RREF is integral and the vectors
//      v_f = e_f - sum_i (R_if / den) e_{p_i} (f a free column) are integral.
//      Every kernel vector over Q is determined by its free coordinates:
//      z = sum_f z_f v_f, so an integer z has integer coordinates z_f: the
//      v_f generate the whole lattice (saturated). This is the usual case for
//      margin rows and costs one fraction-free elimination.
//   2. Otherwise (e.g. the sets {1,2},{2,3},{1,3} with a shared cell,
//      kernel Z (1,1,1,-2), where the free-coordinate vectors would have to
//      be halves), the paper's route with the SNF replaced by the HNF: row
//      HNF of [A_c^T | I_d] = U [A_c^T | I_d] = [H | U] with U unimodular.
//      The rows of U whose H part is zero are the last d - rank rows (echelon
//      form). Any integer z with A_c z = 0 is z^T = w^T U for an integer w
//      (U is unimodular), and w^T H = z^T A_c^T = 0 forces w = 0 on the rows
//      with nonzero, echelon-independent H part; so z is an integer
//      combination of the zero-H rows, which are therefore a basis.
// LLL (fmpz_lll_d: exact integer row operations steered by doubles; the
// certified fmpz_lll only when that reports numerical failure) changes the
// basis by a unimodular transform, so the lattice is untouched whatever the
// floating-point steering did; its result is checked for full rank mod p.
// These library calls cannot poll: they run on a helper a cancel leaves
// (../leave_on_cancel.hpp).
#include <flint/fmpz_lll.h>
#include <flint/ulong_extras.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "../errors.hpp"
#include "../leave_on_cancel.hpp"
#include "flint_handles.hpp"
#include "lattice_detail.hpp"

namespace invariant_dp {
namespace lattice_detail {
namespace {

static_assert(sizeof(slong) == sizeof(std::int64_t), "FLINT slong must be 64 bits");

TooLarge too_entangled(const std::string& detail) {
  return TooLarge("the declared invariants are too entangled for an exact lattice basis", detail,
                  "Declare fewer intersecting margins, or margins that form complete two-way tables.");
}

double lll_work(std::size_t m, std::size_t d) {
  return static_cast<double>(m) * static_cast<double>(m) * static_cast<double>(d);
}

TooLarge too_long_to_reduce(std::size_t m, std::size_t d) {
  return too_entangled("Reducing the " + std::to_string(m) + " or more basis vectors of a group of " +
                       std::to_string(d) + " linked cells would take too long.");
}

// A_c over the component's local cells, dense and row-major (k x d): the
// copy the reduction owns (../leave_on_cancel.hpp).
std::vector<std::int64_t> dense_rows(const Component& component, const std::vector<SparseVector>& rows) {
  const std::size_t d = component.cells.size();
  std::vector<std::int64_t> a(component.rows.size() * d, 0);
  for (std::size_t lr = 0; lr < component.rows.size(); ++lr)
    for (const auto& entry : rows[component.rows[lr]]) {
      const auto it = std::lower_bound(component.cells.begin(), component.cells.end(), entry.first);
      a[lr * d + static_cast<std::size_t>(it - component.cells.begin())] = entry.second;
    }
  return a;
}

// Route 1; nullptr when the RREF is not integral. rank receives rank(A_c).
std::unique_ptr<FmpzMat> rref_kernel(const FmpzMat& a, std::size_t& rank) {
  const std::size_t k = a.rows(), d = a.cols();
  FmpzMat r(k, d);
  Fmpz den;
  rank = static_cast<std::size_t>(fmpz_mat_rref(r.get(), den.get(), a.get()));
  std::vector<std::size_t> pivot(rank);
  std::vector<bool> is_pivot(d, false);
  for (std::size_t i = 0, j = 0; i < rank; ++i) {
    // Ends: a row of the echelon form's first rank rows has a nonzero entry, reached before column d.
    while (fmpz_is_zero(r.at(i, j))) ++j;
    pivot[i] = j;
    is_pivot[j] = true;
  }
  for (std::size_t i = 0; i < rank; ++i)
    for (std::size_t j = 0; j < d; ++j)
      if (!fmpz_divisible(r.at(i, j), den.get())) return nullptr;
  auto kernel = std::make_unique<FmpzMat>(d - rank, d);
  for (std::size_t f = 0, row = 0; f < d; ++f) {
    if (is_pivot[f]) continue;
    fmpz_one(kernel->at(row, f));
    for (std::size_t i = 0; i < rank; ++i) {
      fmpz_divexact(kernel->at(row, pivot[i]), r.at(i, f), den.get());
      fmpz_neg(kernel->at(row, pivot[i]), kernel->at(row, pivot[i]));
    }
    ++row;
  }
  return kernel;
}

// Route 2: the zero-H rows of HNF([A_c^T | I]).
std::unique_ptr<FmpzMat> hnf_kernel(const FmpzMat& a, std::size_t& rank) {
  const std::size_t k = a.rows(), d = a.cols();
  FmpzMat m(d, k + d), h(d, k + d);
  for (std::size_t i = 0; i < d; ++i) {
    for (std::size_t j = 0; j < k; ++j) fmpz_set(m.at(i, j), a.at(j, i));
    fmpz_one(m.at(i, k + i));
  }
  fmpz_mat_hnf(h.get(), m.get());
  auto zero_prefix = [&](std::size_t i) {
    for (std::size_t j = 0; j < k; ++j)
      if (!fmpz_is_zero(h.at(i, j))) return false;
    return true;
  };
  rank = 0;
  // Ends: at most d passes.
  while (rank < d && !zero_prefix(rank)) ++rank;
  for (std::size_t i = rank; i < d; ++i)
    if (!zero_prefix(i)) throw std::logic_error("lattice: HNF is not in echelon form");
  auto kernel = std::make_unique<FmpzMat>(d - rank, d);
  for (std::size_t i = rank; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) fmpz_set(kernel->at(i - rank, j), h.at(i, k + j));
  return kernel;
}

void lll_reduce(FmpzMat& basis) {
  fmpz_lll_t context;
  fmpz_lll_context_init_default(context);  // delta 0.99, eta 0.51, Z_BASIS, APPROX
  if (fmpz_lll_d(basis.get(), nullptr, context) == -1) fmpz_lll(basis.get(), nullptr, context);
}

std::size_t rank_mod(const FmpzMat& basis, mp_limb_t prime) {
  NmodMat reduced(basis.rows(), basis.cols(), prime);
  for (std::size_t i = 0; i < basis.rows(); ++i)
    for (std::size_t j = 0; j < basis.cols(); ++j)
      nmod_mat_entry(reduced.get(), i, j) = fmpz_fdiv_ui(basis.at(i, j), prime);
  return static_cast<std::size_t>(nmod_mat_rank(reduced.get()));
}

// Full row rank over Q: certified by full rank modulo some prime.
bool full_row_rank(const FmpzMat& basis) {
  const mp_limb_t primes[] = {UWORD(2305843009213693951), n_nextprime(UWORD(1) << 62, 1)};
  for (mp_limb_t p : primes)
    if (rank_mod(basis, p) == basis.rows()) return true;
  return false;
}

SparseVector to_sparse(const FmpzMat& basis, std::size_t i, const std::vector<std::size_t>& cells) {
  SparseVector v;
  for (std::size_t j = 0; j < basis.cols(); ++j) {
    const fmpz* x = basis.at(i, j);
    if (fmpz_is_zero(x)) continue;
    if (!fmpz_fits_si(x))
      throw OutOfRange("an invariant lattice basis entry does not fit in 64 bits",
                       "The reduced basis of the invariant lattice has an entry of " +
                           std::to_string(fmpz_bits(x)) + " bits.",
                       "Declare fewer intersecting margins.");
    v.emplace_back(cells[j], static_cast<std::int64_t>(fmpz_get_si(x)));
  }
  return v;
}

// |b_j*|^2 = L_jj^2 for the Cholesky factor of the Gram matrix (sparse
// vectors: the Gram matrix costs sum over cells of occupancy^2).
std::vector<double> gram_schmidt_norms(const std::vector<SparseVector>& vectors, const std::vector<std::size_t>& cells) {
  const std::size_t m = vectors.size();
  std::vector<std::vector<std::pair<std::size_t, double>>> on_cell(cells.size());
  for (std::size_t j = 0; j < m; ++j)
    for (const auto& [cell, value] : vectors[j])
      on_cell[static_cast<std::size_t>(std::lower_bound(cells.begin(), cells.end(), cell) - cells.begin())]
          .emplace_back(j, static_cast<double>(value));
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(m));
  for (const auto& list : on_cell)
    for (const auto& [i, x] : list)
      for (const auto& [j, y] : list) gram(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) += x * y;
  const Eigen::LLT<Eigen::MatrixXd> factor(gram);
  if (factor.info() != Eigen::Success) throw std::logic_error("lattice: the Gram matrix is not positive definite");
  std::vector<double> out(m);
  for (std::size_t j = 0; j < m; ++j) {
    const double l = factor.matrixLLT()(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j));
    out[j] = l * l;
  }
  return out;
}

// Everything after the copy of A_c: exact kernel, LLL, rank check, Gram-
// Schmidt norms. Single library calls that cannot poll, so it runs on a
// helper the caller may leave (../leave_on_cancel.hpp): it reads only its
// arguments, owned by the helper's captures.
ComponentBasis reduce_component(const std::vector<std::int64_t>& entries, const std::vector<std::size_t>& cells,
                                std::size_t k, bool force_hnf) {
  const std::size_t d = cells.size();
  FmpzMat a(k, d);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < d; ++j) fmpz_set_si(a.at(i, j), entries[i * d + j]);
  ComponentBasis out;
  std::unique_ptr<FmpzMat> kernel = force_hnf ? nullptr : rref_kernel(a, out.rank_of_rows);
  out.method = "rref";
  if (!kernel) {
    if (d > kMaxHnfCells)
      throw too_entangled("A group of " + std::to_string(d) + " cells linked by intersecting margins has a " +
                          "non-integral echelon form, and the exact Hermite form is limited to " +
                          std::to_string(kMaxHnfCells) + " cells.");
    kernel = hnf_kernel(a, out.rank_of_rows);
    out.method = "hnf";
  }
  const std::size_t m = kernel->rows();
  if (m == 0) return out;
  if (lll_work(m, d) > kMaxLllWork) throw too_long_to_reduce(m, d);
  lll_reduce(*kernel);
  if (!full_row_rank(*kernel)) throw std::logic_error("lattice: the reduced basis lost rank");
  for (std::size_t i = 0; i < m; ++i) out.vectors.push_back(to_sparse(*kernel, i, cells));
  out.gs_norm2 = gram_schmidt_norms(out.vectors, cells);
  return out;
}

}  // namespace

ComponentBasis general_basis(const Component& component, const std::vector<SparseVector>& rows,
                             const Interrupts& interrupts, bool force_hnf) {
  const std::size_t d = component.cells.size(), k = component.rows.size();
  if (d > kMaxGeneralCells)
    throw too_entangled("A group of " + std::to_string(d) + " cells linked by intersecting margins exceeds the limit of " +
                        std::to_string(kMaxGeneralCells) + " cells for the exact integer basis.");
  // m >= d - k: refuse before any elimination when even that is too much LLL work
  if (d > k && lll_work(d - k, d) > kMaxLllWork) throw too_long_to_reduce(d - k, d);
  auto entries = std::make_shared<const std::vector<std::int64_t>>(dense_rows(component, rows));
  auto cells = std::make_shared<const std::vector<std::size_t>>(component.cells);
  auto result = std::make_shared<ComponentBasis>();
  interrupts.poll();
  run_leaving_on_cancel(
      [entries, cells, result, k, force_hnf] { *result = reduce_component(*entries, *cells, k, force_hnf); },
      interrupts);
  return std::move(*result);
}

}  // namespace lattice_detail
}  // namespace invariant_dp
