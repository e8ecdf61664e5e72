// A governed stream whose privacy unit is not one row (dp.register_stream's
// privacy_unit and bounds): each period's count is the number of rows of
// its units, bounded so that one unit moves the whole stream by a bounded
// amount however many periods it is active in.
//
// Bounding, online. A stream cannot choose a unit's periods at random once
// all are known: a period is published when it arrives. So each unit counts
// in its FIRST G = max_groups_per_unit periods (in period order) in which it
// has rows, with at most R = max_rows_per_group rows in each, and in no later
// period. The rule reads only the unit's own rows, so adding or removing a
// unit changes at most G periods by at most R each, whatever the others do.
//
// A changed past. The rule is applied to the whole source at every append,
// so it stays sound only if the released periods still count the same
// units: were a unit's rows in a released period deleted, its "first G"
// would slide forward and it would count in G + 1 periods over the stream's
// life. The ledger keeps, secretly, a keyed fingerprint of who counted where
// in the released periods (the sum mod 2^64 of SipHash(unit, period, j) over
// each unit's kept rows j < min(rows, R)); an append that finds another
// fingerprint for them is refused before anything is drawn. With the past
// unchanged, every released period's count is the bounded count of the
// current source, so the whole stream is one function of the current data in
// which each unit is kept in at most G periods (DERIVATIONS.md, section 8).
//
// Sensitivity. The stream is a prefix of the depth-horizon cascade over its
// periods; one unit moves at most G of its leaves by at most R each, so by
// the triangle inequality in the Mahalanobis norm its move is at most G R
// single-record moves: add/remove G R leaf increments (each 1 + K/3 at unit
// variance); replace-one G R pairs of a removed and an added record, each a
// move between two leaves ((2K + 2)/3) or, where the two units' bounded row
// counts differ, a lone addition or removal (1 + K/3). So the unit's squared
// sensitivity is (G R)^2 times the larger of the two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/key_rows.hpp"
#include "../keyed_hash.hpp"
#include "../privacy/contribution_bounds.hpp"
#include "../privacy/neighbours.hpp"
#include "../random_source.hpp"

namespace invariant_dp::hierarchy {

// What a stream with a privacy unit keeps between appends, beside its
// cascade state; as secret as the state (the key lets anyone test whether a
// unit counted in a period).
struct UnitLedger {
  SipKey key;
  std::uint64_t fingerprint = 0;  // of the released periods' kept rows

  static UnitLedger fresh(RandomSource& rng);
  std::string serialize() const;
  // InvalidData on anything malformed.
  static UnitLedger deserialize(const std::string& text);
};

struct BoundedPeriods {
  std::vector<std::int64_t> counts;  // per period: kept rows of its units
  std::uint64_t past_fingerprint = 0;  // over periods 0 .. n_past - 1
  std::uint64_t fingerprint = 0;       // over every period
};

// The stream's rows, in any order: row i belongs to unit units[i] (one key
// column, the unit's bytes) and to period period_rank[period_code[i]]
// (period_rank: the period, 0 .. n_periods - 1, of each code of the period
// column's dictionary, in time order). A NULL unit is refused (NullValue,
// 22004).
struct StreamRows {
  KeyRows units;
  const std::uint32_t* period_code = nullptr;
  const std::uint32_t* period_rank = nullptr;
  std::size_t n_period_codes = 0;
  std::size_t n_periods = 0;
};

BoundedPeriods bound_stream_units(const StreamRows& rows, std::size_t n_past, const ContributionBounds& bounds,
                                  const SipKey& key, const Interrupts& interrupts);

// The squared Mahalanobis sensitivity of a stream of horizon K at unit
// variance: one record's (StreamingCascade::unit_sensitivity_squared), or
// with bounds one unit's, as above.
double stream_sensitivity_squared(unsigned horizon, Neighbours neighbours, const ContributionBounds& bounds);

}  // namespace invariant_dp::hierarchy
