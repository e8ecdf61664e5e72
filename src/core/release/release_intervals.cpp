#include "release_intervals.hpp"

#include <cstdint>
#include <memory>

#include "../accuracy/published_release.hpp"
#include "../errors.hpp"
#include "../json_text.hpp"
#include "../mechanisms/mechanism.hpp"

namespace invariant_dp {

namespace {

// The rows' half-widths (their bounds are read as the rows are), and the
// metadata's "interval" field.
void attach(ReleaseTable& table, std::shared_ptr<const accuracy::CellIntervals> intervals, double level,
            const Interrupts& interrupts) {
  if (intervals->n_cells() != table.n_rows) throw Error("the intervals are not one per released row");
  if (table.integer_output) intervals->check_integer_bounds(table.integers(), interrupts);
  table.metadata.add("interval", "{\"level\": " + json_number(level) +
                                     ", \"method\": " + json_quoted(intervals->method()) + ", \"kind\": \"" +
                                     accuracy::exactness_name(intervals->kind()) + "\"}");
  table.intervals = std::move(intervals);
}

}  // namespace

void check_interval_request(const ReleaseRequest& request, const HierarchyRequest& hierarchy) {
  if (request.interval_level == 0) return;
  const MechanismTraits& mechanism = *request.mechanism;
  // Non-negativity is imposed on the counts: the noise depends on them.
  // nonnegative_cascade computes its intervals at its released counts.
  if (mechanism.non_negative && !mechanism.calibrated_on_tree)
    throw InvalidArgument(std::string("option \"interval\" is not available for mechanism \"") +
                              mechanism.name + "\"",
                          "Its noise depends on the counts (it keeps them non-negative), so it has no published "
                          "law to derive intervals from.",
                          "Use integer_laplace or integer_gaussian for the same invariants with intervals, or drop "
                          "the option.");
  if (hierarchy.active() && !mechanism.calibrated_on_tree)
    throw InvalidArgument("option \"interval\" with a hierarchy is for mechanisms \"cascade\", "
                          "\"integer_cascade\" (over one hierarchy or two crossed) and \"nonnegative_cascade\"",
                          "A rollup node of this release is a sum of its cells, whose error bar is a sum's.",
                          "Release without \"interval\" and aggregate the rows with dp.margin_of_error, or "
                          "release the cells flat with \"interval\".");
}

void add_release_intervals(ReleaseTable& table, std::shared_ptr<const accuracy::CellIntervals> intervals, double level,
                           const Interrupts& interrupts) {
  attach(table, std::move(intervals), level, interrupts);
}

void add_flat_intervals(ReleaseTable& table, const CellKeys& cells, double level, const Interrupts& interrupts) {
  const accuracy::PublishedLaw& law = table.law;
  accuracy::check_has_error_bars(law);
  // integer_laplace_l2, and integer_laplace on tables with no line of two
  // levels or on general margins, have no closed-form covariance: their
  // intervals need the Monte Carlo scale noise.covariance_scale, which a
  // law may lack. Said so here, for the caller of dp.privatize.
  const bool may_need_scale =
      !law.covariance_scale.published &&
      (law.family == accuracy::LawFamily::l2_lattice ||
       (law.family == accuracy::LawFamily::laplace_lattice && !law.margins.empty()));
  try {
    attach(table,
           std::make_shared<const accuracy::CellIntervals>(accuracy::flat_intervals(law, cells, level, interrupts)),
           level, interrupts);
  } catch (const InvalidArgument& e) {
    if (!may_need_scale) throw;
    throw InvalidArgument("this release has no per-cell intervals: its law has no closed-form covariance",
                          std::string("Mechanism \"") + law.mechanism + "\" on invariants of structure \"" +
                              law.structure + "\" needs the Monte Carlo covariance scale (" + e.what() + ").",
                          "Drop \"interval\", or release with integer_gaussian (certified intervals on any "
                          "margins) or integer_laplace on one margin, nested margins or a 2 x n table (exact).");
  }
}

void add_hierarchy_intervals(ReleaseTable& table, const CellKeys& cells, const std::vector<std::string>& column_names,
                             double level, const Interrupts& interrupts) {
  // The rows as the table prints them (accuracy/release_rows.hpp): each
  // key's code, or NULL (one code past the column's) below the row's level
  // on its hierarchy, and the row's depth in each hierarchy as its level
  // columns. A row's identity only has to differ from every other row's:
  // its number.
  const std::size_t n = table.n_rows, n_keys = table.n_keys, axes = table.n_axes;
  std::vector<accuracy::RowId> ids(n);
  std::vector<std::vector<std::uint32_t>> codes(n_keys, std::vector<std::uint32_t>(n));
  std::vector<std::vector<std::int32_t>> depth(axes, std::vector<std::int32_t>(n));
  for (std::size_t r = 0; r < n; ++r) {
    interrupts.poll_every(r);
    ids[r].lo = r;
    for (std::size_t a = 0; a < axes; ++a) depth[a][r] = static_cast<std::int32_t>(table.row_depth[r * axes + a]);
    const bool is_cell = table.row_is_cell.empty() || table.row_is_cell[r];
    const std::uint32_t cell = table.row_cell.empty() ? static_cast<std::uint32_t>(r) : table.row_cell[r];
    for (std::size_t k = 0; k < n_keys; ++k) {
      const std::uint32_t axis = table.key_axis[k];
      const bool printed = is_cell || (axis < axes && table.key_depth[k] <= std::uint32_t(depth[axis][r]));
      codes[k][r] = printed ? cells.code(k, cell) : cells.n_levels(k);
    }
  }
  accuracy::ReleaseRows rows;
  rows.n_rows = n;
  rows.ids = ids.data();
  for (std::size_t k = 0; k < n_keys; ++k)
    rows.keys.push_back(accuracy::KeyColumn{codes[k].data(), cells.n_levels(k) + 1, cells.n_levels(k)});
  accuracy::RowLayout layout;
  layout.n_keys = n_keys;
  layout.key_names = column_names;
  for (std::size_t a = 0; a < axes; ++a) {
    rows.levels.push_back(depth[a].data());
    layout.level_columns.push_back(static_cast<int>(n_keys + 1 + a));
  }
  accuracy::check_has_error_bars(table.law);
  const accuracy::PublishedRelease published(table.law, layout, rows, interrupts);
  attach(table, std::make_shared<const accuracy::CellIntervals>(published.row_intervals(level, interrupts)), level,
         interrupts);
}

}  // namespace invariant_dp
