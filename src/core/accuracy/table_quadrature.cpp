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
  // The shells are scanned one by one from the outside in: a grid past this
  // side (a scale b of millions, far from any calibrated release; a forged
  // law) is refused before the scan, which would take seconds and more.
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
    // total, num_at_zero / N^d of the numerator's).
    double tail_den = 0, tail_num = 0;
    for (std::uint64_t s = g.N / 2; s >= 1; --s) {
      interrupts.poll_every(s);
      const double m = law.pair_majorant(s, g.N);
      const double count = std::pow(2.0 * double(s) + 1, d) - std::pow(2.0 * double(s) - 1, d);
      const double den = tail_den + count * den_bound * std::pow(m, n),
                   num = tail_num + count * num_bound * std::pow(m, num_power);
      if (den > negligible || num > negligible * num_at_zero) {
        g.J = s;
        break;
      }
      tail_den = den;
      tail_num = num;
      g.J = s - 1;
    }
    g.omitted_den = next_up(tail_den * 1.01) / all;
    g.omitted_num = next_up(tail_num * 1.01) / all;
  }
  g.whole = 2 * g.J + 1 >= g.N;
  g.points = std::pow(g.whole ? double(g.N) : double(2 * g.J + 1), d) / symmetry;
  return g;
}

}  // namespace invariant_dp::accuracy
