// The cells a release reads, as the core sees them: the source's rows and
// counts, the domain's rows when one is given, each source row's unit with
// a privacy unit. Nothing is copied: keys, codes and counts stay the
// caller's for the length of the release.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../invariants/key_rows.hpp"

namespace invariant_dp {

struct ReleaseInput {
  std::vector<std::string> column_names;  // the key columns, as the source returns them
  KeyRows source;
  const std::int64_t* source_counts = nullptr;  // per source row: its count, or with a privacy unit its rows
  std::optional<KeyRows> domain;                // the public cells: every one is released
  std::optional<KeyRows> units;                 // with a privacy unit: each source row's unit (one column)
  // source_counts itself when the caller lets the release write its values
  // over them (nothing reads the counts after), else nullptr.
  std::int64_t* writable_counts = nullptr;
};

}  // namespace invariant_dp
