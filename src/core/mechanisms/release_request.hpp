// A validated release request: everything dp.privatize was asked, checked
// before the source query runs, so a typo costs nothing (the parsing and
// its refusals: request/release_request.hpp). What every mechanism reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../privacy/contribution_bounds.hpp"
#include "../privacy/neighbours.hpp"
#include "mechanism.hpp"
#include "partition_selection.hpp"
#include "privacy_unit.hpp"

namespace invariant_dp {


struct ReleaseRequest {
  const MechanismTraits* mechanism = nullptr;
  double epsilon = 0;
  double delta = 0;  // 0 for pure-DP mechanisms
  Neighbours neighbours = Neighbours::ReplaceOne;
  // Each margin: the key column names whose marginal totals stay exact.
  std::vector<std::vector<std::string>> margins;
  bool with_stddev = false;  // options {"stddev": true}
  // options {"interval": level}: per-cell intervals at this level, 0 < level
  // < 1 (release/release_intervals.hpp); 0: none.
  double interval_level = 0;
  // MCMC settings of the lattice mechanisms (0: the default).
  std::uint64_t iterations = 0;  // options {"iterations": n}
  double proposal_a = 0;         // options {"proposal_a": a}, 0 < a < 1
  // options {"sampler": ...}: congenial's "auto" | "rejection" | "lattice" |
  // "mis"; integer_laplace's "auto" | "chain" (an uncertified chain accepted).
  std::string sampler = "auto";
  // dp.privatize's privacy_unit (the column; empty: one row per person)
  // and its bounds: every sensitivity below is one unit's (privacy_unit.hpp).
  std::string privacy_unit;
  ContributionBounds bounds;
  // options {"source": "rows"}: the source returns one row per person, its
  // key columns only, and the release counts them (release/released_cells.hpp)
  // instead of PostgreSQL's GROUP BY; a privacy unit's source is rows too.
  bool source_rows = false;
  // options {"partition_selection": ...}: epsilon and delta above are then
  // the counts' share, selection's the rest (partition_selection.hpp).
  SelectionLaw selection;
  // options {"keys": "public"}: the caller states that the source's keys
  // are public, so releasing exactly the cells it returns reveals nothing.
  bool keys_public = false;
  // Set by the release: the cells are a domain's.
  bool has_domain = false;
  // options {"rows_outside_domain": "drop"}: source rows whose key is not a
  // domain cell are left out (as a key set filters rows), instead of
  // refused. Governed draws always drop them: a refusal after the charge
  // would tell the refresher that such a key exists.
  bool drop_rows_outside_domain = false;

  // What the whole release costs (counts and selection, by basic composition).
  double total_epsilon() const { return epsilon + selection.epsilon; }
  double total_delta() const { return delta + selection.delta; }
  // How far one unit moves the count vector (one record without a unit).
  double l1_sensitivity() const;
  double l2_sensitivity() const;
};

}  // namespace invariant_dp

#include "../invariants/invariant_model.hpp"

namespace invariant_dp {

// The request's margins as column indices of the cells (InvalidArgument for
// an unknown column).
std::vector<Margin> margins_by_index(const CellKeys& cells, const ReleaseRequest& request);

}  // namespace invariant_dp
