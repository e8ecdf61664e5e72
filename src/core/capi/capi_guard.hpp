// The one exception barrier between the core and PostgreSQL: runs a body,
// maps whatever it throws to an idp_status with message, detail and hint.
// Nothing thrown gets past it (catch (...) last).
#pragma once

#include <array>

#include "invariant_dp_core.h"

namespace invariant_dp {

template <typename Body>
idp_status guarded(idp_error* error, Body&& body) noexcept;

void record_error(idp_error* error, idp_status status, const char* message, const char* detail = "",
                  const char* hint = "") noexcept;
// IDP_OK with empty texts: what every guarded entry point starts from.
void clear_error(idp_error* error) noexcept;

struct KeyRef;
// The keys an error names ({key0}, {key1} in its text), after record_error.
void record_error_keys(idp_error* error, const std::array<KeyRef, 2>& keys) noexcept;

}  // namespace invariant_dp

#include "capi_guard_impl.hpp"
