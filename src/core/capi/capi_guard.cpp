// Copies an error into the caller's fixed buffers (truncating, never
// allocating, so it cannot fail while reporting a failure).
#include <cstdio>

#include "capi_guard.hpp"

namespace invariant_dp {

void record_error(idp_error* error, idp_status status, const char* message, const char* detail,
                  const char* hint) noexcept {
  error->status = status;
  std::snprintf(error->message, sizeof error->message, "%s", message ? message : "");
  std::snprintf(error->detail, sizeof error->detail, "%s", detail ? detail : "");
  std::snprintf(error->hint, sizeof error->hint, "%s", hint ? hint : "");
}

}  // namespace invariant_dp
