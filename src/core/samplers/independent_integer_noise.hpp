// Independent integer noise of one law, drawn once per cell of a release:
// the discrete Laplace (discrete_laplace.hpp) or the discrete Gaussian
// (discrete_gaussian.hpp) of a rational parameter. When the release draws
// enough to pay for it, from a certified CDF table (discrete_laplace_table.hpp,
// discrete_gaussian_table.hpp: a 64-bit word and a few comparisons a draw),
// else from Canonne, Kamath, Steinke's samplers; the law is the same exact
// law either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "discrete_gaussian_table.hpp"
#include "discrete_laplace_table.hpp"
#include "rational.hpp"

namespace invariant_dp {

class IndependentIntegerNoise {
 public:
  enum class Law { DiscreteLaplace, DiscreteGaussian };
  // parameter: the discrete Laplace's scale, or the discrete Gaussian's
  // variance; draws: how many the caller will make (for choosing a table).
  IndependentIntegerNoise(Law law, Rational parameter, std::size_t draws, const Interrupts& interrupts);

  std::int64_t draw(RandomSource& rng) const;

 private:
  Law law_;
  Rational parameter_;
  std::optional<DiscreteLaplaceTable> laplace_table_;
  std::optional<DiscreteGaussianTable> gaussian_table_;
};

}  // namespace invariant_dp
