// Per-cell intervals [y - t, y + t] covering each released cell's true count
// with probability at least `level` under the published noise law (every
// law here is symmetric about 0, so the interval is centred). How each
// family's t is obtained (its `method`, for the release metadata; kind as in
// cell_query.hpp: exact = the exact quantile of the cell's marginal law,
// certified = never narrower than claimed, estimate = labelled):
//
// | family                                        | method                                          | kind      |
// |-----------------------------------------------|-------------------------------------------------|-----------|
// | discrete_laplace; integer_laplace, no margin  | discrete Laplace quantile                       | exact     |
// | discrete_gaussian; integer_gaussian, no margin | discrete Gaussian quantile                     | exact     |
// | integer_laplace, margin group of k cells      | quantile of p(t) P(S_{k-1} = -t) / P(S_k = 0)   | exact     |
// |   (same, recurrence past its work limit)      | unconditioned discrete Laplace quantile (MLR)   | certified |
// | integer_laplace, 2 x n table                   | the group law at b/2 over n cells               | exact     |
// | integer_laplace, two-way table with a side of  | quantile of the cell's law by Fourier integrals | exact     |
// |   3 or 4 levels (within kTableCellWork)        |   over its lines (laplace_table_cell.hpp)       |           |
// | integer_laplace, other tables, l1 chains      | discrete Laplace quantile at the estimated variance | estimate |
// | integer_gaussian, group or complete table      | the tilted discrete Gaussian of the cell as a   | exact or  |
// |                                                |   box (lattice_gaussian_quantiles.hpp)          | certified |
// | integer_gaussian, general margins              | the cell's margin alone (sum_quantile.hpp's     | exact or  |
// |                                                |   general_lattice_margin): the tilted discrete  | certified |
// |                                                |   Gaussian through the lattice's basis          |           |
// |   (basis past its limits, or too coarse)       | sub-Gaussian at sigma^2 (Pi_N)_ii               | certified |
// | subspace_gaussian                              | normal quantile                                 | exact     |
// | subspace_laplace, no margin, groups and        | quantile of the cell's law, a combination of    | exact     |
// |   complete tables                              |   independent Laplace variables (laplace_combination.hpp) |  |
// | subspace_laplace, general margins              | Gauss's inequality (log-concave marginal)       | certified |
// | project_l2, no margin, groups and complete     | quantile of the cell's law on its lattice, D X  | exact     |
// |   tables (the law naming its parameter)        |   a weighted sum of discrete Laplace cells      |           |
// | project_l2, general margins                    | Chebyshev                                       | certified |
// | integer_laplace_l2 chains                      | normal quantile at the estimated variance       | estimate  |
// Integer releases get integer half-widths, hence integer bounds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../samplers/rational.hpp"
#include "linear_accuracy.hpp"

namespace invariant_dp::accuracy {

class CellIntervals {
 public:
  // One half-width for every cell.
  CellIntervals(std::size_t n_cells, double half_width, bool integer, Exactness kind, std::string method);
  // A half-width per block of the form.
  CellIntervals(std::shared_ptr<const ProjectorForm> form, std::vector<double> block_half_width, bool integer,
                Exactness kind, std::string method);
  // A half-width per cell.
  CellIntervals(std::vector<double> cell_half_width, bool integer, Exactness kind, std::string method);
  // A half-width per class, and the class of each cell (4 bytes a cell).
  CellIntervals(std::vector<std::uint32_t> class_of_cell, std::vector<double> class_half_width, bool integer,
                Exactness kind, std::string method);

  std::size_t n_cells() const { return n_cells_; }
  double half_width(std::uint32_t cell) const;
  bool integer() const { return integer_; }
  Exactness kind() const { return kind_; }
  const std::string& method() const { return method_; }
  double level() const { return level_; }
  void set_level(double level) { level_ = level; }

  // OutOfRange when some values[i] -+ t_i leaves bigint (n = n_cells()):
  // checked once, so that integer bounds can then be written as they are
  // read, a few rows at a time, without an error and without two arrays of
  // millions of bounds.
  void check_integer_bounds(const std::int64_t* values, const Interrupts& interrupts) const;
  // Cells [first, first + n): lower[j] = values[first + j] - t and
  // upper[j] = values[first + j] + t. Integer bounds as they are (after
  // check_integer_bounds), real ones rounded outward.
  void integer_bounds(std::size_t first, std::size_t n, const std::int64_t* values, std::int64_t* lower,
                      std::int64_t* upper) const noexcept;
  void real_bounds(std::size_t first, std::size_t n, const double* values, double* lower, double* upper) const noexcept;

 private:
  // visit(i, t_i) for the cells [first, end), the half-width's lookup chosen once.
  template <class Visit>
  void visit_half_widths(std::size_t first, std::size_t end, Visit visit) const;

  std::size_t n_cells_ = 0;
  double uniform_ = 0;
  std::shared_ptr<const ProjectorForm> form_;
  std::vector<double> block_width_, cell_width_;  // per block of form_, per cell
  std::vector<std::uint32_t> class_of_cell_;      // with block_width_ per class
  bool integer_ = true;
  Exactness kind_ = Exactness::exact;
  std::string method_;
  double level_ = 0;
};

// The families of the table above. max_steps bounds the conditioned
// marginal's recurrences (conditioned_marginal.hpp) over all the distinct
// group sizes together (about a second at 5e8); sizes past it take the
// conservative unconditioned quantile.
CellIntervals discrete_laplace_intervals(std::size_t n_cells, Rational b, double level);
CellIntervals discrete_gaussian_intervals(std::size_t n_cells, Rational sigma2, double level);
CellIntervals laplace_lattice_intervals(const LinearAccuracy& accuracy, Rational b, double level,
                                        const Interrupts& interrupts, double max_steps = 5e8);
// The lattice Gaussian's read the form and sigma^2 alone (its cells' laws),
// not the variance brackets a LinearAccuracy carries.
CellIntervals lattice_gaussian_intervals(std::shared_ptr<const ProjectorForm> form, Rational sigma2, double level,
                                         const Interrupts& interrupts);
// Real-valued releases whose law is exactly Gaussian (normal), symmetric
// log-concave (gauss) or only of known variance (chebyshev), from the
// accuracy's per-cell variances (its upper ends).
enum class RealTail { normal, gauss, chebyshev };
CellIntervals real_intervals(const LinearAccuracy& accuracy, double level, RealTail tail,
                             const Interrupts& interrupts);
// subspace_laplace: each cell's law, a combination of independent Laplace
// variables of the scale its block's unit variance 2 b^2 gives, weighted by
// the cell's row of Pi_N (projected_laplace.hpp), once per block shape (the
// first 256 shapes of the release); general margins (a projection per
// cell), further shapes and laws past their work limit take Gauss's
// inequality.
CellIntervals projected_laplace_intervals(const LinearAccuracy& accuracy, double level, const Interrupts& interrupts);
// project_l2: each cell's law, discrete Laplace(b) cells weighted by the
// cell's row of Pi_N, a lattice vector over prod n_k (projected_laplace.hpp),
// once per block shape (the first 256); general margins, further shapes
// and laws past the inversion's limits take Chebyshev's inequality.
CellIntervals projected_discrete_laplace_intervals(const LinearAccuracy& accuracy, Rational b, double level,
                                                   const Interrupts& interrupts);
// A chain's law with estimated variances: the discrete Laplace quantile at
// the estimated variance (laplace_shape, the l1 law) or the normal one,
// rounded up to integers.
CellIntervals estimated_intervals(const LinearAccuracy& accuracy, double level, bool laplace_shape,
                                  const Interrupts& interrupts);

}  // namespace invariant_dp::accuracy
