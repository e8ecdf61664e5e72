// Writes the release metadata as JSON. Field names are documented in
// docs/reference.md ("dp.last_release(): the published noise law") and are
// part of the SQL contract.
#include "release_metadata.hpp"

#include "../accuracy/published_law_json.hpp"
#include "../json_text.hpp"
#include "mechanism_behaviour.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace invariant_dp {
namespace {

// The law's noise as published: the flat laws' fields.
void fill_noise(const NoiseLaw& law, accuracy::PublishedLaw& out) {
  const bool gaussian = law.kind == NoiseKind::Gaussian || law.kind == NoiseKind::DiscreteGaussian;
  out.noise_text = law.law;
  out.scale_parameter = gaussian ? "sigma" : "b";
  out.scale = law.scale;
  out.has_exact_parameter = law.kind == NoiseKind::DiscreteGaussian || law.kind == NoiseKind::DiscreteLaplace;
  out.exact_parameter = law.exact_parameter;
  out.unit_variance = law.unit_variance;
  out.calibration_json = json_quoted(law.calibration);
  out.covariance_scale.published = !law.covariance_scale.empty();
  out.covariance_scale.by_shape = law.covariance_scale;
}

// Exact samplers draw the stated law; MCMC draws it up to the chain's total
// variation distance, which dp.diagnose bounds.
accuracy::PublishedSampler sampler_of(const SamplerReport& sampler) {
  accuracy::PublishedSampler out;
  out.present = true;
  out.method = sampler.sampler;
  out.exact = sampler.iterations == 0;
  // The iterations are the request's; how often the chain's moves were
  // accepted is a statistic of the confidential table (dp.diagnose's).
  out.iterations = sampler.iterations;
  if (sampler.iterations)
    out.caveat = "the noise follows the stated law up to the chain's total variation distance after these "
                 "iterations, which is not certified (dp.diagnose estimates it); the privacy guarantee holds up to "
                 "that distance added to delta";
  out.start = sampler.start;
  out.stddev = !sampler.stddev.empty() ? sampler.stddev
               : sampler.sd_estimated  ? "Monte Carlo estimate from the same chain"
                                       : "exact";
  return out;
}

// How the released cells' noise covaries, in words an analyst can use.
std::string covariance_text(const ReleaseRequest& request, const std::string& structure, bool sampler_exact) {
  if (request.mechanism->non_negative)
    return "not published: non-negativity makes the noise law depend on the data near zero (small cells are "
           "biased upwards); the per-cell sd is that of the same noise without non-negativity";
  if (request.selection.method == SelectionMethod::NoisyCount)
    return "not published for the shown cells: their noise is unit_variance * I (independent cells) before "
           "selection, but a cell is shown when its own noisy count reaches the threshold, so given that it is "
           "shown its noise is not centred (biased upward near the threshold); expected_total_squared_error is "
           "the noise's variance summed over the shown cells, not the error given selection";
  if (request.margins.empty()) return "unit_variance * I (independent cells)";
  return request.mechanism->behaviour().covariance_with_margins(request, structure, sampler_exact);
}


// Which cells are released, and what that says.
std::string keys_text(const ReleaseRequest& request) {
  if (request.has_domain) return "domain: every cell the domain lists, empty ones included; nothing is revealed by which";
  if (request.selection.method == SelectionMethod::NoisyCount)
    return "partition_selection: the source's cells whose released count reached the threshold";
  if (request.selection.method == SelectionMethod::DpSips)
    return "partition_selection: the source's cells whose noisy sum of their units' weights passed a round's "
           "threshold";
  if (request.selection.method != SelectionMethod::None)
    return "partition_selection: the source's cells whose noisy count of units passed the threshold";
  if (request.keys_public) return "public (declared): exactly the source's cells, stated public by the caller";
  return "revealed: exactly the source's cells, so which cells exist is not protected";
}

std::string partition_selection_json(const ReleaseRequest& request) {
  if (request.selection.method == SelectionMethod::None) return "null";
  std::string json = selection_json(request.selection);
  json.pop_back();  // add the counts' share to the object
  return json + ", \"counts_epsilon\": " + json_number(request.epsilon) +
         ", \"counts_delta\": " + json_number(request.delta) + "}";
}

}  // namespace

const char* const kPartitionCovariance =
    "cells of different margin groups independent; within a group of k cells Var(z_i) = sd_i^2 and "
    "Cov(z_i, z_j) = -sd_i^2 / (k - 1)";
const char* const kTableCovariance =
    "cells of different tables independent; within a complete table Cov(z) = c Pi_N (Pi_N: orthogonal projector "
    "onto the table's null space), because the law is invariant under permuting each axis's levels and that "
    "group acts irreducibly on the null space; c = sd^2 / prod_k ((n_k - 1) / n_k) from the per-cell sd, "
    "published as noise.covariance_scale per table shape (estimated where neither a closed form nor a computation "
    "from the law gives it); where a "
    "chain drew the release this is its law's covariance, not a certified property of the chain's output";
const char* const kLatticeCovariance =
    "estimated: c Pi_N (Pi_N: orthogonal projector onto the null space of the margins), c = the chain's Monte "
    "Carlo cell variances summed over trace(Pi_N), published as noise.covariance_scale; on general margins no "
    "symmetry fixes this shape (it is exact for Gaussian noise), so the shape is estimated too, and it is the "
    "law's covariance as estimated, not a certified property of the chain's output";
const char* const kLatticeGaussianCovariance =
    "certified bounds: between (1 - B) sigma^2 Pi_N and sigma^2 Pi_N in every direction (Pi_N: orthogonal "
    "projector onto the null space of the margins; Poisson summation), with B the noise's variance_deficit_bound "
    "where published and 1 otherwise; where a chain drew the release these are its law's, not certified "
    "properties of the chain's output";
const char* const kSubspaceCovariance =
    "unit_variance * Pi_N (Pi_N: orthogonal projector onto the null space of the margins)";

// Who is protected: one record, or every row of one privacy unit.
std::string neighbours_text(const ReleaseRequest& request) {
  const bool replace = request.neighbours == Neighbours::ReplaceOne;
  if (!request.bounds.active())
    return replace ? "databases that differ in one person's record"
                   : "databases that differ by one person added or removed";
  return std::string(replace ? "databases that differ in every row of one privacy unit (" +
                                   json_quoted(request.privacy_unit) + ": all its rows replaced by another unit's)"
                             : "databases that differ by one privacy unit (" + json_quoted(request.privacy_unit) +
                                   ") with all its rows added or removed") +
         ", each unit's contribution bounded first (at most " + std::to_string(request.bounds.max_groups_per_unit) +
         " cells, at most " + std::to_string(request.bounds.max_rows_per_group) + " rows in each)";
}

std::string invariant_privacy_statement(const ReleaseRequest& request) {
  std::ostringstream out;
  out << (request.total_delta() > 0 ? "(epsilon, delta)" : "epsilon") << "-differential privacy for "
      << neighbours_text(request);
  if (!request.margins.empty())
    out << " and agree on every declared margin; the margins are released exactly and are not protected "
           "(induced subspace DP, Gao, Gong and Yu 2022, Def. 2.6)";
  if (!request.margins.empty() && request.bounds.active())
    out << "; the exact margins are those of the bounded table (each unit's kept rows), not of the source";
  if (request.selection.method == SelectionMethod::NoisyCount)
    out << "; a cell is shown iff its released count reaches the threshold (partition_selection noisy_count, "
           "Wilson et al. 2020, arXiv:1909.01917), within the same epsilon and delta; shown counts are biased "
           "upward near the threshold";
  else if (request.selection.method != SelectionMethod::None)
    out << "; which cells are shown is chosen privately (partition_selection), within the same epsilon and delta";
  if (request.mechanism->family == Family::Projection && !request.margins.empty())
    out << "; the projection reads the data through the margin totals, so it is not post-processing in the "
           "sense of the post-processing theorem (Gong and Meng 2020, section 4) and nothing is claimed for "
           "databases with different totals";
  return out.str();
}

std::string privacy_unit_json(const ReleaseRequest& request) {
  if (!request.bounds.active()) return "null";
  return "{\"column\": " + json_quoted(request.privacy_unit) +
         ", \"max_groups_per_unit\": " + std::to_string(request.bounds.max_groups_per_unit) +
         ", \"max_rows_per_group\": " + std::to_string(request.bounds.max_rows_per_group) +
         ", \"bounding\": " +
         json_quoted("of each unit's distinct cells a uniformly random max_groups_per_unit are kept (a keyed hash "
                     "of unit and cell, its key drawn for this release), and at most max_rows_per_group of its rows "
                     "in each; the released counts, and any exact margins, are the bounded table's") +
         "}";
}

namespace {

// A release drawn by a chain certifies only (epsilon, delta + TV), TV its
// distance from the stated law, which no bound here certifies at the sizes
// users have (dp.diagnose's coupling bound is an estimate, censored where
// the coupled chains do not meet). The metadata says so in its first
// fields, privacy and delta, not only inside sampler.
std::string uncertified_privacy(const ReleaseRequest& request, const std::string& law_statement) {
  return std::string(request.total_delta() > 0 ? "(epsilon, delta + TV)" : "(epsilon, TV)") +
         "-differential privacy, TV not certified: the noise is drawn by a Markov chain whose total variation "
         "distance TV from the stated law is not certified at this size, so neither is the guarantee; the stated "
         "law itself gives " + law_statement +
         ". integer_gaussian draws exactly, at any size, on one margin, nested margins and complete tables with all "
         "their (K-1)-way margins (one table, or one per group of the columns every margin holds); on other "
         "margins it is drawn by such a chain too";
}

std::string uncertified_delta(const ReleaseRequest& request) {
  return (request.total_delta() > 0 ? json_number(request.total_delta()) + " + TV" : std::string("TV")) +
         ", TV (the chain's total variation distance from the stated law) not certified";
}

}  // namespace

accuracy::PublishedLaw flat_published_law(const ReleaseRequest& request, const NoiseLaw& law,
                                          const InvariantModel* model, std::size_t n_cells,
                                          const SamplerReport& sampler) {
  accuracy::PublishedLaw out;
  out.mechanism = request.mechanism->name;
  out.set_error_law(request.mechanism->behaviour().error_law());
  out.integer_output = request.mechanism->integer_output;
  out.noisy_selection = request.selection.method == SelectionMethod::NoisyCount;
  fill_noise(law, out);
  out.margins = request.margins;
  // No model: partition selection showed no cell (no margins, nothing to hold).
  out.structure = model != nullptr ? std::string(model->structure()) : std::string("none");
  out.rank = model != nullptr ? std::int64_t(model->rank()) : 0;
  out.null_dimension = model != nullptr ? std::int64_t(n_cells - model->rank()) : 0;
  out.cells = std::int64_t(n_cells);
  out.set_sampler(sampler_of(sampler));
  return out;
}

ReleaseMetadata release_metadata(const ReleaseRequest& request, const NoiseLaw& law, const InvariantModel* model,
                                 std::size_t n_cells, double expected_total_squared_error,
                                 const SamplerReport& sampler) {
  ReleaseMetadata out;
  out.law = flat_published_law(request, law, model, n_cells, sampler);
  const accuracy::PublishedLaw& typed = out.law;
  const bool exact = typed.sampler.exact;
  const std::string statement = request.mechanism->behaviour().privacy_statement(request);
  const std::string delta = request.total_delta() > 0 ? json_number(request.total_delta()) : std::string("null");
  accuracy::MetadataObject& m = out.fields;
  m.add("mechanism", json_quoted(request.mechanism->name));
  m.add("output", json_quoted(request.mechanism->integer_output ? "integer" : "real"));
  m.add("error_law", accuracy::error_law_json(typed));
  m.add("family", json_quoted(family_name(request.mechanism->family)));
  m.add("epsilon", json_number(request.total_epsilon()));
  m.add("delta", exact ? delta : json_quoted(uncertified_delta(request)));
  m.add("exact", exact ? "true" : "false");
  m.add("neighbours", json_quoted(neighbours_name(request.neighbours)));
  m.add("privacy_unit", privacy_unit_json(request));
  m.add("keys", json_quoted(keys_text(request)));
  m.add("partition_selection", partition_selection_json(request));
  m.add("privacy", json_quoted(exact ? statement : uncertified_privacy(request, statement)));
  if (const std::string accounting = request.mechanism->behaviour().accounting_json(request); !accounting.empty())
    m.add("accounting", accounting);
  m.add("l1_sensitivity", json_number(law.l1_sensitivity));
  m.add("l2_sensitivity", json_number(law.l2_sensitivity));
  m.add("noise", accuracy::noise_json(typed));
  m.add("invariants", accuracy::invariants_json(typed));
  m.add("non_negative", request.mechanism->non_negative ? "true" : "false");
  m.add("sampler", accuracy::sampler_json(typed));
  m.add("cells", std::to_string(n_cells));
  m.add("covariance", json_quoted(covariance_text(request, typed.structure, exact)));
  m.add("expected_total_squared_error", json_number(expected_total_squared_error));
  return out;
}

std::string release_metadata_json(const ReleaseRequest& request, const NoiseLaw& law, const InvariantModel* model,
                                  std::size_t n_cells, double expected_total_squared_error,
                                  const SamplerReport& sampler) {
  return release_metadata(request, law, model, n_cells, expected_total_squared_error, sampler).fields.text();
}

}  // namespace invariant_dp
