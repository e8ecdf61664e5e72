// Conversions shared by the C entry points: plain C buffers to core types,
// and core results back to malloc'd buffers the shim frees with idp_free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "../rollups/hierarchy_release.hpp"
#include "invariant_dp_core.h"

namespace invariant_dp::capi {

RawRequest raw_request(const idp_request* request);
std::vector<std::string> strings(std::size_t n, const char* const* text);
Interrupts interrupts_of(const idp_interrupts* interrupts);
char* malloc_copy(const std::string& text);
// Refuses real-valued results that are NaN or infinite (OutOfRange,
// SQLSTATE 22003) before anything is returned: float8 would carry them to a
// client that reads them as counts or variances. what names them in the
// message ("released value", "range variance", ...).
void refuse_non_finite(const double* values, std::size_t n, const char* what, const Interrupts& interrupts = {});
// A key dictionary across the boundary, either way.
KeyDictionary dictionary_of(const idp_key_dictionary& dictionary);
idp_key_dictionary c_dictionary(const KeyDictionary& dictionary);

// A malloc'd copy of a vector, element-converted (at least one element, so
// never NULL): the output arrays the shim frees with the idp_free_* calls.
template <class T, class U>
T* malloc_array(const std::vector<U>& values) {
  T* out = static_cast<T*>(std::malloc(std::max<std::size_t>(values.size(), 1) * sizeof(T)));
  if (out == nullptr) throw std::bad_alloc();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  return out;
}

// The cells' tables of keys as the core reads them (key_rows.hpp): the
// source rows, the domain's, the released rows (the domain's when given) and
// the units, over the dictionaries the shim passed.
class CellTables {
 public:
  explicit CellTables(const idp_cells* cells);
  CellTables(const CellTables&) = delete;
  CellTables& operator=(const CellTables&) = delete;
  KeyRows source() const;
  KeyRows domain() const;
  KeyRows released() const { return cells_->has_domain ? domain() : source(); }
  KeyRows units() const;

 private:
  const idp_cells* cells_;
  std::vector<KeyDictionary> dictionaries_;
  KeyDictionary unit_dictionary_;
};

// The cells a release covers (the domain's, when one is given) and their
// counts (0 for domain cells the source lacks). With a privacy unit the
// counts are the bounded table's (privacy_unit.hpp), and with partition
// selection only the cells it shows remain (partition_selection.hpp); the
// cells are then some source rows, row_of_cell (empty: every source row,
// or the domain's rows), viewed in place. keys may read the codes of the
// idp_cells or of view_codes in place (KeyCodes::borrowed): it is used
// while both live, within the call that was handed the cells.
struct ReleasedCells {
  std::unique_ptr<CellKeys> keys;
  std::vector<std::int64_t> domain_counts;
  const std::int64_t* counts = nullptr;
  std::vector<std::uint32_t> row_of_cell;
  std::vector<std::int64_t> view_counts;
  std::vector<std::vector<std::uint32_t>> view_codes;  // per key column
  std::vector<const std::uint32_t*> view_columns;
};
// encoded: the key columns whose codes the release needs (columns_named).
ReleasedCells released_cells(const idp_cells* cells, const CellTables& tables, const std::vector<bool>& encoded,
                             const ReleaseRequest& request, RandomSource& rng, const Interrupts& interrupts);

// Which of the key columns any of the name lists names (margins, levels).
std::vector<bool> columns_named(const std::vector<std::string>& key_columns,
                                const std::vector<std::vector<std::string>>& name_lists);


// A request checked as dp.privatize checks it before its source runs:
// the hierarchy and its options taken out, then the rest validated.
struct CheckedRequest {
  ReleaseRequest release;
  HierarchyRequest hierarchy;
  HierarchyBudget budget;
};
CheckedRequest check_request(const idp_request* request);

// The key columns a checked release needs codes of: its margins' and levels'.
std::vector<bool> encoded_columns(const CheckedRequest& checked, const idp_cells* cells);

// InvalidArgument naming a margin or hierarchy column the source lacks.
void check_columns(const CheckedRequest& checked, const std::vector<std::string>& key_columns);

}  // namespace invariant_dp::capi
