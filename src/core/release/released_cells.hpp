// The cells a release covers (the domain's, when one is given) and their
// counts (0 for domain cells the source lacks). With a privacy unit the
// counts are the bounded table's (mechanisms/privacy_unit.hpp), a source of
// rows ({"source": "rows"}) is counted here, and with partition selection
// only the cells it shows remain (mechanisms/partition_selection.hpp); the
// cells are then some source
// rows, row_of_cell (empty: every source row, or the domain's rows), viewed
// in place. keys may read the input's codes or view_codes in place
// (KeyCodes::borrowed): it is used while both live.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "../random_source.hpp"
#include "release_input.hpp"

namespace invariant_dp {

struct ReleasedCells {
  std::unique_ptr<CellKeys> keys;
  std::vector<std::int64_t> domain_counts;
  const std::int64_t* counts = nullptr;
  std::vector<std::uint32_t> row_of_cell;
  std::vector<std::int64_t> view_counts;
  std::vector<std::vector<std::uint32_t>> view_codes;  // per key column
  std::vector<const std::uint32_t*> view_columns;
};

// encoded: the key columns whose codes the release needs (encoded_columns).
ReleasedCells released_cells(const ReleaseInput& input, const std::vector<bool>& encoded,
                             const ReleaseRequest& request, RandomSource& rng, const Interrupts& interrupts);

}  // namespace invariant_dp
