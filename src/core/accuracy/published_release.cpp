// Error bars of sums of a release table's rows (published_release.hpp).
#include "published_release.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>

#include "../errors.hpp"
#include "../hierarchy/cascade_law.hpp"
#include "../hierarchy/cascade_margins.hpp"
#include "../invariants/invariant_model.hpp"
#include "../polled_sort.hpp"
#include "crossed_accuracy.hpp"
#include "hierarchy_accuracy.hpp"
#include "linear_accuracy.hpp"
#include "one_cell_query.hpp"
#include "projected_laplace.hpp"
#include "projector_form.hpp"
#include "sum_quantile.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

const char* const kDifferentReleases = "The table's keys and the noise law describe different releases.";

std::vector<Margin> margins_of(const PublishedLaw& law, const RowLayout& layout) {
  std::vector<Margin> out;
  for (const auto& names : law.margins) {
    Margin m;
    for (const std::string& name : names)
      m.columns.push_back(std::size_t(std::find(layout.key_names.begin(), layout.key_names.end(), name) -
                                      layout.key_names.begin()));
    out.push_back(std::move(m));
  }
  return out;
}

void check_model(const PublishedLaw& law, const InvariantModel& model) {
  const auto differs = [](std::int64_t published, std::size_t found) {
    return published >= 0 && std::uint64_t(published) != found;
  };
  if (differs(law.cells, model.n_cells()) || differs(law.rank, model.rank()) ||
      differs(law.null_dimension, model.null_dimension()) || model.structure() != law.structure)
    throw InvalidData("the table's rows are not the release's cells: its noise law has " + std::to_string(law.cells) +
                          " cells of structure " + law.structure + ", the table's keys give " +
                          std::to_string(model.n_cells()) + " of structure " + model.structure(),
                      kDifferentReleases, kReleaseRowsHint);
}

// The l1 law: closed forms where they exist, the published scalars on the
// blocks without one (0 where none was published: every such block is then
// refused by name, never left at 0).
LinearAccuracy laplace_accuracy(const PublishedLaw& law, std::shared_ptr<const ProjectorForm> form,
                                const Interrupts& interrupts) {
  const CovarianceScale& scale = law.covariance_scale;
  if (form->structure() == std::string("general"))
    return estimated_accuracy(form, {scale.of_shape({})}, "the l1 law");
  std::vector<double> variance(form->n_cells(), 0.0);
  for (std::uint32_t i = 0; scale.published && i < variance.size(); ++i) {
    interrupts.poll_every(i);
    const std::vector<std::size_t> shape = form->block_shape(form->block_of(i));
    double c = scale.one_for_all ? scale.all : 0;
    for (const auto& [s, value] : scale.by_shape)
      if (s == shape) c = value;
    variance[i] = c * shape_diagonal(shape);
  }
  LinearAccuracy out = laplace_lattice_accuracy(form, law.exact_parameter, &variance, interrupts);
  for (std::uint32_t b = 0; b < form->n_blocks(); ++b)
    if (out.scalars().kind[b] == Exactness::estimate) scale.of_shape(form->block_shape(b));
  return out;
}

std::unique_ptr<LinearAccuracy> flat_accuracy(const PublishedLaw& law, std::shared_ptr<const ProjectorForm> form,
                                              const Interrupts& interrupts) {
  switch (law.family) {
    case LawFamily::laplace_lattice: return std::make_unique<LinearAccuracy>(laplace_accuracy(law, form, interrupts));
    case LawFamily::gaussian_lattice:
      return std::make_unique<LinearAccuracy>(lattice_gaussian_accuracy(
          form, law.exact_parameter, interrupts, law.deficit_bound >= 0 ? law.deficit_bound : 1));
    case LawFamily::l2_lattice: {
      std::vector<double> scalars(form->n_blocks());
      for (std::uint32_t b = 0; b < scalars.size(); ++b) {
        const std::vector<std::size_t> shape = form->block_shape(b);
        scalars[b] = shape_pinned(shape) && !shape.empty() ? 0 : law.covariance_scale.of_shape(shape);
      }
      return std::make_unique<LinearAccuracy>(estimated_accuracy(form, scalars, "the l2 law"));
    }
    case LawFamily::projected: return std::make_unique<LinearAccuracy>(projected_accuracy(form, law.unit_variance));
    default: break;
  }
  throw InvalidArgument("the noise law of mechanism \"" + law.mechanism + "\" is not one of a flat release");
}

std::string cascade_statement(const PublishedLaw& law) {
  return law.integer_output ? "certified: within [(1 - B) V, V] of the cascade's closed-form variance V, B = " +
                                  format_double(law.deficit_bound) + " (variance_deficit_bound)"
                            : "exact: the cascade's Gaussian covariance";
}

// The rows named by ids, each once with its weights added (a row given
// twice counts twice), in row order; rows of no cell are only counted. By
// sorting, so that a sum costs O(its rows log its rows) and no array of the
// release's size.
CellQuery rows_of(const RowIndex& index, const RowId* ids, const double* weights, std::size_t n,
                  std::size_t& unknown, const Interrupts& interrupts) {
  std::vector<std::uint32_t> row(n);
  index.find_many(ids, n, row.data(), interrupts);
  std::vector<std::pair<std::uint32_t, double>> found;
  found.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(weights[i])) throw InvalidArgument("the weight of a row in a sum must be finite");
    if (row[i] == kNoRow)
      ++unknown;
    else
      found.emplace_back(row[i], weights[i]);
  }
  // By row, then weight: a row given several times has its weights added
  // in one order however the rows were listed.
  polled_sort(found.begin(), found.end(), interrupts);
  CellQuery out;
  for (std::size_t i = 0; i < found.size(); ++i) {
    interrupts.poll_every(i);
    if (!out.cells.empty() && out.cells.back() == found[i].first)
      out.weights.back() += found[i].second;
    else {
      out.cells.push_back(found[i].first);
      out.weights.push_back(found[i].second);
    }
  }
  // Rows whose weights cancel are no part of the sum.
  std::size_t kept = 0;
  for (std::size_t k = 0; k < out.size(); ++k)
    if (out.weights[k] != 0) {
      out.cells[kept] = out.cells[k];
      out.weights[kept++] = out.weights[k];
    }
  out.cells.resize(kept);
  out.weights.resize(kept);
  return out;
}

// A query's units (cells or nodes) in increasing order, so that one
// functional asked in any order is summed in one order: its figures are
// then the same number, not the same up to rounding.
void sort_by_unit(CellQuery& q, const Interrupts& interrupts) {
  std::vector<std::pair<std::uint32_t, double>> pairs(q.size());
  for (std::size_t k = 0; k < q.size(); ++k) pairs[k] = {q.cells[k], q.weights[k]};
  polled_sort(pairs.begin(), pairs.end(), interrupts);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    q.cells[k] = pairs[k].first;
    q.weights[k] = pairs[k].second;
  }
}

// A cascade query's (node, weight) pairs, one list per depth, each in node order.
using NodeWeight = std::pair<std::uint32_t, double>;
std::vector<std::vector<NodeWeight>> nodes_by_depth(const hierarchy::HierarchyTree& tree, CellQuery q,
                                                    const Interrupts& interrupts) {
  sort_by_unit(q, interrupts);
  std::vector<std::vector<NodeWeight>> by_depth(tree.height() + 1);
  for (std::size_t k = 0; k < q.size(); ++k) {
    interrupts.poll_every(k);
    by_depth[tree.depth(q.cells[k])].emplace_back(q.cells[k], q.weights[k]);
  }
  return by_depth;
}

// The query of the pairs with a non-zero weight.
CellQuery query_of(const std::vector<NodeWeight>& pairs) {
  CellQuery out;
  for (const NodeWeight& e : pairs)
    if (e.second != 0) {
      out.cells.push_back(e.first);
      out.weights.push_back(e.second);
    }
  return out;
}

// A query over a cascade's nodes with no node above another: a node with
// nodes of the query below it is replaced by its children, each with its
// weight, down to those nodes (a consistent release's node is the sum of
// its children). With collapse_families after it, every way of writing one
// functional has one form: a county less one of its two tracts is the other
// tract, and a tract with its county is that tract twice beside its
// sibling. Top down, one depth at a time (level order keeps each depth's
// pushed children in order); the nodes pushed are the ancestors of the
// query's nodes, so the work is at most their children: O(nodes in the
// query x depth x fan-out), the size of the form itself.
CellQuery push_down_to_antichain(const hierarchy::HierarchyTree& tree, CellQuery q, const Interrupts& interrupts) {
  // Nodes of one depth (the common query: leaves, or counties) are above
  // none of each other.
  bool one_depth = true;
  for (std::size_t k = 1; k < q.size() && one_depth; ++k) {
    interrupts.poll_every(k);
    one_depth = tree.depth(q.cells[k]) == tree.depth(q.cells[0]);
  }
  if (one_depth) return q;
  const std::vector<std::vector<NodeWeight>> by_depth = nodes_by_depth(tree, q, interrupts);
  // The nodes with query nodes below them, per depth, bottom up: the
  // parents of a depth's query nodes and of its own such nodes (both in
  // order, so their parents are in order: duplicates are neighbours).
  std::vector<std::vector<std::uint32_t>> above(tree.height() + 1);
  bool any = false;
  for (unsigned d = tree.height(); d > 0; --d) {
    std::vector<std::uint32_t> here;
    for (const NodeWeight& e : by_depth[d]) here.push_back(e.first);
    std::vector<std::uint32_t> both;
    std::merge(here.begin(), here.end(), above[d].begin(), above[d].end(), std::back_inserter(both));
    for (std::size_t i = 0; i < both.size(); ++i) {
      interrupts.poll_every(i);
      const std::uint32_t p = tree.parent(both[i]);
      if (above[d - 1].empty() || above[d - 1].back() != p) above[d - 1].push_back(p);
    }
    any = any || std::any_of(by_depth[d - 1].begin(), by_depth[d - 1].end(), [&](const NodeWeight& e) {
            return std::binary_search(above[d - 1].begin(), above[d - 1].end(), e.first);
          });
  }
  if (!any) return q;
  std::vector<NodeWeight> pushed, kept;  // pushed: children made for the depth below, in order
  for (unsigned d = 0; d <= tree.height(); ++d) {
    std::vector<NodeWeight> here;
    std::merge(by_depth[d].begin(), by_depth[d].end(), pushed.begin(), pushed.end(), std::back_inserter(here),
               [](const NodeWeight& a, const NodeWeight& b) { return a.first < b.first; });
    pushed.clear();
    for (std::size_t i = 0; i < here.size();) {
      interrupts.poll_every(i);
      double w = 0;
      std::size_t j = i;
      for (; j < here.size() && here[j].first == here[i].first; ++j) w += here[j].second;
      const std::uint32_t u = here[i].first;
      if (w != 0 && std::binary_search(above[d].begin(), above[d].end(), u)) {
        for (std::uint32_t c = tree.first_child(u); c < tree.child_end(u); ++c) {
          interrupts.poll_every(c);
          pushed.emplace_back(c, w);
        }
      } else if (w != 0) {
        kept.emplace_back(u, w);
      }
      i = j;
    }
  }
  return query_of(kept);
}

// A query over a cascade's nodes in its canonical form: every node whose
// children are all in the query with one weight w stands for them, with
// weight w (added to its own), up the tree. A consistent release's node is
// the sum of its children, so a node read from its row and read as the sum
// of its children's rows are one functional, and get one error bar. Node
// numbers are in level order: a depth's nodes are one run of numbers, a
// family a run [first_child, child_end) within it, in its parent's order.
// So the query, sorted, is settled one depth at a time from the deepest,
// each depth merged with the parents the depth below produced (in order
// too). O(nodes in the query x (depth + log)), no array of the tree's size.
CellQuery collapse_families(const hierarchy::HierarchyTree& tree, CellQuery q, const Interrupts& interrupts) {
  const std::vector<std::vector<NodeWeight>> by_depth = nodes_by_depth(tree, std::move(q), interrupts);
  std::vector<NodeWeight> kept, parents;  // parents: produced for the depth above, in order
  for (unsigned d = tree.height(); d > 0; --d) {
    // This depth's entries and the parents made from the depth below, merged
    // (both in order; equal nodes add).
    std::vector<NodeWeight> here;
    std::merge(by_depth[d].begin(), by_depth[d].end(), parents.begin(), parents.end(), std::back_inserter(here),
               [](const NodeWeight& a, const NodeWeight& b) { return a.first < b.first; });
    parents.clear();
    std::vector<NodeWeight> merged;
    for (std::size_t i = 0; i < here.size(); ++i) {
      interrupts.poll_every(i);
      if (!merged.empty() && merged.back().first == here[i].first)
        merged.back().second += here[i].second;
      else
        merged.push_back(here[i]);
    }
    for (std::size_t i = 0; i < merged.size();) {
      interrupts.poll_every(i);
      const std::uint32_t parent = tree.parent(merged[i].first);
      const std::uint32_t first = tree.first_child(parent), end = tree.child_end(parent);
      std::size_t j = i;
      bool complete = merged[i].first == first && merged[i].second != 0;
      // Ends: j walks the entries of one family, at most its children.
      while (j < merged.size() && merged[j].first < end) {
        complete = complete && merged[j].first == first + (j - i) && merged[j].second == merged[i].second;
        ++j;
      }
      complete = complete && j - i == end - first;
      if (complete)
        parents.emplace_back(parent, merged[i].second);
      else
        kept.insert(kept.end(), merged.begin() + std::ptrdiff_t(i), merged.begin() + std::ptrdiff_t(j));
      i = j;
    }
  }
  // The root: its own entry and what its children made.
  for (const NodeWeight& e : by_depth[0]) parents.push_back(e);
  double root = 0;
  for (const NodeWeight& e : parents) root += e.second;
  if (!parents.empty() && root != 0) kept.emplace_back(parents[0].first, root);
  polled_sort(kept.begin(), kept.end(), interrupts);
  return query_of(kept);
}

// Rectangles (row node, column node) of a crossed cascade, with weights.
struct Rectangles {
  std::vector<std::uint32_t> rows, cols;
  std::vector<double> weights;
};

// collapse_families along one tree for each fixed node of the other: `along`
// the nodes collapsed, `fixed` the other tree's; entries sorted by
// (fixed, along) first.
bool collapse_along(const hierarchy::HierarchyTree& tree, std::vector<std::uint32_t>& along,
                    std::vector<std::uint32_t>& fixed, std::vector<double>& weights, const Interrupts& interrupts) {
  std::vector<std::size_t> order(along.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  polled_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return fixed[a] != fixed[b] ? fixed[a] < fixed[b] : along[a] < along[b];
  }, interrupts);
  std::vector<std::uint32_t> new_along, new_fixed;
  std::vector<double> new_weights;
  bool changed = false;  // some entries merged, lifted or dropped (not merely reordered)
  for (std::size_t i = 0; i < order.size();) {
    interrupts.poll_every(i);
    CellQuery q;
    std::size_t j = i;
    // Ends: j walks the entries of one fixed node.
    for (; j < order.size() && fixed[order[j]] == fixed[order[i]]; ++j) {
      q.cells.push_back(along[order[j]]);
      q.weights.push_back(weights[order[j]]);
    }
    const CellQuery c = collapse_families(tree, q, interrupts);
    changed = changed || c.cells != q.cells || c.weights != q.weights;
    for (std::size_t k = 0; k < c.size(); ++k) {
      new_along.push_back(c.cells[k]);
      new_fixed.push_back(fixed[order[i]]);
      new_weights.push_back(c.weights[k]);
    }
    i = j;
  }
  along = std::move(new_along);
  fixed = std::move(new_fixed);
  weights = std::move(new_weights);
  return changed;
}

// A crossed query in its canonical form: complete families of one weight
// read as their parent along either tree, repeated until nothing changes
// (each change merges entries or moves one up a level: at most the two
// trees' heights times the entries). A rectangle read from its row, from
// its children along rows or columns, or from its leaves' grid, is one
// query, and gets one error bar.
Rectangles collapse_rectangles(const hierarchy::HierarchyTree& rows, const hierarchy::HierarchyTree& cols,
                               Rectangles q, const Interrupts& interrupts) {
  bool changed = true;
  std::size_t passes = 0;
  // Ends: every pass that changes the query merges or lifts an entry.
  while (changed) {
    interrupts.poll_every(++passes);
    changed = collapse_along(rows, q.rows, q.cols, q.weights, interrupts);
    changed = collapse_along(cols, q.cols, q.rows, q.weights, interrupts) || changed;
  }
  // In (row, column) order, so that one functional is summed in one order.
  std::vector<std::size_t> order(q.rows.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  polled_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return q.rows[a] != q.rows[b] ? q.rows[a] < q.rows[b] : q.cols[a] < q.cols[b];
  }, interrupts);
  Rectangles out;
  for (const std::size_t k : order) {
    out.rows.push_back(q.rows[k]);
    out.cols.push_back(q.cols[k]);
    out.weights.push_back(q.weights[k]);
  }
  return out;
}

// A flat law's per-cell intervals, by family (cell_intervals.hpp's table).
// The per-cell intervals of a flat release on this form, from its
// accuracy, built here when not given: the lattice Gaussian's intervals
// need none (they read the form alone), and building it would compute a
// variance deficit bound per table shape (a margin's groups may take
// hundreds of sizes) for nothing.
CellIntervals law_intervals(const PublishedLaw& law, const std::shared_ptr<const ProjectorForm>& form,
                            const LinearAccuracy* given, double level, const Interrupts& interrupts) {
  check_level(level);
  if (law.family == LawFamily::gaussian_lattice)
    return lattice_gaussian_intervals(form, law.exact_parameter, level, interrupts);
  std::unique_ptr<LinearAccuracy> built;
  if (given == nullptr) built = flat_accuracy(law, form, interrupts);
  const LinearAccuracy& accuracy = given != nullptr ? *given : *built;
  switch (law.family) {
    case LawFamily::laplace_lattice:
      return laplace_lattice_intervals(accuracy, law.exact_parameter, level, interrupts);
    case LawFamily::l2_lattice: return estimated_intervals(accuracy, level, false, interrupts);
    case LawFamily::projected:
      // Projected Gaussian noise is Gaussian; a cell of projected continuous
      // Laplace noise is a combination of independent Laplace variables;
      // otherwise only the variance is known.
      if (law.error_law == ErrorLaw::projected_log_concave)
        return projected_laplace_intervals(accuracy, level, interrupts);
      if (law.error_law == ErrorLaw::projected_variance && law.has_exact_parameter)
        return projected_discrete_laplace_intervals(accuracy, law.exact_parameter, level, interrupts);
      return real_intervals(accuracy, level,
                            law.error_law == ErrorLaw::projected_gaussian ? RealTail::normal : RealTail::chebyshev,
                            interrupts);
    default: break;
  }
  throw InvalidArgument("the noise law of mechanism \"" + law.mechanism + "\" is not one of a flat release");
}

}  // namespace

struct PublishedRelease::Impl {
  PublishedLaw law;
  RowIndex index;
  std::vector<TreeRows> trees;
  std::vector<std::uint32_t> cell_of_row;  // flat and rolled up: row -> model cell (kNoRow: a rollup row)
  std::vector<std::uint32_t> grid_cell;    // rolled-up crossed: (row leaf, column leaf) -> cell
  std::unique_ptr<CellKeys> cells;         // flat and rolled up: the model's cells
  std::unique_ptr<InvariantModel> model;
  std::unique_ptr<LinearAccuracy> linear;
  std::vector<hierarchy::CascadeLaw> cascade_laws;
  std::unique_ptr<HierarchyAccuracy> hierarchy;
  std::unique_ptr<CrossedAccuracy> crossed;
  std::string statement;
  std::unique_ptr<QueryBuilder> cells_builder;  // rolled-up hierarchies: leaves of the nodes asked
  // The per-unit intervals (cells of a flat release, nodes of a cascade)
  // at the last level asked: a query of one unit takes its interval.
  std::unique_ptr<CellIntervals> unit_intervals;

  // The interval of one cell or node at `level` (computed for all units
  // once per level): the same figure the release's per-cell intervals and
  // PublishedRelease::row_intervals give it.
  const CellIntervals& intervals_at(double level, const Interrupts& interrupts) {
    if (!unit_intervals || unit_intervals->level() != level) {
      check_level(level);
      CellIntervals all = hierarchy ? hierarchy->node_intervals(level, interrupts)
                                    : law_intervals(law, linear->shared_form(), linear.get(), level, interrupts);
      all.set_level(level);
      unit_intervals = std::make_unique<CellIntervals>(std::move(all));
    }
    return *unit_intervals;
  }

  Impl(PublishedLaw l, const ReleaseRows& rows, const Interrupts& interrupts)
      : law(std::move(l)), index(rows.ids, rows.n_rows, interrupts) {}

  void build_flat(const RowLayout& layout, const ReleaseRows& rows, std::vector<std::uint32_t> which,
                  const Interrupts& interrupts) {
    cells = std::make_unique<CellKeys>(cells_of_rows(rows, layout.key_names, which, {}, interrupts));
    try {
      model = std::make_unique<InvariantModel>(*cells, margins_of(law, layout), interrupts);
    } catch (const InconsistentInvariants&) {
      throw InvalidData("the table's rows are not the release's cells: its margins would pin every cell",
                        kDifferentReleases, kReleaseRowsHint);
    }
    check_model(law, *model);
    cell_of_row.assign(rows.n_rows, kNoRow);
    for (std::uint32_t c = 0; c < which.size(); ++c) cell_of_row[which[c]] = c;
    linear = flat_accuracy(law, form_of_model(*model, interrupts), interrupts);
    statement = linear->statement();
  }

  void build_cascade(const RowLayout& layout, const Interrupts& interrupts) {
    const double bound = law.integer_output ? law.deficit_bound : -1;
    for (std::size_t a = 0; a < trees.size(); ++a)
      cascade_laws.emplace_back(trees[a].tree, law.level_variance.at(a), interrupts);
    if (trees.size() == 2) {
      if (!law.margins.empty()) throw InvalidArgument("a crossed cascade's noise law has no margins to keep");
      crossed = std::make_unique<CrossedAccuracy>(trees[0].tree, cascade_laws[0], trees[1].tree, cascade_laws[1], bound);
    } else {
      std::vector<std::uint32_t> fixed;
      for (const Margin& m : margins_of(law, layout)) {
        const auto nodes = hierarchy::margin_nodes(trees[0].tree, trees[0].leaf_keys, m.columns, interrupts);
        fixed.insert(fixed.end(), nodes.begin(), nodes.end());
      }
      polled_sort(fixed.begin(), fixed.end(), interrupts);
      fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
      if (!law.fixed_nodes.empty() && law.fixed_nodes.size() != fixed.size())
        throw InvalidData("the table's keys give " + std::to_string(fixed.size()) + " exact nodes, its noise law " +
                              std::to_string(law.fixed_nodes.size()),
                          kDifferentReleases, kReleaseRowsHint);
      if (!fixed.empty()) cascade_laws[0] = cascade_laws[0].conditioned_on(trees[0].tree, fixed, interrupts);
      hierarchy = std::make_unique<HierarchyAccuracy>(trees[0].tree, cascade_laws[0], bound);
    }
    statement = cascade_statement(law);
  }

  // Rolled up over both trees: each grid cell's model cell.
  void build_grid(const Interrupts& interrupts) {
    const hierarchy::HierarchyTree &rows = trees[0].tree, &cols = trees[1].tree;
    grid_cell.assign(std::size_t(rows.n_leaves()) * cols.n_leaves(), kNoRow);
    for (std::uint32_t r = 0; r < cell_of_row.size(); ++r) {
      interrupts.poll_every(r);
      if (cell_of_row[r] == kNoRow) continue;
      const std::size_t at = std::size_t(rows.leaf_begin(trees[0].node_of_row[r])) * cols.n_leaves() +
                             cols.leaf_begin(trees[1].node_of_row[r]);
      grid_cell[at] = cell_of_row[r];
    }
  }

  // The leaves' cells under a rolled-up hierarchy's rows, each with the
  // weight of its selected nodes above it, in cell order.
  CellQuery rolled_up(const CellQuery& q, const Interrupts& interrupts) {
    if (!cells_builder) cells_builder = std::make_unique<QueryBuilder>(model->n_cells());
    cells_builder->clear();  // what a call a cancel stopped left
    for (std::size_t k = 0; k < q.size(); ++k) {
      interrupts.poll_every(k);
      const std::uint32_t r = q.cells[k];
      if (cell_of_row[r] != kNoRow) {
        cells_builder->add(cell_of_row[r], q.weights[k]);
        continue;
      }
      const hierarchy::HierarchyTree& t0 = trees[0].tree;
      const std::uint32_t u = trees[0].node_of_row[r];
      for (std::uint32_t l = t0.leaf_begin(u), e = t0.leaf_end(u); l < e; ++l) {
        interrupts.poll_every(l);
        if (trees.size() == 1) {
          cells_builder->add(cell_of_row[trees[0].leaf_rows[t0.leaf_cell(l)]], q.weights[k]);
          continue;
        }
        const hierarchy::HierarchyTree& t1 = trees[1].tree;
        const std::uint32_t v = trees[1].node_of_row[r];
        for (std::uint32_t m = t1.leaf_begin(v), f = t1.leaf_end(v); m < f; ++m)
          cells_builder->add(grid_cell[std::size_t(l) * t1.n_leaves() + m], q.weights[k]);
      }
    }
    CellQuery cells_query = cells_builder->take();
    sort_by_unit(cells_query, interrupts);
    return cells_query;
  }

  // A lattice Gaussian on general margins publishes no deficit bound; its
  // functionals' tilted laws bound their variances from below.
  void general_variance_lower(const CellQuery& cells_query, VarianceFigure& variance, const Interrupts& interrupts) {
    if (law.family != LawFamily::gaussian_lattice || !law.has_exact_parameter ||
        variance.kind != Exactness::certified || !(variance.lower < variance.upper) ||
        std::string(linear->form().structure()) != "general")
      return;
    const double lower = general_lattice_variance_lower(linear->form(), law.exact_parameter, cells_query, interrupts);
    variance.lower = std::min(variance.upper, std::max(variance.lower, lower));
  }

  // The margin of a sum of two or more cells of a flat (or rolled-up)
  // integer lattice law, or of projected Laplace noise (continuous or
  // discrete), from the sum's own law, where it is known (sum_quantile.hpp,
  // projected_laplace.hpp).
  std::optional<MarginOfError> law_of_sum(const CellQuery& cells_query, double level, const Interrupts& interrupts) {
    if (law.family == LawFamily::projected && law.error_law == ErrorLaw::projected_log_concave)
      return projected_laplace_margin(linear->form(), std::sqrt(law.unit_variance / 2), cells_query, level, interrupts);
    if (law.family == LawFamily::projected && law.error_law == ErrorLaw::projected_variance && law.has_exact_parameter)
      return projected_discrete_laplace_margin(linear->form(), law.exact_parameter, cells_query, level, interrupts);
    if (!law.has_exact_parameter ||
        (law.family != LawFamily::laplace_lattice && law.family != LawFamily::gaussian_lattice))
      return std::nullopt;
    IntegerNoise noise;
    noise.kind = law.family == LawFamily::laplace_lattice ? IntegerNoise::Kind::laplace : IntegerNoise::Kind::gaussian;
    noise.parameter = law.exact_parameter;
    return lattice_sum_margin(linear->form(), noise, cells_query, level, interrupts);
  }
};

PublishedRelease::PublishedRelease(PublishedLaw law, const RowLayout& layout, const ReleaseRows& rows,
                                   const Interrupts& interrupts)
    : impl_(std::make_unique<Impl>(std::move(law), rows, interrupts)) {
  Impl& s = *impl_;
  if (s.law.family == LawFamily::stream) {
    s.statement = "exact: every period a leaf of one binary cascade at the stream's node variance";
    return;
  }
  if (s.law.hierarchical()) s.trees = tree_rows(s.law, layout, rows, interrupts);
  if (s.law.family == LawFamily::cascade) {
    s.build_cascade(layout, interrupts);
    return;
  }
  if (!s.law.hierarchical()) {
    std::vector<std::uint32_t> all(rows.n_rows);
    for (std::uint32_t r = 0; r < all.size(); ++r) all[r] = r;
    s.build_flat(layout, rows, std::move(all), interrupts);
    return;
  }
  s.build_flat(layout, rows, cell_rows(s.trees, rows.n_rows), interrupts);
  if (s.law.crossed()) s.build_grid(interrupts);
}

PublishedRelease::~PublishedRelease() = default;

CellIntervals PublishedRelease::row_intervals(double level, const Interrupts& interrupts) const {
  const Impl& s = *impl_;
  if (s.linear && !s.law.hierarchical()) {
    CellIntervals out = law_intervals(s.law, s.linear->shared_form(), s.linear.get(), level, interrupts);
    out.set_level(level);
    return out;
  }
  if (s.crossed) {
    // Each row is one rectangle (row node, column node).
    std::vector<double> width(s.index.size());
    Exactness kind = Exactness::exact;
    std::string method;
    for (std::size_t r = 0; r < width.size(); ++r) {
      interrupts.poll_every(r);
      const CrossedAccuracy::RectangleInterval unit =
          s.crossed->rectangle_interval(s.trees[0].node_of_row[r], s.trees[1].node_of_row[r], level, interrupts);
      width[r] = unit.half_width;
      if (method.empty() || (unit.kind != Exactness::exact && kind == Exactness::exact)) method = unit.method;
      kind = weaker(kind, unit.kind);
    }
    CellIntervals out(std::move(width), s.law.integer_output, kind, method);
    out.set_level(level);
    return out;
  }
  if (!s.hierarchy)
    throw InvalidArgument("per-row intervals are for flat releases and cascades over one or two crossed hierarchies",
                          "A rollup node of a rolled-up hierarchy is a sum of cells: its error bar is "
                          "dp.margin_of_error's.");
  const CellIntervals nodes = s.hierarchy->node_intervals(level, interrupts);
  std::vector<double> width(s.index.size());
  for (std::size_t r = 0; r < width.size(); ++r) {
    interrupts.poll_every(r);
    width[r] = nodes.half_width(s.trees[0].node_of_row[r]);
  }
  CellIntervals out(std::move(width), nodes.integer(), nodes.kind(), nodes.method());
  out.set_level(level);
  return out;
}

std::size_t PublishedRelease::n_rows() const { return impl_->index.size(); }
const PublishedLaw& PublishedRelease::law() const { return impl_->law; }
const std::string& PublishedRelease::statement() const { return impl_->statement; }

ErrorBar PublishedRelease::sum(const RowId* ids, const double* weights, std::size_t n, double level,
                               const Interrupts& interrupts) {
  Impl& s = *impl_;
  ErrorBar out;
  CellQuery rows = rows_of(s.index, ids, weights, n, out.unknown_rows, interrupts);
  if (out.unknown_rows > 0) return out;
  out.cells = rows.size();
  // How many cells the sum is worth for the normal approximation: nodes or
  // rectangles once families are collapsed; for flat and rolled-up laws a
  // count of the random variable, not of the rows asked.
  double tail_cells = double(rows.size());
  bool flat_query = false;
  CellQuery cells_query;  // flat and rolled-up laws: the sum over the model's cells
  Rectangles rectangles;  // crossed laws: the sum over (row node, column node) pairs
  if (s.law.family == LawFamily::stream) {
    std::vector<std::uint64_t> periods(rows.cells.begin(), rows.cells.end());
    const double v = stream_variance(s.law.stream_variance, std::move(periods), rows.weights, interrupts);
    out.variance = VarianceFigure{v, v, Exactness::exact};
  } else if (s.hierarchy) {
    for (std::uint32_t& r : rows.cells) r = s.trees[0].node_of_row[r];
    rows = collapse_families(s.trees[0].tree, push_down_to_antichain(s.trees[0].tree, std::move(rows), interrupts),
                             interrupts);
    tail_cells = double(rows.size());
    out.variance = s.hierarchy->variance(rows, interrupts);
  } else if (s.crossed) {
    Rectangles q;
    for (const std::uint32_t r : rows.cells) {
      q.rows.push_back(s.trees[0].node_of_row[r]);
      q.cols.push_back(s.trees[1].node_of_row[r]);
    }
    q.weights = rows.weights;
    rectangles = collapse_rectangles(s.trees[0].tree, s.trees[1].tree, std::move(q), interrupts);
    tail_cells = double(rectangles.rows.size());
    out.variance = s.crossed->variance(rectangles.rows, rectangles.cols, rectangles.weights, interrupts);
  } else {
    if (s.law.hierarchical()) {
      cells_query = s.rolled_up(rows, interrupts);
    } else {
      for (std::uint32_t& r : rows.cells) r = s.cell_of_row[r];
      sort_by_unit(rows, interrupts);
      cells_query = std::move(rows);
    }
    // One cell given the margins (the rest of its row, the cell with its
    // row added): that cell, so that its figure is the cell's below.
    if (std::optional<CellQuery> one = as_one_cell(s.linear->form(), cells_query, interrupts))
      cells_query = std::move(*one);
    out.variance = s.linear->variance(cells_query, interrupts);
    s.general_variance_lower(cells_query, out.variance, interrupts);
    rows = cells_query;
    flat_query = true;
  }
  out.caveat = s.law.caveat;
  if (std::isnan(level)) return out;
  out.has_margin = true;
  // One unit (a cell of a flat release, a node of a cascade over one tree,
  // once its children are collapsed): its interval, scaled by the weight's
  // size (P(|w X| <= |w| t) = P(|X| <= t)), so that a cell's interval and
  // the margin of that cell alone are one number.
  if (s.crossed && rectangles.rows.size() == 1 && out.variance.upper > 0) {
    // One rectangle: its interval, as for a node.
    const CrossedAccuracy::RectangleInterval unit =
        s.crossed->rectangle_interval(rectangles.rows[0], rectangles.cols[0], level, interrupts);
    const double w = std::fabs(rectangles.weights[0]);
    double half = w * unit.half_width;
    if (s.law.integer_output && w != std::floor(w)) half = double(integer_half_width(half));
    out.margin.half_width = half;
    // The kind its interval reports: the quantile is of the law, and neither
    // certified variance bounds nor an estimated covariance scale enter it
    // (an interval drawn from an estimated variance says so itself).
    out.margin.kind = unit.kind;
    out.margin.method = unit.method;
    return out;
  }
  const bool one_unit = rows.size() == 1 && (s.hierarchy || s.linear);
  if (one_unit && out.variance.upper > 0) {
    const CellIntervals& unit = s.intervals_at(level, interrupts);
    const double w = std::fabs(rows.weights[0]);
    double half = w * unit.half_width(rows.cells[0]);
    if (s.law.integer_output && w != std::floor(w)) half = double(integer_half_width(half));
    out.margin.half_width = half;
    // The kind its interval reports, as for a rectangle above.
    out.margin.kind = unit.kind();
    out.margin.method = unit.method();
    return out;
  }
  // Two units or more: the sum's own law where it is known.
  if (out.variance.upper > 0) {
    std::optional<MarginOfError> from_law;
    if (s.hierarchy)
      from_law = s.hierarchy->lattice_margin(rows, level, interrupts);
    else if (s.crossed)
      from_law = s.crossed->lattice_margin(rectangles.rows, rectangles.cols, rectangles.weights, level, interrupts);
    else if (s.linear)
      from_law = s.law_of_sum(rows, level, interrupts);
    if (from_law) {
      out.margin = std::move(*from_law);
      return out;
    }
  }
  if (flat_query) tail_cells = s.linear->effective_cells(rows, interrupts);
  out.margin = margin_of_error(out.variance, level, recommended_tail(s.law.shape, tail_cells), s.law.shape,
                               s.law.integer_output);
  return out;
}

CellIntervals flat_intervals(const PublishedLaw& law, const CellKeys& cells, double level,
                             const Interrupts& interrupts) {
  if (law.hierarchical() || law.family == LawFamily::cascade || law.family == LawFamily::stream)
    throw InvalidArgument("the noise law of mechanism \"" + law.mechanism + "\" is not one of a flat release");
  std::shared_ptr<const ProjectorForm> form;
  if (law.margins.empty()) {
    if (law.cells >= 0 && std::uint64_t(law.cells) != cells.n_cells())
      throw InvalidData("the noise law has " + std::to_string(law.cells) + " cells, the release " +
                        std::to_string(cells.n_cells()));
    // Independent cells: one quantile for all, no form to build (a release
    // of millions of cells pays O(1) here, then one pass for the bounds).
    if (law.family == LawFamily::laplace_lattice && law.has_exact_parameter)
      return discrete_laplace_intervals(cells.n_cells(), law.exact_parameter, level);
    if (law.family == LawFamily::gaussian_lattice && law.has_exact_parameter)
      return discrete_gaussian_intervals(cells.n_cells(), law.exact_parameter, level);
    form = identity_form(cells.n_cells());
  } else {
    std::vector<Margin> margins;
    for (const auto& names : law.margins) {
      Margin m;
      for (const std::string& name : names) m.columns.push_back(cells.column_index(name));
      margins.push_back(std::move(m));
    }
    // The cells outlive the model, whose groups may be their codes (the
    // form keeps copies of its own).
    const InvariantModel model(cells, std::move(margins), interrupts, KeyCodes::borrowed);
    check_model(law, model);
    form = form_of_model(model, interrupts);
  }
  CellIntervals out = law_intervals(law, form, nullptr, level, interrupts);
  out.set_level(level);
  return out;
}

}  // namespace invariant_dp::accuracy
