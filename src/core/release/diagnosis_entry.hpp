// The core's entry for dp.diagnose, as dp.privatize's: the request checked
// once before the source runs (dp.diagnose's own options, coupled_pairs,
// lag and surrogate_count, taken out; the rest validated as a release's),
// then the chain a release with it would run diagnosed on the cells read
// in (with {"source": "rows"} or a privacy unit, the rows' distinct cells,
// as the release would count them).
#pragma once

#include <vector>

#include "../interrupts.hpp"
#include "../mechanisms/diagnostics.hpp"
#include "../request/release_request.hpp"
#include "../random_source.hpp"
#include "release_input.hpp"

namespace invariant_dp {

struct CheckedDiagnosis {
  ReleaseRequest request;
  DiagnosticsSettings settings;
  // Whether the source returns rows, no count.
  bool source_rows() const { return request.source_rows || request.bounds.active(); }
};

// NullValue for a NULL epsilon (epsilon_given false); InvalidArgument for
// a bad option or request.
CheckedDiagnosis check_diagnosis(RawRequest raw, bool epsilon_given);

std::vector<DiagnosticRecord> diagnose(const CheckedDiagnosis& checked, const ReleaseInput& input, RandomSource& rng,
                                       const Interrupts& interrupts);

}  // namespace invariant_dp
