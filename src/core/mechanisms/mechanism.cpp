// The mechanism table. Adding a mechanism starts here.
#include "mechanism.hpp"

#include "../errors.hpp"

namespace invariant_dp {
namespace {

const MechanismTraits kMechanisms[] = {
    {Mechanism::DiscreteLaplace, "discrete_laplace", true, false, false, Family::None},
    {Mechanism::DiscreteGaussian, "discrete_gaussian", true, false, true, Family::None},
    {Mechanism::SubspaceGaussian, "subspace_gaussian", false, true, true, Family::Conditioning},
    {Mechanism::SubspaceLaplace, "subspace_laplace", false, true, false, Family::Projection},
    {Mechanism::IntegerLaplace, "integer_laplace", true, true, false, Family::Conditioning},
    {Mechanism::IntegerLaplaceL2, "integer_laplace_l2", true, true, false, Family::Conditioning},
    {Mechanism::IntegerGaussian, "integer_gaussian", true, true, true, Family::Conditioning},
    {Mechanism::Congenial, "congenial", true, true, false, Family::Conditioning},
    {Mechanism::ProjectL2, "project_l2", false, true, false, Family::Projection},
    {Mechanism::ProjectNnL2, "project_nn_l2", false, true, false, Family::Projection},
    {Mechanism::ProjectNnInteger, "project_nn_integer", true, true, false, Family::Projection},
    {Mechanism::Cascade, "cascade", false, true, true, Family::Conditioning},
    {Mechanism::IntegerCascade, "integer_cascade", true, true, true, Family::Conditioning},
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
