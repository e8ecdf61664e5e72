// integer_gaussian where the kept invariants are all (K-1)-way margins of
// complete K-way tables: the row and column totals of two-way tables
// (structure "two_way": one table, or many blocks as in the WiFi cube), or
// the K (K-1)-way margins of complete K-way tables (structure "k_way":
// the three two-way margins of a cube, or of one cube per state);
// InvariantModel::lattice_tables(). Each table's noise is the exact lattice Gaussian on
// its lattice (samplers/kronecker_gaussian.hpp), tables independent. y = x + z
// is integer, keeps every margin exactly, and E[y] = x (the law is
// symmetric). O(cells) time and memory.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../random_source.hpp"
#include "lattice_release.hpp"
#include "noise_calibration.hpp"
#include "release_request.hpp"

namespace invariant_dp {

// The law `gaussian` (integer_gaussian's) for these tables: sigma^2 calibrated on a 2 x ... x 2 sub-table
// of alternating signs (|v|_1 = |v|_2^2 = 2^K), the lattice minimum: a
// nonzero integer array with zero line sums has two nonzero entries on
// every line it meets, so at least 2^K.
NoiseLaw table_gaussian_law(const ReleaseRequest& request, LatticeLaw gaussian,
                            const std::vector<LatticeTable>& tables);

// Whether the exact sampler runs at this law's sigma^2 on every table
// (table_lattice_gaussian_applies); otherwise the caller uses the chain.
bool table_gaussian_applies(const NoiseLaw& law, const std::vector<LatticeTable>& tables);

// Writes noisy = counts + z and the per-cell sd sigma sqrt(prod (1 - 1/n_k))
// (the continuous value; the lattice changes it negligibly for sigma^2 >= 1,
// as for one margin); fills report.
void release_table_gaussian(const std::int64_t* counts, const NoiseLaw& law, const std::vector<LatticeTable>& tables,
                            std::size_t n_cells, RandomSource& rng, const Interrupts& interrupts,
                            std::vector<std::int64_t>& noisy, std::vector<double>& noise_sd, SamplerReport& report);

}  // namespace invariant_dp
