// The families' scalars (linear_accuracy.hpp); the arguments are in
// DERIVATIONS.md, sections 1 to 3.
#include "linear_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "../errors.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../samplers/conditioned_laplace_variance.hpp"
#include "../samplers/discrete_gaussian.hpp"
#include "../samplers/discrete_laplace.hpp"
#include "../samplers/two_line_table.hpp"
#include "effective_cells.hpp"
#include "lattice_bounds.hpp"
#include "table_covariance_scale.hpp"

namespace invariant_dp::accuracy {
namespace {

BlockScalars uniform_scalars(std::size_t n_blocks, double lower, double upper, Exactness kind) {
  return BlockScalars{std::vector<double>(n_blocks, lower), std::vector<double>(n_blocks, upper),
                      std::vector<Exactness>(n_blocks, kind)};
}

// The scale c of a complete two-way table whose shorter side has at most
// four levels, computed by Fourier quadrature (table_covariance_scale.hpp):
// its quadrature error is certified, its rounding estimated; together below
// 1e-9 relative, so the figure is exact as conditioned_laplace_variance's
// is. Past kErrorBarScalePoints at that accuracy, the same quadrature to
// kCertifiedScaleError on a coarser grid (fewer points, and on four-line
// l1 tables a box that stops growing with b) when `coarser` is set: c within a
// certified relative error, written to `error`. false where every grid is
// refused (past the points, or a scale its bound does not certify): l1
// tables past about b = 2e5 (epsilon 2e-5), where the grid's side would
// pass 2^24 points.
bool computed_table_scale(IntegerNoise noise, const std::vector<std::size_t>& shape, bool coarser, double& c,
                          double& error, const Interrupts& interrupts) {
  if (shape.size() != 2 || shape_pinned(shape) || std::min(shape[0], shape[1]) > 4) return false;
  try {
    const TableScale scale = coarser ? release_table_scale(noise, shape[0], shape[1], interrupts, kErrorBarScalePoints)
                                     : table_covariance_scale(noise, shape[0], shape[1], interrupts,
                                                              kErrorBarScalePoints, kPublishedScaleError);
    error = scale.quadrature_error + scale.rounding_error;
    if (!(error <= (coarser ? kCertifiedScaleError : 1e-9))) return false;
    c = scale.scale;
    return true;
  } catch (const TooLarge&) {
    return false;
  } catch (const OutOfRange&) {
    return false;
  }
}

// The l1 law's scalar on a block of this shape, when it has a closed form:
// a margin group of k cells, or a table with a line of two levels, whose
// lattice is the image of one group of n cells at half the scale
// (samplers/two_line_table.hpp); or a two-way table with a side of at most
// four levels, computed (`error` its relative error; 0 for the closed forms).
bool laplace_scalar(Rational b, const std::vector<std::size_t>& shape, double& c, double& error,
                    const Interrupts& interrupts) {
  error = 0;
  if (shape_pinned(shape)) {
    c = 0;
    return true;
  }
  if (shape.size() == 1) {
    const double k = double(shape[0]);
    c = conditioned_laplace_variance(b, shape[0]) * k / (k - 1);
    return true;
  }
  if (shape.size() == 2 && (shape[0] == 2 || shape[1] == 2)) {
    const std::size_t n = shape[0] == 2 ? shape[1] : shape[0];
    c = 2 * conditioned_laplace_variance(half_of(b), n) * double(n) / double(n - 1);
    return true;
  }
  return computed_table_scale(IntegerNoise{IntegerNoise::Kind::laplace, b}, shape, true, c, error, interrupts);
}

}  // namespace

LinearAccuracy::LinearAccuracy(std::shared_ptr<const ProjectorForm> form, BlockScalars scalars, std::string statement)
    : form_(std::move(form)), scalars_(std::move(scalars)), statement_(std::move(statement)) {
  const std::size_t n = form_->n_blocks();
  if (scalars_.lower.size() != n || scalars_.upper.size() != n || scalars_.kind.size() != n)
    throw InvalidArgument("a family needs one scalar per block of its form");
}

VarianceFigure LinearAccuracy::variance(const CellQuery& query, const Interrupts& interrupts) const {
  check_query(query, form_->n_cells());
  form_->block_forms(query, blocks_, interrupts);
  VarianceFigure out;
  for (const BlockForm& b : blocks_) {
    out.lower += scalars_.lower[b.block] * b.form;
    out.upper += scalars_.upper[b.block] * b.form;
    out.kind = weaker(out.kind, scalars_.kind[b.block]);
  }
  if (out.kind != Exactness::certified) out.lower = out.upper;
  return out;
}

VarianceFigure LinearAccuracy::cell_variance(std::uint32_t cell) const {
  if (cell >= form_->n_cells()) throw InvalidArgument("cell " + std::to_string(cell) + " is not a cell of this release");
  const std::uint32_t b = form_->block_of(cell);
  const double d = form_->diagonal(cell);
  VarianceFigure out{scalars_.lower[b] * d, scalars_.upper[b] * d, scalars_.kind[b]};
  if (out.kind != Exactness::certified) out.lower = out.upper;
  return out;
}

double LinearAccuracy::effective_cells(const CellQuery& query, const Interrupts& interrupts) const {
  const std::optional<double> largest = largest_cell_term(*form_, scalars_.upper, query, interrupts);
  // No noise at all (whole margins): the count does not matter, the
  // variance says 0.
  if (!largest || !(*largest > 0)) return double(query.size());
  return variance(query, interrupts).upper / *largest;
}

Exactness LinearAccuracy::kind() const {
  Exactness out = Exactness::exact;
  for (const Exactness k : scalars_.kind) out = weaker(out, k);
  return out;
}

LinearAccuracy projected_accuracy(std::shared_ptr<const ProjectorForm> form, double unit_variance) {
  if (!(unit_variance > 0) || !std::isfinite(unit_variance))
    throw InvalidArgument("the unit variance of a noise law must be positive and finite");
  const std::size_t n = form->n_blocks();
  return LinearAccuracy(std::move(form), uniform_scalars(n, unit_variance, unit_variance, Exactness::exact),
                        "exact: unit_variance * Pi_N (the projection of i.i.d. noise onto the null space of the "
                        "margins; independent cells without margins)");
}

LinearAccuracy laplace_lattice_accuracy(std::shared_ptr<const ProjectorForm> form, Rational b,
                                        const std::vector<double>* estimated_cell_variance,
                                        const Interrupts& interrupts) {
  const std::string structure = form->structure();
  if (structure == "none") {
    const double v = discrete_laplace_variance(b);
    const std::size_t n = form->n_blocks();
    return LinearAccuracy(std::move(form), uniform_scalars(n, v, v, Exactness::exact),
                          "exact: independent cells, each of the discrete Laplace variance");
  }
  if (structure == "general") {
    if (estimated_cell_variance == nullptr)
      throw InvalidArgument("the l1 law on general margins has no closed-form covariance",
                            "Its error bars need the release's Monte Carlo per-cell variances.");
    return estimated_accuracy(std::move(form), *estimated_cell_variance, "the l1 law", nullptr, interrupts);
  }
  const std::size_t n_blocks = form->n_blocks();
  BlockScalars scalars = uniform_scalars(n_blocks, 0, 0, Exactness::exact);
  // Per shape: c and its relative error, or c < 0 where there is none.
  struct ShapeScalar {
    double c = -1, error = 0;
  };
  std::map<std::vector<std::size_t>, ShapeScalar> by_shape;
  std::vector<std::uint32_t> estimated_blocks;
  bool certified = false;
  for (std::uint32_t block = 0; block < n_blocks; ++block) {
    interrupts.poll_every(block);
    const std::vector<std::size_t> shape = form->block_shape(block);
    auto found = by_shape.find(shape);
    if (found == by_shape.end()) {
      ShapeScalar scalar;
      if (!laplace_scalar(b, shape, scalar.c, scalar.error, interrupts)) scalar.c = -1;
      found = by_shape.emplace(shape, scalar).first;
    }
    const ShapeScalar& scalar = found->second;
    if (scalar.c < 0) {
      estimated_blocks.push_back(block);
    } else if (scalar.error > 1e-9) {
      // Computed on the coarser grid: certified within its error.
      scalars.lower[block] = scalar.c * (1 - scalar.error);
      scalars.upper[block] = scalar.c * (1 + scalar.error);
      scalars.kind[block] = Exactness::certified;
      certified = true;
    } else {
      scalars.lower[block] = scalars.upper[block] = scalar.c;
    }
  }
  std::string statement =
      "exact where every block has a closed form: within a margin group of k cells Cov = c_k (I - J/k), c_k = k/(k-1) "
      "times the exact conditioned variance; a 2 x n table is one group of n cells at scale b/2 written as (y, -y); "
      "a two-way table with a side of at most four levels has c computed by Fourier quadrature (relative error below "
      "1e-9)";
  if (certified)
    statement +=
        "; certified where that quadrature is past its work limit: c within the relative error of the "
        "same quadrature on a coarser grid (below 1e-3)";
  if (!estimated_blocks.empty()) {
    if (estimated_cell_variance == nullptr)
      throw InvalidArgument("the l1 law on a table with no line of two levels has no closed-form covariance",
                            "Its error bars need the release's Monte Carlo per-cell variances.");
    const LinearAccuracy estimate =
        estimated_accuracy(form, *estimated_cell_variance, "the l1 law", nullptr, interrupts);
    for (const std::uint32_t block : estimated_blocks) {
      scalars.lower[block] = scalars.upper[block] = estimate.scalars().upper[block];
      scalars.kind[block] = Exactness::estimate;
    }
    statement += "; on larger tables " + estimate.statement();
  }
  return LinearAccuracy(std::move(form), std::move(scalars), statement);
}

LinearAccuracy lattice_gaussian_accuracy(std::shared_ptr<const ProjectorForm> form, Rational sigma2,
                                         const Interrupts& interrupts, double general_deficit_bound) {
  const std::string structure = form->structure();
  const double s2 = sigma2.to_double();
  const std::size_t n_blocks = form->n_blocks();
  if (structure == "none") {
    const double v = discrete_gaussian_variance(sigma2);
    return LinearAccuracy(std::move(form), uniform_scalars(n_blocks, v, v, Exactness::exact),
                          "exact: independent cells, each of the discrete Gaussian variance");
  }
  const auto lower_of = [&](double bound) { return hierarchy::integer_variance_bounds(s2, bound).lower; };
  if (structure == "general") {
    const double bound = std::isfinite(general_deficit_bound) && general_deficit_bound >= 0 ? general_deficit_bound : 1;
    return LinearAccuracy(std::move(form), uniform_scalars(n_blocks, lower_of(bound), s2, Exactness::certified),
                          "certified: between (1 - B) sigma^2 Pi_N and sigma^2 Pi_N in every direction (Poisson "
                          "summation), B = " + std::to_string(bound) + (bound >= 1 ? " (not computed)" : ""));
  }
  BlockScalars scalars = uniform_scalars(n_blocks, 0, 0, Exactness::certified);
  // Per shape: the certified bracket, or the computed c (lower == upper).
  struct ShapeScalar {
    double lower, upper;
    Exactness kind;
  };
  std::map<std::vector<std::size_t>, ShapeScalar> of_shape;
  hierarchy::CoordinateTerms terms;  // shared by the shapes' bounds
  double largest = 0;
  bool computed = false;
  for (std::uint32_t block = 0; block < n_blocks; ++block) {
    interrupts.poll_every(block);
    const std::vector<std::size_t> shape = form->block_shape(block);
    if (shape_pinned(shape)) continue;
    auto found = of_shape.find(shape);
    if (found == of_shape.end()) {
      const double bound = table_deficit_bound(sigma2, shape, &terms);
      ShapeScalar scalar{lower_of(bound), s2, Exactness::certified};
      double c = 0;
      double error = 0;
      if (computed_table_scale(IntegerNoise{IntegerNoise::Kind::gaussian, sigma2}, shape, false, c, error,
                               interrupts)) {
        // Within the certified bracket, which it can only narrow.
        scalar = {std::clamp(c, scalar.lower, s2), std::clamp(c, scalar.lower, s2), Exactness::exact};
        computed = true;
      } else {
        largest = std::max(largest, bound);
      }
      found = of_shape.emplace(shape, scalar).first;
    }
    scalars.lower[block] = found->second.lower;
    scalars.upper[block] = found->second.upper;
    scalars.kind[block] = found->second.kind;
  }
  return LinearAccuracy(
      std::move(form), std::move(scalars),
      "certified: within each margin group or complete table Cov = c (Kronecker product of centring matrices), "
      "c in [(1 - B) sigma^2, sigma^2] (symmetry makes it a scalar times the projector; Poisson summation bounds "
      "the scalar), largest B = " + std::to_string(largest) +
          (computed ? "; exact on two-way tables with a side of at most four levels: c computed by Fourier "
                      "quadrature (relative error below 1e-9)"
                    : ""));
}

namespace {

std::string estimate_statement(const ProjectorForm& form, const std::string& law_name) {
  const bool symmetric = std::string(form.structure()) != "general";
  return "estimate: " + law_name +
         (symmetric ? "'s covariance is c_b Pi_b on each margin group or complete table (it is invariant under "
                      "permuting each axis's levels, which act irreducibly on the null space), c_b the per-cell "
                      "Monte Carlo variance / (Pi_N)_ii pooled over the block"
                    : " approximated by c Pi_N, the Gaussian analogue, c the per-cell Monte Carlo variances' sum / "
                      "trace(Pi_N)") +
         "; the figure is the law's as estimated, not a certified property of the chain's output";
}

}  // namespace

LinearAccuracy estimated_accuracy(std::shared_ptr<const ProjectorForm> form, const std::vector<double>& block_scalar,
                                  const std::string& law_name) {
  if (block_scalar.size() != form->n_blocks()) throw InvalidArgument("an estimated covariance needs one scalar per block");
  for (const double c : block_scalar)
    if (!(c >= 0) || !std::isfinite(c)) throw InvalidArgument("an estimated scalar must be finite and >= 0");
  BlockScalars scalars{block_scalar, block_scalar, std::vector<Exactness>(block_scalar.size(), Exactness::estimate)};
  std::string statement = estimate_statement(*form, law_name);
  return LinearAccuracy(std::move(form), std::move(scalars), std::move(statement));
}

LinearAccuracy estimated_accuracy(std::shared_ptr<const ProjectorForm> form,
                                  const std::vector<double>& cell_variance, const std::string& law_name,
                                  const std::vector<double>* diagonal, const Interrupts& interrupts) {
  const std::size_t n = form->n_cells();
  if (cell_variance.size() != n || (diagonal != nullptr && diagonal->size() != n))
    throw InvalidArgument("an estimated covariance needs one variance per cell");
  std::vector<double> variance_sum(form->n_blocks(), 0.0), diagonal_sum(form->n_blocks(), 0.0);
  for (std::uint32_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    const double v = cell_variance[i];
    if (!(v >= 0) || !std::isfinite(v)) throw InvalidArgument("a cell's estimated variance must be finite and >= 0");
    const std::uint32_t b = form->block_of(i);
    variance_sum[b] += v;
    diagonal_sum[b] += diagonal != nullptr ? (*diagonal)[i] : form->diagonal(i);
  }
  BlockScalars scalars = uniform_scalars(form->n_blocks(), 0, 0, Exactness::estimate);
  for (std::size_t b = 0; b < variance_sum.size(); ++b) {
    const double c = diagonal_sum[b] > 0 ? variance_sum[b] / diagonal_sum[b] : 0;
    scalars.lower[b] = scalars.upper[b] = c;
  }
  std::string statement = estimate_statement(*form, law_name);
  return LinearAccuracy(std::move(form), std::move(scalars), std::move(statement));
}

}  // namespace invariant_dp::accuracy
