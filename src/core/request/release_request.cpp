// Validation of dp.privatize's arguments. Every message names the argument
// and the accepted range, in PostgreSQL's style.
#include "release_request.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "../errors.hpp"
#include "../mechanisms/mechanism_behaviour.hpp"
#include "../mechanisms/noise_calibration.hpp"
#include "unit_bounds.hpp"

namespace invariant_dp {
namespace {

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\n");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> parse_margin(const std::string& text) {
  std::vector<std::string> columns;
  if (trim(text).empty()) return columns;  // the grand total
  std::string::size_type start = 0;
  // Ends: each pass consumes a column of the text.
  while (true) {
    const auto comma = text.find(',', start);
    const std::string column = trim(text.substr(start, comma - start));
    if (column.empty())
      throw InvalidArgument("invalid margin \"" + text + "\"",
                            "A margin is a comma-separated list of key columns, or '' for the grand total.");
    for (const auto& seen : columns)
      if (seen == column) throw InvalidArgument("margin \"" + text + "\" names column \"" + column + "\" twice");
    columns.push_back(column);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return columns;
}

void check_request_epsilon(double epsilon) {
  if (!std::isfinite(epsilon) || epsilon <= 0)
    throw InvalidArgument("epsilon must be positive and finite", "epsilon = " + format_number(epsilon) + ".");
  if (epsilon > kMaxEpsilon)
    throw OutOfRange("epsilon must be at most " + format_number(kMaxEpsilon),
                     "epsilon = " + format_number(epsilon) + ".",
                     "Above this the noise no longer protects anyone; release the exact counts instead if that is intended.");
}

void check_delta(const RawRequest& raw, const MechanismTraits& mechanism, bool selection) {
  if (selection) {
    if (!raw.has_delta)
      throw InvalidArgument("partition selection needs delta",
                            "A cell only one unit has is shown with probability at most delta.",
                            "Pass delta, e.g. delta => 1e-6 (well below 1/number of units).");
    if (!std::isfinite(raw.delta) || raw.delta <= 0 || raw.delta >= 1)
      throw InvalidArgument("delta must be in the open interval (0, 1)", "delta = " + format_number(raw.delta) + ".");
    return;
  }
  if (!mechanism.needs_delta) {
    // delta is NULL for the pure-epsilon mechanisms (docs/mechanisms.md, "The
    // mechanisms"); 0 is refused too, so a request never claims a delta its
    // mechanism does not use.
    if (raw.has_delta)
      throw InvalidArgument(std::string("mechanism \"") + mechanism.name + "\" does not use delta",
                            "It is pure epsilon-differentially private.", "Leave delta NULL.");
    return;
  }
  if (!raw.has_delta)
    throw InvalidArgument(std::string("mechanism \"") + mechanism.name + "\" requires delta",
                          {}, "Pass delta, e.g. delta => 1e-6 (well below 1/number of people).");
  if (!std::isfinite(raw.delta) || raw.delta <= 0 || raw.delta >= 1)
    throw InvalidArgument("delta must be in the open interval (0, 1)", "delta = " + format_number(raw.delta) + ".");
}

// One option's value, already checked against the catalogue.
void apply_option(ReleaseRequest& request, const RawOption& option) {
  const std::string& key = option.key;
  const std::string& value = option.value;
  if (key == "stddev") {
    request.with_stddev = option_boolean(value);
  } else if (key == "interval") {
    request.interval_level = option_number(value);
  } else if (key == "neighbours") {
    request.neighbours = value == "add_remove" ? Neighbours::AddRemove : Neighbours::ReplaceOne;
  } else if (key == "iterations") {
    request.iterations = static_cast<std::uint64_t>(option_number(value));
  } else if (key == "proposal_a") {
    request.proposal_a = option_number(value);
  } else if (key == "partition_selection") {
    // Calibrated in validate_request, once the budget and bounds are known.
    request.selection.method = parse_partition_selection(value).method;
  } else if (key == "source") {
    request.source_rows = value == "rows";
  } else if (key == "keys") {
    request.keys_public = true;
  } else if (key == "rows_outside_domain") {
    request.drop_rows_outside_domain = value == "drop";
  } else if (key == "sampler") {
    request.sampler = value;
  } else {
    // A hierarchy's option where no hierarchy takes it (dp.diagnose).
    throw InvalidArgument("option \"" + key + "\" needs a hierarchy", {},
                          "dp.privatize takes hierarchy => '{level1,level2,...}'; dp.diagnose takes none.");
  }
}

void apply_privacy_unit(ReleaseRequest& request, const RawRequest& raw) {
  if (raw.has_privacy_unit && trim(raw.privacy_unit).empty())
    throw InvalidArgument("privacy_unit must name a column of the source");
  check_unit_has_bounds(raw.has_privacy_unit, raw.has_bounds);
  if (!raw.has_privacy_unit) return;
  for (const RawOption& option : raw.options)
    if (option.key == "source" && option.value == "counts")
      throw InvalidArgument("option \"source\": \"counts\" contradicts privacy_unit",
                            "With a privacy unit the source returns rows (the unit and the key columns), no count.",
                            "Drop the option.");
  request.privacy_unit = raw.privacy_unit;
  request.bounds = parse_contribution_bounds(raw.bounds);
}

// noisy_count: all of epsilon on the counts, which are then thresholded
// (partition_selection.hpp); refused where no threshold on one cell's own
// noise can be calibrated, or where an error bar would be promised.
void select_on_counts(ReleaseRequest& request, const RawRequest& raw) {
  const std::string name = request.mechanism->name;
  // A mechanism that keeps no invariant adds independent integer noise to
  // each cell (mechanism.hpp): discrete Laplace, or discrete Gaussian with delta.
  const bool gaussian = request.mechanism->needs_delta;
  if (request.mechanism->allows_invariants)
    throw InvalidArgument("partition selection \"noisy_count\" needs mechanism discrete_laplace or discrete_gaussian",
                          "Mechanism \"" + name + "\" does not add independent integer noise to each cell, so no "
                          "threshold on a cell's own released count can be calibrated.",
                          "Use mechanism discrete_laplace or discrete_gaussian, or \"truncated_geometric\" "
                          "partition selection, which chooses the cells apart from the counts.");
  if (request.with_stddev || request.interval_level > 0)
    throw InvalidArgument(std::string("option \"") + (request.with_stddev ? "stddev" : "interval") +
                              "\" cannot be used with partition selection \"noisy_count\"",
                          "The shown cells were selected on their own noise: a count near the threshold is shown "
                          "more often when its noise is high, so no per-cell error bar holds given that a cell "
                          "is shown.",
                          "Use \"truncated_geometric\" partition selection for unbiased counts with error bars.");
  const bool replace_one = request.neighbours == Neighbours::ReplaceOne;
  const std::int64_t groups = request.bounds.active() ? request.bounds.max_groups_per_unit : 1;
  const std::int64_t max_rows = request.bounds.active() ? request.bounds.max_rows_per_group : 1;
  request.epsilon = raw.epsilon;
  request.delta = gaussian ? raw.delta / 2 : 0;
  if (gaussian && !(request.delta > 0))
    throw OutOfRange("delta is too small for partition selection \"noisy_count\"",
                     "Half of it goes to the counts: " + format_number(raw.delta) + " / 2 is 0.",
                     "Raise delta.");
  const NoiseLaw counts = calibrate_noise(request);
  request.selection =
      calibrate_noisy_count(gaussian, counts.exact_parameter, raw.epsilon, raw.delta, groups, max_rows, replace_one);
}

// The selection's law, the counts' share already in request.epsilon and
// .delta. truncated_geometric is calibrated jointly with discrete_laplace
// counts, split from any other; auto takes truncated_geometric or dp_sips
// (one round), whichever shows a cell at half chance with fewer units
// (partition_selection.hpp).
SelectionLaw calibrated_selection(SelectionMethod method, const ReleaseRequest& request, const RawRequest& raw,
                                  double selection_epsilon, double selection_delta, int rounds) {
  const bool replace_one = request.neighbours == Neighbours::ReplaceOne;
  const std::int64_t groups = request.bounds.active() ? request.bounds.max_groups_per_unit : 1;
  const std::int64_t max_rows = request.bounds.active() ? request.bounds.max_rows_per_group : 1;
  if (method == SelectionMethod::Auto) {
    SelectionLaw geometric = calibrated_selection(SelectionMethod::TruncatedGeometric, request, raw,
                                                  selection_epsilon, selection_delta, 1);
    SelectionLaw sips =
        calibrate_selection(SelectionMethod::DpSips, selection_epsilon, selection_delta, groups, replace_one, 1);
    SelectionLaw& chosen = units_at_half(geometric) <= units_at_half(sips) ? geometric : sips;
    chosen.chosen_automatically = true;
    return chosen;
  }
  // Joint with independent discrete Laplace counts (no invariant, no delta).
  if (method == SelectionMethod::TruncatedGeometric && !request.mechanism->allows_invariants &&
      !request.mechanism->needs_delta)
    return calibrate_geometric_with_counts(raw.epsilon, raw.delta, request.epsilon,
                                           calibrate_noise(request).exact_parameter, groups, max_rows, replace_one);
  return calibrate_selection(method, selection_epsilon, selection_delta, groups, replace_one, rounds);
}

// Splits the budget between the counts and the selection of cells.
void apply_partition_selection(ReleaseRequest& request, const RawRequest& raw) {
  SelectionRequest selection;
  for (const RawOption& option : raw.options)
    if (option.key == "partition_selection") selection = parse_partition_selection(option.value);
  if (!selection.active()) return;
  if (!request.margins.empty())
    throw InvalidArgument("partition selection cannot keep margins exact",
                          "An exact margin total is a sum over a fixed, public set of cells; hiding cells it covers "
                          "would either break the total or reveal which cells are empty.",
                          "Pass a domain listing the public cells instead, or drop the margins.");
  if (request.keys_public)
    throw InvalidArgument("options \"keys\": \"public\" and \"partition_selection\" contradict each other",
                          "Public keys need no selection.", "Keep one of them.");
  if (selection.method == SelectionMethod::NoisyCount) {
    select_on_counts(request, raw);
    return;
  }
  const double share = selection.budget_share;
  const double selection_delta = request.mechanism->needs_delta ? share * raw.delta : raw.delta;
  // A share of a tiny epsilon or delta can round to 0 (5e-324 / 2): the
  // selection or the counts would then have no budget at all.
  const bool counts_delta_lost = request.mechanism->needs_delta && !((1 - share) * raw.delta > 0);
  if (!(share * raw.epsilon > 0) || !(selection_delta > 0) || !((1 - share) * raw.epsilon > 0) || counts_delta_lost)
    throw OutOfRange("epsilon or delta is too small to share with partition selection",
                     "Its \"budget_share\" of " + format_number(share) + " gives the selection epsilon " +
                         format_number(share * raw.epsilon) + " and delta " + format_number(selection_delta) + ".",
                     "Raise epsilon or delta, or the selection's \"budget_share\".");
  request.epsilon = (1 - share) * raw.epsilon;
  request.delta = request.mechanism->needs_delta ? (1 - share) * raw.delta : 0;
  request.selection =
      calibrated_selection(selection.method, request, raw, share * raw.epsilon, selection_delta, selection.rounds);
  request.selection.budget_share = share;
}

}  // namespace

ReleaseRequest validate_request(const RawRequest& raw) {
  ReleaseRequest request;
  request.mechanism = &mechanism_by_name(raw.mechanism);
  check_request_epsilon(raw.epsilon);
  request.epsilon = raw.epsilon;
  bool selection = false;
  for (const RawOption& option : raw.options) selection = selection || option.key == "partition_selection";
  check_delta(raw, *request.mechanism, selection);
  request.delta = request.mechanism->needs_delta ? raw.delta : 0;
  for (const auto& text : raw.margins) request.margins.push_back(parse_margin(text));
  check_options(raw.options, /*with_diagnose=*/false);
  refuse_options_not_taken(*request.mechanism, raw.options);
  for (const RawOption& option : raw.options) apply_option(request, option);
  apply_privacy_unit(request, raw);

  if (!request.margins.empty() && !request.mechanism->allows_invariants)
    throw InvalidArgument(std::string("mechanism \"") + request.mechanism->name + "\" does not keep invariants",
                          "It adds independent noise to every cell, so no margin would stay exact.",
                          "Use integer_laplace, subspace_gaussian or subspace_laplace to keep margins exact.");
  request.mechanism->behaviour().check_options(request);
  if (!request.margins.empty() && request.neighbours == Neighbours::AddRemove)
    throw InvalidArgument("exact margins need replace_one neighbours",
                          "Adding or removing a person changes a margin total, which is released exactly; only "
                          "databases with equal invariants can be protected.",
                          "Drop the \"neighbours\" option.");
  apply_partition_selection(request, raw);
  return request;
}

void check_margin_columns(const ReleaseRequest& request, const std::vector<std::string>& key_columns) {
  for (const auto& margin : request.margins)
    for (const auto& column : margin) {
      bool known = false;
      for (const auto& key : key_columns) known = known || key == column;
      if (known) continue;
      std::string list;
      for (const auto& key : key_columns) list += (list.empty() ? "" : ", ") + key;
      throw InvalidArgument("margin names unknown column \"" + column + "\"",
                            "The source's key columns are: " + (list.empty() ? "(none)" : list) + ".",
                            "Margins name key columns of the source query; the last column is the count.");
    }
}

}  // namespace invariant_dp
