#include "diagnosis_entry.hpp"

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "../errors.hpp"
#include "../invariants/cell_keys.hpp"
#include "request_checks.hpp"
#include "released_cells.hpp"

namespace invariant_dp {
namespace {

// Takes dp.diagnose's own options out of the list, so the rest validates
// like dp.privatize's.
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

CheckedDiagnosis check_diagnosis(RawRequest raw, bool epsilon_given) {
  if (!epsilon_given) throw NullValue("epsilon must not be NULL");
  CheckedDiagnosis checked;
  checked.settings = take_diagnostics_options(raw.options);
  checked.request = validate_request(raw);
  return checked;
}

std::vector<DiagnosticRecord> diagnose(const CheckedDiagnosis& checked, const ReleaseInput& input, RandomSource& rng,
                                       const Interrupts& interrupts) {
  check_margin_columns(checked.request, input.column_names);
  const auto encoded = columns_named(input.column_names, checked.request.margins);
  if (!checked.request.source_rows) {
    const CellKeys keys(input.source, input.column_names, interrupts, &encoded);
    return run_diagnostics(keys, checked.request, checked.settings, rng, interrupts);
  }
  // The cells are the rows' distinct keys, as the release would count them.
  ReleaseInput rows;
  rows.column_names = input.column_names;
  rows.source = input.source;
  const ReleasedCells distinct = released_cells(rows, encoded, checked.request, rng, interrupts);
  return run_diagnostics(*distinct.keys, checked.request, checked.settings, rng, interrupts);
}

}  // namespace invariant_dp
