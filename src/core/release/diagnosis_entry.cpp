#include "diagnosis_entry.hpp"

#include <string>
#include <utility>

#include "../errors.hpp"
#include "../invariants/cell_keys.hpp"
#include "request_checks.hpp"
#include "released_cells.hpp"

namespace invariant_dp {
namespace {

// Takes dp.diagnose's own options (already checked against the catalogue)
// out of the list, so the rest validates like dp.privatize's.
DiagnosticsSettings take_diagnostics_options(std::vector<RawOption>& options) {
  DiagnosticsSettings settings;
  std::vector<RawOption> rest;
  for (RawOption& option : options) {
    const OptionSpec* row = find_option(option.key);
    if (row == nullptr || row->entry != OptionEntry::Diagnose) {
      rest.push_back(std::move(option));
      continue;
    }
    const auto number = static_cast<std::int64_t>(option_number(option.value));
    (option.key == "lag" ? settings.lag : option.key == "coupled_pairs" ? settings.coupled_pairs
                                                                         : settings.surrogate_count) = number;
  }
  options = std::move(rest);
  return settings;
}

}  // namespace

CheckedDiagnosis check_diagnosis(RawRequest raw, bool epsilon_given) {
  if (!epsilon_given) throw NullValue("epsilon must not be NULL");
  CheckedDiagnosis checked;
  check_options(raw.options, /*with_diagnose=*/true);
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
