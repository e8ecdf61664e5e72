// Exact l1 noise on small tables by rejection over lines; the law, the
// argument for exactness and the cost are in row_rejection_table.hpp.
#include "row_rejection_table.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../errors.hpp"
#include "../math_constants.hpp"
#include "bernoulli_exp.hpp"
#include "conditioned_laplace_variance.hpp"
#include "wide_int.hpp"

namespace invariant_dp {
namespace {

constexpr double kCapFactor = 64;

struct Lines {
  std::size_t length = 0, count = 0;  // l <= m
  bool rows = true;                   // the lines are the rows
};

Lines lines_of(std::size_t rows, std::size_t columns) {
  return columns <= rows ? Lines{columns, rows, true} : Lines{rows, columns, false};
}

// log q_l, q_l = P(a sum of l i.i.d. discrete Laplace is 0)
// = (1-a)^(2l) sum_n C(n+l-1, l-1)^2 a^(2n) (equal totals of two sums of l
// geometric variables), summed from the mode outwards until the terms fall
// below e^-40 of the largest; the local limit theorem when that would take
// more than a million terms (scales far beyond the oracle's range).
double log_zero_sum_mass(double a, double log_a, double log1m_a, std::size_t l) {
  const double k = double(l);
  const double variance = 2 * a / ((1 - a) * (1 - a));
  const double spread = std::sqrt(k * variance) + 1;
  if (spread > 1e5) return -0.5 * std::log(2 * kPi * k * variance);
  const auto log_term = [&](double n) {
    return 2 * (std::lgamma(n + k) - std::lgamma(n + 1) - std::lgamma(k)) + 2 * n * log_a;
  };
  const double mode = std::max(0.0, std::floor((k * a - 1) / (1 - a)));
  const double top = log_term(mode);
  double sum = 0;
  // Ends: the spread is at most 1e5 here (above), so about 9 spreads, a million terms, and the mode below 2^53.
  for (double n = mode; n >= 0 && log_term(n) > top - 40; --n) sum += std::exp(log_term(n) - top);
  for (double n = mode + 1; log_term(n) > top - 40; ++n) sum += std::exp(log_term(n) - top);
  return 2 * k * log1m_a + top + std::log(sum);
}

void check_row_scale(Rational scale) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("laplace scale must be positive");
}

}  // namespace

double row_rejection_acceptance(Rational scale, std::size_t rows, std::size_t columns) {
  check_row_scale(scale);
  const Lines lines = lines_of(rows, columns);
  if (lines.length < 2) return 1;
  const double l = double(lines.length), m = double(lines.count);
  const double inverse = double(scale.den) / double(scale.num);
  const double a = std::exp(-inverse), log1m_a = std::log(-std::expm1(-inverse));
  const double v = conditioned_laplace_variance(scale, lines.length);
  // log P(S' = 0) by the local limit theorem, log Z_l = log q_l - l log p0.
  const double log_zero_sum = 0.5 * std::log(l) - 0.5 * (l - 1) * std::log(2 * kPi * m * v * l / (l - 1));
  const double log_p0 = log1m_a - std::log1p(a);
  const double log_normaliser = log_zero_sum_mass(a, -inverse, log1m_a, lines.length) - l * log_p0;
  return std::min(1.0, std::exp(log_zero_sum + log_normaliser));
}

double row_rejection_expected_cells(Rational scale, std::size_t rows, std::size_t columns) {
  const Lines lines = lines_of(rows, columns);
  if (lines.length < 2) return 0;
  return double(lines.count - 1) * double(lines.length) / row_rejection_acceptance(scale, rows, columns);
}

RowRejectionSampler::RowRejectionSampler(Rational scale, std::size_t rows, std::size_t columns)
    : scale_(scale), rows_(rows), columns_(columns) {
  check_row_scale(scale);
  const Lines lines = lines_of(rows, columns);
  length_ = lines.length;
  count_ = lines.count;
  lines_are_rows_ = lines.rows;
  if (length_ < 2) return;  // pinned
  acceptance_ = row_rejection_acceptance(scale, rows, columns);
  const double expected_cells = double(count_ - 1) * double(length_) / acceptance_;
  if (!(expected_cells <= kMaxRowRejectionCells))
    throw OutOfRange("this table is too large for exact rejection by rows",
                     "A " + std::to_string(rows) + " x " + std::to_string(columns) +
                         " table at this scale needs about " + format_double(expected_cells) +
                         " cell draws; the limit is " + std::to_string(std::llround(kMaxRowRejectionCells)) + ".");
  cap_ = std::ceil(kCapFactor / acceptance_) + kCapFactor;
  line_sampler_ = std::make_unique<ZeroSumGroupSampler>(scale, length_, 256);
  last_.resize(length_);
}

RowRejectionSampler::~RowRejectionSampler() = default;

void RowRejectionSampler::sample(RandomSource& rng, std::int64_t* z, const Interrupts& interrupts,
                                 std::uint64_t* trials) {
  if (rows_ * columns_ > 0 && z == nullptr) throw InvalidArgument("noise output must not be null");
  if (length_ < 2) {
    std::fill(z, z + rows_ * columns_, 0);
    return;
  }
  // Line i's position t.
  const auto at = [&](std::size_t i, std::size_t t) -> std::int64_t& {
    return lines_are_rows_ ? z[i * columns_ + t] : z[t * columns_ + i];
  };
  for (double trial = 0; trial < cap_; ++trial) {
    interrupts.poll();
    if (trials != nullptr) ++*trials;
    std::fill(last_.begin(), last_.end(), 0);  // minus the position-wise sums so far
    for (std::size_t i = 0; i + 1 < count_; ++i) {
      line_sampler_->sample(rng, interrupts, [&](std::uint64_t t, std::int64_t x) {
        at(i, t) = x;
        if (__builtin_sub_overflow(last_[t], x, &last_[t])) throw OutOfRange("table noise does not fit in a bigint");
      });
    }
    Uint128 l1 = 0;
    for (std::size_t t = 0; t < length_; ++t) {
      at(count_ - 1, t) = last_[t];
      l1 += static_cast<Uint128>(last_[t] < 0 ? -static_cast<Int128>(last_[t]) : static_cast<Int128>(last_[t]));
    }
    // exp(-l1 / b) = exp(-l1 den / num), exact while l1 den < 2^128.
    if (l1 >> 63) throw OutOfRange("table noise does not fit in a bigint");
    if (sample_bernoulli_exp_neg_wide(rng, l1 * scale_.den, scale_.num)) return;
  }
  throw OutOfRange("exact rejection by rows did not accept within its trials",
                   "It tried " + std::to_string(std::llround(cap_)) + " times; the estimated acceptance is " +
                       format_double(acceptance_) + ".");
}

void sample_table_laplace_by_row_rejection(RandomSource& rng, Rational scale, std::size_t rows, std::size_t columns,
                                           std::int64_t* z, const Interrupts& interrupts, std::uint64_t* trials) {
  RowRejectionSampler(scale, rows, columns).sample(rng, z, interrupts, trials);
}

}  // namespace invariant_dp
