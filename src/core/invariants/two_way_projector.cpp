// Two margins (null_projectors.hpp). The groups of
// the two margins are the nodes of a bipartite graph whose edges are the
// cells; its connected components are the blocks (e.g. the buildings of the
// WiFi cube, or the single r x c table). The only linear dependency among the
// rows inside a block is sum(first-margin rows) = sum(second-margin rows), so
// rank = g1 + g2 - #blocks, exactly, whatever the crossing looks like.
//
// When every block is a complete G x H cross (each pair of a first group and
// a second group of the block holds exactly one cell) Pi_N is, per block,
// (I_G - J_G/G) (x) (I_H - J_H/H): double centring
//   e_gh - mean_g. - mean_.h + mean_..,  diagonal (1 - 1/G)(1 - 1/H).
// Incomplete crossings go to the general sparse projector instead.
#include <numeric>

#include "null_projectors.hpp"

namespace invariant_dp {
namespace detail {
namespace {

// Union-find over the g1 + g2 group nodes, with path halving.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0u);
  }
  std::uint32_t find(std::uint32_t x) {
    // Ends: union-find with path halving: parents point to smaller indices, so each pass moves x down.
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[a < b ? b : a] = a < b ? a : b;
  }

 private:
  std::vector<std::uint32_t> parent_;
};

// True when no (first group, second group) pair holds two cells and every
// block holds G x H cells, i.e. every pair of a block is present exactly once.
bool crosses_completely(const Grouping& first, const Grouping& second,
                        const BipartiteComponents& components, const Interrupts& interrupts) {
  const std::size_t n_cells = first.n_cells();
  std::vector<std::uint64_t> pair_keys(n_cells);
  for (std::size_t i = 0; i < n_cells; ++i) {
    interrupts.poll_every(i);
    pair_keys[i] = std::uint64_t(first.group_of_cell[i]) * second.n_groups + second.group_of_cell[i];
  }
  const Grouping pairs = densify_keys(pair_keys, std::uint64_t(first.n_groups) * second.n_groups, interrupts);
  if (pairs.n_groups != n_cells) return false;
  std::vector<std::uint64_t> firsts(components.n_components, 0), seconds(components.n_components, 0),
      cells(components.n_components, 0);
  for (std::uint32_t c : components.component_of_first) ++firsts[c];
  for (std::uint32_t c : components.component_of_second) ++seconds[c];
  for (std::size_t i = 0; i < first.n_cells(); ++i) ++cells[components.component_of_first[first.group_of_cell[i]]];
  for (std::uint32_t c = 0; c < components.n_components; ++c) {
    if (cells[c] != firsts[c] * seconds[c]) return false;
  }
  return true;
}

class TwoWayProjector final : public NullProjector {
 public:
  TwoWayProjector(SharedGrouping first, SharedGrouping second, BipartiteComponents components)
      : first_(std::move(first)),
        second_(std::move(second)),
        components_(std::move(components)),
        first_sizes_(group_sizes(*first_)),
        second_sizes_(group_sizes(*second_)) {
    block_sizes_.assign(components_.n_components, 0);
    for (std::size_t g = 0; g < first_sizes_.size(); ++g) {
      block_sizes_[components_.component_of_first[g]] += first_sizes_[g];
    }
  }

  const char* structure() const override { return "two_way"; }
  std::size_t rank() const override {
    return std::size_t(first_->n_groups) + second_->n_groups - components_.n_components;
  }

  void project(double* e, const Interrupts& interrupts) const override {
    std::vector<double> first_mean(first_->n_groups, 0.0), second_mean(second_->n_groups, 0.0),
        block_mean(components_.n_components, 0.0);
    const std::size_t n_cells = first_->n_cells();
    for (std::size_t i = 0; i < n_cells; ++i) {
      interrupts.poll_every(i);
      first_mean[first_->group_of_cell[i]] += e[i];
      second_mean[second_->group_of_cell[i]] += e[i];
    }
    for (std::size_t g = 0; g < first_mean.size(); ++g) {
      block_mean[components_.component_of_first[g]] += first_mean[g];
      first_mean[g] /= first_sizes_[g];
    }
    for (std::size_t h = 0; h < second_mean.size(); ++h) second_mean[h] /= second_sizes_[h];
    for (std::size_t b = 0; b < block_mean.size(); ++b) block_mean[b] /= block_sizes_[b];
    for (std::size_t i = 0; i < n_cells; ++i) {
      interrupts.poll_every(i);
      const std::uint32_t g = first_->group_of_cell[i];
      e[i] += block_mean[components_.component_of_first[g]] - first_mean[g] -
              second_mean[second_->group_of_cell[i]];
    }
  }

  // A first-margin group of a block holds H cells (one per second group), a
  // second-margin group holds G cells.
  std::vector<double> diagonal(const Interrupts& interrupts) const override {
    std::vector<double> diag(first_->n_cells());
    for (std::size_t i = 0; i < diag.size(); ++i) {
      interrupts.poll_every(i);
      const double n_seconds = first_sizes_[first_->group_of_cell[i]];
      const double n_firsts = second_sizes_[second_->group_of_cell[i]];
      diag[i] = (1.0 - 1.0 / n_firsts) * (1.0 - 1.0 / n_seconds);
    }
    return diag;
  }

  RowSparse independent_rows(const Interrupts& interrupts) const override {
    return two_margin_independent_rows(*first_, *second_, components_, interrupts);
  }

  // Each block's first groups are its rows and second groups its columns,
  // numbered within the block in group order; every (row, column) pair of a
  // block holds exactly one cell (crosses_completely).
  std::vector<LatticeTable> lattice_tables(const Interrupts& interrupts) const override {
    std::vector<LatticeTable> blocks(components_.n_components, LatticeTable{{0, 0}, {}});
    std::vector<std::size_t> row_in_block(first_->n_groups), col_in_block(second_->n_groups);
    for (std::uint32_t g = 0; g < first_->n_groups; ++g)
      row_in_block[g] = blocks[components_.component_of_first[g]].shape[0]++;
    for (std::uint32_t h = 0; h < second_->n_groups; ++h)
      col_in_block[h] = blocks[components_.component_of_second[h]].shape[1]++;
    for (LatticeTable& block : blocks) block.cells.assign(block.shape[0] * block.shape[1], 0);
    for (std::size_t i = 0; i < first_->n_cells(); ++i) {
      interrupts.poll_every(i);
      const std::uint32_t g = first_->group_of_cell[i], h = second_->group_of_cell[i];
      LatticeTable& block = blocks[components_.component_of_first[g]];
      block.cells[row_in_block[g] * block.shape[1] + col_in_block[h]] = i;
    }
    return blocks;
  }

 private:
  SharedGrouping first_, second_;
  BipartiteComponents components_;
  std::vector<std::uint32_t> first_sizes_, second_sizes_;
  std::vector<std::uint64_t> block_sizes_;
};

}  // namespace

BipartiteComponents bipartite_components(const Grouping& first, const Grouping& second,
                                         const Interrupts& interrupts) {
  DisjointSets sets(std::size_t(first.n_groups) + second.n_groups);
  for (std::size_t i = 0; i < first.n_cells(); ++i) {
    interrupts.poll_every(i);
    sets.join(first.group_of_cell[i], first.n_groups + second.group_of_cell[i]);
  }
  std::vector<std::uint32_t> root_component(std::size_t(first.n_groups) + second.n_groups, UINT32_MAX);
  BipartiteComponents out;
  auto component_of = [&](std::uint32_t node) {
    std::uint32_t& c = root_component[sets.find(node)];
    if (c == UINT32_MAX) c = out.n_components++;
    return c;
  };
  for (std::uint32_t g = 0; g < first.n_groups; ++g) out.component_of_first.push_back(component_of(g));
  for (std::uint32_t h = 0; h < second.n_groups; ++h) {
    out.component_of_second.push_back(component_of(first.n_groups + h));
  }
  return out;
}

RowSparse two_margin_independent_rows(const Grouping& first, const Grouping& second,
                                      const BipartiteComponents& components,
                                      const Interrupts& interrupts) {
  const RowSparse all_rows = indicator_rows({&first, &second}, first.n_cells(), interrupts);
  std::vector<std::size_t> keep(first.n_groups);
  std::iota(keep.begin(), keep.end(), std::size_t(0));
  std::vector<bool> component_dropped(components.n_components, false);
  for (std::uint32_t h = 0; h < second.n_groups; ++h) {
    const std::uint32_t c = components.component_of_second[h];
    if (component_dropped[c]) {
      keep.push_back(std::size_t(first.n_groups) + h);
    } else {
      component_dropped[c] = true;
    }
  }
  return take_rows(all_rows, keep);
}

std::unique_ptr<NullProjector> make_two_way_projector(SharedGrouping first, SharedGrouping second,
                                                      const BipartiteComponents& components,
                                                      const Interrupts& interrupts) {
  if (!crosses_completely(*first, *second, components, interrupts)) return nullptr;
  return std::make_unique<TwoWayProjector>(std::move(first), std::move(second), components);
}

}  // namespace detail
}  // namespace invariant_dp
