// The latent precision of the l2 Laplace law written as a Gaussian scale
// mixture (scale_mixture_chain.hpp). The Laplace transform of the Levy
// density, int_0^inf lambda (2 pi t^3)^(-1/2) exp(-lambda^2 / (2t)) e^(-p t)
// dt = exp(-lambda sqrt(2p)), at p = r^2 / 2 gives
//   exp(-lambda r) = int_0^inf (lambda / sqrt(2 pi)) t^(-3/2)
//                    exp(-lambda^2 / (2t) - t r^2 / 2) dt,
// so exp(-lambda ||z||_2) is the z-marginal of a joint law in (z, t) whose
// conditional of t given ||z||_2 = r has the density
//   p(t | r) = (lambda / sqrt(2 pi)) t^(-3/2) exp(-lambda^2/(2t) - t r^2/2 + lambda r),
// the inverse Gaussian law IG(mean lambda / r, shape lambda^2) for r > 0 and
// the Levy law lambda^2 / N^2 (N standard normal) for r = 0.
// Sampling: Michael, Schucany and Haas (1976), the smaller root taken as
// mu^2 over the larger (no cancellation). Coupling: the rejection form of
// a maximal coupling, as in double_geometric.hpp (Jacob, O'Leary and
// Atchade 2020, arXiv:1708.03625), equal draws with probability
// 1 - TV(p(. | r_x), p(. | r_y)). Floating point, as every continuous draw.
#pragma once

#include <utility>

#include "../interrupts.hpp"
#include "../random_source.hpp"

namespace invariant_dp::mcmc {

class LatentPrecision {
 public:
  explicit LatentPrecision(double lambda);  // finite, > 0; else InvalidArgument

  double lambda() const { return lambda_; }
  double log_density(double t, double r) const;  // -infinity for t <= 0
  double sample(double r, RandomSource& rng) const;
  // (t_x, t_y) with t_x ~ p(. | r_x), t_y ~ p(. | r_y), equal as often as
  // any coupling can make them.
  std::pair<double, double> coupled(double r_x, double r_y, RandomSource& rng, const Interrupts& interrupts) const;

 private:
  double lambda_;
};

}  // namespace invariant_dp::mcmc
