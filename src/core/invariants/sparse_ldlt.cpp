// Symbolic counting and rank-revealing sparse LDL^T (see sparse_ldlt.hpp).
// The numeric part follows the classic up-looking algorithm (row k of L is a
// sparse triangular solve over the pattern given by the elimination tree, as
// in Davis' LDL and Eigen's SimplicialLDLT). A dropped row keeps its place in
// the pattern with an all-zero column of L, which is the factor of the
// principal submatrix of the kept rows: later rows never see it again.
#include "sparse_ldlt.hpp"

#include <limits>

#include <Eigen/OrderingMethods>

#include "../leave_on_cancel.hpp"

namespace invariant_dp {
namespace detail {
namespace {

using Index = Eigen::Index;

// Elimination tree and column counts of L for the ordered symmetric pattern.
struct Symbolic {
  std::vector<Index> parent;
  std::vector<Index> column_count;
  double entries = 0;
};

// Returns false as soon as the count passes `limit`.
bool analyse(const ColSparse& permuted, double limit, Symbolic& out) {
  const Index n = permuted.cols();
  out.parent.assign(static_cast<std::size_t>(n), -1);
  out.column_count.assign(static_cast<std::size_t>(n), 0);
  std::vector<Index> tag(static_cast<std::size_t>(n), -1);
  for (Index k = 0; k < n; ++k) {
    tag[k] = k;
    for (ColSparse::InnerIterator it(permuted, k); it; ++it) {
      for (Index i = it.index(); i < k && tag[i] != k; i = out.parent[i]) {
        if (out.parent[i] == -1) out.parent[i] = k;
        tag[i] = k;
        ++out.column_count[i];  // L(k, i) != 0
        ++out.entries;
      }
    }
    if (out.entries > limit) return false;
  }
  return true;
}

// Pattern of row k of L in topological order, left in pattern[top, n).
Index row_pattern(const ColSparse& permuted, Index k, const std::vector<Index>& parent,
                  std::vector<Index>& tag, std::vector<Index>& pattern, std::vector<double>& y) {
  const Index n = permuted.cols();
  Index top = n;
  tag[k] = k;
  for (ColSparse::InnerIterator it(permuted, k); it; ++it) {
    Index i = it.index();
    if (i > k) continue;
    y[i] += it.value();
    Index length = 0;
    for (; tag[i] != k; i = parent[i]) {
      pattern[length++] = i;
      tag[i] = k;
    }
    // Ends: length falls by one a pass.
    while (length > 0) pattern[--top] = pattern[--length];
  }
  return top;
}

}  // namespace

void order_for_factoring(const ColSparse& matrix, Permutation& order, ColSparse& permuted) {
  Permutation inverse_order;
  Eigen::AMDOrdering<int>()(matrix, inverse_order);
  order = inverse_order.inverse();
  permuted = matrix.twistedBy(order);
}

bool factor_fits(const ColSparse& permuted, double max_entries, double max_work) {
  Symbolic symbolic;
  if (!analyse(permuted, max_entries, symbolic)) return false;
  double work = 0;
  for (Index count : symbolic.column_count) work += double(count) * double(count);
  return work <= max_work;
}

std::vector<bool> independent_pivots(const ColSparse& permuted, double relative_tolerance,
                                     const Interrupts& interrupts) {
  const Index n = permuted.cols();
  Symbolic symbolic;
  analyse(permuted, std::numeric_limits<double>::infinity(), symbolic);
  std::vector<Index> start(static_cast<std::size_t>(n) + 1, 0), filled(static_cast<std::size_t>(n), 0);
  for (Index j = 0; j < n; ++j) start[j + 1] = start[j] + symbolic.column_count[j];
  std::vector<Index> rows(static_cast<std::size_t>(start[n])), tag(static_cast<std::size_t>(n), -1),
      pattern(static_cast<std::size_t>(n));
  std::vector<double> values(static_cast<std::size_t>(start[n])), y(static_cast<std::size_t>(n), 0.0),
      pivot(static_cast<std::size_t>(n), 1.0);
  std::vector<bool> independent(static_cast<std::size_t>(n), true);
  for (Index k = 0; k < n; ++k) {
    interrupts.poll();  // rows can be long: one check per row is cheap
    Index top = row_pattern(permuted, k, symbolic.parent, tag, pattern, y);
    const double diagonal = y[k];
    double d = y[k];
    y[k] = 0.0;
    for (; top < n; ++top) {
      const Index i = pattern[top];
      const double yi = y[i];
      y[i] = 0.0;
      const double l_ki = independent[i] ? yi / pivot[i] : 0.0;
      for (Index p = start[i]; p < start[i] + filled[i]; ++p) y[rows[p]] -= values[p] * yi;
      d -= l_ki * yi;
      rows[start[i] + filled[i]] = k;
      values[start[i] + filled[i]++] = l_ki;
    }
    if (d <= relative_tolerance * diagonal) {
      independent[k] = false;
    } else {
      pivot[k] = d;
    }
  }
  return independent;
}

std::shared_ptr<const LdltFactor> factor_leaving_on_cancel(const ColSparse& permuted, const Interrupts& interrupts) {
  auto input = std::make_shared<const ColSparse>(permuted);
  auto factor = std::make_shared<LdltFactor>();
  run_leaving_on_cancel([input, factor] { factor->compute(*input); }, interrupts);
  return factor;
}

}  // namespace detail
}  // namespace invariant_dp
