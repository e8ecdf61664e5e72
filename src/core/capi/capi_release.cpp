// dp.privatize across the boundary: the request prepared once
// (idp_prepare_request, idp_accept_columns), then idp_release converts the
// cells, calls the core's one release entry (release/release_entry.hpp) and
// hands its table out in place.
#include <cstdlib>
#include <memory>
#include <new>

#include "../release/kept_results.hpp"
#include "../release/request_checks.hpp"
#include "../release/release_entry.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_core.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

struct idp_prepared_request {
  CheckedRequest checked;
};

namespace {

template <class T>
T* or_null(std::vector<T>& values) {
  return values.empty() ? nullptr : values.data();
}

// The table's arrays point into the core's table, which the C table owns.
idp_release_table* c_table(ReleaseTable&& released) {
  auto table = std::make_unique<ReleaseTable>(std::move(released));
  auto* out = static_cast<idp_release_table*>(std::calloc(1, sizeof(idp_release_table)));
  if (out == nullptr) throw std::bad_alloc();
  out->integer_output = table->integer_output;
  out->n_rows = table->n_rows;
  out->n_keys = table->n_keys;
  out->n_axes = table->n_axes;
  out->row_cell = or_null(table->row_cell);
  out->row_is_cell = table->row_is_cell.empty() ? nullptr : reinterpret_cast<bool*>(table->row_is_cell.data());
  out->row_depth = or_null(table->row_depth);
  out->key_axis = table->key_axis.data();
  out->key_depth = table->key_depth.data();
  out->values = table->integer_output ? nullptr : const_cast<double*>(table->real_values());
  out->integer_values = table->integer_output ? const_cast<std::int64_t*>(table->integers()) : nullptr;
  out->noise_sd = or_null(table->noise_sd);
  out->has_intervals = table->intervals != nullptr;
  out->metadata_json = table->metadata_json.data();
  out->storage = table.release();
  return out;
}

}  // namespace

extern "C" {

idp_status idp_prepare_request(const idp_request* request, idp_prepared_request** prepared, idp_request_info* info,
                               idp_error* error) {
  *prepared = nullptr;
  return guarded(error, [&] {
    auto out = std::make_unique<idp_prepared_request>();
    out->checked = check_request(raw_request(request), strings(request->n_hierarchy, request->hierarchy),
                                 !request->epsilon_is_null);
    const CheckedRequest& checked = out->checked;
    info->integer_output = checked.release.mechanism->integer_output;
    info->with_stddev = checked.release.with_stddev;
    info->interval_level = checked.release.interval_level;
    info->source_rows = checked.release.source_rows || checked.release.bounds.active();
    info->n_level_columns =
        checked.hierarchy.with_level ? (checked.hierarchy.is_crossed() ? 2 : checked.hierarchy.active() ? 1 : 0) : 0;
    *prepared = out.release();
  });
}

idp_status idp_accept_columns(idp_prepared_request* prepared, size_t n_key_columns, const char* const* key_columns,
                              idp_error* error) {
  return guarded(error, [&] { accept_columns(prepared->checked, strings(n_key_columns, key_columns)); });
}

void idp_free_prepared_request(idp_prepared_request* prepared) { delete prepared; }

idp_status idp_release(const idp_prepared_request* prepared, const idp_cells* cells, const idp_randomness* randomness,
                       const idp_interrupts* interrupts, idp_release_table** table, idp_error* error) {
  *table = nullptr;
  return guarded(error, [&] {
    const CellTables tables(cells);
    *table = c_table(release(prepared->checked, release_input(cells, tables), session_random_source(randomness),
                             interrupts_of(interrupts)));
  });
}

void idp_keep_results_for(uint32_t role) { keep_results_for(role); }

void idp_free_release(idp_release_table* table) {
  if (table == nullptr) return;
  delete static_cast<ReleaseTable*>(table->storage);
  std::free(table);
}

void idp_release_bounds(const idp_release_table* table, size_t first, size_t n, double* lower, double* upper,
                        int64_t* integer_lower, int64_t* integer_upper) {
  static_cast<const ReleaseTable*>(table->storage)->bounds(first, n, lower, upper, integer_lower, integer_upper);
}

}  // extern "C"
