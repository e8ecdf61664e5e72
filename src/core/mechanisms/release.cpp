// Orchestrates a release: check the counts, calibrate, compile the
// invariants, let the mechanism draw (mechanism_behaviour.hpp), publish.
#include "release.hpp"

#include <cmath>

#include "../errors.hpp"
#include "../invariants/invariant_model.hpp"
#include "mechanism_behaviour.hpp"
#include "noise_calibration.hpp"
#include "release_metadata.hpp"

namespace invariant_dp {
namespace {

// Partition selection noisy_count: only the cells whose released count
// reaches the threshold remain (partition_selection.hpp).
void keep_shown_cells(const SelectionLaw& selection, ReleaseResult& result, const Interrupts& interrupts) {
  if (!result.integer_output || result.integer_values_in_place != nullptr || !result.noise_sd.empty())
    throw Error("partition selection noisy_count needs integer values of its own and no sds");
  std::vector<std::int64_t>& values = result.integer_values;
  result.shown_cells = shown_by_count(values.data(), values.size(), selection, interrupts);
  for (std::size_t j = 0; j < result.shown_cells.size(); ++j) {
    interrupts.poll_every(j);
    values[j] = values[result.shown_cells[j]];
  }
  values.resize(result.shown_cells.size());
}

void set_metadata(ReleaseResult& result, ReleaseMetadata metadata) {
  result.law = std::move(metadata.law);
  result.metadata = std::move(metadata.fields);
  result.metadata_json = result.metadata.text();
}

}  // namespace

ReleaseResult run_release(const CellKeys& cells, const std::int64_t* counts, const ReleaseRequest& request,
                          RandomSource& rng, const Interrupts& interrupts, std::int64_t* writable_counts) {
  const std::size_t n = cells.n_cells();
  if (n == 0 && request.selection.method != SelectionMethod::None) {
    // Partition selection showed no cell: an empty release, not an error
    // (which cells are shown is part of the private output).
    ReleaseResult result;
    result.integer_output = request.mechanism->integer_output;
    set_metadata(result, release_metadata(request, calibrate_noise(request), nullptr, 0, 0, SamplerReport{}));
    return result;
  }
  NoiseLaw law = calibrate_noise(request);
  if (!request.mechanism->integer_output && !request.margins.empty())
    check_float8_margins(std::sqrt(law.unit_variance), n);
  // The cells outlive the model: a margin's groups may be their codes.
  const InvariantModel model(cells, margins_by_index(cells, request), interrupts, KeyCodes::borrowed);

  ReleaseResult result;
  result.integer_output = request.mechanism->integer_output;
  SamplerReport report;
  const bool select_on_counts = request.selection.method == SelectionMethod::NoisyCount;
  const ReleaseDraw draw{counts,       request, model, rng, interrupts, select_on_counts ? nullptr : writable_counts,
                         result,       law,     report};
  double total_variance = request.mechanism->behaviour().release(draw);
  // Before the metadata: it counts only the cells shown.
  if (select_on_counts) keep_shown_cells(request.selection, result, interrupts);
  const std::size_t released = select_on_counts ? result.shown_cells.size() : n;
  if (total_variance < 0) {
    // Without per-cell sds (independent noise, not asked for) every cell has the unit variance.
    total_variance = result.noise_sd.empty() ? double(released) * law.unit_variance : 0.0;
    for (double sd : result.noise_sd) total_variance += sd * sd;
  }
  set_metadata(result, release_metadata(request, law, &model, released, total_variance, report));
  return result;
}

}  // namespace invariant_dp
