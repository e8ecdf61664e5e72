// Which pairs of databases are neighbours (docs/mechanisms.md, "Privacy
// semantics"): the relation every sensitivity, calibration and privacy
// statement is stated for. Below the mechanisms and the hierarchies, which
// both calibrate on it.
#pragma once

namespace invariant_dp {

enum class Neighbours {
  ReplaceOne,  // same size, one person's record changed: two cells move by 1
  AddRemove,   // one person added or removed: one cell moves by 1
};

// "replace_one" or "add_remove", as options and metadata spell it.
const char* neighbours_name(Neighbours neighbours);

}  // namespace invariant_dp
