// The C entry points of error bars of released sums (invariant_dp_accuracy.h):
// conversions only, around accuracy/published_release.hpp.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../accuracy/published_release.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_accuracy.h"

using namespace invariant_dp;
using namespace invariant_dp::accuracy;

struct idp_accuracy {
  PublishedRelease release;
};

static_assert(sizeof(idp_row_id) == sizeof(RowId), "a row identity crosses the boundary as it is");

namespace {

TableColumns table_columns(const idp_table_columns& c) {
  TableColumns out;
  for (std::size_t k = 0; k < c.n_columns; ++k) {
    out.names.emplace_back(c.names[k]);
    switch (c.types[k]) {
      case IDP_COLUMN_INT4: out.types.push_back(ColumnType::int4); break;
      case IDP_COLUMN_INT8: out.types.push_back(ColumnType::int8); break;
      case IDP_COLUMN_FLOAT8: out.types.push_back(ColumnType::float8); break;
      case IDP_COLUMN_NUMERIC: out.types.push_back(ColumnType::numeric); break;
      default: out.types.push_back(ColumnType::other); break;
    }
  }
  for (std::size_t k = 0; k < c.n_key_names; ++k) out.key_names.emplace_back(c.key_names[k]);
  return out;
}

void copy_text(char* out, std::size_t size, const std::string& text) {
  std::strncpy(out, text.c_str(), size - 1);
  out[size - 1] = '\0';
}

}  // namespace

extern "C" {

idp_status idp_accuracy_layout(const char* law_json, const idp_table_columns* columns, idp_row_layout* layout,
                               idp_error* error) {
  return guarded(error, [&] {
    const RowLayout l = row_layout(read_published_law(law_json), table_columns(*columns));
    *layout = idp_row_layout{l.n_keys, l.level_columns.size(), {-1, -1}, l.period_order};
    for (std::size_t a = 0; a < l.level_columns.size() && a < 2; ++a) layout->level_column[a] = l.level_columns[a];
  });
}

idp_status idp_accuracy_prepare(const char* law_json, const idp_table_columns* columns, const idp_release_rows* rows,
                                const idp_interrupts* interrupts, idp_accuracy** out, idp_error* error) {
  *out = nullptr;
  return guarded(error, [&] {
    PublishedLaw law = read_published_law(law_json);
    const RowLayout layout = row_layout(law, table_columns(*columns));
    ReleaseRows r;
    r.n_rows = rows->n_rows;
    r.ids = reinterpret_cast<const RowId*>(rows->ids);
    for (std::size_t k = 0; k < layout.n_keys; ++k)
      r.keys.push_back(KeyColumn{rows->keys[k].codes, rows->keys[k].n_levels, rows->keys[k].null_code});
    for (std::size_t a = 0; a < layout.level_columns.size(); ++a)
      r.levels.push_back(layout.level_columns[a] >= 0 && rows->levels != nullptr ? rows->levels[a] : nullptr);
    *out = new idp_accuracy{PublishedRelease(std::move(law), layout, r, capi::interrupts_of(interrupts))};
  });
}

idp_status idp_accuracy_sum(idp_accuracy* accuracy, size_t n, const idp_row_id* ids, const double* weights,
                            double level, const idp_interrupts* interrupts, idp_error_bar* out, idp_error* error) {
  return guarded(error, [&] {
    std::vector<double> ones;
    if (weights == nullptr) {
      ones.assign(n, 1.0);
      weights = ones.data();
    }
    const ErrorBar bar = accuracy->release.sum(reinterpret_cast<const RowId*>(ids), weights, n, level,
                                               capi::interrupts_of(interrupts));
    *out = idp_error_bar{};
    out->unknown_rows = bar.unknown_rows;
    if (bar.unknown_rows > 0) return;
    out->cells = bar.cells;
    out->variance_lower = bar.variance.lower;
    out->variance = bar.variance.upper;
    out->variance_kind = exactness_name(bar.variance.kind);
    out->has_margin = bar.has_margin;
    if (bar.has_margin) {
      out->margin_of_error = bar.margin.half_width;
      out->margin_kind = exactness_name(bar.margin.kind);
      copy_text(out->method, sizeof out->method, bar.margin.method);
    }
    out->caveat = accuracy->release.law().caveat.empty() ? nullptr : accuracy->release.law().caveat.c_str();
  });
}

const char* idp_accuracy_statement(const idp_accuracy* accuracy) { return accuracy->release.statement().c_str(); }

size_t idp_accuracy_rows(const idp_accuracy* accuracy) { return accuracy->release.n_rows(); }

void idp_accuracy_free(idp_accuracy* accuracy) { delete accuracy; }

}  // extern "C"
