// The noise law published with a release (docs/mechanisms.md, "Privacy semantics"):
// enough for an analyst to compute the error of any sum of released cells
// (Var(w . y) = unit_variance * w^T Pi_N w) and for an auditor to check the
// privacy claim. JSON text; the shim returns it as jsonb.
#pragma once

#include <string>
#include <vector>

#include "../accuracy/published_law_json.hpp"
#include "../invariants/cell_keys.hpp"
#include "../invariants/invariant_model.hpp"
#include "lattice_release.hpp"
#include "noise_calibration.hpp"
#include "release_request.hpp"

namespace invariant_dp {

// Whom the guarantee protects, in words: "databases that differ ...", one
// record or every row of one privacy unit within its bounds.
std::string neighbours_text(const ReleaseRequest& request);

// The privacy statement of a mechanism whose guarantee is its base noise's:
// whom it protects, the margins it discloses, and what a projection leaves
// out (MechanismBehaviour::privacy_statement's default).
std::string invariant_privacy_statement(const ReleaseRequest& request);

// The covariance sentences more than one mechanism publishes with margins:
// conditioned noise on one partition (integer_laplace, integer_gaussian),
// integer noise on the lattice of general margins (estimated for the
// Laplace laws, certified bounds for the Gaussian), and real noise
// projected onto the null space (the default).
extern const char* const kPartitionCovariance;
extern const char* const kLatticeCovariance;
extern const char* const kLatticeGaussianCovariance;
// Complete tables (structures two_way and k_way) of a law invariant under
// permuting each axis's levels: c * Pi_N per table.
extern const char* const kTableCovariance;
extern const char* const kSubspaceCovariance;

// The metadata's "privacy_unit" value: null, or the unit and its bounds.
std::string privacy_unit_json(const ReleaseRequest& request);

// A flat release's published law, typed (accuracy/published_law.hpp), and
// its metadata object, whose noise, invariants and sampler are that law
// written once (accuracy/published_law_json.hpp).
struct ReleaseMetadata {
  accuracy::PublishedLaw law;
  accuracy::MetadataObject fields;
};

// n_cells: the cells released (with partition selection noisy_count, those
// shown, fewer than the model's); expected_total_squared_error: the sum of
// their noise variances; model nullptr when partition selection showed no
// cell.
ReleaseMetadata release_metadata(const ReleaseRequest& request, const NoiseLaw& law, const InvariantModel* model,
                                 std::size_t n_cells, double expected_total_squared_error,
                                 const SamplerReport& sampler);
// Its text.
std::string release_metadata_json(const ReleaseRequest& request, const NoiseLaw& law, const InvariantModel* model,
                                  std::size_t n_cells, double expected_total_squared_error,
                                  const SamplerReport& sampler);

}  // namespace invariant_dp
