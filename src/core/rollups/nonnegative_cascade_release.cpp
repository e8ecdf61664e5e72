// A hierarchy released by the non-negative cascade
// (nonnegative_cascade_release.hpp).
#include "nonnegative_cascade_release.hpp"

#include <cmath>
#include <memory>

#include "../accuracy/cell_intervals.hpp"
#include "../errors.hpp"
#include "../hierarchy/nonnegative_cascade.hpp"
#include "../json_text.hpp"
#include "../mechanisms/release_metadata.hpp"
#include "cascade_release_common.hpp"

namespace invariant_dp {
namespace {

using hierarchy::CalibratedNonnegativeLaw;
using hierarchy::HierarchyTree;

CalibratedNonnegativeLaw calibrate_nonnegative(const HierarchyTree& tree, const ReleaseRequest& request,
                                               const HierarchyRequest& hierarchy, const HierarchyBudget& budget,
                                               const std::vector<std::uint32_t>& fixed, const Interrupts& interrupts) {
  const hierarchy::Protected protect = protected_by(request);
  // The default split: every depth's noise of one variance.
  const std::vector<double> targets =
      hierarchy.level_variance.empty() ? std::vector<double>(tree.height() + 1, 1.0) : hierarchy.level_variance;
  if (cascade_budget(hierarchy, budget) == CascadeBudget::EpsilonDelta)
    return hierarchy::calibrate_nonnegative_cascade(tree, targets, fixed, request.epsilon, protect, interrupts);
  return hierarchy::nonnegative_cascade_cost_of_targets(tree, targets, fixed, protect, interrupts);
}

// The means over each depth's nodes of the bias and variance at the
// released counts, and of the squared bias: the bias per level.
std::string level_moments_json(const HierarchyTree& tree, const std::vector<double>& bias,
                               const std::vector<double>& variance, const Interrupts& interrupts) {
  const unsigned levels = tree.height() + 1;
  std::vector<double> n(levels, 0), b(levels, 0), b2(levels, 0), v(levels, 0);
  for (std::uint32_t node = 0; node < tree.n_nodes(); ++node) {
    interrupts.poll_every(node);
    const unsigned d = tree.depth(node);
    n[d] += 1;
    b[d] += bias[node];
    b2[d] += bias[node] * bias[node];
    v[d] += variance[node];
  }
  std::string out = "[";
  for (unsigned d = 0; d < levels; ++d)
    out += (d ? ", " : "") + std::string("{\"depth\": ") + std::to_string(d) +
           ", \"mean_bias\": " + json_number(b[d] / n[d]) + ", \"rms_bias\": " + json_number(std::sqrt(b2[d] / n[d])) +
           ", \"mean_variance\": " + json_number(v[d] / n[d]) + "}";
  return out + "]";
}

// The published law, typed: its error law is data_dependent (its
// behaviour's), so no error bar of a sum is read from it; it is written
// with the fields every hierarchy release publishes, the privacy
// statement, the base law's epsilon and, when computed, how the per-node
// bias and variance were obtained and their means per level.
void nonnegative_metadata(const HierarchyTree& tree, const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                          const CalibratedNonnegativeLaw& calibrated, const std::vector<std::uint32_t>& fixed,
                          const std::string& level_moments, HierarchyReleaseResult& out) {
  const hierarchy::NonnegativeCalibration& c = calibrated.calibration;
  accuracy::PublishedLaw& law = out.law;
  law = cascade_published_law(request, fixed, tree.n_leaves());
  accuracy::PublishedSampler sampler;
  sampler.present = true;
  sampler.method = hierarchy::kNonnegativeSamplerMethod;
  law.set_sampler(std::move(sampler));
  law.trees = {published_tree(tree, hierarchy.levels)};
  std::string fixed_list = "[";
  for (std::size_t i = 0; i < law.fixed_nodes.size(); ++i) fixed_list += (i ? ", " : "") + std::to_string(law.fixed_nodes[i]);
  std::string margins = "[";
  for (std::size_t m = 0; m < law.margins.size(); ++m) {
    margins += m ? ", [" : "[";
    for (std::size_t k = 0; k < law.margins[m].size(); ++k) margins += (k ? ", " : "") + json_quoted(law.margins[m][k]);
    margins += "]";
  }
  accuracy::MetadataObject& m = out.metadata;
  m.add("mechanism", json_quoted(law.mechanism));
  m.add("family", json_quoted(fixed.empty() ? "none" : "conditioning"));
  m.add("output", "\"integer\"");
  m.add("error_law", accuracy::error_law_json(law));
  m.add("non_negative", "true");
  m.add("derived_from", json_quoted(c.derived_from));
  m.add("epsilon", json_number(c.epsilon));
  m.add("delta", "0");
  m.add("base_epsilon", json_number(c.base_epsilon));
  m.add("exact", "true");
  m.add("neighbours", json_quoted(neighbours_name(request.neighbours)));
  m.add("privacy_unit", privacy_unit_json(request));
  m.add("privacy", json_quoted(hierarchy::nonnegative_privacy_statement(c)));
  m.add("fixed_nodes", std::to_string(c.n_fixed_nodes));
  m.add("noise", hierarchy::nonnegative_noise_json(tree, calibrated));
  m.add("sampler", accuracy::sampler_json(law));
  if (!level_moments.empty()) {
    m.add("bias_and_variance", hierarchy::nonnegative_moments_json());
    m.add("level_bias_and_variance", level_moments);
  }
  m.add("invariants", "{\"margins\": " + margins + "], \"fixed_nodes\": " + fixed_list + "]}");
  m.add("cells", std::to_string(tree.n_leaves()));
  m.add("hierarchy", accuracy::hierarchy_json(law));
  out.metadata_json = m.text();
}

// Per node, the interval [r - t, r + t] with t the least integer for which
// Chebyshev's inequality on the mean squared error bounds the miss rate by
// 1 - level: P(|r - x| > t) <= (bias^2 + variance) / (t + 1)^2 for integer
// noise. Centred on r although the law is biased: the bias enters through
// the squared error.
std::shared_ptr<const accuracy::CellIntervals> intervals(const std::vector<double>& bias,
                                                         const std::vector<double>& variance, double level,
                                                         const Interrupts& interrupts) {
  std::vector<double> half_width(bias.size());
  for (std::size_t v = 0; v < bias.size(); ++v) {
    interrupts.poll_every(v);
    const double mse = bias[v] * bias[v] + variance[v];
    half_width[v] = std::max(0.0, std::ceil(std::sqrt(mse / (1 - level))) - 1);
  }
  return std::make_shared<const accuracy::CellIntervals>(
      std::move(half_width), true, accuracy::Exactness::estimate,
      "Chebyshev on each node's mean squared error (bias^2 + variance), the law's at the released counts");
}

}  // namespace

void check_nonnegative_cascade_request(const ReleaseRequest& request, const HierarchyRequest& hierarchy) {
  const char* name = request.mechanism->name;
  if (hierarchy.is_crossed())
    throw InvalidArgument(std::string("option \"crossed\" is not available for mechanism \"") + name + "\"",
                          "Its law is drawn on one tree.",
                          "Release one hierarchy, or cross with mechanism cascade or integer_cascade.");
}

HierarchyReleaseResult nonnegative_cascade_release(const CellKeys& cells, const std::int64_t* counts,
                                                   const ReleaseRequest& request, const HierarchyRequest& hierarchy,
                                                   const HierarchyBudget& budget, RandomSource& rng,
                                                   const Interrupts& interrupts) {
  HierarchyReleaseResult out;
  out.integer_output = true;
  out.level_columns = column_indices(cells, hierarchy.levels);
  const HierarchyTree tree = HierarchyTree::from_cell_keys(cells, out.level_columns, interrupts);
  const auto fixed = fixed_nodes_of_margins(tree, cells, request, interrupts);
  const CalibratedNonnegativeLaw calibrated =
      calibrate_nonnegative(tree, request, hierarchy, budget, fixed, interrupts);
  hierarchy::NonnegativeReleaseOptions options;
  options.with_moments = request.with_stddev || request.interval_level > 0;
  auto released = hierarchy::release_nonnegative_cascade(tree, calibrated, counts, rng, interrupts, options);
  out.integer_values = std::move(released.node_values);
  describe_nodes(tree, out, interrupts);
  std::string level_moments;
  if (options.with_moments) {
    level_moments = level_moments_json(tree, released.node_bias, released.node_variance, interrupts);
    if (request.interval_level > 0)
      out.intervals = intervals(released.node_bias, released.node_variance, request.interval_level, interrupts);
    if (request.with_stddev) {
      out.noise_sd = std::move(released.node_variance);
      for (std::size_t v = 0; v < out.noise_sd.size(); ++v) {
        interrupts.poll_every(v);
        out.noise_sd[v] = std::sqrt(std::max(0.0, out.noise_sd[v]));
      }
    }
  }
  nonnegative_metadata(tree, request, hierarchy, calibrated, fixed, level_moments, out);
  return out;
}

}  // namespace invariant_dp
