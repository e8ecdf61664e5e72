// Exact l1 noise on small two-way tables with both margins by rejection
// over lines: the exact oracle of the statistical tests (the table chain
// and the exact two- and three-line samplers are checked against it), and
// an exact sampler for any table small enough. Target, with b = num/den:
//
//   P(Z)  proportional to  exp(-||Z||_1 / b)  on
//   L = {Z in Z^{r x c} : every row and every column of Z sums to 0},
//
// the l1 law of integer_laplace (Dharangutte, Gao, Gong, Yu 2023,
// arXiv:2212.00936, Definition 9), i.e. i.i.d. discrete Laplace cells
// conditioned on the margins; that paper samples it by MCMC and names exact
// rejection as the way out (Section 6).
//
// Sampler. Lines are the table's rows or its columns, whichever are
// shorter: m lines of length l <= m. One trial draws lines 1 .. m-1, each
// i.i.d. discrete Laplace conditioned on a zero line sum (the exact group
// sampler of conditioned_laplace.hpp), sets line m to minus their
// position-wise sum (so every position sums to 0, and line m to 0 too), and
// accepts with probability exp(-||line m||_1 / b) (an exact
// Bernoulli(exp(-rational)), bernoulli_exp.hpp); else a new trial.
// Exactness: a trial returns Z in L with probability
//   prod_{i<m} [exp(-||Z_i||_1/b) / Z_l] * exp(-||Z_m||_1/b)
//   = exp(-||Z||_1/b) / Z_l^(m-1),
// Z_l the normaliser of a zero-sum line, and nothing outside L: the law of
// the returned Z is the target. It is rejection by lines with the last
// line summed out: drawing line m as well and accepting when every
// position sums to 0 returns the same law, with acceptance smaller by
// P(line = 0) = 1/Z_l.
//
// Acceptance. A trial is accepted with probability
//   A = E[exp(-||S||_1/b)] = Z_l P(S' = 0),
// S the sum of m-1 independent lines, S' of m. It is estimated (not
// bounded) by the local limit theorem on the lattice {x in Z^l : sum x = 0}
// (covolume sqrt l): a line has covariance v l/(l-1) (I - J/l) with v the
// exact conditioned variance of a cell (conditioned_laplace_variance.hpp),
//   P(S' = 0) ~ sqrt(l) (2 pi m v l/(l-1))^(-(l-1)/2),
// and Z_l = 1/P(line = 0) = q_l / p0^l exactly up to summation, p0 =
// (1-a)/(1+a) the mass of a discrete Laplace at 0, q_l that of a sum of l
// of them at 0. The estimate tends to be low (the law of S' is more peaked
// than a Gaussian): measured acceptance / estimate is 0.89 to 2.7 on 2 x 2
// to 5 x 5 for b = 1/2 to 4 (stat_row_rejection_table.cpp checks it is at
// least 1/2 there). The cost grows like (m b^2)^((l-1)/2): about 1,400
// cells (70 trials, 0.2 ms) a draw at 5 x 5, b = 1; 10 x 10 at b = 4 is
// refused.
//
// Refusal and bounds. A table whose estimated cells drawn,
// (m-1) l / A, exceed kMaxRowRejectionCells is refused (OutOfRange) before
// anything is drawn. A draw takes at most ceil(64/A) + 64 trials and then
// fails (OutOfRange) rather than loop on; a returned draw is exact either
// way (trials are independent, so the first accepted one has the target
// law whatever its index). With A at least half its estimate the failure
// probability is below e^-32. Every trial polls the interrupts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "conditioned_laplace.hpp"
#include "rational.hpp"

namespace invariant_dp {

constexpr double kMaxRowRejectionCells = 67108864;  // 2^26: a few seconds

// The estimated acceptance A of one trial (above), in (0, 1]; 1 for a
// pinned table (a dimension below 2). InvalidArgument for a zero scale.
double row_rejection_acceptance(Rational scale, std::size_t rows, std::size_t columns);

// Cells drawn per table on average by the estimate: (m-1) l / A.
double row_rejection_expected_cells(Rational scale, std::size_t rows, std::size_t columns);

// Draws of one table shape at one scale, the line sampler and the estimate
// made once (its squeeze costs about a millisecond: for a single draw use
// the function below).
class RowRejectionSampler {
 public:
  // InvalidArgument for a zero scale; OutOfRange when the estimated cost
  // exceeds kMaxRowRejectionCells.
  RowRejectionSampler(Rational scale, std::size_t rows, std::size_t columns);
  ~RowRejectionSampler();

  double acceptance() const { return acceptance_; }

  // Row-major z[0 .. rows * columns). InvalidArgument for a null z;
  // OutOfRange when a draw exhausts its trials or overflows; Interrupted
  // on cancel. trials, when given, is increased by the trials made.
  void sample(RandomSource& rng, std::int64_t* z, const Interrupts& interrupts, std::uint64_t* trials = nullptr);

 private:
  Rational scale_;
  std::size_t rows_, columns_;
  std::size_t length_ = 0, count_ = 0;  // the lines: count_ lines of length_ <= count_
  bool lines_are_rows_ = true;
  double acceptance_ = 1;
  double cap_ = 0;  // trials before a draw fails
  std::unique_ptr<ZeroSumGroupSampler> line_sampler_;
  std::vector<std::int64_t> last_;
};

// One table with a sampler of its own (as above).
void sample_table_laplace_by_row_rejection(RandomSource& rng, Rational scale, std::size_t rows, std::size_t columns,
                                           std::int64_t* z, const Interrupts& interrupts,
                                           std::uint64_t* trials = nullptr);

}  // namespace invariant_dp
