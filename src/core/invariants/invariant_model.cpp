// Compiling declared margins into the invariant A x = c over the cells and
// choosing the projector onto null(A) (see invariant_model.hpp).
//
// Steps: (1) each margin's groups = distinct value tuples of its columns among
// the cells (a partition of the cells); (2) redundancy by nesting: a margin
// whose partition is coarser than (or equal to) another's adds only rows that
// are sums of the finer margin's rows, so it is dropped (duplicates, the grand
// total next to any margin, {state} next to {state, county}); (3) the rest
// picks the projector: none, one partition, two margins (exact rank
// g1 + g2 - #blocks; double centring when they cross completely, else a
// dense Schur complement on the smaller margin or the sparse general
// projector), or three
// and more (rank-revealing sparse LDL^T of A A^T, then the general projector,
// verified against every dropped row).
#include "invariant_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

#include "../errors.hpp"
#include "null_projectors.hpp"

namespace invariant_dp {

using detail::Grouping;
using detail::SharedGrouping;

struct InvariantModel::Impl {
  std::size_t n_cells = 0;
  Interrupts interrupts;  // kept for project/diagonal: the shim's flag reader
  std::vector<SharedGrouping> declared;  // one per declared margin (duplicates shared)
  std::size_t n_margin_groups = 0;
  std::unique_ptr<detail::NullProjector> projector;
};

namespace {

std::string describe_margin(const CellKeys& keys, const Margin& margin) {
  if (margin.columns.empty()) return "the grand total";
  std::string out = "(";
  for (std::size_t k = 0; k < margin.columns.size(); ++k) {
    out += (k > 0 ? ", " : "") + keys.column_names()[margin.columns[k]];
  }
  return out + ")";
}

std::string describe_margins(const CellKeys& keys, const std::vector<Margin>& margins) {
  std::string out;
  for (std::size_t m = 0; m < margins.size(); ++m) {
    out += (m == 0 ? "" : m + 1 == margins.size() ? " and " : ", ") + describe_margin(keys, margins[m]);
  }
  return out;
}

// Sorted, duplicate-free column lists; out-of-range columns are a caller bug.
void normalise_margins(const CellKeys& keys, std::vector<Margin>& margins) {
  for (Margin& margin : margins) {
    for (std::size_t column : margin.columns) {
      if (column >= keys.n_columns()) {
        throw InvalidArgument("margin column index " + std::to_string(column) + " is out of range",
                              "The source has " + std::to_string(keys.n_columns()) + " key columns.");
      }
    }
    std::sort(margin.columns.begin(), margin.columns.end());
    margin.columns.erase(std::unique(margin.columns.begin(), margin.columns.end()), margin.columns.end());
  }
}

std::vector<SharedGrouping> group_margins(const CellKeys& keys, const std::vector<Margin>& margins,
                                          const Interrupts& interrupts, bool borrow_codes) {
  std::map<std::vector<std::size_t>, SharedGrouping> by_columns;
  std::vector<SharedGrouping> out;
  for (const Margin& margin : margins) {
    SharedGrouping& grouping = by_columns[margin.columns];
    if (!grouping) {
      std::vector<detail::CodeColumn> columns;
      for (std::size_t c : margin.columns) columns.push_back({keys.codes(c), keys.n_levels(c)});
      // One column's codes are its groups when they are numbered by first
      // appearance: known for the cells of a source, else checked.
      const bool codes_are_groups =
          borrow_codes && columns.size() == 1 &&
          (keys.codes_by_first_appearance() || detail::numbered_by_first_appearance(
                                                    columns[0].codes, keys.n_cells(), columns[0].n_levels, interrupts));
      grouping = std::make_shared<const Grouping>(
          codes_are_groups ? Grouping::borrowing(columns[0].codes, keys.n_cells(), columns[0].n_levels)
                           : detail::group_by_codes(keys.n_cells(), columns, interrupts));
    }
    out.push_back(grouping);
  }
  return out;
}

// True when every group of `fine` lies inside one group of `coarse`.
bool refines(const Grouping& fine, const Grouping& coarse, const Interrupts& interrupts) {
  if (fine.n_groups < coarse.n_groups) return false;
  std::vector<std::uint32_t> coarse_of_fine(fine.n_groups, UINT32_MAX);
  for (std::size_t i = 0; i < fine.n_cells(); ++i) {
    interrupts.poll_every(i);
    std::uint32_t& c = coarse_of_fine[fine.group_of_cell[i]];
    if (c == UINT32_MAX) c = coarse.group_of_cell[i];
    if (c != coarse.group_of_cell[i]) return false;
  }
  return true;
}

// The partitions that no other declared partition refines (one of each set
// of equal ones), in declaration order.
std::vector<SharedGrouping> drop_nested(const std::vector<SharedGrouping>& declared,
                                        const Interrupts& interrupts) {
  std::vector<std::size_t> order(declared.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return declared[a]->n_groups > declared[b]->n_groups;
  });
  std::vector<std::size_t> kept;
  for (std::size_t candidate : order) {
    const bool redundant = std::any_of(kept.begin(), kept.end(), [&](std::size_t k) {
      return refines(*declared[k], *declared[candidate], interrupts);
    });
    if (!redundant) kept.push_back(candidate);
  }
  std::sort(kept.begin(), kept.end());
  std::vector<SharedGrouping> out;
  for (std::size_t k : kept) out.push_back(declared[k]);
  return out;
}

InconsistentInvariants margins_pin_every_cell(const CellKeys& keys, const std::vector<Margin>& margins) {
  return InconsistentInvariants(
      "the invariants leave no cell to protect",
      std::string(margins.size() == 1 ? "The margin " : "The margins ") + describe_margins(keys, margins) +
          (margins.size() == 1 ? " fixes all " : " fix all ") + std::to_string(keys.n_cells()) +
          " cells exactly, so no noise can be added.",
      "Drop a margin, or remove a key column from one, so that some cells stay free.");
}

// Checks that Pi_N annihilates every row, including the ones the rank
// decision dropped as dependent: a wrong decision cannot go unnoticed.
void verify_null_space(const detail::RowSparse& all_rows, const detail::NullProjector& projector,
                       const Interrupts& interrupts) {
  std::mt19937_64 generator(20220202);
  std::normal_distribution<double> normal;
  std::vector<double> v(static_cast<std::size_t>(all_rows.cols()));
  for (double& x : v) x = normal(generator);
  std::vector<double> projected = v;
  projector.project(projected.data(), interrupts);
  for (Eigen::Index r = 0; r < all_rows.rows(); ++r) {
    interrupts.poll_every(static_cast<std::uint64_t>(r));
    double residual = 0, scale = 1;
    for (detail::RowSparse::InnerIterator it(all_rows, r); it; ++it) {
      residual += projected[it.index()];
      scale += std::abs(v[it.index()]);
    }
    if (std::abs(residual) > 1e-8 * scale) throw std::logic_error("invariant rank decision failed");
  }
}

std::unique_ptr<detail::NullProjector> two_margin_projector(const SharedGrouping& first,
                                                            const SharedGrouping& second,
                                                            const Interrupts& interrupts) {
  const detail::BipartiteComponents blocks = detail::bipartite_components(*first, *second, interrupts);
  const std::size_t rank = std::size_t(first->n_groups) + second->n_groups - blocks.n_components;
  if (rank >= first->n_cells()) return nullptr;
  auto two_way = detail::make_two_way_projector(first, second, blocks, interrupts);
  if (two_way) return two_way;
  auto incomplete = detail::make_incomplete_two_way_projector(first, second, blocks, interrupts);
  if (incomplete) return incomplete;
  return detail::make_sparse_projector(
      detail::two_margin_independent_rows(*first, *second, blocks, interrupts), interrupts);
}

std::unique_ptr<detail::NullProjector> many_margin_projector(const std::vector<SharedGrouping>& kept,
                                                             std::size_t n_cells,
                                                             const Interrupts& interrupts) {
  std::vector<const Grouping*> groupings;
  for (const SharedGrouping& g : kept) groupings.push_back(g.get());
  const detail::RowSparse all_rows = detail::indicator_rows(groupings, n_cells, interrupts);
  const std::vector<std::size_t> chosen = detail::select_independent_rows(all_rows, interrupts);
  if (chosen.size() >= n_cells) return nullptr;
  auto projector = detail::make_sparse_projector(detail::take_rows(all_rows, chosen), interrupts);
  verify_null_space(all_rows, *projector, interrupts);
  return projector;
}

// nullptr when the kept margins pin every cell.
std::unique_ptr<detail::NullProjector> choose_projector(const std::vector<SharedGrouping>& kept,
                                                        std::size_t n_cells,
                                                        const Interrupts& interrupts) {
  if (kept.empty()) return detail::make_identity_projector(n_cells);
  if (kept.size() == 1) {
    if (kept[0]->n_groups >= n_cells) return nullptr;
    return detail::make_partition_projector(kept[0]);
  }
  if (kept.size() == 2) return two_margin_projector(kept[0], kept[1], interrupts);
  return many_margin_projector(kept, n_cells, interrupts);
}

}  // namespace

InvariantModel::InvariantModel(const CellKeys& keys, std::vector<Margin> margins,
                               const Interrupts& interrupts, KeyCodes groups)
    : impl_(std::make_unique<Impl>()) {
  if (keys.n_cells() == 0) {
    throw InvalidData("the source returned no cells",
                      "A release needs at least one cell to add noise to.",
                      "Make the source list every cell of the domain, including empty ones.");
  }
  impl_->n_cells = keys.n_cells();
  impl_->interrupts = interrupts;
  normalise_margins(keys, margins);
  impl_->declared = group_margins(keys, margins, interrupts, groups == KeyCodes::borrowed);
  for (const SharedGrouping& g : impl_->declared) impl_->n_margin_groups += g->n_groups;
  std::optional<std::vector<LatticeTable>> cubes = detail::complete_k_way_tables(keys, margins, interrupts);
  if (cubes)
    impl_->projector = detail::make_k_way_projector(std::move(*cubes), impl_->declared);
  else
    impl_->projector = choose_projector(drop_nested(impl_->declared, interrupts), impl_->n_cells, interrupts);
  if (impl_->projector == nullptr || impl_->projector->rank() >= impl_->n_cells) {
    throw margins_pin_every_cell(keys, margins);
  }
}

InvariantModel::~InvariantModel() = default;
InvariantModel::InvariantModel(InvariantModel&&) noexcept = default;
InvariantModel& InvariantModel::operator=(InvariantModel&&) noexcept = default;

std::size_t InvariantModel::n_cells() const { return impl_->n_cells; }
std::size_t InvariantModel::rank() const { return impl_->projector->rank(); }
std::string InvariantModel::structure() const { return impl_->projector->structure(); }

void InvariantModel::project_onto_null_space(double* e) const {
  impl_->projector->project(e, impl_->interrupts);
}

std::vector<double> InvariantModel::null_projector_diagonal() const {
  return impl_->projector->diagonal(impl_->interrupts);
}

std::vector<LatticeTable> InvariantModel::lattice_tables() const {
  return impl_->projector->lattice_tables(impl_->interrupts);
}

Eigen::SparseMatrix<double, Eigen::RowMajor> InvariantModel::independent_rows() const {
  return impl_->projector->independent_rows(impl_->interrupts);
}

const std::uint32_t* InvariantModel::partition_groups() const {
  const Grouping* groups = impl_->projector->partition();
  return groups != nullptr ? groups->group_of_cell : nullptr;
}

std::size_t InvariantModel::n_margin_groups() const { return impl_->n_margin_groups; }

// Margin after margin in declaration order, groups in order of first
// appearance among the cells.
void InvariantModel::margin_totals(const double* values, double* out) const {
  for (const SharedGrouping& grouping : impl_->declared) {
    std::fill(out, out + grouping->n_groups, 0.0);
    for (std::size_t i = 0; i < impl_->n_cells; ++i) {
      impl_->interrupts.poll_every(i);
      out[grouping->group_of_cell[i]] += values[i];
    }
    out += grouping->n_groups;
  }
}

}  // namespace invariant_dp
