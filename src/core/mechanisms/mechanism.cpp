// The mechanism catalogue: a row per mechanism, pointing at its behaviour.
// Adding a mechanism starts here (docs/design.md, "Adding a mechanism").
#include "mechanism.hpp"

#include <iterator>

#include "../errors.hpp"

namespace invariant_dp {

// Each defined in the mechanism's own file, mechanisms/<name>.cpp.
const MechanismBehaviour& discrete_laplace_behaviour();
const MechanismBehaviour& discrete_gaussian_behaviour();
const MechanismBehaviour& subspace_gaussian_behaviour();
const MechanismBehaviour& subspace_laplace_behaviour();
const MechanismBehaviour& integer_laplace_behaviour();
const MechanismBehaviour& integer_laplace_l2_behaviour();
const MechanismBehaviour& integer_gaussian_behaviour();
const MechanismBehaviour& congenial_behaviour();
const MechanismBehaviour& project_l2_behaviour();
const MechanismBehaviour& project_nn_l2_behaviour();
const MechanismBehaviour& project_nn_integer_behaviour();
const MechanismBehaviour& cascade_behaviour();
const MechanismBehaviour& integer_cascade_behaviour();
const MechanismBehaviour& nonnegative_cascade_behaviour();

namespace {

// Columns: key, name, integer_output, allows_invariants, needs_delta,
// family, non_negative, calibrated_on_tree, behaviour, options.
const MechanismTraits kMechanisms[] = {
    {Mechanism::DiscreteLaplace, "discrete_laplace", true, false, false, Family::None, false, false,
     discrete_laplace_behaviour, ""},
    {Mechanism::DiscreteGaussian, "discrete_gaussian", true, false, true, Family::None, false, false,
     discrete_gaussian_behaviour, ""},
    {Mechanism::SubspaceGaussian, "subspace_gaussian", false, true, true, Family::Conditioning, false, false,
     subspace_gaussian_behaviour, ""},
    {Mechanism::SubspaceLaplace, "subspace_laplace", false, true, false, Family::Projection, false, false,
     subspace_laplace_behaviour, ""},
    {Mechanism::IntegerLaplace, "integer_laplace", true, true, false, Family::Conditioning, false, false,
     integer_laplace_behaviour, "iterations proposal_a sampler"},
    {Mechanism::IntegerLaplaceL2, "integer_laplace_l2", true, true, false, Family::Conditioning, false, false,
     integer_laplace_l2_behaviour, "iterations proposal_a"},
    {Mechanism::IntegerGaussian, "integer_gaussian", true, true, true, Family::Conditioning, false, false,
     integer_gaussian_behaviour, "iterations proposal_a"},
    {Mechanism::Congenial, "congenial", true, true, false, Family::Conditioning, true, false, congenial_behaviour,
     "iterations proposal_a sampler"},
    {Mechanism::ProjectL2, "project_l2", false, true, false, Family::Projection, false, false, project_l2_behaviour,
     ""},
    {Mechanism::ProjectNnL2, "project_nn_l2", false, true, false, Family::Projection, true, false,
     project_nn_l2_behaviour, ""},
    {Mechanism::ProjectNnInteger, "project_nn_integer", true, true, false, Family::Projection, true, false,
     project_nn_integer_behaviour, ""},
    {Mechanism::Cascade, "cascade", false, true, true, Family::Conditioning, false, true, cascade_behaviour,
     "level_variance rho"},
    {Mechanism::IntegerCascade, "integer_cascade", true, true, true, Family::Conditioning, false, true,
     integer_cascade_behaviour, "level_variance rho"},
    {Mechanism::NonnegativeCascade, "nonnegative_cascade", true, true, false, Family::Conditioning, true, true,
     nonnegative_cascade_behaviour, "level_variance"},
};

}  // namespace

const char* family_name(Family family) {
  switch (family) {
    case Family::Conditioning: return "conditioning";
    case Family::Projection: return "projection";
    case Family::None: return "none";
  }
  return "none";
}

MechanismRows mechanism_catalogue() { return {std::begin(kMechanisms), std::end(kMechanisms)}; }

std::string known_mechanism_names() {
  std::string names;
  for (const auto& m : kMechanisms) {
    if (!names.empty()) names += ", ";
    names += m.name;
  }
  return names;
}

const MechanismTraits& mechanism_by_name(const std::string& name) {
  for (const auto& m : kMechanisms)
    if (name == m.name) return m;
  throw InvalidArgument("unknown mechanism \"" + name + "\"",
                        "Known mechanisms: " + known_mechanism_names() + ".");
}

const MechanismTraits& traits_of(Mechanism mechanism) {
  for (const auto& m : kMechanisms)
    if (m.mechanism == mechanism) return m;
  throw std::logic_error("mechanism missing from the table");
}

}  // namespace invariant_dp
