#include "capi_convert.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include "../errors.hpp"
#include "../mechanisms/cell_domain.hpp"
#include "../mechanisms/partition_selection.hpp"
#include "../mechanisms/privacy_unit.hpp"
#include "../rollups/crossed_grid.hpp"
#include "../rollups/cascade_release_common.hpp"
#include "../rollups/crossed_release.hpp"

namespace invariant_dp::capi {

RawRequest raw_request(const idp_request* request) {
  RawRequest raw;
  raw.mechanism = request->mechanism ? request->mechanism : "";
  raw.epsilon = request->epsilon;
  raw.has_delta = request->has_delta;
  raw.delta = request->delta;
  for (std::size_t i = 0; i < request->n_margins; ++i) raw.margins.emplace_back(request->margins[i]);
  for (std::size_t i = 0; i < request->n_options; ++i)
    raw.options.emplace_back(request->option_keys[i], request->option_values[i]);
  raw.has_privacy_unit = request->privacy_unit != nullptr;
  if (raw.has_privacy_unit) raw.privacy_unit = request->privacy_unit;
  raw.has_bounds = request->has_bounds;
  for (std::size_t i = 0; i < request->n_bounds; ++i)
    raw.bounds.emplace_back(request->bound_keys[i], request->bound_values[i]);
  return raw;
}

std::vector<std::string> strings(std::size_t n, const char* const* text) {
  return n == 0 ? std::vector<std::string>{} : std::vector<std::string>(text, text + n);
}

Interrupts interrupts_of(const idp_interrupts* interrupts) {
  return interrupts ? Interrupts(interrupts->pending, interrupts->context, interrupts->progress) : Interrupts();
}

char* malloc_copy(const std::string& text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

void refuse_non_finite(const double* values, std::size_t n, const char* what, const Interrupts& interrupts) {
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (std::isfinite(values[i])) continue;
    throw OutOfRange(std::string("a ") + what + " is not finite",
                     "It would be NaN or infinite: the noise's variance, or a sum of it, is beyond float8's range.",
                     "Raise epsilon (or rho), or give variance targets of ordinary size.");
  }
}

KeyDictionary dictionary_of(const idp_key_dictionary& d) {
  const bool words = d.words != nullptr || d.narrow_words != nullptr;
  return KeyDictionary{d.n_levels, d.data, d.size, d.words, words ? d.null_code : 0xffffffffu, d.narrow_words};
}

idp_key_dictionary c_dictionary(const KeyDictionary& d) {
  return idp_key_dictionary{d.n_levels, d.data, d.size, d.words, d.null_code, d.narrow_words};
}

namespace {

// A row-numbered column's codes run to n_rows - 1: its dictionary must
// have that many levels (idp_keys), or the codes would name none.
void check_row_numbered(const idp_keys& keys, std::size_t n_rows, const idp_cells* cells) {
  if (keys.columns == nullptr) throw Error("the cells' key columns are missing");
  for (std::size_t k = 0; k < cells->n_columns; ++k)
    if (keys.columns[k] == nullptr && cells->dictionaries[k].n_levels < n_rows)
      throw Error("row-numbered key column \"" + std::string(cells->column_names[k]) + "\" has " +
                  std::to_string(cells->dictionaries[k].n_levels) + " keys for " + std::to_string(n_rows) + " rows");
}

}  // namespace

CellTables::CellTables(const idp_cells* cells) : cells_(cells), unit_dictionary_(dictionary_of(cells->unit_dictionary)) {
  for (std::size_t k = 0; k < cells->n_columns; ++k) dictionaries_.push_back(dictionary_of(cells->dictionaries[k]));
  if (cells->n_columns > 0) {
    check_row_numbered(cells->source_keys, cells->n_source_rows, cells);
    if (cells->has_domain) check_row_numbered(cells->domain_keys, cells->n_domain_rows, cells);
  }
}

KeyRows CellTables::source() const {
  return KeyRows{cells_->n_source_rows, cells_->n_columns, cells_->source_keys.columns, dictionaries_.data(),
                 IDP_KEYS_SOURCE};
}

KeyRows CellTables::domain() const {
  return KeyRows{cells_->n_domain_rows, cells_->n_columns, cells_->domain_keys.columns, dictionaries_.data(),
                 IDP_KEYS_DOMAIN};
}

KeyRows CellTables::units() const {
  if (cells_->unit_keys.columns == nullptr || cells_->unit_keys.columns[0] == nullptr)
    throw Error("the privacy unit's keys are missing");
  return KeyRows{cells_->n_source_rows, 1, cells_->unit_keys.columns, &unit_dictionary_, IDP_KEYS_SOURCE};
}

std::vector<bool> columns_named(const std::vector<std::string>& key_columns,
                                const std::vector<std::vector<std::string>>& name_lists) {
  std::vector<bool> named(key_columns.size(), false);
  for (const auto& names : name_lists)
    for (const std::string& name : names)
      for (std::size_t k = 0; k < key_columns.size(); ++k) named[k] = named[k] || key_columns[k] == name;
  return named;
}

namespace {

// The source rows `rows` as a table of their own, viewed in place.
KeyRows view_of_rows(const KeyRows& source, const std::vector<std::uint32_t>& rows, ReleasedCells& out,
                     const Interrupts& interrupts) {
  const std::size_t columns = source.n_columns;
  out.view_codes.assign(columns, std::vector<std::uint32_t>(rows.size()));
  out.view_columns.clear();
  for (std::size_t k = 0; k < columns; ++k) {
    for (std::size_t j = 0; j < rows.size(); ++j) {
      interrupts.poll_every(j);
      out.view_codes[k][j] = source.code(rows[j], k);
    }
    out.view_columns.push_back(out.view_codes[k].data());
  }
  KeyRows view{rows.size(), columns, out.view_columns.data(), source.dictionaries, source.table};
  view.row_ids = rows.data();
  return view;
}

// With a privacy unit: each unit's contribution bounded, one row per
// distinct cell. With partition selection: only the cells it shows. Else
// the source rows as they are (false).
bool bound_and_select(const idp_cells* cells, const CellTables& tables, const ReleaseRequest& request,
                      RandomSource& rng, const Interrupts& interrupts, ReleasedCells& out) {
  const KeyRows source = tables.source();
  std::vector<std::int64_t> units;
  if (request.bounds.active()) {
    BoundedCells bounded = bound_contributions(tables.units(), source, cells->source_counts, request.bounds, rng,
                                               interrupts);
    out.row_of_cell = std::move(bounded.row);
    out.view_counts = std::move(bounded.counts);
    units = std::move(bounded.units);
  } else if (request.selection.method != SelectionMethod::None) {
    // One row per person: a cell's count is its number of units.
    out.row_of_cell.resize(cells->n_source_rows);
    for (std::size_t i = 0; i < cells->n_source_rows; ++i) {
      interrupts.poll_every(i);
      out.row_of_cell[i] = static_cast<std::uint32_t>(i);
    }
    out.view_counts.assign(cells->source_counts, cells->source_counts + cells->n_source_rows);
    units = out.view_counts;
  } else {
    return false;
  }
  if (request.selection.method != SelectionMethod::None) {
    const std::vector<bool> shown = select_partitions(units.data(), units.size(), request.selection, rng, interrupts);
    std::size_t kept = 0;
    for (std::size_t j = 0; j < shown.size(); ++j) {
      interrupts.poll_every(j);
      if (shown[j]) {
        out.row_of_cell[kept] = out.row_of_cell[j];
        out.view_counts[kept++] = out.view_counts[j];
      }
    }
    out.row_of_cell.resize(kept);
    out.view_counts.resize(kept);
  }
  return true;
}

}  // namespace

ReleasedCells released_cells(const idp_cells* cells, const CellTables& tables, const std::vector<bool>& encoded,
                             const ReleaseRequest& request, RandomSource& rng, const Interrupts& interrupts) {
  ReleasedCells out;
  const auto names = strings(cells->n_columns, cells->column_names);
  KeyRows source = tables.source();
  const std::int64_t* source_counts = cells->source_counts;
  if (bound_and_select(cells, tables, request, rng, interrupts, out)) {
    source = view_of_rows(source, out.row_of_cell, out, interrupts);
    source_counts = out.view_counts.data();
  }
  if (!cells->has_domain) {
    out.keys = std::make_unique<CellKeys>(source, names, interrupts, &encoded, KeyCodes::borrowed);
    out.counts = source_counts;
    return out;
  }
  out.row_of_cell.clear();  // the released rows are the domain's
  const KeyRows domain = tables.domain();
  out.domain_counts = counts_on_domain(domain, source, source_counts,
                                       request.drop_rows_outside_domain ? OutsideDomain::Drop : OutsideDomain::Refuse,
                                       interrupts);
  out.keys = std::make_unique<CellKeys>(domain, names, interrupts, &encoded, KeyCodes::borrowed);
  out.counts = out.domain_counts.data();
  return out;
}

std::vector<bool> encoded_columns(const CheckedRequest& checked, const idp_cells* cells) {
  // A hierarchy's leaves are the cells themselves: every column is a level.
  if (checked.hierarchy.active()) return std::vector<bool>(cells->n_columns, true);
  return columns_named(strings(cells->n_columns, cells->column_names), checked.release.margins);
}

CheckedRequest check_request(const idp_request* request) {
  RawRequest raw = raw_request(request);
  CheckedRequest checked;
  checked.hierarchy = take_hierarchy_request(strings(request->n_hierarchy, request->hierarchy), raw.options);
  checked.budget.has_epsilon = !request->epsilon_is_null;
  // Without epsilon only the cascades can be calibrated (from rho or absolute
  // targets); validate the rest with a stand-in epsilon never used to draw.
  if (!checked.budget.has_epsilon) raw.epsilon = 1.0;
  checked.release = validate_request(raw);
  const MechanismTraits& mechanism = *checked.release.mechanism;
  const bool cascade = calibrated_on_tree(mechanism.mechanism);
  if (cascade && !checked.hierarchy.active())
    throw InvalidArgument(std::string("mechanism \"") + mechanism.name + "\" needs a hierarchy", {},
                          "Pass hierarchy => '{state,county,tract}', coarsest level first.");
  if (!checked.budget.has_epsilon && !cascade)
    throw NullValue("epsilon must not be NULL");
  // A cascade given both epsilon and rho, or neither (nor absolute targets;
  // crossed releases say so when they calibrate, with their own hint).
  if (cascade && !checked.hierarchy.is_crossed()) cascade_budget(checked.hierarchy, checked.budget);
  if (!cascade && (checked.hierarchy.rho > 0 || !checked.hierarchy.level_variance.empty()))
    throw InvalidArgument("options \"level_variance\" and \"rho\" are for mechanisms \"cascade\" and "
                          "\"integer_cascade\"");
  check_crossed_request(checked.release, checked.hierarchy);
  // Other mechanisms release the leaves (calibrated on the bounds like any
  // cells) and sum them up the tree: post-processing.
  // The cascades, crossed or not, bound a unit's move by (G R)^2 times one
  // record's (hierarchy/cascade_privacy.hpp); the other mechanisms release
  // the leaves on the bounds and sum them up the tree.
  if (checked.hierarchy.active() && checked.release.selection.method != SelectionMethod::None)
    throw InvalidArgument("partition selection cannot be used with a hierarchy",
                          "The rollups are exact sums of every leaf, so the leaves must be public.",
                          "Pass a domain listing the public leaves instead.");
  return checked;
}

void check_columns(const CheckedRequest& checked, const std::vector<std::string>& key_columns) {
  check_margin_columns(checked.release, key_columns);
  for (const std::string& level : checked.hierarchy.levels) {
    bool found = false;
    for (const std::string& column : key_columns) found = found || column == level;
    if (found) continue;
    std::string known;
    for (const std::string& column : key_columns) known += (known.empty() ? "" : ", ") + column;
    throw InvalidArgument("hierarchy names column \"" + level + "\", which the source does not return",
                          "The source's key columns are: " + known + ".");
  }
  if (checked.hierarchy.is_crossed()) check_crossed_columns(checked.hierarchy.levels, checked.hierarchy.crossed, key_columns);
}

}  // namespace invariant_dp::capi
