// A release table's rows as cells and tree nodes (release_rows.hpp).
#include "release_rows.hpp"

#include <algorithm>
#include <cctype>

#include "../errors.hpp"

namespace invariant_dp::accuracy {
namespace {

const char* const kNotTheRelease =
    "A release table holds exactly the rows its release returned: the cells, and with a hierarchy one row per "
    "node (NULL in the keys below its level).";

std::size_t key_index(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    std::string listed;
    for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
    throw InvalidArgument("the release's column \"" + name + "\" is not a key column of the table",
                          "The noise law names it (a margin or a hierarchy level); the table's key columns are " +
                              listed + ".",
                          "Keep the table's columns as the release returned them: the key columns, named as in "
                          "the source, then the count.");
  }
  return std::size_t(it - names.begin());
}

bool count_type(ColumnType t) { return t == ColumnType::int8 || t == ColumnType::float8 || t == ColumnType::numeric; }

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

std::size_t slots_for(std::size_t n) {
  std::size_t slots = 16;
  // Ends: doubles up to twice n, at most 64 times.
  while (slots < 2 * n) slots *= 2;
  return slots;
}

// The nodes of a tree by (depth, codes of the first `depth` levels),
// each node's codes read from its first leaf's row.
class PrefixIndex {
 public:
  PrefixIndex(const TreeRows& t, const ReleaseRows& rows, bool leaves, const Interrupts& interrupts)
      : t_(t), rows_(rows), slots_(slots_for(t.tree.n_nodes()), kNoRow), mask_(slots_.size() - 1) {
    for (std::uint32_t u = 0; u < t.tree.n_nodes(); ++u) {
      interrupts.poll_every(u);
      if (t.tree.is_leaf(u) && !leaves) continue;
      const unsigned d = t.tree.depth(u);
      std::size_t i = hash(first_row(u), d) & mask_;
      // Ends: open addressing at most half full: an empty slot is met.
      while (slots_[i] != kNoRow) i = (i + 1) & mask_;
      slots_[i] = u;
    }
  }
  std::uint32_t find(std::uint32_t row, unsigned depth) const {
    for (std::size_t i = hash(row, depth) & mask_; slots_[i] != kNoRow; i = (i + 1) & mask_) {
      const std::uint32_t u = slots_[i];
      if (t_.tree.depth(u) == depth && same_prefix(first_row(u), row, depth)) return u;
    }
    return kNoRow;
  }

 private:
  const TreeRows& t_;
  const ReleaseRows& rows_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_;

  std::uint32_t first_row(std::uint32_t u) const { return t_.leaf_rows[t_.tree.leaf_cell(t_.tree.leaf_begin(u))]; }
  std::uint64_t hash(std::uint32_t row, unsigned depth) const {
    std::uint64_t h = mix(depth + 1);
    for (unsigned d = 0; d < depth; ++d) h = mix(h ^ rows_.keys[t_.level_keys[d]].codes[row]);
    return h;
  }
  bool same_prefix(std::uint32_t a, std::uint32_t b, unsigned depth) const {
    for (unsigned d = 0; d < depth; ++d) {
      const std::uint32_t* codes = rows_.keys[t_.level_keys[d]].codes;
      if (codes[a] != codes[b]) return false;
    }
    return true;
  }
};

// A row's depth in a tree: its leading non-NULL levels; below the finest
// level, a leaf when the level column says so or, without one, when any
// key below the levels is set. kNoDepth: the row fits no node.
constexpr std::uint8_t kNoDepth = 0xff;
std::uint8_t row_depth(const ReleaseRows& rows, std::uint32_t r, const std::vector<std::size_t>& levels,
                   const std::vector<std::size_t>& extras, bool cells_below, const std::int32_t* level_column) {
  unsigned d = 0;
  // Ends: at most one pass per level.
  while (d < levels.size() && !rows.keys[levels[d]].is_null(r)) ++d;
  for (std::size_t j = d; j < levels.size(); ++j)
    if (!rows.keys[levels[j]].is_null(r)) return kNoDepth;
  if (cells_below && d == levels.size()) {
    bool leaf = false;
    if (level_column != nullptr) {
      leaf = level_column[r] == std::int32_t(levels.size() + 1);
    } else {
      for (const std::size_t e : extras) leaf = leaf || !rows.keys[e].is_null(r);
    }
    if (leaf) ++d;
  }
  if (d <= levels.size())
    for (const std::size_t e : extras)
      if (!rows.keys[e].is_null(r)) return kNoDepth;
  if (level_column != nullptr && level_column[r] != std::int32_t(d)) return kNoDepth;
  return std::uint8_t(d);
}

[[noreturn]] void not_a_node(const char* what) {
  throw InvalidData(std::string("the table's rows are not a hierarchy release's rows: ") + what, kNotTheRelease,
                    kReleaseRowsHint);
}

}  // namespace

RowLayout row_layout(const PublishedLaw& law, const TableColumns& columns) {
  if (columns.types.size() != columns.names.size()) throw InvalidArgument("a table needs one type per column");
  // {"interval": level} ends the table with lower and upper, of the count's
  // type: the layout is that of the columns before them.
  std::size_t n = columns.names.size();
  if (n >= 4 && lower(columns.names[n - 2]) == "lower" && lower(columns.names[n - 1]) == "upper" &&
      count_type(columns.types[n - 2]) && count_type(columns.types[n - 1]))
    n -= 2;
  const auto types_end = columns.types.begin() + std::ptrdiff_t(n);
  RowLayout layout;
  const std::size_t axes = law.trees.size();
  if (!columns.key_names.empty()) {
    layout.n_keys = columns.key_names.size();
  } else if (law.family == LawFamily::stream) {
    layout.n_keys = 1;
  } else {
    std::size_t trailing = 0;
    if (axes > 0 && n >= axes + 2 &&
        std::all_of(types_end - std::ptrdiff_t(axes), types_end,
                    [](ColumnType t) { return t == ColumnType::int4; }))
      trailing = axes;
    if (n >= trailing + 3 && columns.types[n - trailing - 1] == ColumnType::float8 &&
        lower(columns.names[n - trailing - 1]) == "sd")
      ++trailing;
    layout.n_keys = n >= trailing + 1 ? n - trailing - 1 : 0;
  }
  if (layout.n_keys == 0 || layout.n_keys >= n)
    throw InvalidArgument("the table has no key column and count as a release table has",
                          "A release table holds the key columns, then the count, then the columns options add (sd, "
                          "level, lower and upper).",
                          kReleaseRowsHint);
  if (!count_type(columns.types[layout.n_keys]))
    throw InvalidArgument("the column \"" + columns.names[layout.n_keys] + "\" after the keys is not a count",
                          "A release's count is bigint, float8 or numeric.", kReleaseRowsHint);
  layout.key_names = columns.key_names.empty()
                         ? std::vector<std::string>(columns.names.begin(), columns.names.begin() + layout.n_keys)
                         : columns.key_names;
  if (axes > 0) {
    layout.level_columns.assign(axes, -1);
    if (n >= layout.n_keys + 1 + axes &&
        std::all_of(types_end - std::ptrdiff_t(axes), types_end,
                    [](ColumnType t) { return t == ColumnType::int4; }))
      for (std::size_t a = 0; a < axes; ++a) layout.level_columns[a] = int(n - axes + a);
  }
  for (const auto& margin : law.margins)
    for (const std::string& column : margin) key_index(layout.key_names, column);
  for (const PublishedTree& t : law.trees)
    for (const std::string& column : t.levels) key_index(layout.key_names, column);
  layout.period_order = law.family == LawFamily::stream;
  return layout;
}

RowIndex::RowIndex(const RowId* ids, std::size_t n, const Interrupts& interrupts)
    : ids_(ids, ids + n), slots_(slots_for(n), kNoRow), mask_(slots_.size() - 1) {
  if (n >= kNoRow) throw TooLarge("a release table of more than 2^32 rows is not supported");
  for (std::uint32_t r = 0; r < n; ++r) {
    interrupts.poll_every(r);
    std::size_t i = mix(ids_[r].lo) & mask_;
    // Ends: open addressing at most half full: an empty slot is met.
    while (slots_[i] != kNoRow) {
      if (ids_[slots_[i]] == ids_[r])
        throw InvalidData("the table holds the same row twice", kNotTheRelease, kReleaseRowsHint);
      i = (i + 1) & mask_;
    }
    slots_[i] = r;
  }
}

std::uint32_t RowIndex::find(const RowId& id) const {
  for (std::size_t i = mix(id.lo) & mask_; slots_[i] != kNoRow; i = (i + 1) & mask_)
    if (ids_[slots_[i]] == id) return slots_[i];
  return kNoRow;
}

void RowIndex::find_many(const RowId* ids, std::size_t n, std::uint32_t* rows, const Interrupts& interrupts) const {
  constexpr std::size_t kAhead = 8;
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (i + kAhead < n) __builtin_prefetch(&slots_[mix(ids[i + kAhead].lo) & mask_]);
    rows[i] = find(ids[i]);
  }
}

CellKeys cells_of_rows(const ReleaseRows& rows, const std::vector<std::string>& key_names,
                       const std::vector<std::uint32_t>& which, const std::vector<std::size_t>& columns,
                       const Interrupts& interrupts) {
  std::vector<std::size_t> picked = columns;
  if (picked.empty())
    for (std::size_t k = 0; k < rows.keys.size(); ++k) picked.push_back(k);
  std::vector<std::string> names;
  std::vector<std::vector<std::uint32_t>> codes;
  std::vector<std::uint32_t> n_levels;
  for (const std::size_t k : picked) {
    names.push_back(key_names.at(k));
    n_levels.push_back(rows.keys[k].n_levels);
    std::vector<std::uint32_t> c(which.size());
    for (std::size_t i = 0; i < which.size(); ++i) {
      interrupts.poll_every(i);
      c[i] = rows.keys[k].codes[which[i]];
    }
    codes.push_back(std::move(c));
  }
  try {
    return CellKeys::from_codes(std::move(names), std::move(codes), std::move(n_levels), interrupts);
  } catch (const InvalidData&) {
    throw InvalidData("the table's rows are not a release's rows: two cells have the same keys", kNotTheRelease,
                      kReleaseRowsHint);
  }
}

std::vector<TreeRows> tree_rows(const PublishedLaw& law, const RowLayout& layout, const ReleaseRows& rows,
                                const Interrupts& interrupts) {
  const std::size_t axes = law.trees.size();
  std::vector<std::vector<std::size_t>> levels(axes);
  std::vector<bool> is_level(layout.n_keys, false);
  for (std::size_t a = 0; a < axes; ++a)
    for (const std::string& name : law.trees[a].levels) {
      levels[a].push_back(std::find(layout.key_names.begin(), layout.key_names.end(), name) - layout.key_names.begin());
      is_level[levels[a].back()] = true;
    }
  for (const auto& l : levels)
    if (l.size() >= kNoDepth - 1) throw TooLarge("a hierarchy of more than 250 levels has no error bars");
  std::vector<std::size_t> extras;
  for (std::size_t k = 0; k < layout.n_keys; ++k)
    if (!is_level[k]) extras.push_back(k);
  if (axes == 2 && !extras.empty())
    throw InvalidArgument("a crossed release's key columns are exactly its two hierarchies' levels");
  if (axes == 1 && extras.empty() == law.trees[0].cells_below)
    throw InvalidArgument("the table's key columns do not match the hierarchy its noise law publishes", "",
                          kReleaseRowsHint);

  // Each row's depth in each tree.
  std::vector<std::vector<std::uint8_t>> depth(axes, std::vector<std::uint8_t>(rows.n_rows));
  for (std::size_t a = 0; a < axes; ++a) {
    const std::int32_t* level_column = a < rows.levels.size() ? rows.levels[a] : nullptr;
    for (std::uint32_t r = 0; r < rows.n_rows; ++r) {
      interrupts.poll_every(r);
      depth[a][r] = row_depth(rows, r, levels[a], extras, law.trees[a].cells_below, level_column);
      if (depth[a][r] == kNoDepth) not_a_node("a row is NULL above a key it sets, or its level column disagrees");
    }
  }
  std::vector<TreeRows> out;
  out.reserve(axes);
  for (std::size_t a = 0; a < axes; ++a) {
    const unsigned height = unsigned(levels[a].size() + (law.trees[a].cells_below ? 1 : 0));
    std::vector<std::uint32_t> leaf_rows;
    for (std::uint32_t r = 0; r < rows.n_rows; ++r)
      if (depth[a][r] == height && (axes == 1 || depth[1 - a][r] == 0)) leaf_rows.push_back(r);
    if (leaf_rows.empty()) not_a_node("no row is a cell");
    // One tree: every key column (its margins and leaves need them all);
    // a crossed tree: its own levels, the first columns of its leaf keys.
    const bool crossed = axes == 2;
    CellKeys leaf_keys = cells_of_rows(rows, layout.key_names, leaf_rows,
                                       crossed ? levels[a] : std::vector<std::size_t>{}, interrupts);
    std::vector<std::size_t> tree_levels = levels[a];
    if (crossed)
      for (std::size_t d = 0; d < tree_levels.size(); ++d) tree_levels[d] = d;
    hierarchy::HierarchyTree tree = hierarchy::HierarchyTree::from_cell_keys(leaf_keys, tree_levels, interrupts);
    out.push_back(TreeRows{levels[a], std::move(leaf_rows), std::move(leaf_keys), std::move(tree), {}});
    TreeRows& t = out.back();
    if (t.tree.n_leaves() != law.trees[a].leaves || t.tree.n_nodes() != law.trees[a].nodes)
      throw InvalidData("the table's rows are not the release's: its noise law has " +
                            std::to_string(law.trees[a].nodes) + " nodes and " + std::to_string(law.trees[a].leaves) +
                            " leaves, the table's keys " + std::to_string(t.tree.n_nodes()) + " and " +
                            std::to_string(t.tree.n_leaves()),
                        kNotTheRelease, kReleaseRowsHint);
    t.node_of_row.assign(rows.n_rows, kNoRow);
    for (std::uint32_t leaf = 0; leaf < t.tree.n_leaves(); ++leaf) {
      interrupts.poll_every(leaf);
      const std::uint32_t row = t.leaf_rows[t.tree.leaf_cell(leaf)];
      t.node_of_row[row] = t.tree.leaf_node(leaf);
    }
    // Rows of internal nodes, and a crossed release's rows of leaves
    // below another tree's internal node, by their prefix.
    const PrefixIndex index(t, rows, crossed, interrupts);
    for (std::uint32_t r = 0; r < rows.n_rows; ++r) {
      interrupts.poll_every(r);
      if (t.node_of_row[r] == kNoRow) t.node_of_row[r] = index.find(r, depth[a][r]);
      if (t.node_of_row[r] == kNoRow) not_a_node("a row's keys are the keys of no node");
    }
  }
  // Every node (or pair of nodes) has exactly one row.
  std::size_t expected = 1;
  for (const TreeRows& t : out) expected *= t.tree.n_nodes();
  if (expected != rows.n_rows)
    throw InvalidData("the table has " + std::to_string(rows.n_rows) + " rows, its release " + std::to_string(expected),
                      kNotTheRelease, kReleaseRowsHint);
  std::vector<std::uint8_t> seen(expected, 0);
  for (std::uint32_t r = 0; r < rows.n_rows; ++r) {
    std::size_t at = out[0].node_of_row[r];
    if (axes == 2) at = at * out[1].tree.n_nodes() + out[1].node_of_row[r];
    if (seen[at]++) not_a_node("two rows are the same node");
  }
  return out;
}

std::vector<std::uint32_t> cell_rows(const std::vector<TreeRows>& trees, std::size_t n_rows) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t r = 0; r < n_rows; ++r) {
    bool leaf = true;
    for (const TreeRows& t : trees) leaf = leaf && t.tree.is_leaf(t.node_of_row[r]);
    if (leaf) out.push_back(r);
  }
  return out;
}

}  // namespace invariant_dp::accuracy
