// Real-valued results leave the core finite: float8 would carry a NaN or an
// infinity to a client that reads it as a count or a variance.
#pragma once

#include <cstddef>

#include "interrupts.hpp"

namespace invariant_dp {

// OutOfRange (SQLSTATE 22003) when any of the n values is NaN or infinite;
// what names them in the message ("released value", "range variance", ...).
void refuse_non_finite(const double* values, std::size_t n, const char* what, const Interrupts& interrupts = {});

}  // namespace invariant_dp
