#include "finite_values.hpp"

#include <cmath>
#include <string>

#include "errors.hpp"

namespace invariant_dp {

void refuse_non_finite(const double* values, std::size_t n, const char* what, const Interrupts& interrupts) {
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (std::isfinite(values[i])) continue;
    throw OutOfRange(std::string("a ") + what + " is not finite",
                     "It would be NaN or infinite: the noise's variance, or a sum of it, is beyond float8's range.",
                     "Raise epsilon (or rho), or give variance targets of ordinary size.");
  }
}

}  // namespace invariant_dp
