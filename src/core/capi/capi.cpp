// The C entry points of the per-group functions and of dp.diagnose. Each
// converts plain buffers to core types, makes one call into the core's
// entry (release/aggregate_entries.hpp, release/diagnosis_entry.hpp), and
// copies results back, all inside guarded().
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "../release/aggregate_entries.hpp"
#include "../release/diagnosis_entry.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_core.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

struct idp_prepared_diagnosis {
  CheckedDiagnosis checked;
};

extern "C" {

idp_status idp_noisy_count(int64_t count, const idp_request* request, const idp_randomness* randomness,
                           int64_t* noisy, idp_error* error) {
  return guarded(error, [&] { *noisy = noisy_count(count, raw_request(request), session_random_source(randomness)); });
}

idp_status idp_total_preserving(const int64_t* counts, size_t n, double epsilon, const idp_randomness* randomness,
                                const idp_interrupts* interrupts, int64_t* noisy, idp_error* error) {
  return guarded(error, [&] {
    total_preserving_counts(counts, n, epsilon, session_random_source(randomness), interrupts_of(interrupts), noisy);
  });
}

idp_status idp_prepare_diagnosis(const idp_request* request, idp_prepared_diagnosis** prepared,
                                 bool* source_rows, idp_error* error) {
  *prepared = nullptr;
  return guarded(error, [&] {
    auto out = std::make_unique<idp_prepared_diagnosis>();
    out->checked = check_diagnosis(raw_request(request), !request->epsilon_is_null);
    *source_rows = out->checked.source_rows();
    *prepared = out.release();
  });
}

void idp_free_prepared_diagnosis(idp_prepared_diagnosis* prepared) { delete prepared; }

idp_status idp_diagnose(const idp_prepared_diagnosis* prepared, const idp_cells* cells,
                        const idp_randomness* randomness, const idp_interrupts* interrupts, idp_diagnostic_row** rows,
                        size_t* n_rows, idp_error* error) {
  *rows = nullptr;
  *n_rows = 0;
  return guarded(error, [&] {
    const CellTables tables(cells);
    const std::vector<DiagnosticRecord> records = diagnose(prepared->checked, release_input(cells, tables),
                                                           session_random_source(randomness), interrupts_of(interrupts));
    auto* out = static_cast<idp_diagnostic_row*>(std::calloc(std::max<std::size_t>(records.size(), 1),
                                                             sizeof(idp_diagnostic_row)));
    if (out == nullptr) throw std::bad_alloc();
    for (std::size_t i = 0; i < records.size(); ++i) {
      std::snprintf(out[i].metric, sizeof out[i].metric, "%s", records[i].metric.c_str());
      out[i].has_iteration = records[i].iteration >= 0;
      out[i].iteration = records[i].iteration;
      out[i].value = records[i].value;
    }
    *rows = out;
    *n_rows = records.size();
  });
}

void idp_free(void* pointer) { std::free(pointer); }

}  // extern "C"
