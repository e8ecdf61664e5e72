// Discrete Gaussian conditioned on zero group sums; the argument for
// exactness is in conditioned_gaussian.hpp (steps 1-5 below refer to it).
#include "conditioned_gaussian.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "../errors.hpp"
#include "discrete_gaussian.hpp"
#include "klein_correction.hpp"
#include "wide_int.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {
namespace {

// Naive rejection only while its expected number of draws is at most this.
constexpr double kMaxNaiveDraws = 134217728.0;  // 2^27

// Every step's s_i^2 = sigma2 i/(i+1) is at least sigma2/2.
KleinCorrection group_step_correction(Rational sigma2) { return klein_correction_for(sigma2, 1); }

// Steps 1-4 for one group of k >= 2 cells: writes values[0..k).
void klein_group(RandomSource& rng, Rational s, const KleinCorrection& correction, std::size_t k,
                 std::vector<std::int64_t>& partial, std::int64_t* values, const Interrupts& interrupts) {
  partial.assign(k + 1, 0);  // partial[i] = z_i, z_0 = z_k = 0
  for (std::uint64_t attempt = 0;; ++attempt) {
    interrupts.poll();
    bool accepted = true;
    for (std::size_t i = k - 1; i >= 1; --i) {
      interrupts.poll_every(i);
      // c_i = i z_{i+1} / (i+1); s_i^2 = sigma2 i / (i+1).
      const std::uint64_t Q = i + 1;
      const Uint128 Sn = static_cast<Uint128>(s.num) * i, Sd = static_cast<Uint128>(s.den) * Q;
      const Int128 c_num = static_cast<Int128>(partial[i + 1]) * static_cast<Int128>(i);
      if (c_num > INT64_MAX || c_num < INT64_MIN) throw OutOfRange("conditioned gaussian partial sum is out of range");
      partial[i] = sample_discrete_gaussian_centred(rng, Sn, Sd, static_cast<std::int64_t>(c_num),
                                                    static_cast<std::int64_t>(Q));
      // The fraction of the centre, in [0, Q): R depends only on c mod 1.
      Int128 fm = c_num % static_cast<Int128>(Q);
      if (fm < 0) fm += Q;
      if (fm != 0 && !correction.coin(rng, Sn, Sd, static_cast<std::uint64_t>(fm), Q)) {
        accepted = false;
        break;
      }
    }
    if (!accepted) continue;
    for (std::size_t j = 1; j <= k; ++j) {
      const Int128 v = static_cast<Int128>(partial[j]) - partial[j - 1];  // partial[k] = 0
      values[j - 1] = checked_narrow(v, "conditioned gaussian noise out of range for bigint");
    }
    return;
  }
}

// Step 5: i.i.d. discrete Gaussians kept iff the sum is 0; writes values[0..k).
void naive_group(RandomSource& rng, Rational sigma2, std::size_t k, std::int64_t* values,
                 const Interrupts& interrupts) {
  for (std::uint64_t it = 0;; ++it) {
    Int128 sum = 0;
    for (std::size_t j = 0; j < k; ++j) {
      interrupts.poll_every(it * k + j);
      const std::int64_t x = sample_discrete_gaussian(rng, sigma2);
      values[j] = x;
      sum += x;
    }
    if (sum == 0) return;
  }
}

void check_variance(Rational sigma2) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("gaussian variance must be positive");
  check_klein_variance(sigma2);
}

}  // namespace

void sample_gaussian_zero_sum_klein(RandomSource& rng, Rational sigma2, std::size_t k, std::int64_t* z,
                                    const Interrupts& interrupts) {
  check_variance(sigma2);
  if (k < 2) throw InvalidArgument("a klein group needs at least two cells");
  const KleinCorrection correction = group_step_correction(sigma2);
  std::vector<std::int64_t> partial;
  klein_group(rng, sigma2, correction, k, partial, z, interrupts);
}

void sample_gaussian_with_zero_group_sums(RandomSource& rng, Rational sigma2, const ZeroSumPartition& groups,
                                          NoiseOutput z, const Interrupts& interrupts) {
  check_variance(sigma2);
  check_zero_sum_groups(groups, z.out, interrupts);
  if (groups.n_cells == 0) return;
  const GroupRuns runs(groups, interrupts);
  const KleinCorrection correction = group_step_correction(sigma2);
  const double sd = sigma2.to_double();
  const double loss_per_cell = correction.failure_bound();
  const auto klein_applies = [&](std::size_t k) { return static_cast<double>(k - 1) * loss_per_cell <= 0.5; };
  // Validate every group's method before drawing anything.
  for (std::size_t g = 0; g < runs.n_runs(); ++g) {
    const std::size_t k = runs.size(g);
    if (k < 2 || klein_applies(k)) continue;
    const double naive_draws = static_cast<double>(k) * std::sqrt(2 * 3.14159265358979 * (k * sd + 1));
    if (naive_draws > kMaxNaiveDraws)
      throw OutOfRange("gaussian variance is too small for a zero-sum release over so large a group",
                       "A group has " + std::to_string(k) + " cells and the variance is " +
                           std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den) + ".",
                       "Use a variance of at least 2, or smaller groups.");
  }
  std::vector<std::int64_t> values;  // a group's noise, written out once it is accepted
  std::vector<std::int64_t> partial;
  for (std::size_t g = 0; g < runs.n_runs(); ++g) {
    interrupts.poll();
    const std::size_t k = runs.size(g);
    values.assign(k, 0);
    if (k >= 2 && klein_applies(k))
      klein_group(rng, sigma2, correction, k, partial, values.data(), interrupts);
    else if (k >= 2)
      naive_group(rng, sigma2, k, values.data(), interrupts);
    for (std::size_t j = 0; j < k; ++j) z.write(runs.cell(runs.start(g) + j), values[j]);
  }
}

}  // namespace invariant_dp
