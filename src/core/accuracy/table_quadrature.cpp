// The quadrature grid of the Fourier integrals over a table's lines
// (table_quadrature.hpp).
#include "table_quadrature.hpp"

#include <cmath>
#include <string>

#include "../errors.hpp"
#include "../samplers/interval.hpp"

namespace invariant_dp::accuracy {

QuadratureGrid quadrature_grid(const NoiseTransform& law, int d, double n, double num_power, double num_bound,
                               double num_at_zero, std::int64_t x, double symmetry, const Interrupts& interrupts,
                               double negligible, double den_bound) {
  // A grid past this side (a scale b past some 2e5, epsilon 2e-5, far
  // from any calibrated release; a forged law) is refused: the transforms'
  // double arithmetic near the angle 0, whose rounding the callers
  // estimate, was checked up to there (at b of millions it drifted by more
  // than the estimate).
  constexpr std::int64_t kMaxSide = std::int64_t(1) << 24;
  if (!(x >= 0 && x < kMaxSide))
    throw TooLarge("the quadrature grid is too fine for the noise law's scale",
                   "Its side would be " + std::to_string(x + 1) + " points.");
  QuadratureGrid g;
  g.N = static_cast<std::uint64_t>(x + 1);
  g.J = g.N / 2;
  const double all = std::pow(double(g.N), d);
  if (n >= 2) {
    // Suffix sums of the shells' bounds, from the outermost shell inwards;
    // stop at the first shell whose suffix (the shells beyond it) is not
    // negligible against the node at 0 (1 / N^d of the denominator's
    // total, num_at_zero / N^d of the numerator's). The majorant does not
    // increase from the angle 0 to pi (pair_majorant), so a run of shells
    // lo .. hi is within ((2 hi + 1)^d - (2 lo - 1)^d) M_lo^power: the outer
    // shells are taken in runs that double while their sum stays below a
    // 64th of what may be left out (falling back to one shell where a run
    // would pass it), the rest one by one. Some log N + J steps rather than
    // N / 2 (a grid of millions of points a side at small epsilon), and the
    // box within a shell or two of the one-by-one scan's.
    const auto side_power = [d](double side) {
      double p = 1;
      for (int i = 0; i < d; ++i) p *= side;
      return p;
    };
    double tail_den = 0, tail_num = 0;
    std::uint64_t s = g.N / 2, run = 1, steps = 0;
    // Adds the run lo .. s where its bound keeps the suffix within `share`
    // of what may be left out.
    const auto take = [&](std::uint64_t lo, double share) {
      const double m = law.pair_majorant(lo, g.N);
      const double count = side_power(2.0 * double(s) + 1) - side_power(2.0 * double(lo) - 1);
      const double den = tail_den + count * den_bound * std::pow(m, n),
                   num = tail_num + count * num_bound * std::pow(m, num_power);
      if (den > share * negligible || num > share * negligible * num_at_zero) return false;
      tail_den = den;
      tail_num = num;
      s = lo - 1;
      return true;
    };
    // Ends: each step lowers s by run >= 1, or sets a run above 1 back to 1,
    // or leaves the loop.
    while (s >= 1) {
      interrupts.poll_every(++steps);
      if (take(s > run ? s - run + 1 : 1, 1.0 / 64)) {
        run *= 2;
      } else if (run > 1) {
        run = 1;
      } else {
        break;
      }
    }
    // Ends: s falls by one a step.
    while (s >= 1) {
      interrupts.poll_every(++steps);
      if (!take(s, 1)) break;
    }
    g.J = s;
    g.omitted_den = next_up(tail_den * 1.01) / all;
    g.omitted_num = next_up(tail_num * 1.01) / all;
  }
  g.whole = 2 * g.J + 1 >= g.N;
  g.points = std::pow(g.whole ? double(g.N) : double(2 * g.J + 1), d) / symmetry;
  return g;
}

}  // namespace invariant_dp::accuracy
