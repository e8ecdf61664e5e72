#include "independent_release.hpp"

#include <cmath>

#include "../samplers/independent_integer_noise.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

void release_independent_integers(const ReleaseDraw& draw) {
  const std::size_t n = draw.model.n_cells();
  const NoiseLaw& law = draw.law;
  std::int64_t* out = draw.integer_destination();
  draw.result.integer_output = true;
  if (draw.request.with_stddev) draw.result.noise_sd.assign(n, std::sqrt(law.unit_variance));
  const IndependentIntegerNoise noise(law.kind == NoiseKind::DiscreteLaplace
                                          ? IndependentIntegerNoise::Law::DiscreteLaplace
                                          : IndependentIntegerNoise::Law::DiscreteGaussian,
                                      law.exact_parameter, n, draw.interrupts);
  for (std::size_t i = 0; i < n; ++i) {
    draw.interrupts.poll_every(i);
    out[i] = checked_add(draw.counts[i], noise.draw(draw.rng), kNoisyCountOutOfRange);
  }
}

}  // namespace invariant_dp
