// Per-cell intervals (cell_intervals.hpp); the arguments are in
// DERIVATIONS.md, sections 3 to 6.
#include "cell_intervals.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "../errors.hpp"
#include "../samplers/interval.hpp"
#include "../samplers/two_line_table.hpp"
#include "conditioned_marginal.hpp"
#include "group_cell_lattice_law.hpp"
#include "laplace_table_cell.hpp"
#include "lattice_bounds.hpp"
#include "lattice_gaussian_quantiles.hpp"
#include "projected_laplace.hpp"
#include "sum_quantile.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

// The discrete Laplace half-width at the scale whose variance is v (an
// estimate's shape; double arithmetic): v = 2 a / (1 - a)^2.
double laplace_width_at_variance(double v, double level) {
  if (!(v > 0)) return 0;
  const double a = ((v + 1) - std::sqrt(2 * v + 1)) / v;
  if (!(a > 0 && a < 1)) return normal_half_width(v, level);
  const double t = std::log((1 - level) * (1 + a) / 2) / std::log(a) - 1;
  return std::ceil(std::max(0.0, t));
}

// The law of a cell of a two-way table whose shorter side has three or
// four levels, within what is left of the release's work (`work` adds what
// it spends); nothing past it, or where its bound does not decide.
std::optional<TableCellQuantile> table_cell(Rational b, const std::vector<std::size_t>& shape, double level,
                                            double& work, const Interrupts& interrupts) {
  if (shape.size() != 2 || std::min(shape[0], shape[1]) < 3 || std::min(shape[0], shape[1]) > 4) return std::nullopt;
  try {
    TableCellQuantile q = laplace_table_cell_quantile(b, shape[0], shape[1], level, interrupts, kTableCellWork - work);
    work += q.work;
    return q;
  } catch (const TooLarge&) {
    return std::nullopt;
  } catch (const OutOfRange&) {
    return std::nullopt;
  }
}

// Projected discrete Laplace noise: the block shapes whose cells' laws a
// release computes each by its own inversion (0.5 to 5 ms each); the shapes
// past them take the tail bound. Continuous Laplace noise's laws (0.02 to
// 1 ms each) are bounded by their work instead: all of a release's
// together within one law's limit (kCombinationWork, about 0.4 s).
constexpr std::size_t kMaxLatticeLawShapes = 256;

// Collects the methods used, each once, in the order first used.
struct Methods {
  std::vector<std::string> names;
  Exactness kind = Exactness::exact;
  void add(const std::string& name, Exactness k) {
    kind = weaker(kind, k);
    for (const std::string& n : names)
      if (n == name) return;
    names.push_back(name);
  }
  std::string text() const {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? "; " : "") + names[i];
    return out;
  }
};

}  // namespace

CellIntervals::CellIntervals(std::size_t n_cells, double half_width, bool integer, Exactness kind, std::string method)
    : n_cells_(n_cells), uniform_(half_width), integer_(integer), kind_(kind), method_(std::move(method)) {}

CellIntervals::CellIntervals(std::shared_ptr<const ProjectorForm> form, std::vector<double> block_half_width,
                             bool integer, Exactness kind, std::string method)
    : n_cells_(form->n_cells()), form_(std::move(form)), block_width_(std::move(block_half_width)),
      integer_(integer), kind_(kind), method_(std::move(method)) {
  if (block_width_.size() != form_->n_blocks()) throw InvalidArgument("one half-width per block is needed");
}

CellIntervals::CellIntervals(std::vector<double> cell_half_width, bool integer, Exactness kind, std::string method)
    : n_cells_(cell_half_width.size()), cell_width_(std::move(cell_half_width)), integer_(integer), kind_(kind),
      method_(std::move(method)) {}

CellIntervals::CellIntervals(std::vector<std::uint32_t> class_of_cell, std::vector<double> class_half_width,
                             bool integer, Exactness kind, std::string method)
    : n_cells_(class_of_cell.size()), block_width_(std::move(class_half_width)),
      class_of_cell_(std::move(class_of_cell)), integer_(integer), kind_(kind), method_(std::move(method)) {
  for (const std::uint32_t c : class_of_cell_)
    if (c >= block_width_.size()) throw InvalidArgument("a cell's interval class is out of range");
}

double CellIntervals::half_width(std::uint32_t cell) const {
  if (!cell_width_.empty()) return cell_width_[cell];
  if (!class_of_cell_.empty()) return block_width_[class_of_cell_[cell]];
  if (form_) return block_width_[form_->block_of(cell)];
  return uniform_;
}

template <class Visit>
void CellIntervals::visit_half_widths(std::size_t first, std::size_t end, Visit visit) const {
  const std::uint32_t* block = form_ ? form_->block_of_cells() : nullptr;
  for (std::size_t i = first; i < end; ++i)
    visit(i, block != nullptr ? block_width_[block[i]] : half_width(static_cast<std::uint32_t>(i)));
}

void CellIntervals::check_integer_bounds(const std::int64_t* values, const Interrupts& interrupts) const {
  if (cell_width_.empty() && class_of_cell_.empty() && !form_) {
    // One half-width: the extreme values alone can leave bigint.
    const std::int64_t t = integer_half_width(uniform_);
    std::int64_t low = INT64_MAX, high = INT64_MIN, unused;
    for (std::size_t i = 0; i < n_cells_; ++i) {
      interrupts.poll_every(i);
      low = std::min(low, values[i]);
      high = std::max(high, values[i]);
    }
    if (n_cells_ > 0 && (__builtin_sub_overflow(low, t, &unused) || __builtin_add_overflow(high, t, &unused)))
      throw OutOfRange("an interval bound is out of range for bigint");
    return;
  }
  visit_half_widths(0, n_cells_, [&](std::size_t i, double real_t) {
    interrupts.poll_every(i);
    const std::int64_t t = integer_half_width(real_t);
    std::int64_t unused;
    if (__builtin_sub_overflow(values[i], t, &unused) || __builtin_add_overflow(values[i], t, &unused))
      throw OutOfRange("an interval bound is out of range for bigint");
  });
}

void CellIntervals::integer_bounds(std::size_t first, std::size_t n, const std::int64_t* values, std::int64_t* lower,
                                   std::int64_t* upper) const noexcept {
  visit_half_widths(first, first + n, [&](std::size_t i, double real_t) {
    const std::int64_t t = integer_half_width(real_t);
    lower[i - first] = values[i] - t;
    upper[i - first] = values[i] + t;
  });
}

void CellIntervals::real_bounds(std::size_t first, std::size_t n, const double* values, double* lower,
                                double* upper) const noexcept {
  visit_half_widths(first, first + n, [&](std::size_t i, double t) {
    // Rounded outward: the bounds are never inside the interval claimed.
    lower[i - first] = next_down(values[i] - t);
    upper[i - first] = next_up(values[i] + t);
  });
}

CellIntervals discrete_laplace_intervals(std::size_t n_cells, Rational b, double level) {
  CellIntervals out(n_cells, double(discrete_laplace_half_width(b, level)), true, Exactness::exact,
                    "exact: the discrete Laplace quantile");
  out.set_level(level);
  return out;
}

CellIntervals discrete_gaussian_intervals(std::size_t n_cells, Rational sigma2, double level) {
  CellIntervals out(n_cells, double(discrete_gaussian_half_width(sigma2.to_double(), level)), true, Exactness::exact,
                    "exact: the discrete Gaussian quantile");
  out.set_level(level);
  return out;
}

CellIntervals laplace_lattice_intervals(const LinearAccuracy& accuracy, Rational b, double level,
                                        const Interrupts& interrupts, double max_steps) {
  const ProjectorForm& form = accuracy.form();
  const std::string structure = form.structure();
  if (structure == "none") return discrete_laplace_intervals(form.n_cells(), b, level);
  if (structure == "general") return estimated_intervals(accuracy, level, true, interrupts);
  Methods methods;
  std::vector<double> width(form.n_blocks(), 0.0);
  std::map<std::vector<std::size_t>, std::pair<double, Exactness>> by_shape;
  double steps = 0;  // the recurrences' work so far
  double work = 0;   // the table cells' laws' work so far
  std::set<std::vector<std::size_t>> no_law;  // shapes whose cell's law was not computed
  for (std::uint32_t block = 0; block < form.n_blocks(); ++block) {
    interrupts.poll_every(block);
    const std::vector<std::size_t> shape = form.block_shape(block);
    const bool two_line = shape.size() == 2 && (shape[0] == 2 || shape[1] == 2);
    if (shape.size() == 1 || two_line || shape_pinned(shape)) {
      auto found = by_shape.find(shape);
      if (found == by_shape.end()) {
        std::pair<double, Exactness> result{0.0, Exactness::exact};
        if (!shape_pinned(shape)) {
          // A group of k cells at b, or a 2 x n table: one group of n at b/2.
          const Rational scale = two_line ? half_of(b) : b;
          const std::uint64_t k = two_line ? (shape[0] == 2 ? shape[1] : shape[0]) : shape[0];
          const std::vector<double> pmf = conditioned_laplace_marginal(scale, k, max_steps - steps, interrupts);
          if (!pmf.empty()) steps += sum_pmf_steps(std::exp(-double(scale.den) / double(scale.num)), k - 1);
          if (!pmf.empty()) {
            result.first = double(marginal_half_width(pmf, level));
            methods.add("exact: the quantile of the conditioned cell's law", Exactness::exact);
          } else {
            result = {double(discrete_laplace_half_width(scale, level)), Exactness::certified};
            methods.add("certified: the unconditioned discrete Laplace quantile, which dominates the conditioned "
                        "cell's law",
                        Exactness::certified);
          }
        }
        found = by_shape.emplace(shape, result).first;
      }
      width[block] = found->second.first;
    } else if (const auto found = by_shape.find(shape); found != by_shape.end()) {
      width[block] = found->second.first;
    } else if (std::optional<TableCellQuantile> q =
                   no_law.count(shape) ? std::nullopt : table_cell(b, shape, level, work, interrupts)) {
      // A two-way table with a side of three or four levels: the cell's law.
      width[block] = double(q->quantile.half_width);
      by_shape.emplace(shape, std::pair{width[block], q->quantile.exact ? Exactness::exact : Exactness::certified});
      methods.add(q->quantile.exact ? "exact: the quantile of the table cell's law, by Fourier integrals over its lines"
                                    : "certified: a covering quantile of the table cell's law, by Fourier integrals "
                                      "over its lines",
                  q->quantile.exact ? Exactness::exact : Exactness::certified);
    } else {
      no_law.insert(shape);
      const double v = accuracy.scalars().upper[block] * shape_diagonal(shape);
      width[block] = laplace_width_at_variance(v, level);
      // The cell's law is no discrete Laplace law: its quantile at the
      // cell's variance is an estimate, whether that variance is computed
      // (a side of at most four levels) or the release's Monte Carlo one.
      methods.add(accuracy.scalars().kind[block] == Exactness::estimate
                      ? "estimate: the discrete Laplace quantile at the estimated per-cell variance"
                      : "estimate: the discrete Laplace quantile at the cell's computed variance",
                  Exactness::estimate);
    }
  }
  CellIntervals out(accuracy.shared_form(), std::move(width), true, methods.kind, methods.text());
  out.set_level(level);
  return out;
}

CellIntervals lattice_gaussian_intervals(std::shared_ptr<const ProjectorForm> shared_form, Rational sigma2,
                                         double level, const Interrupts& interrupts) {
  const ProjectorForm& form = *shared_form;
  const std::string structure = form.structure();
  if (structure == "none") return discrete_gaussian_intervals(form.n_cells(), sigma2, level);
  const double s2 = sigma2.to_double();
  Methods methods;
  if (structure == "general") {
    // Each cell's interval is the margin of that cell alone: the tilted
    // discrete Gaussian through the lattice's basis where it applies, else
    // the sub-Gaussian bound (always valid).
    std::vector<double> width(form.n_cells());
    CellQuery one;
    one.cells = {0};
    one.weights = {1.0};
    for (std::uint32_t i = 0; i < form.n_cells(); ++i) {
      interrupts.poll_every(i);
      one.cells[0] = i;
      const std::optional<MarginOfError> law = general_lattice_margin(form, sigma2, one, level, interrupts);
      if (law && law->half_width == 0) {
        width[i] = 0;  // a cell the margins pin
      } else if (law) {
        width[i] = law->half_width;
        methods.add(law->kind == Exactness::exact
                        ? "exact: the quantile of the cell's law (general margins: the discrete Gaussian at its "
                          "continuous variance, tilted within the theta excess of short vectors of the lattice "
                          "where it is 0)"
                        : "certified: a covering quantile of the cell's law (general margins: the discrete Gaussian "
                          "at its continuous variance, tilted within the theta excess of short vectors of the "
                          "lattice where it is 0)",
                    law->kind);
      } else {
        width[i] = double(integer_half_width(sub_gaussian_half_width(s2 * form.diagonal(i), level)));
        methods.add("certified: sub-Gaussian tail bound at sigma^2 (Pi_N)_ii (a lattice Gaussian centred at 0)",
                    Exactness::certified);
      }
    }
    CellIntervals out(std::move(width), true, methods.kind, methods.text());
    out.set_level(level);
    return out;
  }
  std::vector<double> width(form.n_blocks(), 0.0);
  std::map<std::vector<std::size_t>, double> by_shape;
  hierarchy::CoordinateTerms terms;  // shared by the shapes' excesses
  for (std::uint32_t block = 0; block < form.n_blocks(); ++block) {
    interrupts.poll_every(block);
    const std::vector<std::size_t> shape = form.block_shape(block);
    if (shape_pinned(shape)) continue;
    auto found = by_shape.find(shape);
    if (found == by_shape.end()) {
      const double cell_s2 = s2 * shape_diagonal(shape);
      // Always valid: the lattice Gaussian is sub-Gaussian at the cell's continuous variance.
      double t = double(integer_half_width(sub_gaussian_half_width(cell_s2, level)));
      std::string how = "certified: sub-Gaussian tail bound at sigma^2 (Pi_N)_ii";
      Exactness kind = Exactness::certified;
      // The cell is the box of one level on every axis: its law is the
      // tilted discrete Gaussian of its Klein order (the sums' box path).
      const std::vector<std::size_t> one_level(shape.size(), 1);
      try {
        const Quantile q =
            tilted_gaussian_quantile(box_variance(sigma2, shape, one_level), 1,
                                     box_log_excess(sigma2, shape, one_level, &terms), level, interrupts);
        if (double(q.half_width) <= t) {
          t = double(q.half_width);
          kind = q.exact ? Exactness::exact : Exactness::certified;
          how = q.exact ? "exact: the quantile of the cell's law (the discrete Gaussian at its continuous variance, "
                          "tilted within the theta excess of the other Gram-Schmidt coordinates)"
                        : "certified: a covering quantile of the cell's law (the discrete Gaussian at its continuous "
                          "variance, tilted within the theta excess of the other Gram-Schmidt coordinates)";
        }
      } catch (const OutOfRange&) {
        // a lattice too coarse for the tilted bound
      }
      if (shape.size() == 1 && kind != Exactness::exact) {
        // A margin group: the unconditioned law dominates (log-concavity).
        const double plain = double(discrete_gaussian_half_width(s2, level));
        if (plain < t) {
          t = plain;
          how = "certified: the unconditioned discrete Gaussian quantile, which dominates the conditioned cell's law";
        }
      }
      methods.add(how, kind);
      found = by_shape.emplace(shape, t).first;
    }
    width[block] = found->second;
  }
  CellIntervals out(std::move(shared_form), std::move(width), true, methods.kind, methods.text());
  out.set_level(level);
  return out;
}

CellIntervals real_intervals(const LinearAccuracy& accuracy, double level, RealTail tail,
                             const Interrupts& interrupts) {
  const ProjectorForm& form = accuracy.form();
  const auto width_of = [&](double v) {
    switch (tail) {
      case RealTail::normal: return normal_half_width(v, level);
      case RealTail::gauss: return gauss_half_width(v, level);
      default: return chebyshev_half_width(v, level);
    }
  };
  const char* method = tail == RealTail::normal  ? "exact: the normal quantile"
                       : tail == RealTail::gauss ? "certified: Gauss's inequality (a symmetric log-concave marginal)"
                                                 : "certified: Chebyshev's inequality";
  const Exactness kind = tail == RealTail::normal ? accuracy.kind() : weaker(Exactness::certified, accuracy.kind());
  if (std::string(form.structure()) == "general") {
    std::vector<double> width(form.n_cells());
    for (std::uint32_t i = 0; i < form.n_cells(); ++i) {
      interrupts.poll_every(i);
      width[i] = width_of(accuracy.cell_variance(i).upper);
    }
    CellIntervals out(std::move(width), false, kind, method);
    out.set_level(level);
    return out;
  }
  std::vector<double> width(form.n_blocks(), 0.0);
  for (std::uint32_t block = 0; block < form.n_blocks(); ++block) {
    interrupts.poll_every(block);
    const std::vector<std::size_t> shape = form.block_shape(block);
    width[block] = width_of(accuracy.scalars().upper[block] * (shape.empty() ? 1.0 : shape_diagonal(shape)));
  }
  CellIntervals out(accuracy.shared_form(), std::move(width), false, kind, method);
  out.set_level(level);
  return out;
}

namespace {

// Projected noise on the none, partition and table forms: every cell of a
// block shares its law, taken once per block shape and scalar from
// `known(shape, methods)` where it was computed beforehand (every group
// size at once), else computed by `law(shape, scalar, methods)` (the shape
// empty without margins) for the first `max_computed` shapes; further
// shapes, and laws that refuse (TooLarge), take `tail` at the cell's
// variance.
template <class Known, class Law>
CellIntervals per_shape_intervals(const LinearAccuracy& accuracy, double level, RealTail tail,
                                  const Interrupts& interrupts, std::size_t max_computed, const Known& known,
                                  const Law& law) {
  const ProjectorForm& form = accuracy.form();
  const bool none = std::string(form.structure()) == "none";
  Methods methods;
  std::vector<double> width(form.n_blocks(), 0.0);
  std::map<std::pair<std::vector<std::size_t>, double>, double> by_shape;
  std::size_t computed = 0;  // laws computed here, one shape each
  for (std::uint32_t block = 0; block < form.n_blocks(); ++block) {
    interrupts.poll_every(block);
    const std::vector<std::size_t> shape = none ? std::vector<std::size_t>{} : form.block_shape(block);
    if (!shape.empty() && shape_pinned(shape)) continue;  // every cell fixed: width 0
    const double scalar = accuracy.scalars().upper[block];
    auto found = by_shape.find({shape, scalar});
    if (found == by_shape.end()) {
      double t = 0;
      try {
        if (const std::optional<double> given = known(shape, methods)) {
          t = *given;
        } else {
          if (computed++ >= max_computed) throw TooLarge("too many table shapes for their cells' laws");
          t = law(shape, scalar, methods);
        }
      } catch (const TooLarge&) {
        const double v = scalar * (shape.empty() ? 1.0 : shape_diagonal(shape));
        t = tail == RealTail::gauss ? gauss_half_width(v, level) : chebyshev_half_width(v, level);
        methods.add(tail == RealTail::gauss ? "certified: Gauss's inequality (a symmetric log-concave marginal)"
                                            : "certified: Chebyshev's inequality",
                    Exactness::certified);
      }
      found = by_shape.emplace(std::make_pair(shape, scalar), t).first;
    }
    width[block] = found->second;
  }
  CellIntervals out(accuracy.shared_form(), std::move(width), false, weaker(methods.kind, accuracy.kind()),
                    methods.text());
  out.set_level(level);
  return out;
}

}  // namespace

CellIntervals projected_laplace_intervals(const LinearAccuracy& accuracy, double level, const Interrupts& interrupts) {
  const ProjectorForm& form = accuracy.form();
  const std::string structure = form.structure();
  // General margins: a cell's weights are a projection each (O(cells +
  // factor)), which would cost many times the release; their bound stays
  // Gauss's (their sums take their laws: projected_laplace.hpp).
  if (structure == "general") return real_intervals(accuracy, level, RealTail::gauss, interrupts);
  double spent = 0;  // the laws' work so far
  return per_shape_intervals(
      accuracy, level, RealTail::gauss, interrupts, SIZE_MAX,
      [](const std::vector<std::size_t>&, Methods&) { return std::optional<double>(); },
      [&](const std::vector<std::size_t>& shape, double scalar, Methods& methods) {
        // Each cell is Laplace(b) with variance 2 b^2, the block's scalar.
        const RealQuantile q = laplace_combination_quantile(
            std::sqrt(scalar / 2), shape.empty() ? std::vector<LaplaceTerm>{{1, 1}} : cell_projected_weights(shape),
            level, interrupts, kCombinationWork - spent);
        spent += q.work;
        methods.add(std::string(q.exact ? "exact: the quantile" : "certified: a covering quantile") +
                        " of the cell's law (a combination of independent Laplace variables, " + laplace_law_method(q) +
                        ")",
                    q.exact ? Exactness::exact : Exactness::certified);
        return q.half_width;
      });
}

CellIntervals projected_discrete_laplace_intervals(const LinearAccuracy& accuracy, Rational b, double level,
                                                   const Interrupts& interrupts) {
  // General margins: a cell's weights are no lattice vector here; their
  // bound stays Chebyshev's.
  const ProjectorForm& form = accuracy.form();
  if (std::string(form.structure()) == "general")
    return real_intervals(accuracy, level, RealTail::chebyshev, interrupts);
  // Margin groups of every size in one pass (a margin's groups may take
  // hundreds of sizes), where that pass fits.
  std::vector<std::size_t> group_sizes;
  if (std::string(form.structure()) != "none")
    for (std::uint32_t block = 0; block < form.n_blocks(); ++block) {
      interrupts.poll_every(block);
      const std::vector<std::size_t> shape = form.block_shape(block);
      if (shape.size() == 1 && !shape_pinned(shape)) group_sizes.push_back(shape[0]);
    }
  std::map<std::size_t, Quantile> groups;
  try {
    groups = group_cell_lattice_quantiles(b, group_sizes, level, interrupts);
  } catch (const TooLarge&) {
    // each size by its own inversion, below
  }
  return per_shape_intervals(
      accuracy, level, RealTail::chebyshev, interrupts, kMaxLatticeLawShapes,
      [&](const std::vector<std::size_t>& shape, Methods& methods) -> std::optional<double> {
        if (shape.size() != 1) return std::nullopt;
        const auto found = groups.find(shape[0]);
        if (found == groups.end()) return std::nullopt;
        const MarginOfError m = lattice_combination_margin(found->second, shape[0], "convolution");
        methods.add(m.method, m.kind);
        return m.half_width;
      },
      [&](const std::vector<std::size_t>& shape, double, Methods& methods) {
        const MarginOfError m = discrete_combination_margin(
            b, shape.empty() ? ScaledWeights{{{1, 1}}, 1} : cell_projected_numerators(shape), level, interrupts);
        methods.add(m.method, m.kind);
        return m.half_width;
      });
}

CellIntervals estimated_intervals(const LinearAccuracy& accuracy, double level, bool laplace_shape,
                                  const Interrupts& interrupts) {
  const ProjectorForm& form = accuracy.form();
  const auto width_of = [&](double v) {
    return laplace_shape ? laplace_width_at_variance(v, level) : double(integer_half_width(normal_half_width(v, level)));
  };
  const std::string method = laplace_shape ? "estimate: the discrete Laplace quantile at the estimated variance"
                                           : "estimate: the normal quantile at the estimated variance";
  std::vector<double> width(form.n_cells());
  for (std::uint32_t i = 0; i < form.n_cells(); ++i) {
    interrupts.poll_every(i);
    width[i] = width_of(accuracy.cell_variance(i).upper);
  }
  CellIntervals out(std::move(width), true, Exactness::estimate, method);
  out.set_level(level);
  return out;
}

}  // namespace invariant_dp::accuracy
