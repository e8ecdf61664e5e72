// From (mechanism, epsilon, delta, neighbours) to the noise law: the scale of
// the i.i.d. noise drawn before any projection, and how it was derived.
//
// Neighbours (docs/mechanisms.md, "Privacy semantics"): replace_one moves two
// cells of the histogram by one each (l1 sensitivity 2, l2 sqrt 2);
// add_remove moves one cell (1, 1). With exact margins only replace_one is
// meaningful. With a privacy unit of bounds G, R (privacy_unit.hpp) one
// unit moves up to 2G cells (G for add_remove) by up to R each: l1 2GR, l2
// sqrt(2G) R (GR, sqrt(G) R), and every mechanism is calibrated on those.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../samplers/rational.hpp"
#include "release_request.hpp"

namespace invariant_dp {

enum class NoiseKind { DiscreteLaplace, DiscreteGaussian, Gaussian, Laplace };

struct NoiseLaw {
  NoiseKind kind = NoiseKind::Laplace;
  double l1_sensitivity = 0;
  double l2_sensitivity = 0;
  // Laplace scale b, or Gaussian standard deviation sigma, of one coordinate.
  double scale = 0;
  // The exact sampler's parameter: discrete Laplace scale or discrete
  // Gaussian sigma^2, rounded so the privacy claim still holds.
  Rational exact_parameter;
  // Variance of one coordinate before projection.
  double unit_variance = 0;
  std::string law;          // e.g. "N(0, sigma^2) i.i.d., projected onto null(A)"
  std::string calibration;  // how scale follows from (epsilon, delta)
  // Complete tables whose law has no closed-form covariance: the scalar c
  // of each table's covariance c * Pi_N (the law is invariant under
  // permuting each axis's levels: src/core/accuracy/DERIVATIONS.md), by
  // table shape, estimated from the per-cell sds; published as
  // noise.covariance_scale so that error bars can be computed from the law.
  std::vector<std::pair<std::vector<std::size_t>, double>> covariance_scale;
};

// The scalar c of a complete table's covariance c * Pi_N from its cells'
// common variance: every diagonal entry of Pi_N is prod_k (n_k - 1) / n_k.
double covariance_scale_of_table(const std::vector<std::size_t>& shape, double cell_variance);

// The request's mechanism's law (MechanismBehaviour::calibrate).
NoiseLaw calibrate_noise(const ReleaseRequest& request);

// The laws more than one mechanism starts from. Pure eps-DP discrete
// Laplace for changes of l1 norm `l1` (b = l1 / epsilon); its sensitivities
// are left for the caller to state.
NoiseLaw discrete_laplace_law(const ReleaseRequest& request, double l1);
// The law with the request's own l1 and l2 sensitivities stated.
NoiseLaw at_request_sensitivities(NoiseLaw law, const ReleaseRequest& request);

// The lattice mechanisms protect the shortest move between tables with
// equal invariants; a privacy unit's change, up to l1 2GR and l2^2 2GR^2
// (GR, G R^2 for add_remove), is protected too when it is longer.
double protected_l1(const ReleaseRequest& request, double shortest_l1);

// A real-valued release keeps a margin exact only to the float8 round-off of
// the values it adds: about 2^-52 of each cell's magnitude, summed over the
// margin's cells. Throws OutOfRange (22003) when noise of this standard
// deviation (40 of them bound its tails) could move a margin of `cells` cells
// by half a count, as a tiny epsilon does.
void check_float8_margins(double noise_sd, std::size_t cells);

// A lattice mechanism's law (integer_laplace, integer_laplace_l2,
// integer_gaussian) for protected moves of l1 norm `l1` and squared l2 norm
// `l2_squared`.
using LatticeLaw = NoiseLaw (*)(const ReleaseRequest& request, double l1, double l2_squared);

// `lattice_law` for the shortest protected move, of l1 norm `shortest_l1`
// and squared l2 norm `shortest_l2_squared` (lattice_release.hpp explains
// which moves), or a privacy unit's change when that is longer; states the
// sensitivities protected.
NoiseLaw lattice_noise_law(const ReleaseRequest& request, LatticeLaw lattice_law, double shortest_l1,
                           double shortest_l2_squared);

}  // namespace invariant_dp
