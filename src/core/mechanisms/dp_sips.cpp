// DP-SIPS partition selection (dp_sips.hpp).
#include "dp_sips.hpp"

#include <cmath>

#include "../calibration/zcdp.hpp"
#include "../errors.hpp"
#include "../json_text.hpp"
#include "../samplers/independent_integer_noise.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

std::int64_t dp_sips_weight(std::int64_t live_cells) {
  if (live_cells < 1) throw Error("a unit without live cells has no weight");
  const Int128 square = Int128(kDpSipsWeightScale) * kDpSipsWeightScale;
  auto fits = [&](std::int64_t w) { return Int128(w) * w * live_cells <= square; };
  std::int64_t w = static_cast<std::int64_t>(double(kDpSipsWeightScale) / std::sqrt(double(live_cells)));
  // Ends: the double is within one of floor(S / sqrt(m)) (S / sqrt(m) <= 4096).
  while (w > 0 && !fits(w)) --w;
  // Ends: as above.
  while (fits(w + 1)) ++w;
  return w;
}

DpSipsLaw calibrate_dp_sips(double epsilon, double delta, std::int64_t groups, bool replace_one, int rounds) {
  if (!(epsilon > 0) || !(delta > 0 && delta < 1) || groups < 1 || rounds < 1 || rounds > kDpSipsMaxRounds)
    throw Error("invalid DP-SIPS budget");
  DpSipsLaw law;
  law.groups = groups;
  const double scale = double(kDpSipsWeightScale);
  law.squared_shift = (replace_one ? 2 : 1) * scale * scale;
  const double sigma2 = lattice_gaussian_sigma2(epsilon, delta / 2, law.squared_shift).to_double();
  const double shares = std::ldexp(1.0, rounds) - 1;  // sum of 2^(i-1), i = 1..T
  const double margin = 2 * (1 + std::exp(epsilon)) * double(groups) * double(rounds) / delta;
  for (int i = 0; i < rounds; ++i) {
    DpSipsRound round;
    // sigma^2 / f_i, rounded up (a larger variance only spends less).
    const double round_sigma2 = sigma2 * shares / std::ldexp(1.0, i);
    if (!(round_sigma2 < 0x1p62))
      throw OutOfRange("epsilon or delta is too small for \"dp_sips\" partition selection",
                       "A round's noise variance would be " + format_double(round_sigma2) + ".",
                       "Raise epsilon or delta, or the selection's \"budget_share\", or use fewer \"rounds\".");
    round.sigma2 = rational_at_least(round_sigma2);
    const double tau = std::ceil(std::sqrt(round.sigma2.to_double()) * std::sqrt(2 * std::log(margin)));
    if (!(tau < 0x1p62))
      throw OutOfRange("epsilon or delta is too small for \"dp_sips\" partition selection",
                       "The threshold a cell's weight would have to reach is " + format_double(tau) + ".",
                       "Raise epsilon or delta, or the selection's \"budget_share\".");
    round.threshold = std::max<std::int64_t>(1, static_cast<std::int64_t>(tau));
    law.rounds.push_back(round);
  }
  return law;
}

std::int64_t dp_sips_units_at_half(const DpSipsLaw& law) {
  const std::int64_t w = dp_sips_weight(law.groups);
  return (law.rounds.back().threshold + w - 1) / w;
}

namespace {

// The cells' weights this round: each unit's w_m on its live cells.
void weigh(const KeptCells& unit_cells, const std::vector<bool>& shown, std::vector<std::int64_t>& weight,
           const Interrupts& interrupts) {
  std::fill(weight.begin(), weight.end(), 0);
  for (std::size_t u = 0; u < unit_cells.n_units(); ++u) {
    interrupts.poll_every(u);
    std::int64_t live = 0;
    // Ends: a unit holds at most G cells.
    for (std::uint64_t j = unit_cells.start[u]; j < unit_cells.start[u + 1]; ++j)
      live += shown[unit_cells.cells[j]] ? 0 : 1;
    if (live == 0) continue;
    const std::int64_t w = dp_sips_weight(live);
    // Ends: as above.
    for (std::uint64_t j = unit_cells.start[u]; j < unit_cells.start[u + 1]; ++j)
      if (!shown[unit_cells.cells[j]]) add_to(weight[unit_cells.cells[j]], w);
  }
}

}  // namespace

std::vector<bool> dp_sips_select(const std::int64_t* units, std::size_t n, const KeptCells* unit_cells,
                                 const DpSipsLaw& law, RandomSource& rng, const Interrupts& interrupts) {
  std::vector<bool> shown(n, false);
  std::vector<std::int64_t> weight(n, 0);
  for (std::size_t i = 0; i < law.rounds.size(); ++i) {  // Ends: at most kDpSipsMaxRounds rounds.
    if (unit_cells != nullptr) {
      weigh(*unit_cells, shown, weight, interrupts);
    } else {
      for (std::size_t c = 0; c < n; ++c) {
        interrupts.poll_every(c);
        weight[c] = checked_mul(units[c], kDpSipsWeightScale);
      }
    }
    std::size_t candidates = 0;
    for (std::size_t c = 0; c < n; ++c) {
      interrupts.poll_every(c);
      candidates += (!shown[c] && units[c] > 0) ? 1 : 0;
    }
    const IndependentIntegerNoise noise(IndependentIntegerNoise::Law::DiscreteGaussian, law.rounds[i].sigma2,
                                        candidates, interrupts);
    for (std::size_t c = 0; c < n; ++c) {
      interrupts.poll_every(c);
      if (shown[c] || units[c] <= 0) continue;  // absent cells are never shown
      shown[c] = Int128(weight[c]) + noise.draw(rng) >= law.rounds[i].threshold;
    }
  }
  return shown;
}

}  // namespace invariant_dp
