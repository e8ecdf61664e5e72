// A scoped mpfr_t of a given precision, so an exception unwinding through
// an exact sampler never leaks MPFR memory.
#pragma once

#include <mpfr.h>

namespace invariant_dp {

struct Mp {
  explicit Mp(mpfr_prec_t prec) { mpfr_init2(v, prec); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_t v;
};

}  // namespace invariant_dp
