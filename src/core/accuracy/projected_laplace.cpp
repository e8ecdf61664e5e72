// Linear functionals of projected continuous Laplace noise
// (projected_laplace.hpp; DERIVATIONS.md, section 18).
#include "projected_laplace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "table_functional.hpp"

namespace invariant_dp::accuracy {
namespace {

constexpr double kMaxWeight = 0x1p40;
// Sizes of a general form's projection below this share of the largest
// are its rounding of a 0.
constexpr double kSolveRounding = 1e-12;

// Sorted sizes, equal ones merged into one term.
std::vector<LaplaceTerm> merged(std::vector<double> sizes, const Interrupts& interrupts) {
  polled_sort(sizes.begin(), sizes.end(), interrupts);
  std::vector<LaplaceTerm> out;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    interrupts.poll_every(k);
    if (sizes[k] == 0) continue;
    if (!out.empty() && out.back().weight == sizes[k])
      out.back().count += 1;
    else
      out.push_back({sizes[k], 1});
  }
  return out;
}

// A table's (or group's) prod n_k Pi_b w, exactly: centring along an axis
// of n levels is V <- n V - (the line's sum), in integers. Nothing when an
// integer could pass 2^62 (|V| grows at most 2n times an axis).
std::optional<std::vector<std::int64_t>> scaled_projection(const std::vector<std::size_t>& shape,
                                                           std::vector<std::int64_t> v, std::int64_t largest,
                                                           const Interrupts& interrupts) {
  double bits = std::log2(double(std::max<std::int64_t>(largest, 1)));
  for (const std::size_t n : shape) bits += std::log2(2 * double(n));
  if (!(bits < 62)) return std::nullopt;
  centred_numerators(shape, v, interrupts);
  return v;
}

}  // namespace

std::optional<std::vector<LaplaceTerm>> projected_weights(const ProjectorForm& form, const CellQuery& query,
                                                          const Interrupts& interrupts) {
  const std::string structure = form.structure();
  std::vector<double> sizes;
  if (structure == "none") {
    for (std::size_t k = 0; k < query.size(); ++k) {
      interrupts.poll_every(k);
      sizes.push_back(std::fabs(query.weights[k]));
    }
    return merged(std::move(sizes), interrupts);
  }
  if (structure == "general") {
    const std::vector<double> v = form.projection(query, interrupts);
    double largest = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      interrupts.poll_every(i);
      largest = std::max(largest, std::fabs(v[i]));
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      interrupts.poll_every(i);
      if (std::fabs(v[i]) > kSolveRounding * largest) sizes.push_back(std::fabs(v[i]));
    }
    return merged(std::move(sizes), interrupts);
  }
  // Partitions and tables: block by block, each dense.
  std::map<std::uint32_t, std::vector<std::pair<std::size_t, std::int64_t>>> by_block;
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    const double w = query.weights[k];
    if (!(std::fabs(w) <= kMaxWeight) || w != std::floor(w)) return std::nullopt;
    by_block[form.block_of(query.cells[k])].emplace_back(form.position_in_block(query.cells[k]),
                                                         static_cast<std::int64_t>(w));
  }
  for (const auto& [block, cells] : by_block) {
    const std::vector<std::size_t> shape = form.block_shape(block);
    if (shape_pinned(shape)) continue;  // Pi_b = 0: every cell fixed
    double n_cells = 1;
    for (const std::size_t n : shape) n_cells *= double(n);
    if (n_cells > double(kMaxFunctionalCells)) return std::nullopt;
    std::vector<std::int64_t> dense(static_cast<std::size_t>(n_cells), 0);
    std::int64_t largest = 0;
    for (const auto& [position, w] : cells) {
      dense[position] += w;
      largest = std::max(largest, std::int64_t(std::llabs(dense[position])));
    }
    const std::optional<std::vector<std::int64_t>> v = scaled_projection(shape, std::move(dense), largest, interrupts);
    if (!v) return std::nullopt;
    for (std::size_t i = 0; i < v->size(); ++i) {
      interrupts.poll_every(i);
      if ((*v)[i] != 0) sizes.push_back(double(std::llabs((*v)[i])) / n_cells);
    }
  }
  return merged(std::move(sizes), interrupts);
}

std::vector<LaplaceTerm> cell_projected_weights(const std::vector<std::size_t>& shape) {
  // The other cell shares the cell's level on the axes of a subset S:
  // weight prod_{k in S} (1 - 1/n_k) prod_{k not in S} 1/n_k, carried by
  // prod_{k not in S} (n_k - 1) cells.
  if (shape.size() > 20) throw TooLarge("a table of more than 20 axes has no cell weights here");
  std::vector<LaplaceTerm> out;
  for (std::uint32_t subset = 0; subset < (1u << shape.size()); ++subset) {
    double weight = 1, count = 1;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      const double n = double(shape[k]);
      if (subset & (1u << k)) {
        weight *= 1 - 1 / n;
      } else {
        weight /= n;
        count *= n - 1;
      }
    }
    if (count > 0 && weight > 0) out.push_back({weight, count});
  }
  return out;
}

std::optional<MarginOfError> projected_laplace_margin(const ProjectorForm& form, double b, const CellQuery& query,
                                                      double level, const Interrupts& interrupts) {
  try {
    const std::optional<std::vector<LaplaceTerm>> terms = projected_weights(form, query, interrupts);
    if (!terms || terms->empty()) return std::nullopt;
    const RealQuantile q = laplace_combination_quantile(b, *terms, level, interrupts);
    MarginOfError out;
    out.tail = SumTail::law_quantile;
    out.half_width = q.half_width;
    out.kind = q.exact ? Exactness::exact : Exactness::certified;
    out.method = q.exact ? "exact: the quantile of the sum's law (a combination of independent Laplace variables, "
                           "by its Fourier series)"
                         : "certified: a covering quantile of the sum's law (a combination of independent Laplace "
                           "variables, by its Fourier series)";
    return out;
  } catch (const TooLarge&) {
    return std::nullopt;  // past the law's work limit: the variance's tail bound
  }
}

}  // namespace invariant_dp::accuracy
