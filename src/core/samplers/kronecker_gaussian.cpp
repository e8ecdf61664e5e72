// The exact lattice Gaussian of a table with all (K-1)-way margins; the argument is in
// kronecker_gaussian.hpp (steps 1-4 below refer to it).
#include "kronecker_gaussian.hpp"

#include <string>
#include <vector>

#include "../errors.hpp"
#include "discrete_gaussian.hpp"
#include "klein_correction.hpp"
#include "wide_int.hpp"

namespace invariant_dp {
namespace {

// Strides of the row-major layouts: cells (shape n_k) and coordinates
// (shape n_k - 1).
struct Layout {
  std::vector<std::size_t> shape;
  std::vector<std::size_t> cell_stride, coord_stride;
  std::size_t cells = 1, coords = 1;

  explicit Layout(const std::vector<std::size_t>& dims) : shape(dims) {
    const std::size_t K = dims.size();
    cell_stride.assign(K, 1);
    coord_stride.assign(K, 1);
    for (std::size_t k = K; k-- > 0;) {
      cell_stride[k] = cells;
      coord_stride[k] = coords;
      cells *= dims[k];
      coords *= dims[k] - 1;
    }
  }
};

// The multi-index of a row-major position.
void unpack(std::size_t position, const std::vector<std::size_t>& stride, std::vector<std::size_t>& index) {
  for (std::size_t k = 0; k < stride.size(); ++k) {
    index[k] = position / stride[k];
    position %= stride[k];
  }
}

// Every s_i^2 = sigma2 prod_k i_k/(i_k + 1) is at least sigma2 / 2^K.
KleinCorrection kronecker_step_correction(Rational sigma2, std::size_t K) {
  return klein_correction_for(sigma2, static_cast<unsigned>(K));
}

void check_kronecker_arguments(Rational sigma2, const std::vector<std::size_t>& shape, const std::int64_t* z) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("gaussian variance must be positive");
  if (shape.size() < 2 || shape.size() > kMaxTableDimensions)
    throw InvalidArgument("a table lattice needs two to " + std::to_string(kMaxTableDimensions) + " dimensions");
  double cells = 1;
  for (std::size_t n : shape) {
    if (n < 2) throw InvalidArgument("every dimension of a table lattice needs at least two levels");
    cells *= double(n);
  }
  if (cells > double(std::size_t(1) << 32)) throw OutOfRange("too many cells for the table lattice sampler");
  if (z == nullptr) throw InvalidArgument("the noise buffer must not be null");
  check_klein_variance(sigma2);
}

// Step 3 once: fills y (coordinates, row-major over shape n_k - 1); false
// when a correction coin rejects (only with a correction).
bool klein_attempt(RandomSource& rng, Rational sigma2, const Layout& layout, const KleinCorrection* correction,
                   std::vector<std::int64_t>& y, const Interrupts& interrupts) {
  const std::size_t K = layout.shape.size();
  std::vector<std::size_t> a(K);
  for (std::size_t t = layout.coords; t-- > 0;) {
    interrupts.poll_every(t);
    unpack(t, layout.coord_stride, a);
    // c = sum over nonempty S of (-1)^(|S|+1) prod_{k in S} i_k prod_{k not in S} (i_k + 1) y_{a + 1_S} / Q,
    // Q = prod (i_k + 1), i_k = a_k + 1; y beyond the last coordinate is 0.
    Int128 c_num = 0;
    Uint128 Q = 1, product_i = 1;
    for (std::size_t k = 0; k < K; ++k) {
      Q *= a[k] + 2;
      product_i *= a[k] + 1;
    }
    for (std::size_t S = 1; S < (std::size_t(1) << K); ++S) {
      std::size_t index = t;
      Uint128 weight = 1;
      bool inside = true;
      for (std::size_t k = 0; k < K; ++k) {
        if (S >> k & 1) {
          if (a[k] + 2 >= layout.shape[k]) inside = false;
          index += layout.coord_stride[k];
          weight *= a[k] + 1;
        } else {
          weight *= a[k] + 2;
        }
      }
      if (!inside) continue;
      const Int128 term = static_cast<Int128>(weight) * y[index];
      c_num += __builtin_popcountll(S) % 2 == 1 ? term : -term;
    }
    if (c_num > INT64_MAX || c_num < INT64_MIN) throw OutOfRange("table lattice prefix sum is out of range");
    const Uint128 Sn = static_cast<Uint128>(sigma2.num) * product_i, Sd = static_cast<Uint128>(sigma2.den) * Q;
    y[t] = sample_discrete_gaussian_centred(rng, Sn, Sd, static_cast<std::int64_t>(c_num),
                                            static_cast<std::int64_t>(Q));
    if (correction == nullptr) continue;
    Int128 f = c_num % static_cast<Int128>(Q);  // R depends only on c mod 1
    if (f < 0) f += static_cast<Int128>(Q);
    if (f != 0 && !correction->coin(rng, Sn, Sd, static_cast<std::uint64_t>(f), static_cast<std::uint64_t>(Q)))
      return false;
  }
  return true;
}

// Step 1: Z_a = sum over T of (-1)^|T| y_{a - 1_T} (y = 0 off its range).
void table_from_coordinates(const std::vector<std::int64_t>& y, const Layout& layout, std::int64_t* z,
                            const Interrupts& interrupts) {
  const std::size_t K = layout.shape.size();
  std::vector<std::size_t> a(K);
  for (std::size_t cell = 0; cell < layout.cells; ++cell) {
    interrupts.poll_every(cell);
    unpack(cell, layout.cell_stride, a);
    Int128 v = 0;
    for (std::size_t T = 0; T < (std::size_t(1) << K); ++T) {
      std::size_t index = 0;
      bool inside = true;
      for (std::size_t k = 0; k < K && inside; ++k) {
        const bool shifted = (T >> k & 1) != 0;
        if (shifted && a[k] == 0) {
          inside = false;
        } else {
          const std::size_t b = shifted ? a[k] - 1 : a[k];
          inside = b + 1 < layout.shape[k];
          index += b * layout.coord_stride[k];
        }
      }
      if (inside) v += __builtin_popcountll(T) % 2 == 0 ? Int128(y[index]) : -Int128(y[index]);
    }
    z[cell] = checked_narrow(v, "lattice gaussian noise out of range for bigint");
  }
}

}  // namespace

bool table_lattice_gaussian_applies(Rational sigma2, const std::vector<std::size_t>& shape) {
  if (sigma2.num == 0 || sigma2.den == 0 || shape.size() < 2 || shape.size() > kMaxTableDimensions) return false;
  double coordinates = 1;
  for (std::size_t n : shape) {
    if (n < 2) return false;
    coordinates *= double(n - 1);
  }
  return coordinates * kronecker_step_correction(sigma2, shape.size()).failure_bound() <= 0.5;
}

void sample_table_lattice_gaussian(RandomSource& rng, Rational sigma2, const std::vector<std::size_t>& shape,
                                   std::int64_t* z, const Interrupts& interrupts) {
  check_kronecker_arguments(sigma2, shape, z);
  if (!table_lattice_gaussian_applies(sigma2, shape))
    throw OutOfRange("gaussian variance is too small for the exact table lattice sampler at this size",
                     "The variance is " + std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den) + ".");
  const Layout layout(shape);
  const KleinCorrection correction = kronecker_step_correction(sigma2, shape.size());
  std::vector<std::int64_t> y(layout.coords);
  while (!klein_attempt(rng, sigma2, layout, &correction, y, interrupts)) interrupts.poll();
  table_from_coordinates(y, layout, z, interrupts);
}

void sample_table_klein_uncorrected(RandomSource& rng, Rational sigma2, const std::vector<std::size_t>& shape,
                                    std::int64_t* z, const Interrupts& interrupts) {
  check_kronecker_arguments(sigma2, shape, z);
  const Layout layout(shape);
  std::vector<std::int64_t> y(layout.coords);
  klein_attempt(rng, sigma2, layout, nullptr, y, interrupts);
  table_from_coordinates(y, layout, z, interrupts);
}

}  // namespace invariant_dp
