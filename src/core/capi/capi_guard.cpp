// Copies an error into the caller's fixed buffers (truncating, never
// allocating, so it cannot fail while reporting a failure).
#include <cstdio>

#include "capi_guard.hpp"

#include "../errors.hpp"

namespace invariant_dp {

void record_error(idp_error* error, idp_status status, const char* message, const char* detail,
                  const char* hint) noexcept {
  error->status = status;
  std::snprintf(error->message, sizeof error->message, "%s", message ? message : "");
  std::snprintf(error->detail, sizeof error->detail, "%s", detail ? detail : "");
  std::snprintf(error->hint, sizeof error->hint, "%s", hint ? hint : "");
  error->keys[0] = error->keys[1] = idp_key_ref{IDP_KEYS_NONE, 0, 0};
}

void clear_error(idp_error* error) noexcept {
  // No formatting: called on every entry, a key encoder's once per new key.
  error->status = IDP_OK;
  error->message[0] = error->detail[0] = error->hint[0] = '\0';
  error->keys[0] = error->keys[1] = idp_key_ref{IDP_KEYS_NONE, 0, 0};
}

void record_error_keys(idp_error* error, const std::array<KeyRef, 2>& keys) noexcept {
  for (std::size_t slot = 0; slot < keys.size(); ++slot)
    error->keys[slot] = idp_key_ref{static_cast<idp_key_table>(keys[slot].table), keys[slot].row, keys[slot].columns};
}

}  // namespace invariant_dp
