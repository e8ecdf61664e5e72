#include "independent_integer_noise.hpp"

#include "discrete_gaussian.hpp"
#include "discrete_laplace.hpp"

namespace invariant_dp {
namespace {

// As for the discrete Laplace table (worth_it): a table of at most 2^16
// entries, built when the draws would cost Algorithm 3 far more (a
// rejection sampler over discrete Laplace proposals, slower than Algorithm 2).
bool gaussian_table_worth_it(Rational variance, std::size_t draws) {
  const std::size_t entries = DiscreteGaussianTable::entries_for(variance.to_double());
  return entries <= (std::size_t(1) << 16) && entries * 256 <= draws;
}

}  // namespace

IndependentIntegerNoise::IndependentIntegerNoise(Law law, Rational parameter, std::size_t draws,
                                                 const Interrupts& interrupts)
    : law_(law), parameter_(parameter) {
  if (law == Law::DiscreteLaplace && DiscreteLaplaceTable::worth_it(parameter, draws))
    laplace_table_.emplace(parameter, interrupts);
  if (law == Law::DiscreteGaussian && gaussian_table_worth_it(parameter, draws))
    gaussian_table_.emplace(parameter.num, parameter.den, 0, 1, interrupts);
}

std::int64_t IndependentIntegerNoise::draw(RandomSource& rng) const {
  if (laplace_table_) return laplace_table_->sample(rng);
  if (gaussian_table_) return gaussian_table_->sample(rng);
  return law_ == Law::DiscreteLaplace ? sample_discrete_laplace(rng, parameter_)
                                      : sample_discrete_gaussian(rng, parameter_);
}

}  // namespace invariant_dp
