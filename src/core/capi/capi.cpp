// The C entry points but the release itself (capi_release.cpp) and the
// range variance (capi_range_variance.cpp). Each converts plain buffers to core types, makes one
// call into the core, and copies results back, all inside guarded().
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../invariants/cell_keys.hpp"
#include "../mechanisms/diagnostics.hpp"
#include "../mechanisms/noise_calibration.hpp"
#include "../mechanisms/release.hpp"
#include "../release/checked_request.hpp"
#include "../release/released_cells.hpp"
#include "../samplers/discrete_gaussian.hpp"
#include "../samplers/conditioned_laplace.hpp"
#include "../samplers/discrete_laplace.hpp"
#include "../samplers/wide_int.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_core.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

namespace {

// dp.noisy_count runs once per group: remember the last calibration, since
// a discrete Gaussian calibration is a numerical search.
const NoiseLaw& cached_law(const ReleaseRequest& request) {
  static ReleaseRequest last;
  static NoiseLaw law;
  static bool valid = false;
  if (!valid || last.mechanism != request.mechanism || last.epsilon != request.epsilon ||
      last.delta != request.delta || last.neighbours != request.neighbours) {
    valid = false;
    law = calibrate_noise(request);
    last = request;
    valid = true;
  }
  return law;
}

// Takes dp.diagnose's own options (coupled_pairs, lag, surrogate_count) out
// of the list, so the rest validates like dp.privatize's.
DiagnosticsSettings take_diagnostics_options(std::vector<std::pair<std::string, std::string>>& options) {
  DiagnosticsSettings settings;
  std::vector<std::pair<std::string, std::string>> rest;
  for (const auto& [key, value] : options) {
    if (key != "coupled_pairs" && key != "lag" && key != "surrogate_count") {
      rest.emplace_back(key, value);
      continue;
    }
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    if (*end != '\0' || !(number >= 1 && number <= 1e7) || number != std::floor(number))
      throw InvalidArgument("option \"" + key + "\" must be a whole number from 1 to 1e7", "Got \"" + value + "\".");
    (key == "lag" ? settings.lag : key == "coupled_pairs" ? settings.coupled_pairs : settings.surrogate_count) =
        static_cast<std::int64_t>(number);
  }
  options = std::move(rest);
  return settings;
}

}  // namespace

extern "C" {

idp_status idp_noisy_count(int64_t count, const idp_request* request, const idp_randomness* randomness,
                           int64_t* noisy, idp_error* error) {
  return guarded(error, [&] {
    const ReleaseRequest validated = validate_request(raw_request(request));
    if (!validated.mechanism->integer_output || validated.mechanism->allows_invariants)
      throw InvalidArgument(std::string("mechanism \"") + validated.mechanism->name + "\" is not available in dp.noisy_count",
                            {}, "Use discrete_laplace or discrete_gaussian.");
    const NoiseLaw& law = cached_law(validated);
    RandomSource& rng = session_random_source(randomness);
    const std::int64_t noise = law.kind == NoiseKind::DiscreteLaplace
                                   ? sample_discrete_laplace(rng, law.exact_parameter)
                                   : sample_discrete_gaussian(rng, law.exact_parameter);
    *noisy = checked_add(count, noise, kNoisyCountOutOfRange);
  });
}

idp_status idp_total_preserving(const int64_t* counts, size_t n, double epsilon, const idp_randomness* randomness,
                                const idp_interrupts* interrupts, int64_t* noisy, idp_error* error) {
  return guarded(error, [&] {
    RawRequest raw;
    raw.mechanism = "integer_laplace";
    raw.epsilon = epsilon;
    const NoiseLaw law = calibrate_noise(validate_request(raw));
    const std::vector<std::uint32_t> one_group(n, 0);
    std::vector<std::int64_t> z(n);
    sample_laplace_with_zero_group_sums(session_random_source(randomness), law.exact_parameter, {one_group.data(), n, 1},
                                        z.data(), interrupts_of(interrupts));
    for (std::size_t i = 0; i < n; ++i)
      noisy[i] = checked_add(counts[i], z[i], kNoisyCountOutOfRange);
  });
}

bool idp_source_returns_rows(const idp_request* request) {
  if (request->privacy_unit != nullptr) return true;
  for (std::size_t i = 0; i < request->n_options; ++i)
    if (std::strcmp(request->option_keys[i], "source") == 0 && std::strcmp(request->option_values[i], "rows") == 0)
      return true;
  return false;
}

idp_status idp_diagnose(const idp_request* request, const idp_cells* cells, const idp_randomness* randomness,
                        const idp_interrupts* interrupts, idp_diagnostic_row** rows, size_t* n_rows,
                        idp_error* error) {
  *rows = nullptr;
  *n_rows = 0;
  return guarded(error, [&] {
    if (request->epsilon_is_null) throw NullValue("epsilon must not be NULL");
    RawRequest raw = raw_request(request);
    const DiagnosticsSettings settings = take_diagnostics_options(raw.options);
    const ReleaseRequest validated = validate_request(raw);
    const auto names = strings(cells->n_columns, cells->column_names);
    check_margin_columns(validated, names);
    const Interrupts polling = interrupts_of(interrupts);
    const auto encoded = columns_named(names, validated.margins);
    const CellTables tables(cells);
    RandomSource& rng = session_random_source(randomness);
    std::vector<DiagnosticRecord> records;
    if (validated.source_rows) {
      // The cells are the rows' distinct keys, as the release would count them.
      ReleaseInput input;
      input.column_names = names;
      input.source = tables.source();
      const ReleasedCells distinct = released_cells(input, encoded, validated, rng, polling);
      records = run_diagnostics(*distinct.keys, validated, settings, rng, polling);
    } else {
      const CellKeys keys(tables.source(), names, polling, &encoded);
      records = run_diagnostics(keys, validated, settings, rng, polling);
    }
    auto* out = static_cast<idp_diagnostic_row*>(std::calloc(std::max<std::size_t>(records.size(), 1),
                                                             sizeof(idp_diagnostic_row)));
    if (out == nullptr) throw std::bad_alloc();
    for (std::size_t i = 0; i < records.size(); ++i) {
      std::snprintf(out[i].metric, sizeof out[i].metric, "%s", records[i].metric.c_str());
      out[i].has_iteration = records[i].iteration >= 0;
      out[i].iteration = records[i].iteration;
      out[i].value = records[i].value;
    }
    *rows = out;
    *n_rows = records.size();
  });
}

void idp_free(void* pointer) { std::free(pointer); }

}  // extern "C"
