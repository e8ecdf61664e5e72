// [z^-s] Phi^q by residues (accuracy/line_power_coefficients.hpp) against
// the same coefficients by the trapezoid rule over the asked cell's angle
// on 4096 points in 80-bit arithmetic (exact for Phi^q's coefficients up to
// its aliasing, far below the tolerance at these scales), on three- and
// four-cell lines, at nodes on and off the ridges, for several powers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "accuracy/line_power_coefficients.hpp"
#include "accuracy/table_quadrature.hpp"

namespace invariant_dp::accuracy {
namespace {

using PowerCx = Cx<long double>;

// [z^-s] psi-hat^q for s = 0 .. T by the trapezoid rule on M points.
std::vector<PowerCx> trapezoid_coefficients(long double a, int r, const PowerCx* u, int q, int T) {
  constexpr int M = 4096;
  std::vector<PowerCx> out(std::size_t(T) + 1);
  for (int j = 0; j < M; ++j) {
    const long double theta = 2 * kQuadraturePi * j / M;
    const PowerCx z{std::cos(theta), std::sin(theta)};
    // On the circle psi-hat is the transform of a real law: complex
    // only through the angles, so evaluate it as a complex divided difference.
    PowerCx angles[kMaxLines], zero[kMaxLines];
    for (int k = 0; k < r - 1; ++k) angles[k] = u[k];
    angles[r - 1] = z;
    for (int k = 0; k < r; ++k) zero[k] = {1, 0};
    const PowerCx value = LaplaceLinePoles<long double>(a, r, angles).complex_transform_difference();
    const long double norm = LaplaceLinePoles<long double>(a, r, zero).transform_difference();
    PowerCx power{1, 0};
    for (int t = 0; t < q; ++t) power = power * PowerCx{value.re / norm, value.im / norm};
    // [z^-s] f = (1 / M) sum_j f(z_j) z_j^s.
    PowerCx zs{1, 0};
    for (int s = 0; s <= T; ++s) {
      out[std::size_t(s)] = out[std::size_t(s)] + PowerCx{(power * zs).re / M, (power * zs).im / M};
      zs = zs * z;
    }
  }
  return out;
}

TEST(LinePowerCoefficients, MatchTheTrapezoidRule) {
  struct Case {
    Rational b;
    int r, q;
  };
  for (const Case& k : {Case{{3, 1}, 4, 3}, Case{{3, 1}, 4, 7}, Case{{8, 1}, 3, 5}, Case{{3, 2}, 3, 2}}) {
    const long double a = std::exp(-(long double)k.b.den / (long double)k.b.num);
    LinePowerCoefficients<double> coarse(k.b, k.r, k.q);
    LinePowerCoefficients<long double> fine(k.b, k.r, k.q);
    for (const auto& [x, y] : {std::pair<long double, long double>{0, 0}, {0.1L, 0}, {0.1L, 0.3L}, {2.0L, -1.0L}}) {
      const PowerCx u[kMaxLines] = {{std::cos(x), std::sin(x)}, {std::cos(y), std::sin(y)}, {1, 0}};
      PowerCx u3[kMaxLines] = {u[0], {1, 0}, {1, 0}};
      const PowerCx* other = k.r == 4 ? u : u3;
      const int T = 12;
      const std::vector<PowerCx> expected = trapezoid_coefficients(a, k.r, other, k.q, T);
      std::vector<PowerCx> by_residues(std::size_t(T) + 1);
      fine.coefficients(other, k.q, T, by_residues.data());
      std::vector<Cx<double>> in_double(std::size_t(T) + 1);
      const Cx<double> other_double[kMaxLines] = {{double(other[0].re), double(other[0].im)},
                                                  {double(other[1].re), double(other[1].im)},
                                                  {double(other[2].re), double(other[2].im)}};
      coarse.coefficients(other_double, k.q, T, in_double.data());
      for (int s = 0; s <= T; ++s) {
        const PowerCx e = expected[std::size_t(s)], f = by_residues[std::size_t(s)];
        EXPECT_NEAR(double(f.re), double(e.re), 1e-14) << k.r << " cells, q " << k.q << " at s " << s;
        EXPECT_NEAR(double(f.im), double(e.im), 1e-14) << k.r << " cells, q " << k.q << " at s " << s;
        EXPECT_NEAR(in_double[std::size_t(s)].re, double(e.re), 1e-12) << s;
        EXPECT_NEAR(in_double[std::size_t(s)].im, double(e.im), 1e-12) << s;
      }
      // Power: at the node 0, where the coefficients are largest, another
      // power's differ.
      if (x == 0 && y == 0) {
        std::vector<PowerCx> other_power(std::size_t(T) + 1);
        fine.coefficients(other, k.q - 1, T, other_power.data());
        EXPECT_GT(std::fabs(double(other_power[0].re - expected[0].re)), 1e-4);
      }
    }
  }
}

}  // namespace
}  // namespace invariant_dp::accuracy
