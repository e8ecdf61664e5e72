// What a mechanism does, behind one interface: each mechanism is one file,
// mechanisms/<name>.cpp, a class deriving from MechanismBehaviour that its
// catalogue row (mechanism.cpp) points at. The shared steps (checking the
// counts, compiling the invariants, the metadata's common fields) stay in
// release.cpp, release_metadata.cpp and diagnostics.cpp; the helpers a
// mechanism calls (conditioned_release.hpp, lattice_release.hpp,
// table_release.hpp, projection_release.hpp, ...) take what differs as
// parameters and never ask which mechanism called them. In the manner of
// google/differential-privacy's numerical-mechanisms.h, one class per
// mechanism.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../accuracy/error_law.hpp"
#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../invariants/invariant_model.hpp"
#include "../random_source.hpp"
#include "diagnostics.hpp"
#include "lattice_release.hpp"
#include "noise_calibration.hpp"
#include "release.hpp"
#include "release_request.hpp"

namespace invariant_dp {

// One draw of run_release: what it reads, and the result, law and sampler
// report it fills.
struct ReleaseDraw {
  const std::int64_t* counts;
  const ReleaseRequest& request;
  const InvariantModel& model;
  RandomSource& rng;
  const Interrupts& interrupts;
  // nullptr, or counts itself, which an exact integer or partition release
  // may overwrite with its values (run_release, release.hpp).
  std::int64_t* writable_counts;
  ReleaseResult& result;
  NoiseLaw& law;  // calibrated; a sampler that recalibrates on the lattice it finds replaces it
  SamplerReport& report;

  // Where an integer release that may write in place writes: the writable
  // counts, or an array of the result's own.
  std::int64_t* integer_destination() const;
  // Where a real release on a partition writes: the writable counts' 8
  // bytes a cell, as float8, or an array of the result's own.
  double* real_destination() const;
};

// A release hook's answer when the per-cell sds (or, without them, the
// unit variance) give the expected total squared error.
constexpr double kErrorFromCellSds = -1;

class MechanismBehaviour {
 public:
  virtual ~MechanismBehaviour() = default;

  // Checks of the values of the options it takes (which options a
  // mechanism takes at all is its catalogue row's: MechanismTraits::options);
  // by default none.
  virtual void check_options(const ReleaseRequest& request) const;

  // The noise law at the request's epsilon, delta and sensitivities, with
  // the guarantee it certifies.
  virtual NoiseLaw calibrate(const ReleaseRequest& request) const = 0;

  // Draws the release into draw.result. Returns the expected total squared
  // error when the path knows it without per-cell sds, else kErrorFromCellSds.
  virtual double release(const ReleaseDraw& draw) const = 0;

  // The published law's mechanism-specific parts (release_metadata.cpp
  // writes the rest): the family of its law, for its error bars
  // (accuracy/error_law.hpp: a mechanism names the law its noise follows,
  // so that error bars are computed from the law, never from the
  // mechanism's name); the privacy statement; the budget's split, as a
  // JSON object for "accounting", or empty; how the cells' noise covaries
  // when margins are declared (structure: the invariant model's;
  // sampler_exact: no chain drew it).
  virtual accuracy::ErrorLaw error_law() const = 0;
  virtual std::string privacy_statement(const ReleaseRequest& request) const;
  virtual std::string accounting_json(const ReleaseRequest& request) const;
  virtual std::string covariance_with_margins(const ReleaseRequest& request, const std::string& structure,
                                              bool sampler_exact) const;

  // dp.diagnose (diagnostics.hpp); by default refused: the noise is drawn
  // exactly, there is no chain.
  virtual std::vector<DiagnosticRecord> diagnose(const CellKeys& cells, const ReleaseRequest& request,
                                                 const DiagnosticsSettings& settings, RandomSource& rng,
                                                 const Interrupts& interrupts) const;
};

// A mechanism calibrated on a hierarchy's tree (cascade, integer_cascade):
// rollups/ release it; a flat release is refused (InvalidArgument).
class TreeCalibratedBehaviour : public MechanismBehaviour {
 public:
  // law: the family of the cascade's noise, which rollups/ publish.
  explicit TreeCalibratedBehaviour(accuracy::ErrorLaw law) : law_(law) {}
  accuracy::ErrorLaw error_law() const override { return law_; }
  NoiseLaw calibrate(const ReleaseRequest& request) const override;
  double release(const ReleaseDraw& draw) const override;

 private:
  accuracy::ErrorLaw law_;
};

}  // namespace invariant_dp
