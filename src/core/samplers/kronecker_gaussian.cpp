// The exact two-way lattice Gaussian; the argument is in
// kronecker_gaussian.hpp (steps 1-4 below refer to it).
#include "kronecker_gaussian.hpp"

#include <string>
#include <vector>

#include "../errors.hpp"
#include "conditioned_gaussian.hpp"
#include "klein_correction.hpp"

namespace invariant_dp {
namespace {

using u128 = Uint128;
__extension__ typedef __int128 i128;

// Every s_ij^2 = sigma2 a_i b_j is at least sigma2/4 (step 2).
KleinCorrection smallest_step_correction(Rational sigma2) {
  return KleinCorrection(static_cast<u128>(sigma2.num), static_cast<u128>(sigma2.den) * 4);
}

void check_arguments(Rational sigma2, std::size_t rows, std::size_t cols, const std::int64_t* z) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("gaussian variance must be positive");
  if (rows < 2 || cols < 2) throw InvalidArgument("a two-way lattice needs at least two rows and two columns");
  if (z == nullptr) throw InvalidArgument("the noise buffer must not be null");
  if (rows > (std::size_t(1) << 24) || cols > (std::size_t(1) << 24))
    throw OutOfRange("too many rows or columns for the two-way lattice sampler");
}

// Step 3 once: fills y ((rows-1) x (cols-1), row-major); false when a
// correction coin rejects (only when `correct`).
bool klein_attempt(RandomSource& rng, Rational sigma2, std::size_t rows, std::size_t cols,
                   const KleinCorrection* correction, std::vector<std::int64_t>& y, const Interrupts& interrupts) {
  const std::size_t m = rows - 1, n = cols - 1;
  auto at = [&](std::size_t a, std::size_t b) -> std::int64_t { return a < m && b < n ? y[a * n + b] : 0; };
  std::uint64_t step = 0;
  for (std::size_t a = m; a-- > 0;)
    for (std::size_t b = n; b-- > 0;) {
      interrupts.poll_every(step++);
      const u128 i = a + 1, j = b + 1;
      // c = (i (j+1) y_{i+1,j} + j (i+1) y_{i,j+1} - i j y_{i+1,j+1}) / ((i+1)(j+1))
      const i128 c_num = static_cast<i128>(i * (j + 1)) * at(a + 1, b) +
                         static_cast<i128>(j * (i + 1)) * at(a, b + 1) - static_cast<i128>(i * j) * at(a + 1, b + 1);
      if (c_num > INT64_MAX || c_num < INT64_MIN) throw OutOfRange("two-way lattice prefix sum is out of range");
      const u128 Q = (i + 1) * (j + 1);
      const u128 Sn = static_cast<u128>(sigma2.num) * i * j, Sd = static_cast<u128>(sigma2.den) * Q;
      y[a * n + b] = sample_discrete_gaussian_centred(rng, Sn, Sd, static_cast<std::int64_t>(c_num),
                                                      static_cast<std::int64_t>(Q));
      if (correction == nullptr) continue;
      i128 f = c_num % static_cast<i128>(Q);  // R depends only on c mod 1
      if (f < 0) f += static_cast<i128>(Q);
      if (f != 0 && !correction->coin(rng, Sn, Sd, static_cast<std::uint64_t>(f), static_cast<std::uint64_t>(Q)))
        return false;
    }
  return true;
}

// Step 1: Z_pq = y_pq - y_{p-1,q} - y_{p,q-1} + y_{p-1,q-1}.
void table_from_coordinates(const std::vector<std::int64_t>& y, std::size_t rows, std::size_t cols,
                            std::int64_t* z) {
  const std::size_t m = rows - 1, n = cols - 1;
  auto at = [&](std::size_t a, std::size_t b) -> i128 { return a < m && b < n ? y[a * n + b] : 0; };
  for (std::size_t a = 0; a < rows; ++a)
    for (std::size_t b = 0; b < cols; ++b) {
      const i128 v = at(a, b) - (a > 0 ? at(a - 1, b) : 0) - (b > 0 ? at(a, b - 1) : 0) +
                     (a > 0 && b > 0 ? at(a - 1, b - 1) : 0);
      z[a * cols + b] = static_cast<std::int64_t>(v);
    }
}

}  // namespace

bool kronecker_gaussian_applies(Rational sigma2, std::size_t rows, std::size_t cols) {
  if (sigma2.num == 0 || sigma2.den == 0 || rows < 2 || cols < 2) return false;
  const double coordinates = double(rows - 1) * double(cols - 1);
  return coordinates * smallest_step_correction(sigma2).failure_bound() <= 0.5;
}

void sample_two_way_lattice_gaussian(RandomSource& rng, Rational sigma2, std::size_t rows, std::size_t cols,
                                     std::int64_t* z, const Interrupts& interrupts) {
  check_arguments(sigma2, rows, cols, z);
  if (!kronecker_gaussian_applies(sigma2, rows, cols))
    throw OutOfRange("gaussian variance is too small for the exact two-way lattice sampler at this size",
                     "The variance is " + std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den) + " over " +
                         std::to_string(rows) + " x " + std::to_string(cols) + " cells.");
  const KleinCorrection correction = smallest_step_correction(sigma2);
  std::vector<std::int64_t> y((rows - 1) * (cols - 1));
  while (!klein_attempt(rng, sigma2, rows, cols, &correction, y, interrupts)) interrupts.poll();
  table_from_coordinates(y, rows, cols, z);
}

void sample_two_way_klein_uncorrected(RandomSource& rng, Rational sigma2, std::size_t rows, std::size_t cols,
                                      std::int64_t* z, const Interrupts& interrupts) {
  check_arguments(sigma2, rows, cols, z);
  std::vector<std::int64_t> y((rows - 1) * (cols - 1));
  klein_attempt(rng, sigma2, rows, cols, nullptr, y, interrupts);
  table_from_coordinates(y, rows, cols, z);
}

}  // namespace invariant_dp
