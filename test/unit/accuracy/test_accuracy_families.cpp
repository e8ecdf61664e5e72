// Unit tests of the families' covariances (accuracy/linear_accuracy.hpp)
// against laws enumerated on small shapes:
//  - the symmetry argument (DERIVATIONS.md, section 1): the enumerated
//    covariance of the l1 law and of the lattice Gaussian on 2 x 3, 3 x 3,
//    2 x 2 x 2 tables and on a margin group is c * Pi_N entrywise, c its
//    trace / dim;
//  - the closed forms: c of a margin group and of a 2 x n table under the l1
//    law equal the enumerated ones; the lattice Gaussian's c lies within the
//    certified [(1 - B) sigma^2, sigma^2] (at a small sigma^2 where B
//    matters);
//  - each family's variance of random queries against c x^T Pi_N x with
//    the dense projector; the estimate's pooling; the kinds reported.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "accuracy/lattice_bounds.hpp"
#include "accuracy/linear_accuracy.hpp"
#include "accuracy_fixtures.hpp"
#include "errors.hpp"
#include "samplers/conditioned_laplace_variance.hpp"
#include "samplers/discrete_gaussian.hpp"
#include "samplers/discrete_laplace.hpp"
#include "tilted_laws.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using namespace accuracy_fixtures;

// The lattice of a complete table with every (K-1)-way margin: the free
// corner block (n_k - 1 per axis) ranges over a box [-M, M], the rest
// follows from the vanishing line sums. Returns E[z z^T] of the law
// proportional to weight(z) (row-major cells).
Eigen::MatrixXd enumerated_covariance(const std::vector<int>& shape, int M,
                                      const std::function<double(const std::vector<int>&)>& weight) {
  const std::vector<std::size_t> dims(shape.begin(), shape.end());
  std::size_t cells = 1;
  for (const std::size_t n : dims) cells *= n;
  Eigen::MatrixXd second = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(cells), static_cast<Eigen::Index>(cells));
  double total = 0;
  std::vector<int> z(cells);
  tilted_laws::for_each_zero_margin_table(dims, M, [&](const std::vector<std::int64_t>& table) {
    for (std::size_t c = 0; c < cells; ++c) z[c] = static_cast<int>(table[c]);
    const double w = weight(z);
    total += w;
    for (std::size_t i = 0; i < cells; ++i)
      for (std::size_t j = 0; j < cells; ++j)
        second(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) += w * z[i] * z[j];
  });
  return second / total;
}

double l1_weight(const std::vector<int>& z, double b) {
  double s = 0;
  for (int v : z) s += std::abs(v);
  return std::exp(-s / b);
}

double gaussian_weight(const std::vector<int>& z, double sigma2) {
  double s = 0;
  for (int v : z) s += double(v) * v;
  return std::exp(-s / (2 * sigma2));
}

// Pi_N of a complete table with all (K-1)-way margins: the Kronecker
// product of centring matrices.
Eigen::MatrixXd table_projector(const std::vector<int>& shape) {
  Eigen::MatrixXd P = Eigen::MatrixXd::Ones(1, 1);
  for (int n : shape) {
    const Eigen::MatrixXd C = Eigen::MatrixXd::Identity(n, n) - Eigen::MatrixXd::Constant(n, n, 1.0 / n);
    Eigen::MatrixXd next(P.rows() * n, P.cols() * n);
    for (Eigen::Index i = 0; i < P.rows(); ++i)
      for (Eigen::Index j = 0; j < P.cols(); ++j) next.block(i * n, j * n, n, n) = P(i, j) * C;
    P = next;
  }
  return P;
}

// c with C = c P, asserting the structure entrywise.
double scalar_of(const Eigen::MatrixXd& C, const Eigen::MatrixXd& P, double tolerance) {
  const double c = C.trace() / P.trace();
  EXPECT_LT((C - c * P).cwiseAbs().maxCoeff(), tolerance * c) << "covariance is not a multiple of Pi_N";
  return c;
}

TEST(AccuracyFamilies, EnumeratedLawsAreAScalarTimesTheProjector) {
  for (const std::vector<int>& shape : std::vector<std::vector<int>>{{2, 3}, {3, 3}, {2, 2, 2}, {4}}) {
    const int M = shape == std::vector<int>{3, 3} ? 13 : 30;
    const Eigen::MatrixXd P = table_projector(shape);
    scalar_of(enumerated_covariance(shape, M, [](const std::vector<int>& z) { return l1_weight(z, 0.9); }), P, 1e-9);
    scalar_of(enumerated_covariance(shape, M, [](const std::vector<int>& z) { return gaussian_weight(z, 0.7); }), P,
              1e-9);
    // The l2 law too (a norm invariant under the same permutations).
    scalar_of(enumerated_covariance(shape, M,
                                    [](const std::vector<int>& z) {
                                      double s = 0;
                                      for (int v : z) s += double(v) * v;
                                      return std::exp(-std::sqrt(s) / 0.6);
                                    }),
              P, 1e-9);
  }
}

TEST(AccuracyFamilies, LaplaceClosedFormsMatchEnumeration) {
  const Rational b{9, 10};
  // A margin group of 4 cells.
  {
    const double c = scalar_of(
        enumerated_covariance({4}, 30, [](const std::vector<int>& z) { return l1_weight(z, 0.9); }),
        table_projector({4}), 1e-9);
    const Release release(grid({1, 4}), 2, {{0}});
    const auto acc = laplace_lattice_accuracy(form_of_model(*release.model, Interrupts()), b, nullptr, Interrupts());
    EXPECT_NEAR(acc.scalars().upper[0], c, 1e-9 * c);
    EXPECT_EQ(acc.kind(), Exactness::exact);
    EXPECT_NEAR(acc.cell_variance(0).upper, conditioned_laplace_variance(b, 4), 1e-12);
  }
  // 2 x 3 and 3 x 2 tables: one group of 3 at b/2.
  for (const std::vector<int>& shape : std::vector<std::vector<int>>{{2, 3}, {3, 2}}) {
    const double c = scalar_of(
        enumerated_covariance(shape, 30, [](const std::vector<int>& z) { return l1_weight(z, 0.9); }),
        table_projector(shape), 1e-9);
    const Release release(grid(shape), 2, {{0}, {1}});
    const auto acc = laplace_lattice_accuracy(form_of_model(*release.model, Interrupts()), b, nullptr, Interrupts());
    EXPECT_NEAR(acc.scalars().upper[0], c, 1e-9 * c);
    EXPECT_EQ(acc.kind(), Exactness::exact);
  }
  // A 3 x 3 table: c computed by quadrature (no closed form), exact.
  {
    const double c = scalar_of(
        enumerated_covariance({3, 3}, 13, [](const std::vector<int>& z) { return l1_weight(z, 0.9); }),
        table_projector({3, 3}), 1e-9);
    const Release three(grid({3, 3}), 2, {{0}, {1}});
    const auto acc = laplace_lattice_accuracy(form_of_model(*three.model, Interrupts()), b, nullptr, Interrupts());
    EXPECT_NEAR(acc.scalars().upper[0], c, 1e-9 * c);
    EXPECT_EQ(acc.kind(), Exactness::exact);
  }
  // A 5 x 5 table has neither: refused without estimates.
  const Release five(grid({5, 5}), 2, {{0}, {1}});
  EXPECT_THROW(laplace_lattice_accuracy(form_of_model(*five.model, Interrupts()), b, nullptr, Interrupts()),
               InvalidArgument);
}

TEST(AccuracyFamilies, LatticeGaussianScalarWithinItsCertifiedBounds) {
  // sigma^2 = 0.7: the lattice's discreteness moves c well below sigma^2.
  const Rational sigma2{7, 10};
  for (const std::vector<int>& shape : std::vector<std::vector<int>>{{4}, {2, 3}, {3, 3}, {2, 2, 2}}) {
    const double c = scalar_of(
        enumerated_covariance(shape, shape.size() == 1 ? 10 : 7,
                              [](const std::vector<int>& z) { return gaussian_weight(z, 0.7); }),
        table_projector(shape), 1e-9);
    std::vector<std::size_t> s(shape.begin(), shape.end());
    const double B = table_deficit_bound(sigma2, s);
    EXPECT_LE(c, 0.7 * (1 + 1e-12));
    EXPECT_GE(c, (1 - B) * 0.7 * (1 - 1e-12)) << "B = " << B;
    std::cout << "[accuracy] lattice Gaussian sigma^2 = 0.7 shape " << shape.size() << "-way: c = " << c
              << ", certified [" << (1 - B) * 0.7 << ", 0.7]\n";
  }
  // At a calibrated sigma^2 the bounds close to double precision on two-way
  // tables; with six axes the smallest Gram-Schmidt variance is
  // sigma^2 / 2^6 and the bound, computed over pooled coordinates (about
  // 4096 products, in milliseconds), is small but not negligible.
  EXPECT_LT(table_deficit_bound(Rational{60, 1}, {1000, 1000}), 1e-15);
  EXPECT_LT(table_deficit_bound(Rational{60, 1}, {10, 10, 10, 10, 10, 10}), 1e-2);
  EXPECT_LT(log_theta_ratio(table_coordinates(Rational{60, 1}, {10, 10, 10, 10, 10, 10})), 1e-3);
}

void expect_variances(const LinearAccuracy& acc, const Release& release, double c_lower, double c_upper,
                      std::uint64_t seed) {
  const Eigen::MatrixXd P = dense_projector(release.tuples, release.margin_columns);
  std::mt19937_64 gen(seed);
  for (int trial = 0; trial < 30; ++trial) {
    const CellQuery q = random_query(release.n(), 0.4, trial % 2 == 1, gen);
    const Eigen::VectorXd x = dense_weights(q, release.n());
    const VarianceFigure v = acc.variance(q, Interrupts());
    const double form = x.dot(P * x);
    EXPECT_NEAR(v.upper, c_upper * form, 1e-9 * (1 + c_upper * x.squaredNorm()));
    EXPECT_NEAR(v.lower, c_lower * form, 1e-9 * (1 + c_upper * x.squaredNorm()));
  }
}

TEST(AccuracyFamilies, ProjectedAndIndependentLaws) {
  const Release none(grid({3, 5}), 2, {});
  const Release two_way(grid({4, 6}), 2, {{0}, {1}});
  const Release general(grid({3, 4, 2}), 3, {{0}, {1}, {2}});
  for (const Release* r : {&none, &two_way, &general}) {
    const auto acc = projected_accuracy(form_of_model(*r->model, Interrupts()), 2.5);
    EXPECT_EQ(acc.kind(), Exactness::exact);
    expect_variances(acc, *r, 2.5, 2.5, 21);
  }
  const Rational b{3, 1};
  const auto dl = laplace_lattice_accuracy(form_of_model(*none.model, Interrupts()), b, nullptr, Interrupts());
  expect_variances(dl, none, discrete_laplace_variance(b), discrete_laplace_variance(b), 22);
  const auto dg = lattice_gaussian_accuracy(form_of_model(*none.model, Interrupts()), Rational{9, 2}, Interrupts());
  expect_variances(dg, none, discrete_gaussian_variance(Rational{9, 2}), discrete_gaussian_variance(Rational{9, 2}), 23);
}

TEST(AccuracyFamilies, LatticeGaussianOnTablesAndGeneralMargins) {
  const Rational sigma2{60, 1};
  const Release two_way(grid({4, 6}), 2, {{0}, {1}});
  // 4 x 6: c computed (a side of at most four levels), exact.
  const auto acc = lattice_gaussian_accuracy(form_of_model(*two_way.model, Interrupts()), sigma2, Interrupts());
  EXPECT_EQ(acc.kind(), Exactness::exact);
  expect_variances(acc, two_way, 60 * (1 - 1e-12), 60, 24);
  // 5 x 6: the certified bracket.
  const Release five(grid({5, 6}), 2, {{0}, {1}});
  const auto bracket = lattice_gaussian_accuracy(form_of_model(*five.model, Interrupts()), sigma2, Interrupts());
  EXPECT_EQ(bracket.kind(), Exactness::certified);
  expect_variances(bracket, five, 60 * (1 - 1e-15), 60, 27);
  const Release general(grid({3, 4, 2}), 3, {{0}, {1}, {2}});
  const auto upper_only = lattice_gaussian_accuracy(form_of_model(*general.model, Interrupts()), sigma2, Interrupts());
  expect_variances(upper_only, general, 0, 60, 25);
  const auto with_bound =
      lattice_gaussian_accuracy(form_of_model(*general.model, Interrupts()), sigma2, Interrupts(), 0.25);
  expect_variances(with_bound, general, 45, 60, 26);
}

TEST(AccuracyFamilies, EstimatesPoolPerCellVariancesPerBlock) {
  // Blocks 5 x 6 and 6 x 6 (neither a closed form nor a computed scale for
  // the l1 law on either).
  std::vector<Tuple> cells;
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 5 + b; ++r)
      for (int c = 0; c < 6; ++c) cells.push_back({b, r, c});
  const Release release(cells, 3, {{0, 1}, {0, 2}});
  std::vector<double> var(release.n());
  for (std::size_t i = 0; i < var.size(); ++i) var[i] = i < 30 ? 3.0 + (i % 2) : 5.0;  // 3 and 4 alternate
  const auto acc =
      laplace_lattice_accuracy(form_of_model(*release.model, Interrupts()), Rational{2, 1}, &var, Interrupts());
  EXPECT_EQ(acc.kind(), Exactness::estimate);
  EXPECT_NEAR(acc.scalars().upper[0], 3.5 / ((4.0 / 5) * (5.0 / 6)), 1e-12);
  EXPECT_NEAR(acc.scalars().upper[1], 5.0 / ((5.0 / 6) * (5.0 / 6)), 1e-12);
  EXPECT_NE(acc.statement().find("not a certified property"), std::string::npos);
  // The same from published per-block scalars.
  const auto from_scalars = estimated_accuracy(form_of_model(*release.model, Interrupts()),
                                               {acc.scalars().upper[0], acc.scalars().upper[1]}, "the l1 law");
  const CellQuery all = all_cells(release.n());
  QueryBuilder half(release.n());
  for (std::uint32_t i = 0; i < release.n(); i += 2) half.add(i);
  const CellQuery q = half.take();
  EXPECT_NEAR(from_scalars.variance(q, Interrupts()).upper, acc.variance(q, Interrupts()).upper, 1e-12);
  EXPECT_EQ(from_scalars.variance(all, Interrupts()).kind, Exactness::estimate);
  // A 2 x 5 block beside a 5 x 5 one: the first exact, the second estimated,
  // and a query on the first alone stays exact.
  std::vector<Tuple> mixed;
  for (int b = 0; b < 2; ++b)
    for (int r = 0; r < 2 + 3 * b; ++r)
      for (int c = 0; c < 5; ++c) mixed.push_back({b, r, c});
  const Release m(mixed, 3, {{0, 1}, {0, 2}});
  const std::vector<double> var2(m.n(), 3.0);
  const auto acc2 = laplace_lattice_accuracy(form_of_model(*m.model, Interrupts()), Rational{2, 1}, &var2, Interrupts());
  QueryBuilder builder(m.n());
  builder.add(0);
  builder.add(6);
  EXPECT_EQ(acc2.variance(builder.take(), Interrupts()).kind, Exactness::exact);
  builder.add(0);
  builder.add(12);
  EXPECT_EQ(acc2.variance(builder.take(), Interrupts()).kind, Exactness::estimate);
}

}  // namespace
}  // namespace invariant_dp
