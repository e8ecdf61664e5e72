// The rows of a release table, as an analyst may read them, turned into the
// structure their error bars need: which row is which cell, margin group,
// table or tree node. The structure is a function of the keys (the release
// built it from them), so the rows rebuild it; the published law
// (published_law.hpp) only names the columns.
//
// Layout. A release table holds dp.privatize's columns in order: the key
// columns, the count, then what options add (sd, level columns, lower and
// upper). Which columns are keys is known exactly when the caller knows the
// release's key columns (a governed release: its pinned source's), and
// otherwise follows from the law and the column types: two last columns
// named lower and upper of a count's type are an interval's, set aside;
// then, with a hierarchy, trailing integer columns are its level columns
// (one per hierarchy; a count is never an integer); then a trailing float8
// column named "sd" is the sd column; the column before is the count. The
// structure reads only the columns the law names (margins, hierarchy
// levels) and, below a hierarchy's finest level, the other keys; so a flat
// release's layout matters only through those names.
//
// Rows are identified by a 128-bit identity the caller computes from the
// whole row (RowId), the same way for the table's rows and for the rows an
// aggregate is given: two rows of one table never share one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../hierarchy/hierarchy_tree.hpp"
#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "published_law.hpp"

namespace invariant_dp::accuracy {

// The hint of every refusal of a table whose rows are not a release's.
constexpr const char* kReleaseRowsHint =
    "Aggregate over the release table as it was drawn, with the noise law of that draw.";

enum class ColumnType { other, int4, int8, float8, numeric };

struct TableColumns {
  std::vector<std::string> names;
  std::vector<ColumnType> types;
  // The release's key columns as its law names them, when the caller knows
  // them (the table's first key_names.size() columns); empty otherwise.
  std::vector<std::string> key_names;
};

struct RowLayout {
  std::size_t n_keys = 0;
  std::vector<std::string> key_names;  // as the law names them
  std::vector<int> level_columns;      // per hierarchy, the table column of its level, or -1
  bool period_order = false;           // a stream: rows must come in period order
};

// InvalidArgument when the table cannot hold this release (a column the
// law names is missing, no count column, ...), naming what is wrong.
RowLayout row_layout(const PublishedLaw& law, const TableColumns& columns);

struct RowId {
  std::uint64_t hi = 0, lo = 0;
  bool operator==(const RowId& o) const { return hi == o.hi && lo == o.lo; }
};

// One key column: each row's code in the column's dictionary (equal keys,
// equal codes), the number of codes, and the code of SQL NULL
// (0xffffffff when the column holds none).
struct KeyColumn {
  const std::uint32_t* codes = nullptr;
  std::uint32_t n_levels = 0;
  std::uint32_t null_code = 0xffffffffu;
  bool is_null(std::size_t row) const { return codes[row] == null_code; }
};

struct ReleaseRows {
  std::size_t n_rows = 0;
  const RowId* ids = nullptr;
  std::vector<KeyColumn> keys;               // layout.n_keys columns
  std::vector<const std::int32_t*> levels;   // per level column of the layout (negative: NULL)
};

constexpr std::uint32_t kNoRow = 0xffffffffu;

// The table's rows by identity: O(rows) to build, O(1) to find.
class RowIndex {
 public:
  // InvalidData if two rows share an identity (the same row twice).
  RowIndex(const RowId* ids, std::size_t n, const Interrupts& interrupts);
  std::uint32_t find(const RowId& id) const;
  // rows[i] = find(ids[i]) for n ids, with the table's lines prefetched a
  // few ids ahead (each lookup is a cache miss in a table of millions).
  void find_many(const RowId* ids, std::size_t n, std::uint32_t* rows, const Interrupts& interrupts) const;
  std::size_t size() const { return ids_.size(); }

 private:
  std::vector<RowId> ids_;
  std::vector<std::uint32_t> slots_;
  std::uint64_t mask_ = 0;
};

// The cells of a set of rows as CellKeys over the key columns named (all
// of them: `columns` empty), for the invariant model and the trees.
CellKeys cells_of_rows(const ReleaseRows& rows, const std::vector<std::string>& key_names,
                       const std::vector<std::uint32_t>& which, const std::vector<std::size_t>& columns,
                       const Interrupts& interrupts);

// One hierarchy among the rows: its tree (built from its leaf rows' keys,
// as the release built it) and each row's node.
struct TreeRows {
  std::vector<std::size_t> level_keys;  // key column index of each level, coarsest first
  std::vector<std::uint32_t> leaf_rows; // the rows of the leaves, in CellKeys cell order
  CellKeys leaf_keys;                   // every key column of the leaf rows
  hierarchy::HierarchyTree tree;
  std::vector<std::uint32_t> node_of_row;  // per table row (kNoRow: not a node of this tree's pass)
};

// One hierarchy (tree 0 of the law) or both trees of a crossed release:
// rows are classified by the NULL pattern of each tree's level columns (a
// rollup row is NULL below its level) and the level column when present;
// InvalidData when a row fits no node, or two rows are one node.
// For a crossed release each tree is built from the rows that are totals
// of the other tree (its depth 0), and node_of_row gives every row's node
// in that tree.
std::vector<TreeRows> tree_rows(const PublishedLaw& law, const RowLayout& layout, const ReleaseRows& rows,
                                const Interrupts& interrupts);

// Which rows are cells (leaves of every tree), in row order.
std::vector<std::uint32_t> cell_rows(const std::vector<TreeRows>& trees, std::size_t n_rows);

}  // namespace invariant_dp::accuracy
