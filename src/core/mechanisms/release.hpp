// One private release: cells and true counts in, noisy counts out, with the
// per-cell noise standard deviation and the published noise law.
//
// Output law: y = x + z where z does not depend on x. Integer mechanisms: z
// i.i.d. exact discrete noise. Subspace mechanisms: z = Pi_N e with e i.i.d.
// Gaussian or Laplace, so A y = A x (every declared margin exact up to
// floating round-off) and E[y] = x (Gao, Gong, Yu 2022, arXiv:2108.11527,
// Cor. 4.1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../accuracy/published_law_json.hpp"
#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../random_source.hpp"
#include "release_request.hpp"

namespace invariant_dp {

struct ReleaseResult {
  bool integer_output = false;
  std::vector<double> values;                // real mechanisms, unless written in place
  std::vector<std::int64_t> integer_values;  // integer mechanisms, unless written in place
  // The counts' own memory, when the release wrote its values there
  // (run_release's writable_counts): integers as they are, or reals as
  // float8 in the same 8 bytes a cell. Then values / integer_values are empty.
  std::int64_t* integer_values_in_place = nullptr;
  double* values_in_place = nullptr;
  std::vector<double> noise_sd;              // per cell
  // Partition selection noisy_count: the cells shown (indices into the
  // cells, in order); the values above are theirs only.
  std::vector<std::size_t> shown_cells;
  // The published law, typed, and the metadata it is written in
  // (release_metadata.hpp); metadata_json is that object's text.
  accuracy::PublishedLaw law;
  accuracy::MetadataObject metadata;
  std::string metadata_json;
};

// counts has cells.n_cells() entries, each >= 0. writable_counts: nullptr,
// or counts itself, which the release may then overwrite with its values
// (each count is read just before its cell is written) instead of making an
// array of millions of cells: the integer mechanisms with independent or
// partition noise, and the real ones on a partition or no invariant. The
// other mechanisms leave it alone, as does partition selection noisy_count,
// which releases only the cells whose value reaches its threshold
// (ReleaseResult::shown_cells).
ReleaseResult run_release(const CellKeys& cells, const std::int64_t* counts, const ReleaseRequest& request,
                          RandomSource& rng, const Interrupts& interrupts, std::int64_t* writable_counts = nullptr);

// Real outputs represent counts exactly only up to 2^53.
constexpr std::int64_t kMaxExactRealCount = std::int64_t{1} << 53;

}  // namespace invariant_dp
