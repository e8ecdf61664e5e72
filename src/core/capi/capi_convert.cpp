#include "capi_convert.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "../errors.hpp"

namespace invariant_dp::capi {

namespace {

JsonType json_type(char code) {
  switch (code) {
    case 's': return JsonType::String;
    case 'n': return JsonType::Number;
    case 'b': return JsonType::Boolean;
    case 'a': return JsonType::Array;
    case 'o': return JsonType::Object;
    case 'z': return JsonType::Null;
    default: return JsonType::Unknown;
  }
}

}  // namespace

RawRequest raw_request(const idp_request* request) {
  RawRequest raw;
  raw.mechanism = request->mechanism ? request->mechanism : "";
  raw.epsilon = request->epsilon;
  raw.has_delta = request->has_delta;
  raw.delta = request->delta;
  for (std::size_t i = 0; i < request->n_margins; ++i) raw.margins.emplace_back(request->margins[i]);
  for (std::size_t i = 0; i < request->n_options; ++i)
    raw.options.emplace_back(request->option_keys[i], request->option_values[i],
                             request->option_types ? json_type(request->option_types[i]) : JsonType::Unknown);
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

ReleaseInput release_input(const idp_cells* cells, const CellTables& tables) {
  ReleaseInput input;
  input.column_names = strings(cells->n_columns, cells->column_names);
  input.source = tables.source();
  input.source_counts = cells->source_counts;
  if (cells->has_domain) input.domain = tables.domain();
  if (cells->unit_keys.columns != nullptr) input.units = tables.units();
  if (cells->counts_writable) input.writable_counts = const_cast<std::int64_t*>(cells->source_counts);
  return input;
}

}  // namespace invariant_dp::capi
