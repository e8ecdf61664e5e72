// The C entry points of releases over two crossed hierarchies
// (invariant_dp_crossed.h).
#include <cstdlib>
#include <cstring>

#include "../errors.hpp"
#include "../rollups/crossed_release.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_crossed.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

namespace {

void copy_crossed_result(const CrossedReleaseResult& result, idp_crossed_output* output) {
  output->n_row_levels = result.row_level_columns.size();
  output->row_level_columns = malloc_array<uint32_t>(result.row_level_columns);
  output->n_column_levels = result.col_level_columns.size();
  output->column_level_columns = malloc_array<uint32_t>(result.col_level_columns);
  output->n_nodes = result.node_cell.size();
  output->node_cell = malloc_array<uint32_t>(result.node_cell);
  output->row_depth = malloc_array<uint32_t>(result.row_depth);
  output->column_depth = malloc_array<uint32_t>(result.col_depth);
  copy_release_values(result, output);
}

}  // namespace

extern "C" {

idp_status idp_request_is_crossed(const idp_request* request, bool* crossed, idp_error* error) {
  *crossed = false;
  return guarded(error, [&] { *crossed = check_request(request).hierarchy.is_crossed(); });
}

idp_status idp_release_crossed(const idp_request* request, const idp_cells* cells, const idp_randomness* randomness,
                               const idp_interrupts* interrupts, idp_crossed_output* output, idp_error* error) {
  std::memset(output, 0, sizeof *output);
  const idp_status status = guarded(error, [&] {
    const CheckedRequest checked = check_request(request);
    if (!checked.hierarchy.is_crossed()) throw InvalidArgument("idp_release_crossed needs the option \"crossed\"");
    check_columns(checked, strings(cells->n_columns, cells->column_names));
    const Interrupts polling = interrupts_of(interrupts);
    RandomSource& rng = session_random_source(randomness);
    const ReleasedCells released = released_cells(cells, polling);
    const char* const* key_text = cells->has_domain ? cells->domain_keys : cells->source_keys;
    copy_crossed_result(run_crossed_release(*released.keys, released.counts, key_text, checked.release,
                                            checked.hierarchy, checked.budget, rng, polling),
                        output);
  });
  if (status != IDP_OK) idp_free_crossed_output(output);
  return status;
}

void idp_free_crossed_output(idp_crossed_output* output) {
  std::free(output->row_level_columns);
  std::free(output->column_level_columns);
  std::free(output->node_cell);
  std::free(output->row_depth);
  std::free(output->column_depth);
  std::free(output->values);
  std::free(output->integer_values);
  std::free(output->noise_sd);
  std::free(output->metadata_json);
  std::memset(output, 0, sizeof *output);
}

}  // extern "C"
