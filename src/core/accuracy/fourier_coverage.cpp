// Coverage by Fourier inversion (fourier_coverage.hpp).
#include "fourier_coverage.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/interval.hpp"
#include "integer_noise_transforms.hpp"

namespace invariant_dp::accuracy {
namespace {

// sin(pi r / N) for any integer r, from its residue modulo 2N.
double sin_pi_multiple(unsigned __int128 r, std::uint64_t N) {
  const auto two_n = static_cast<unsigned __int128>(N) * 2;
  auto x = static_cast<std::uint64_t>(r % two_n);  // < 2N
  const double sign = x >= N ? -1.0 : 1.0;
  if (x >= N) x -= N;
  return sign * sin_pi_fraction(std::min(x, N - x), N);
}

}  // namespace

CoverageBounds periodic_coverage(const SampledTransform& transform, std::int64_t t, const Interrupts& interrupts) {
  const std::uint64_t N = transform.period;
  if (t < 0 || N == 0 || static_cast<unsigned __int128>(t) * 2 + 1 > N)
    throw InvalidArgument("a periodic coverage needs 0 <= t and 2 t + 1 <= N");
  const auto width = static_cast<unsigned __int128>(t) * 2 + 1;  // 2t + 1
  const double dw = double(width);
  double sum = dw, magnitude = dw, error = 0;
  const std::size_t K = transform.node.size();
  for (std::size_t k = 0; k < K; ++k) {
    interrupts.poll_every(k);
    const std::uint64_t j = transform.node[k];
    const double w = 2 * j == N ? 1.0 : 2.0;
    const double below = sin_pi_fraction(j, N);  // sin(pi j / N) >= 2 j / N
    const double d = sin_pi_multiple(width * j, N) / below;
    const double term = w * transform.value[k] * d;
    sum += term;
    magnitude += std::abs(term);
    error += w * (transform.error[k] * std::abs(d) +
                  std::abs(transform.value[k]) * (4 * kDoubleUnit / below + 6 * kDoubleUnit * std::abs(d)));
  }
  error += transform.omitted * dw + (double(K) + 2) * kDoubleUnit * magnitude;
  // The error's own rounding: a relative 1e-10 is far above it.
  error = next_up(error * (1 + 1e-10));
  const double q = sum / double(N);
  const double e = next_up(error / double(N) + 2 * kDoubleUnit * std::abs(q));
  return {std::max(0.0, next_down(q - e)), std::min(1.0, next_up(q + e))};
}

Quantile smallest_covering(const std::function<CoverageBounds(std::int64_t)>& coverage, double level,
                           std::int64_t guess, std::int64_t ceiling, const Interrupts& interrupts) {
  if (!(level > 0 && level < 1)) throw InvalidArgument("a coverage level must lie strictly between 0 and 1");
  if (ceiling < 0) throw InvalidArgument("a quantile search needs a non-negative ceiling");
  const auto covers = [&](std::int64_t t) {
    interrupts.poll();
    return coverage(t).lower >= level;
  };
  if (!covers(ceiling))
    throw OutOfRange("the coverage of this law could not be certified at the level asked",
                     "The computed coverage's error bound is too wide at its largest half-width.",
                     "Ask a lower level, or use the law's variance bound.");
  // lo: known not to cover (or -1); hi: known to cover.
  std::int64_t lo = -1, hi = ceiling;
  std::int64_t t = std::clamp<std::int64_t>(guess, 0, ceiling);
  if (covers(t)) {
    hi = t;
    for (std::int64_t step = 1; hi > 0; step *= 2) {
      const std::int64_t probe = std::max<std::int64_t>(0, hi - step);
      if (!covers(probe)) {
        lo = probe;
        break;
      }
      hi = probe;
      if (probe == 0) break;
    }
  } else {
    lo = t;
    for (std::int64_t step = 1; lo < hi; step *= 2) {
      const std::int64_t probe = std::min(hi, lo + step);
      if (probe == hi) break;
      if (covers(probe)) {
        hi = probe;
        break;
      }
      lo = probe;
    }
  }
  // Ends: bisection over a 64-bit range: at most 64 passes.
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (covers(mid) ? hi : lo) = mid;
  }
  Quantile out;
  out.half_width = hi;
  out.coverage_lower = coverage(hi).lower;
  out.narrower_upper = hi == 0 ? 0.0 : coverage(hi - 1).upper;
  out.exact = out.narrower_upper < level;
  return out;
}

}  // namespace invariant_dp::accuracy
