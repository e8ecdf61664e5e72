// Functionals of the lattice Gaussian on general margins
// (general_lattice_functional.hpp; DERIVATIONS.md, section 13).
#include "general_lattice_functional.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <unordered_map>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "kernel_lengths.hpp"

namespace invariant_dp::accuracy {
namespace {

// The functional's values on the basis stay well inside an int64, so that
// kernel_vector_length2's products of two of them are exact in a double's
// range of use.
constexpr std::int64_t kMaxBasisValue = std::int64_t(1) << 62;
constexpr std::int64_t kMaxFunctionalWeight = std::int64_t(1) << 40;
// Basis entries past this (never seen on margins' 0/1 rows, whose reduced
// bases have entries of a few units) keep the caller's tail bound, so that
// a weight times an entry, summed over every entry, stays inside 128 bits.
constexpr std::int64_t kMaxEntry = std::int64_t(1) << 40;
// A query's products (vector, weight x entry) are held at once, 32 bytes
// each: past this many (128 MB) it keeps the caller's tail bound.
constexpr std::size_t kMaxTouchedEntries = std::size_t(1) << 22;

// <x, y> of two sparse vectors (indices increasing).
double inner_product(const LatticeVector& x, const LatticeVector& y) {
  double sum = 0;
  std::size_t i = 0, j = 0;
  // Ends: every pass advances i or j.
  while (i < x.index.size() && j < y.index.size()) {
    if (x.index[i] < y.index[j]) {
      ++i;
    } else if (y.index[j] < x.index[i]) {
      ++j;
    } else {
      sum += double(x.value[i++]) * double(y.value[j++]);
    }
  }
  return sum;
}

int length_class(double length2) { return static_cast<int>(std::ceil(std::log2(length2) * 16 + 1e-9)); }

}  // namespace

GeneralLatticeFunctionals::GeneralLatticeFunctionals(std::shared_ptr<const LatticeBasis> basis,
                                                     const Interrupts& interrupts)
    : basis_(std::move(basis)), vectors_(basis_->columns) {
  const std::size_t dimension = basis_->dimension;
  length2_.resize(vectors_.size());
  first_of_cell_.assign(dimension + 1, 0);
  for (std::size_t j = 0; j < vectors_.size(); ++j) {
    interrupts.poll_every(j);
    double norm2 = 0;
    for (std::size_t k = 0; k < vectors_[j].index.size(); ++k) {
      norm2 += double(vectors_[j].value[k]) * double(vectors_[j].value[k]);
      largest_entry_ = std::max<std::uint64_t>(largest_entry_, std::uint64_t(std::llabs(vectors_[j].value[k])));
      ++first_of_cell_[vectors_[j].index[k] + 1];
    }
    length2_[j] = norm2;
    length_classes_[length_class(norm2)] += 1;
  }
  for (std::size_t c = 0; c < dimension; ++c) first_of_cell_[c + 1] += first_of_cell_[c];
  entries_.resize(first_of_cell_[dimension]);
  std::vector<std::size_t> next(first_of_cell_.begin(), first_of_cell_.end() - 1);
  for (std::size_t j = 0; j < vectors_.size(); ++j) {
    interrupts.poll_every(j);
    for (std::size_t k = 0; k < vectors_[j].index.size(); ++k)
      entries_[next[vectors_[j].index[k]]++] = {static_cast<std::uint32_t>(j), vectors_[j].value[k]};
  }
}

double GeneralLatticeFunctionals::basis_log_excess(Rational sigma2, const Interrupts& interrupts) const {
  if (excess_sigma2_.num == sigma2.num && excess_sigma2_.den == sigma2.den) return excess_;
  // A class k holds vectors of |b|^2 <= 2^(k/16): conditional variances
  // sigma2 / |b|^2 >= sigma2 2^(-k/16), taken a little smaller for the
  // roundings.
  const double s2 = sigma2.to_double();
  double total = 0;
  for (const auto& [k, count] : length_classes_) {
    interrupts.poll();
    total += log_excess_at_least(s2 * std::exp2(-double(k) / 16) * (1 - 1e-12), count);
  }
  excess_sigma2_ = sigma2;
  excess_ = total;
  return total;
}

StepFunctional GeneralLatticeFunctionals::functional(Rational sigma2,
                                                     const std::vector<std::pair<std::uint32_t, std::int64_t>>& cells,
                                                     double variance, const Interrupts& interrupts) const {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("a lattice Gaussian needs a positive variance");
  // a_j = w^T b_j over the vectors the query's cells touch, in 128 bits;
  // their number checked before anything is held.
  if (largest_entry_ > std::uint64_t(kMaxEntry))
    throw TooLarge("the lattice's basis has entries too large for the tilted Gaussian bound");
  std::size_t n_touched = 0;
  for (std::size_t k = 0; k < cells.size(); ++k) {
    interrupts.poll_every(k);
    const auto& [cell, w] = cells[k];
    if (cell >= basis_->dimension) throw InvalidArgument("a functional's cell is not one of the lattice's");
    if (std::llabs(w) > kMaxFunctionalWeight) throw InvalidArgument("a lattice functional's weights are at most 2^40");
    n_touched += first_of_cell_[cell + 1] - first_of_cell_[cell];
  }
  if (n_touched > kMaxTouchedEntries)
    throw TooLarge("the sum touches too much of the lattice's basis for the tilted Gaussian bound");
  std::vector<std::pair<std::uint32_t, __int128>> touched;
  touched.reserve(n_touched);
  for (std::size_t k = 0; k < cells.size(); ++k) {
    interrupts.poll_every(k);
    const auto& [cell, w] = cells[k];
    for (std::size_t e = first_of_cell_[cell]; e < first_of_cell_[cell + 1]; ++e)
      touched.emplace_back(entries_[e].first, static_cast<__int128>(w) * entries_[e].second);
  }
  polled_sort(
      touched.begin(), touched.end(), [](const auto& x, const auto& y) { return x.first < y.first; }, interrupts);
  std::vector<std::pair<std::uint32_t, std::int64_t>> changed;  // (j, a_j != 0), j increasing
  for (std::size_t k = 0; k < touched.size();) {
    interrupts.poll_every(k);
    __int128 a = 0;
    std::size_t next = k;
    // Ends: next walks the entries of one vector.
    for (; next < touched.size() && touched[next].first == touched[k].first; ++next) a += touched[next].second;
    if (a >= kMaxBasisValue || a <= -kMaxBasisValue)
      throw TooLarge("the functional is too large on the lattice's basis for the tilted Gaussian bound");
    if (a != 0) changed.emplace_back(touched[k].first, static_cast<std::int64_t>(a));
    k = next;
  }
  StepFunctional out;
  if (changed.empty()) return out;  // X is 0 on the lattice: a function of the margins
  // The step and the pivot: the smallest |a|, of the fewest entries.
  std::size_t pivot = 0;
  for (std::size_t k = 0; k < changed.size(); ++k) {
    interrupts.poll_every(k);
    const auto size = static_cast<std::uint64_t>(std::llabs(changed[k].second));
    out.step = std::gcd(out.step, size);
    const auto pivot_size = static_cast<std::uint64_t>(std::llabs(changed[pivot].second));
    if (size < pivot_size ||
        (size == pivot_size && vectors_[changed[k].first].index.size() < vectors_[changed[pivot].first].index.size()))
      pivot = k;
  }
  const double s2 = sigma2.to_double();
  const std::uint32_t p = changed[pivot].first;
  const std::int64_t a_p = changed[pivot].second;
  // The replacements: (a_P b_j - a_j P) / gcd or, when shorter, b_j minus
  // the last earlier vector of the same value (sums of many cells of one
  // weight change many vectors by equal values). Each is b_j plus earlier
  // vectors and P: the set stays of full rank.
  KernelLengths lengths;
  std::unordered_map<std::int64_t, std::uint32_t> last_of_value;  // a -> the last vector seen with it
  last_of_value[a_p] = p;
  for (std::size_t k = 0; k < changed.size(); ++k) {
    interrupts.poll_every(k);
    if (k == pivot) continue;
    const auto [j, a_j] = changed[k];
    const double with_pivot = kernel_vector_length2(a_p, a_j, length2_[j] / s2, length2_[p] / s2,
                                                    inner_product(vectors_[j], vectors_[p]) / s2);
    const auto seen = last_of_value.find(a_j);
    if (seen == last_of_value.end()) {
      lengths.add(with_pivot);
      last_of_value.emplace(a_j, j);
      continue;
    }
    const double sum = (length2_[j] + length2_[seen->second]) / s2;
    const double with_last = sum - 2 * inner_product(vectors_[j], vectors_[seen->second]) / s2 + 1e-12 * sum;
    lengths.add(std::min(with_pivot, with_last));
    seen->second = j;
  }
  const double step = double(out.step);
  out.unit.variance = variance / (step * step);
  out.unit.log_excess = basis_log_excess(sigma2, interrupts) + lengths.log_excess(interrupts);
  return out;
}

}  // namespace invariant_dp::accuracy
