// The l2 Gibbs sampler with exact lattice Gaussian draws; see
// scale_mixture_chain.hpp.
#include "scale_mixture_chain.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/kronecker_gaussian.hpp"

namespace invariant_dp::mcmc {
namespace {

constexpr std::uint64_t kVarianceDenominator = std::uint64_t(1) << 20;

}  // namespace

ScaleMixtureChain::ScaleMixtureChain(const TableMoves& moves, double lambda)
    : moves_(&moves), precision_(lambda), rank_(moves.rank()), z_(moves.n_cells(), 0) {
  std::size_t largest = 0;
  for (const LatticeTable& table : moves.tables()) largest = std::max(largest, table.cells.size());
  scratch_.resize(largest);
}

void ScaleMixtureChain::start(RandomSource& rng, const Interrupts& interrupts) {
  const double l = precision_.lambda();
  start_at((double(rank_) + 1) / (l * l), rng, interrupts);
}

void ScaleMixtureChain::start_at(double variance, RandomSource& rng, const Interrupts& interrupts) {
  draw_at(rational_at_least(variance, kVarianceDenominator), rng, interrupts);
}

void ScaleMixtureChain::reset_to(const std::vector<std::int64_t>& z) {
  if (z.size() != z_.size()) throw InvalidArgument("a chain state has the wrong number of cells");
  z_ = z;
}

double ScaleMixtureChain::l2() const {
  double sum = 0;
  for (const std::int64_t v : z_) sum += double(v) * double(v);
  return std::sqrt(sum);
}

void ScaleMixtureChain::draw_given(double t, RandomSource& rng, const Interrupts& interrupts) {
  if (!(t > 0) || !std::isfinite(t)) throw OutOfRange("the latent precision of the l2 chain is out of range");
  draw_at(rational_at_least(1 / t, kVarianceDenominator), rng, interrupts);
  ++iterations_;
}

void ScaleMixtureChain::iterate(RandomSource& rng, const Interrupts& interrupts) {
  draw_given(precision_.sample(l2(), rng), rng, interrupts);
}

void ScaleMixtureChain::run(std::uint64_t iterations, RandomSource& rng, const Interrupts& interrupts) {
  for (std::uint64_t i = 0; i < iterations; ++i) {
    interrupts.poll();
    iterate(rng, interrupts);
  }
}

void ScaleMixtureChain::draw_at(Rational variance, RandomSource& rng, const Interrupts& interrupts) {
  variance_ = variance;
  bool exact = true;
  for (const LatticeTable& table : moves_->tables()) exact = exact && table_lattice_gaussian_applies(variance, table.shape);
  if (!exact) {
    ++fallbacks_;
    TableSwapChain chain(*moves_, SwapChainConfig{lattice_gaussian(variance.to_double()), false});
    chain.reset_to(z_);
    chain.run(kFallbackSweeps, rng, interrupts);
    z_ = chain.z();
    return;
  }
  for (const LatticeTable& table : moves_->tables()) {
    sample_table_lattice_gaussian(rng, variance, table.shape, scratch_.data(), interrupts);
    for (std::size_t i = 0; i < table.cells.size(); ++i) z_[table.cells[i]] = scratch_[i];
  }
}

void coupled_iterate(ScaleMixtureChain& x, ScaleMixtureChain& y, RandomSource& rng, const Interrupts& interrupts) {
  const auto [tx, ty] = x.precision().coupled(x.l2(), y.l2(), rng, interrupts);
  const std::uint64_t seed = rng.next_u64();
  SeededRandomSource stream_x(seed), stream_y(seed);
  x.draw_given(tx, stream_x, interrupts);
  y.draw_given(ty, stream_y, interrupts);
}

MeetingTime sample_scale_mixture_meeting_time(const TableMoves& moves, double lambda, std::int64_t lag,
                                              std::int64_t cap, RandomSource& rng, const Interrupts& interrupts) {
  if (lag < 1) throw InvalidArgument("coupling lag must be at least 1");
  if (cap <= lag) throw InvalidArgument("meeting-time cap must exceed the lag");
  ScaleMixtureChain x(moves, lambda), y(moves, lambda);
  x.start(rng, interrupts);
  y.start(rng, interrupts);
  x.run(std::uint64_t(lag), rng, interrupts);
  for (std::int64_t l = lag + 1; l <= cap; ++l) {
    interrupts.poll();
    coupled_iterate(x, y, rng, interrupts);
    if (x.z() == y.z()) return MeetingTime{l, true};
  }
  return MeetingTime{cap, false};
}

}  // namespace invariant_dp::mcmc
