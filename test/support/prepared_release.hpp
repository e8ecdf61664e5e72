// The C boundary's release as the shim drives it, in one call: the request
// prepared (validated once), the key columns accepted when given, then
// released; the prepared request freed whatever happens.
#pragma once

#include "capi/invariant_dp_core.h"

namespace invariant_dp {

// idp_prepare_request then idp_accept_columns (skipped with no names).
inline idp_status check_prepared(const idp_request* request, size_t n_names, const char* const* names,
                                 idp_request_info* info, idp_error* error) {
  idp_prepared_request* prepared = nullptr;
  idp_status status = idp_prepare_request(request, &prepared, info, error);
  if (status == IDP_OK && names != nullptr) status = idp_accept_columns(prepared, n_names, names, error);
  idp_free_prepared_request(prepared);
  return status;
}

// idp_prepare_request then idp_release; *table is NULL unless IDP_OK.
inline idp_status prepare_and_release(const idp_request* request, const idp_cells* cells,
                                      const idp_randomness* randomness, const idp_interrupts* interrupts,
                                      idp_release_table** table, idp_error* error) {
  *table = nullptr;
  idp_prepared_request* prepared = nullptr;
  idp_request_info info;
  idp_status status = idp_prepare_request(request, &prepared, &info, error);
  if (status == IDP_OK) status = idp_release(prepared, cells, randomness, interrupts, table, error);
  idp_free_prepared_request(prepared);
  return status;
}

}  // namespace invariant_dp
