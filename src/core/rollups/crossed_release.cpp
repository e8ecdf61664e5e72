// Orchestrates a release over two crossed hierarchies (crossed_release.hpp).
#include "crossed_release.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "../calibration/analytic_gaussian.hpp"
#include "../errors.hpp"
#include "../hierarchy/cascade_covariance.hpp"
#include "../hierarchy/crossed_cascade.hpp"
#include "../hierarchy/crossed_integer_cascade.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../hierarchy/integer_cascade_calibration.hpp"
#include "../json_text.hpp"
#include "../large_buffer.hpp"
#include "../mechanisms/release.hpp"
#include "../samplers/wide_int.hpp"
#include "cascade_release_common.hpp"
#include "crossed_grid.hpp"

namespace invariant_dp {
namespace {

using hierarchy::CascadeLaw;
using hierarchy::HierarchyTree;

// The two trees' shapes (crossed_release.hpp).
std::vector<accuracy::PublishedTree> crossed_trees(const CrossedGrid& grid, const HierarchyRequest& hierarchy) {
  return {published_tree(grid.rows, hierarchy.levels), published_tree(grid.cols, hierarchy.crossed)};
}

// Cell-order values to the grid's row-major leaf order.
template <class T>
std::vector<T> on_grid(const CrossedGrid& grid, const T* by_cell, const Interrupts& interrupts) {
  std::vector<T> out(grid.grid_cell.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    interrupts.poll_every(i);
    out[i] = by_cell[grid.grid_cell[i]];
  }
  return out;
}

// sigma^2: the row law's scale (the column law stays at unit levels), from
// (epsilon, delta) or rho as the one-tree cascades do, with the Kronecker
// sensitivity: for "cascade" by the analytic Gaussian
// (cascade_calibration.hpp), for "integer_cascade" through rho-zCDP
// (integer_cascade_calibration.hpp; the Poisson argument there holds for
// the Kronecker law's lattice Gaussian too).
struct CrossedCalibration {
  std::string derived_from;
  double sigma_squared = 0, epsilon = 0, delta = 0, rho = 0, sensitivity_squared = 0;
};

CrossedCalibration calibrate_crossed(const CrossedGrid& grid, const ReleaseRequest& request,
                                     const HierarchyRequest& hierarchy, const HierarchyBudget& budget, bool integer,
                                     const Interrupts& interrupts) {
  if (budget.has_epsilon && hierarchy.rho > 0)
    throw InvalidArgument("give epsilon or the option \"rho\", not both",
                          "The cascade is calibrated to one target: (epsilon, delta) or rho-zCDP.");
  if (!budget.has_epsilon && !(hierarchy.rho > 0))
    throw NullValue("epsilon must not be NULL", {},
                    "Pass epsilon, or the option \"rho\" (per-level targets are not available with \"crossed\").");
  const double m = hierarchy::crossed_protected_sensitivity_squared(
      grid.rows, CascadeLaw::uniform(grid.rows, 1.0, interrupts), grid.cols,
      CascadeLaw::uniform(grid.cols, 1.0, interrupts), protected_by(request), interrupts);
  if (!(m > 0))
    throw InconsistentInvariants("the release leaves no change of one person to protect",
                                 "Under replace_one neighbours a person can only move between cells; here there is "
                                 "a single cell.",
                                 "Use add_remove neighbours, or release more than one cell.");
  CrossedCalibration c;
  if (budget.has_epsilon) {
    const double s2 = integer ? hierarchy::integer_cascade_scale_epsilon_delta(m, request.epsilon, request.delta)
                              : std::pow(analytic_gaussian_sigma(request.epsilon, request.delta, std::sqrt(m)), 2);
    c = {"epsilon_delta", s2, request.epsilon, request.delta, 0, 0};
  } else {
    const double s2 = integer ? hierarchy::integer_cascade_scale_rho(m, hierarchy.rho) : m / (2 * hierarchy.rho);
    c = {"rho", s2, 0, request.delta, hierarchy.rho, 0};
  }
  c.sensitivity_squared = m / c.sigma_squared;
  c.rho = c.sensitivity_squared / 2;
  return c;
}

// What the exact sampler of an integer release adds to the metadata.
struct IntegerDraw {
  double deficit_bound = 0, acceptance_bound = 0;
  std::uint64_t attempts = 0;
};

std::string noise_law_text(const IntegerDraw* integer) {
  if (integer == nullptr)
    return "Kronecker Gaussian cascade (Cascade Sampling, two crossed hierarchies): covariance Sigma_rows (x) "
           "Sigma_columns; the rectangle of row node s and column node t is N(0, row_level_variance[depth s] * "
           "column_level_variance[depth t]); floating-point Gaussian draws (Mironov 2012 caveat)";
  return "lattice Gaussian with the Kronecker cascade covariance (two crossed hierarchies): integer grid noise Z "
         "with P(Z) proportional to exp(-vec(Z)' (Sigma_rows (x) Sigma_columns)^-1 vec(Z) / 2); every rectangle an "
         "integer, the sum of its children along either hierarchy; mean 0; the rectangle of row node s and column "
         "node t has variance in [(1 - variance_deficit_bound) V, V], V = row_level_variance[depth s] * "
         "column_level_variance[depth t]";
}

void crossed_metadata(const CrossedGrid& grid, const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                      const CrossedCalibration& c, const CascadeLaw& row_law, const CascadeLaw& col_law,
                      const IntegerDraw* integer, CrossedReleaseResult& out) {
  accuracy::PublishedLaw& law = out.law;
  law = cascade_published_law(request, {}, grid.grid_cell.size());
  law.margins.clear();
  law.noise_text = noise_law_text(integer);
  law.level_variance = {level_variances(grid.rows, row_law), level_variances(grid.cols, col_law)};
  if (integer) law.deficit_bound = hierarchy::published_deficit_bound(integer->deficit_bound);
  std::ostringstream calibration;
  calibration << "{\"mechanism\": " << json_quoted(request.mechanism->name)
              << ", \"derived_from\": " << json_quoted(c.derived_from)
              << ", \"neighbours\": " << json_quoted(neighbours_name(request.neighbours))
              << ", \"sigma_squared\": " << json_number(c.sigma_squared) << ", \"rho\": " << json_number(c.rho)
              << ", \"sensitivity_squared\": " << json_number(c.sensitivity_squared);
  if (integer) calibration << ", \"epsilon_delta_conversion\": \"zCDP, Canonne-Kamath-Steinke 2020 Cor. 13\"";
  calibration << "}";
  law.calibration_json = calibration.str();
  if (integer) {
    accuracy::PublishedSampler sampler;
    sampler.present = true;
    sampler.method = "Klein's sampler on the Kronecker product of the two trees' bases with the correction coins of "
                     "Brakerski, Langlois, Peikert, Regev and Stehle 2013 (Lemma 2.3), restarted on a failed coin";
    sampler.has_attempts = true;
    sampler.attempts = integer->attempts;
    sampler.acceptance_lower_bound = integer->acceptance_bound;
    law.set_sampler(std::move(sampler));
  }
  law.trees = crossed_trees(grid, hierarchy);
  accuracy::MetadataObject& m = out.metadata;
  m.add("mechanism", json_quoted(law.mechanism));
  m.add("family", "\"none\"");
  m.add("output", integer ? "\"integer\"" : "\"real\"");
  m.add("error_law", accuracy::error_law_json(law));
  m.add("epsilon", json_number(c.epsilon));
  m.add("delta", json_number(c.delta));
  m.add("exact", "true");
  m.add("rho", json_number(c.rho));
  add_cascade_privacy_fields(m, request, false);
  m.add("noise", accuracy::noise_json(law));
  if (integer) m.add("sampler", accuracy::sampler_json(law));
  m.add("invariants", accuracy::invariants_json(law));
  m.add("cells", std::to_string(grid.grid_cell.size()));
  m.add("hierarchy", accuracy::hierarchy_json(law));
  out.metadata_json = m.text();
}

// Counts rolled up over both trees plus integer noise of the same layout.
std::vector<std::int64_t> with_integer_noise(const CrossedGrid& grid, const std::int64_t* counts,
                                             const std::vector<std::int64_t>& noise, const Interrupts& interrupts) {
  std::vector<std::int64_t> out =
      hierarchy::crossed_rollup(grid.rows, grid.cols, on_grid(grid, counts, interrupts), interrupts);
  for (std::size_t i = 0; i < out.size(); ++i) {
    interrupts.poll_every(i);
    out[i] = checked_add(out[i], noise[i], "a hierarchy total overflows a 64-bit integer");
  }
  return out;
}

CrossedReleaseResult crossed_cascade_release(const CrossedGrid& grid, const std::int64_t* counts,
                                             const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                             const HierarchyBudget& budget, RandomSource& rng,
                                             const Interrupts& interrupts) {
  const bool integer = request.mechanism->integer_output;
  const CrossedCalibration c = calibrate_crossed(grid, request, hierarchy, budget, integer, interrupts);
  const CascadeLaw row_law = CascadeLaw::uniform(grid.rows, c.sigma_squared, interrupts);
  const CascadeLaw col_law = CascadeLaw::uniform(grid.cols, 1.0, interrupts);
  CrossedReleaseResult out;
  IntegerDraw draw;
  if (integer) {
    // The sampler refuses a grid too large (54000) or noise too small for
    // it (22003) before the node pairs are allocated.
    const hierarchy::CrossedIntegerCascadeSampler sampler(grid.rows, row_law, grid.cols, col_law, interrupts);
    draw.acceptance_bound = sampler.acceptance_bound();
    draw.deficit_bound =
        hierarchy::crossed_integer_cascade_deficit_bound(grid.rows, row_law, grid.cols, col_law, interrupts);
    auto noise = zeroed_large_buffer<std::int64_t>(grid.rows.n_nodes() * grid.cols.n_nodes());
    draw.attempts = sampler.sample(rng, noise.data(), interrupts);
    out.integer_output = true;
    out.integer_values = with_integer_noise(grid, counts, noise, interrupts);
  } else {
    std::vector<double> released =
        hierarchy::crossed_cascade_noise(grid.rows, row_law, grid.cols, col_law, rng, interrupts);
    for (std::size_t i = 0; i < released.size(); ++i) {
      interrupts.poll_every(i);
      const std::int64_t count = counts[grid.grid_cell[i]];
      if (count > kMaxExactRealCount)
        throw OutOfRange("count too large for a real-valued release", "Counts above 2^53 are not exact in float8.");
      released[i] += static_cast<double>(count);
    }
    out.values = hierarchy::crossed_rollup(grid.rows, grid.cols, released, interrupts);
  }
  if (request.with_stddev) {
    // Var of rectangle (s, t) = (1_s' Sigma_rows 1_s)(1_t' Sigma_cols 1_t): for
    // integers the closed form, the upper end of its certified bounds. The
    // node variances of each tree come from one pass down it.
    const std::size_t width = grid.cols.n_nodes();
    const std::vector<double> col_variance = hierarchy::node_variances(grid.cols, col_law, interrupts);
    const std::vector<double> row_variance = hierarchy::node_variances(grid.rows, row_law, interrupts);
    out.noise_sd.resize(grid.rows.n_nodes() * width);
    for (std::uint32_t s = 0; s < grid.rows.n_nodes(); ++s) {
      const double vr = row_variance[s];
      for (std::uint32_t t = 0; t < width; ++t) {
        const std::size_t v = std::size_t(s) * width + t;
        interrupts.poll_every(v);
        out.noise_sd[v] = std::sqrt(vr * col_variance[t]);
      }
    }
  }
  crossed_metadata(grid, request, hierarchy, c, row_law, col_law, integer ? &draw : nullptr, out);
  return out;
}

CrossedReleaseResult crossed_rolled_up_release(const CrossedGrid& grid, const CellKeys& cells,
                                               const std::int64_t* counts, const ReleaseRequest& request,
                                               const HierarchyRequest& hierarchy, RandomSource& rng,
                                               const Interrupts& interrupts) {
  const ReleaseResult leaves = run_release(cells, counts, request, rng, interrupts);
  CrossedReleaseResult out;
  out.integer_output = leaves.integer_output;
  if (leaves.integer_output)
    out.integer_values =
        hierarchy::crossed_rollup(grid.rows, grid.cols, on_grid(grid, leaves.integer_values.data(), interrupts),
                                  interrupts);
  else
    out.values =
        hierarchy::crossed_rollup(grid.rows, grid.cols, on_grid(grid, leaves.values.data(), interrupts), interrupts);
  if (request.with_stddev) {
    // Without margins (checked before) the cells' noise is independent: variances add.
    std::vector<double> variance(cells.n_cells());
    for (std::size_t i = 0; i < variance.size(); ++i) {
      interrupts.poll_every(i);
      variance[i] = leaves.noise_sd[i] * leaves.noise_sd[i];
    }
    out.noise_sd =
        hierarchy::crossed_rollup(grid.rows, grid.cols, on_grid(grid, variance.data(), interrupts), interrupts);
    for (std::size_t v = 0; v < out.noise_sd.size(); ++v) {
      interrupts.poll_every(v);
      out.noise_sd[v] = std::sqrt(out.noise_sd[v]);
    }
  }
  out.law = leaves.law;
  out.law.trees = crossed_trees(grid, hierarchy);
  out.metadata = leaves.metadata;
  out.metadata.add("hierarchy", accuracy::hierarchy_json(out.law));
  out.metadata_json = out.metadata.text();
  return out;
}

}  // namespace

void describe_nodes(const CrossedGrid& grid, CrossedReleaseResult& out, const Interrupts& interrupts) {
  const std::size_t width = grid.cols.n_nodes();
  std::vector<std::uint32_t> col_depth(width);
  for (std::uint32_t t = 0; t < width; ++t) {
    interrupts.poll_every(t);
    col_depth[t] = grid.cols.depth(t);
  }
  out.node_cell.resize(grid.rows.n_nodes() * width);
  out.row_depth.resize(out.node_cell.size());
  out.col_depth.resize(out.node_cell.size());
  for (std::uint32_t s = 0; s < grid.rows.n_nodes(); ++s) {
    const unsigned depth = grid.rows.depth(s);
    const std::uint32_t row_leaf = grid.rows.representative_leaf(s);
    for (std::uint32_t t = 0; t < width; ++t) {
      const std::size_t v = std::size_t(s) * width + t;
      // Per pair, not per row node: one row node of a wide column tree is
      // millions of output rows.
      interrupts.poll_every(v);
      out.node_cell[v] = grid.cell_at(row_leaf, grid.cols.representative_leaf(t));
      out.row_depth[v] = depth;
      out.col_depth[v] = col_depth[t];
    }
  }
}

void check_crossed_request(const ReleaseRequest& request, const HierarchyRequest& hierarchy) {
  if (!hierarchy.is_crossed()) return;
  if (!hierarchy.level_variance.empty())
    throw InvalidArgument("option \"level_variance\" is not supported with \"crossed\"",
                          "Crossed cascade noise uses uniform levels: every rectangle of a row node and a column "
                          "node has the same variance.",
                          "Drop \"level_variance\"; calibrate with epsilon and delta, or with \"rho\".");
  const bool cascade = request.mechanism->calibrated_on_tree;
  if (cascade && !request.margins.empty())
    throw InvalidArgument(std::string("margins are not supported with mechanism \"") + request.mechanism->name +
                              "\" and \"crossed\"",
                          "Crossed cascade noise is drawn without conditioning on exact totals.",
                          "Drop margins, or use an integer mechanism that rolls up its cells "
                          "(integer_laplace, integer_gaussian), whose margins stay exact.");
  if (request.with_stddev && !request.margins.empty())
    throw InvalidArgument("stddev of rollup rows needs mechanism \"cascade\" or no margins",
                          "With exact margins the leaves' noise is correlated in a way only the cascade publishes "
                          "in closed form.",
                          "Drop {\"stddev\": true}, or use mechanism => 'cascade'.");
}

CrossedReleaseResult run_crossed_release(const CellKeys& cells, const std::int64_t* counts,
                                         const CheckedRequest& checked, RandomSource& rng,
                                         const Interrupts& interrupts) {
  const ReleaseRequest& request = checked.release;
  const HierarchyRequest& hierarchy = checked.hierarchy;
  const HierarchyBudget& budget = checked.budget;
  const CrossedGrid grid = build_crossed_grid(cells, hierarchy.levels, hierarchy.crossed, interrupts);
  CrossedReleaseResult out = request.mechanism->calibrated_on_tree
                                 ? crossed_cascade_release(grid, counts, request, hierarchy, budget, rng, interrupts)
                                 : crossed_rolled_up_release(grid, cells, counts, request, hierarchy, rng, interrupts);
  out.row_level_columns = grid.row_columns;
  out.col_level_columns = grid.col_columns;
  describe_nodes(grid, out, interrupts);
  return out;
}

}  // namespace invariant_dp
