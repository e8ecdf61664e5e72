// The identity, partition and table forms (projector_form.hpp); the general
// form is in general_form.cpp.
#include "projector_form.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../errors.hpp"

namespace invariant_dp::accuracy {

double ProjectorForm::form(const CellQuery& query, const Interrupts& interrupts) const {
  std::vector<BlockForm> blocks;
  block_forms(query, blocks, interrupts);
  double sum = 0;
  for (const BlockForm& b : blocks) sum += b.form;
  return sum;
}

std::uint32_t ProjectorForm::cell_at(std::uint32_t, std::size_t, const Interrupts&) const {
  throw InvalidArgument(std::string("the ") + structure() + " form's blocks are no tables");
}

std::vector<double> ProjectorForm::projection(const CellQuery&, const Interrupts&) const {
  throw InvalidArgument(std::string("the ") + structure() + " form's queries are read by blocks");
}

namespace {

void check_cells(std::size_t n_cells) {
  if (n_cells > UINT32_MAX) throw TooLarge("error bars over more than 2^32 cells are not supported");
}

class IdentityForm final : public ProjectorForm {
 public:
  explicit IdentityForm(std::size_t n) : n_(n) { check_cells(n); }
  const char* structure() const override { return "none"; }
  std::size_t n_cells() const override { return n_; }
  std::size_t n_blocks() const override { return 1; }
  std::uint32_t block_of(std::uint32_t) const override { return 0; }
  double diagonal(std::uint32_t) const override { return 1; }
  void block_forms(const CellQuery& query, std::vector<BlockForm>& out, const Interrupts& interrupts) const override {
    double sum = 0;
    for (std::size_t k = 0; k < query.size(); ++k) {
      interrupts.poll_every(k);
      sum += query.weights[k] * query.weights[k];
    }
    out.assign(query.size() ? 1 : 0, BlockForm{0, sum});
  }

 private:
  std::size_t n_;
};

// Per group: sum w^2 - (sum w)^2 / k, accumulated in arrays indexed by
// group and reset along the list of groups touched.
class PartitionForm final : public ProjectorForm {
 public:
  PartitionForm(std::vector<std::uint32_t> group_of_cell, std::size_t n_groups, const Interrupts& interrupts)
      : group_(std::move(group_of_cell)),
        position_(group_.size()),
        size_(n_groups, 0),
        sum_(n_groups, 0.0),
        squares_(n_groups, 0.0) {
    check_cells(group_.size());
    for (std::size_t i = 0; i < group_.size(); ++i) {
      interrupts.poll_every(i);
      if (group_[i] >= n_groups) throw InvalidArgument("a cell's group is out of range");
      position_[i] = size_[group_[i]]++;
    }
  }
  const char* structure() const override { return "partition"; }
  std::size_t n_cells() const override { return group_.size(); }
  std::size_t n_blocks() const override { return size_.size(); }
  std::uint32_t block_of(std::uint32_t cell) const override { return group_[cell]; }
  const std::uint32_t* block_of_cells() const override { return group_.data(); }
  double diagonal(std::uint32_t cell) const override { return 1 - 1.0 / size_[group_[cell]]; }
  std::vector<std::size_t> block_shape(std::uint32_t group) const override { return {size_[group]}; }
  std::size_t position_in_block(std::uint32_t cell) const override { return position_[cell]; }
  std::uint32_t cell_at(std::uint32_t group, std::size_t position, const Interrupts& interrupts) const override {
    if (group >= size_.size() || position >= size_[group])
      throw InvalidArgument("no cell is at that place of the group");
    for (std::uint32_t i = 0; i < group_.size(); ++i) {
      interrupts.poll_every(i);
      if (group_[i] == group && position_[i] == position) return i;
    }
    throw std::logic_error("a group has no cell at a place below its size");
  }

  void block_forms(const CellQuery& query, std::vector<BlockForm>& out, const Interrupts& interrupts) const override {
    // sum_ and squares_ are zero between calls; one a cancel stopped leaves
    // them dirty, and the next clears them whole (the form is kept for
    // later statements).
    if (dirty_) {
      std::fill(sum_.begin(), sum_.end(), 0.0);
      std::fill(squares_.begin(), squares_.end(), 0.0);
    }
    dirty_ = true;
    touched_.clear();
    for (std::size_t k = 0; k < query.size(); ++k) {
      interrupts.poll_every(k);
      const std::uint32_t g = group_[query.cells[k]];
      const double w = query.weights[k];
      if (sum_[g] == 0 && squares_[g] == 0) touched_.push_back(g);
      sum_[g] += w;
      squares_[g] += w * w;
    }
    out.clear();
    for (std::size_t k = 0; k < touched_.size(); ++k) {
      interrupts.poll_every(k);
      const std::uint32_t g = touched_[k];
      // (k sum w^2 - (sum w)^2) / k: one rounding after the difference, so
      // a sum over a whole group (integer weights) is exactly 0.
      const long double n = size_[g], s = sum_[g];
      const double form = double((n * (long double)(squares_[g]) - s * s) / n);
      out.push_back({g, std::max(0.0, form)});
      sum_[g] = squares_[g] = 0;
    }
    dirty_ = false;
  }

 private:
  std::vector<std::uint32_t> group_;
  std::vector<std::uint32_t> position_;  // the cell's place among its group's cells
  std::vector<std::uint32_t> size_;
  mutable std::vector<double> sum_, squares_;
  mutable std::vector<std::uint32_t> touched_;
  mutable bool dirty_ = false;
};

// Inclusion-exclusion over the subsets T of each table's axes. For each
// table and non-empty T the scratch holds the marginal sums of w over the
// axes in T, indexed by the cell's coordinates on the other axes (mixed
// radix): prod_{k not in T} n_k entries, so at most about the table's cells
// in all. Every cell is in one table at one position.
class TableForm final : public ProjectorForm {
 public:
  TableForm(std::vector<LatticeTable> tables, std::size_t n_cells, const Interrupts& interrupts)
      : tables_(std::move(tables)) {
    check_cells(n_cells);
    if (tables_.size() >= UINT32_MAX) throw TooLarge("too many tables");
    const double scratch = scratch_entries(tables_);
    if (scratch > double(kMaxScratchPerCell) * double(n_cells) + double(1 << 20))
      throw TooLarge("the tables have too many axes of few levels for error bars",
                     "Their marginal sums would take " + std::to_string(std::llround(scratch)) + " entries for " +
                         std::to_string(n_cells) + " cells.");
    table_of_.assign(n_cells, UINT32_MAX);
    position_.assign(n_cells, 0);
    std::size_t offset = 0;
    for (std::size_t t = 0; t < tables_.size(); ++t) {
      interrupts.poll();
      const LatticeTable& table = tables_[t];
      std::size_t cells = 1;
      for (const std::size_t n : table.shape) {
        if (n == 0) throw InvalidArgument("a table has an empty axis");
        cells *= n;
      }
      if (cells != table.cells.size()) throw InvalidArgument("a table's cells do not fill its shape");
      for (std::size_t p = 0; p < table.cells.size(); ++p) {
        interrupts.poll_every(p);
        const std::size_t cell = table.cells[p];
        if (cell >= n_cells || table_of_[cell] != UINT32_MAX)
          throw InvalidArgument("a cell is outside the release or in two tables");
        table_of_[cell] = static_cast<std::uint32_t>(t);
        position_[cell] = static_cast<std::uint32_t>(p);
      }
      // Scratch offsets and divisors of every non-empty subset of axes.
      const std::size_t K = table.shape.size();
      subset_offset_.emplace_back(std::size_t(1) << K, 0);
      for (std::uint32_t mask = 1; mask < (1u << K); ++mask) {
        subset_offset_[t][mask] = offset;
        std::size_t entries = 1;
        for (std::size_t k = 0; k < K; ++k)
          if (!(mask & (1u << k))) entries *= table.shape[k];
        offset += entries;
      }
      diagonal_.push_back(shape_diagonal(table.shape));
      scale_.push_back(double(cells));
    }
    for (std::size_t cell = 0; cell < n_cells; ++cell) {
      interrupts.poll_every(cell);
      if (table_of_[cell] == UINT32_MAX) throw InvalidArgument("a cell is in no table");
    }
    scratch_.assign(offset, 0.0);
    table_sum_.assign(tables_.size(), 0.0);
    table_touched_.assign(tables_.size(), 0);
  }

  const char* structure() const override { return "tables"; }
  std::size_t n_cells() const override { return table_of_.size(); }
  std::size_t n_blocks() const override { return tables_.size(); }
  std::uint32_t block_of(std::uint32_t cell) const override { return table_of_[cell]; }
  double diagonal(std::uint32_t cell) const override { return diagonal_[table_of_[cell]]; }
  std::vector<std::size_t> block_shape(std::uint32_t table) const override { return tables_[table].shape; }
  std::size_t position_in_block(std::uint32_t cell) const override { return position_[cell]; }
  std::uint32_t cell_at(std::uint32_t table, std::size_t position, const Interrupts&) const override {
    if (table >= tables_.size() || position >= tables_[table].cells.size())
      throw InvalidArgument("no cell is at that place of the table");
    return static_cast<std::uint32_t>(tables_[table].cells[position]);
  }

  void block_forms(const CellQuery& query, std::vector<BlockForm>& out, const Interrupts& interrupts) const override {
    // The scratch arrays are zero between calls; one a cancel stopped leaves
    // them dirty, and the next clears them whole (the form is kept for
    // later statements).
    if (dirty_) {
      std::fill(scratch_.begin(), scratch_.end(), 0.0);
      std::fill(table_sum_.begin(), table_sum_.end(), 0.0L);
      std::fill(table_touched_.begin(), table_touched_.end(), std::uint8_t(0));
    }
    dirty_ = true;
    touched_.clear();
    tables_touched_.clear();
    std::size_t coordinates[kMaxTableAxes];
    for (std::size_t q = 0; q < query.size(); ++q) {
      interrupts.poll_every(q);
      const std::uint32_t cell = query.cells[q], t = table_of_[cell];
      const double w = query.weights[q];
      const std::vector<std::size_t>& shape = tables_[t].shape;
      const std::size_t K = shape.size();
      std::size_t rest = position_[cell];
      for (std::size_t k = K; k-- > 0;) {
        coordinates[k] = rest % shape[k];
        rest /= shape[k];
      }
      if (!table_touched_[t]) {
        table_touched_[t] = 1;
        tables_touched_.push_back(t);
      }
      table_sum_[t] += scale_[t] * w * w;  // the empty subset: the cell itself
      for (std::uint32_t mask = 1; mask < (1u << K); ++mask) {
        std::size_t key = 0;
        for (std::size_t k = 0; k < K; ++k)
          if (!(mask & (1u << k))) key = key * shape[k] + coordinates[k];
        const std::size_t at = subset_offset_[t][mask] + key;
        if (scratch_[at] == 0) touched_.push_back({at, t, mask});
        scratch_[at] += w;
      }
    }
    for (std::size_t k = 0; k < touched_.size(); ++k) {
      interrupts.poll_every(k);
      const Touched& e = touched_[k];
      double divisor = 1;
      const std::vector<std::size_t>& shape = tables_[e.table].shape;
      int sign = 1;
      for (std::size_t k = 0; k < shape.size(); ++k)
        if (e.mask & (1u << k)) {
          divisor *= double(shape[k]);
          sign = -sign;
        }
      const long double v = scratch_[e.at];
      table_sum_[e.table] += sign * v * v * (scale_[e.table] / divisor);
      scratch_[e.at] = 0;
    }
    out.clear();
    for (const std::uint32_t t : tables_touched_) {
      out.push_back({t, std::max(0.0, double(table_sum_[t] / scale_[t]))});
      table_sum_[t] = 0;
      table_touched_[t] = 0;
    }
    dirty_ = false;
  }

 private:
  // Marginal sums of every non-empty subset of axes, over the tables; checked
  // before the shapes are (so in double, and with the axis limit first).
  static double scratch_entries(const std::vector<LatticeTable>& tables) {
    double total = 0;
    for (const LatticeTable& table : tables) {
      if (table.shape.empty() || table.shape.size() > kMaxTableAxes)
        throw TooLarge("error bars of tables with more than " + std::to_string(kMaxTableAxes) +
                       " axes are not supported");
      double with = 1, without = 1;  // prod (n_k + 1) counts every subset's marginal table
      for (const std::size_t n : table.shape) {
        with *= double(n) + 1;
        without *= double(n);
      }
      total += with - without;
    }
    return total;
  }

  struct Touched {
    std::size_t at;
    std::uint32_t table;
    std::uint32_t mask;
  };
  std::vector<LatticeTable> tables_;
  std::vector<std::uint32_t> table_of_, position_;
  std::vector<std::vector<std::size_t>> subset_offset_;
  std::vector<double> diagonal_;
  // The terms are summed times prod n_k (each then a product of integers and
  // squared sums) in extended precision and divided once: with integer
  // weights a sum that a margin fixes is exactly 0, not a rounding residue.
  std::vector<long double> scale_;
  mutable std::vector<double> scratch_;
  mutable std::vector<long double> table_sum_;
  mutable std::vector<std::uint8_t> table_touched_;
  mutable std::vector<Touched> touched_;
  mutable std::vector<std::uint32_t> tables_touched_;
  mutable bool dirty_ = false;
};

}  // namespace

std::unique_ptr<ProjectorForm> identity_form(std::size_t n_cells) { return std::make_unique<IdentityForm>(n_cells); }

std::unique_ptr<ProjectorForm> partition_form(std::vector<std::uint32_t> group_of_cell, std::size_t n_groups,
                                              const Interrupts& interrupts) {
  return std::make_unique<PartitionForm>(std::move(group_of_cell), n_groups, interrupts);
}

std::unique_ptr<ProjectorForm> table_form(std::vector<LatticeTable> tables, std::size_t n_cells,
                                          const Interrupts& interrupts) {
  return std::make_unique<TableForm>(std::move(tables), n_cells, interrupts);
}

bool shape_pinned(const std::vector<std::size_t>& shape) {
  for (const std::size_t n : shape)
    if (n < 2) return true;
  return false;
}

double shape_diagonal(const std::vector<std::size_t>& shape) {
  double d = 1;
  for (const std::size_t n : shape) d *= 1 - 1.0 / double(n);
  return d;
}

std::unique_ptr<ProjectorForm> form_of_model(const InvariantModel& model, const Interrupts& interrupts) {
  const std::string structure = model.structure();
  const std::size_t n = model.n_cells();
  if (structure == "none") return identity_form(n);
  if (structure == "partition") {
    const std::uint32_t* groups = model.partition_groups();
    return partition_form(std::vector<std::uint32_t>(groups, groups + n), model.rank(), interrupts);
  }
  if (structure == "two_way" || structure == "k_way") return table_form(model.lattice_tables(), n, interrupts);
  return general_form(model.independent_rows(), interrupts);
}

}  // namespace invariant_dp::accuracy
