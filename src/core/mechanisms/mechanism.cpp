// The mechanism table. Adding a mechanism starts here.
#include "mechanism.hpp"

#include "../errors.hpp"

namespace invariant_dp {
namespace {

const MechanismTraits kMechanisms[] = {
    {Mechanism::DiscreteLaplace, "discrete_laplace", true, false, false},
    {Mechanism::DiscreteGaussian, "discrete_gaussian", true, false, true},
    {Mechanism::SubspaceGaussian, "subspace_gaussian", false, true, true},
    {Mechanism::SubspaceLaplace, "subspace_laplace", false, true, false},
    {Mechanism::IntegerLaplace, "integer_laplace", true, true, false},
    {Mechanism::IntegerLaplaceL2, "integer_laplace_l2", true, true, false},
    {Mechanism::IntegerGaussian, "integer_gaussian", true, true, true},
};

}  // namespace

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
